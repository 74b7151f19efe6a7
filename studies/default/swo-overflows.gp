# swo-overflows: written by etm-whatif from swo-overflows.dat; gnuplot swo-overflows.gp makes swo-overflows.png and swo-overflows.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'swo-overflows.png'
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
set rmargin 29
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set title 'Trace over SWO: the core held, or trace lost'
set yrange [0:*]
set ylabel 'FIFO overflows'
plot for [i=2:13] 'swo-overflows.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'swo-overflows.svg'
replot
