# Precision and recall of simhash against the Hamming radius k (after Manku et al., Figure 1).
# gnuplot -e "data='DIR/'; out='FILE.png'" simhash_pr.gp   (data files written by report.py)
set terminal pngcairo size 900,620 font ",11" noenhanced
set output out
set title "simhash: pairwise precision and recall vs Hamming radius k"
set xlabel "k (bits)"
set ylabel "precision / recall"
set xrange [0:20]
set yrange [0:1.02]
set xtics 1
set grid
set key below horizontal maxrows 3
plot data.'simhash_word_2_tf_default.dat' u 1:2 w lp lw 2 pt 7 lc rgb "#1f77b4" t "word 2 tf (default): precision", \
     data.'simhash_word_2_tf_default.dat' u 1:3 w lp lw 2 pt 5 lc rgb "#1f77b4" dt 2 t "word 2 tf (default): recall", \
     data.'simhash_char_7_tf.dat' u 1:2 w lp lw 2 pt 7 lc rgb "#d62728" t "char 7 tf: precision", \
     data.'simhash_char_7_tf.dat' u 1:3 w lp lw 2 pt 5 lc rgb "#d62728" dt 2 t "char 7 tf: recall", \
     data.'simhash_word_3_set.dat' u 1:2 w lp lw 1 pt 6 lc rgb "#2ca02c" t "word 3 set: precision", \
     data.'simhash_word_3_set.dat' u 1:3 w lp lw 1 pt 4 lc rgb "#2ca02c" dt 2 t "word 3 set: recall"
