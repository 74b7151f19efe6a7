# fifo-overflows: written by etm-whatif from fifo-overflows.dat; gnuplot fifo-overflows.gp makes fifo-overflows.png and fifo-overflows.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'fifo-overflows.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set xlabel 'FIFO depth (bytes)'
set ylabel 'FIFO overflows'
set title 'Overflows against FIFO depth (the knee)'
set yrange [0:*]
set logscale x 2
plot for [i=2:11] 'fifo-overflows.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'fifo-overflows.svg'
replot
