# fifo-lost_pct: written by etm-whatif from fifo-lost_pct.dat; gnuplot fifo-lost_pct.gp makes fifo-lost_pct.png and fifo-lost_pct.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'fifo-lost_pct.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set xlabel 'FIFO depth (bytes)'
set ylabel 'trace bytes lost to overflows (%)'
set title 'Overflows against FIFO depth (the knee)'
set yrange [0:*]
set logscale x 2
plot for [i=2:11] 'fifo-lost_pct.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'fifo-lost_pct.svg'
replot
