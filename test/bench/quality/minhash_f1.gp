# Pairwise F1 of the resemblance methods against their threshold.
# gnuplot -e "data='DIR/'; out='FILE.png'" minhash_f1.gp
set terminal pngcairo size 900,620 font ",11" noenhanced
set output out
set title "resemblance methods: pairwise F1 vs threshold t"
set xlabel "threshold t (estimated or exact word 3-shingle Jaccard)"
set ylabel "F1"
set xrange [0.05:1]
set yrange [0:1.02]
set grid
set key bottom left
plot data.'exact_jaccard_word_3.dat' u 1:4 w lp lw 3 pt 7 lc rgb "black" t "exact Jaccard (shingle_set)", \
     data.'minhash_oph_k_128_default.dat' u 1:4 w lp lw 2 pt 5 t "minhash oph k=128 (default)", \
     data.'minhash_kperm_k_128.dat' u 1:4 w lp lw 2 pt 9 t "minhash kperm k=128", \
     data.'minhash_oph_k_128_b_8.dat' u 1:4 w lp lw 2 pt 11 t "minhash oph k=128, b=8", \
     data.'hybrid_simhash_16_minhash.dat' u 1:4 w lp lw 2 pt 13 t "hybrid: simhash k<=16, then minhash", \
     data.'hybrid_simhash_char7_16_minhash.dat' u 1:4 w lp lw 2 pt 15 t "hybrid: char7 simhash k<=16, then minhash"
