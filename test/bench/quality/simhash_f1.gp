# Pairwise F1 of every simhash feature choice against the Hamming radius k.
# gnuplot -e "data='DIR/'; out='FILE.png'" simhash_f1.gp
set terminal pngcairo size 900,620 font ",11" noenhanced
set output out
set title "simhash: pairwise F1 vs Hamming radius k, by features"
set xlabel "k (bits)"
set ylabel "F1"
set xrange [0:20]
set yrange [0:1]
set xtics 1
set grid
set key below horizontal maxrows 4
plot for [f in "word_1_tf word_1_set word_2_tf_default word_2_set word_3_tf word_3_set char_5_tf char_5_set char_7_tf char_7_set tsvector_english"] \
     data.'simhash_'.f.'.dat' u 1:4 w lp lw 2 t f
