# fifo_full-overflows: written by etm-whatif from fifo_full-overflows.dat; gnuplot fifo_full-overflows.gp makes fifo_full-overflows.png and fifo_full-overflows.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'fifo_full-overflows.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set xlabel 'FIFO depth (bytes)'
set ylabel 'FIFO overflows'
set title 'Overflows against FIFO depth, port at the core rate'
set yrange [0:*]
set logscale x 2
plot for [i=2:11] 'fifo_full-overflows.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'fifo_full-overflows.svg'
replot
