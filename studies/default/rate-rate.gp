# rate-rate: written by etm-whatif from rate-rate.dat; gnuplot rate-rate.gp makes rate-rate.png and rate-rate.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'rate-rate.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set linetype 1 lc rgb '#1f77b4'
set linetype 2 lc rgb '#ff7f0e'
set linetype 3 lc rgb '#2ca02c'
set linetype 4 lc rgb '#d62728'
set linetype 5 lc rgb '#9467bd'
set linetype 6 lc rgb '#8c564b'
set linetype 7 lc rgb '#e377c2'
set linetype 8 lc rgb '#7f7f7f'
set linetype 9 lc rgb '#bcbd22'
set linetype 10 lc rgb '#17becf'
set linetype 11 lc rgb '#000000'
set linetype 12 lc rgb '#aec7e8'
set linetype 13 lc rgb '#ffbb78'
set linetype 14 lc rgb '#98df8a'
set linetype 15 lc rgb '#ff9896'
set linetype 16 lc rgb '#c5b0d5'
set linetype cycle 16
set rmargin 22
set key outside top center horizontal
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set title 'Trace bytes per cycle against port capacity'
set ylabel 'trace bytes per core cycle'
set yrange [0:1.08]
set arrow from graph 0, first 0.25 to graph 1, first 0.25 nohead dt 2 lw 1.5 lc rgb '#444444'
set label '1:quarter port (0.25)' at graph 1.01, first 0.25 left textcolor rgb '#444444'
set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2 lw 1.5 lc rgb '#444444'
set label '1:half port (0.5)' at graph 1.01, first 0.5 left textcolor rgb '#444444'
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444'
set label '1:full port (1)' at graph 1.01, first 1 left textcolor rgb '#444444'

plot for [i=2:5] 'rate-rate.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'rate-rate.svg'
replot
