# atb-lost_cycles_pct: written by etm-whatif from atb-lost_cycles_pct.dat; gnuplot atb-lost_cycles_pct.gp makes atb-lost_cycles_pct.png and atb-lost_cycles_pct.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'atb-lost_cycles_pct.png'
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
set rmargin 20
set xlabel 'ATREADY low (% of the cycles)'
set ylabel 'core cycles whose trace was lost to overflows (%)'
set title 'The cost of ATB back-pressure'

set yrange [0:*]
plot for [i=2:11] 'atb-lost_cycles_pct.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'atb-lost_cycles_pct.svg'
replot
