# port-overflows: written by etm-whatif from port-overflows.dat; gnuplot port-overflows.gp makes port-overflows.png and port-overflows.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'port-overflows.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set xlabel 'port capacity (bytes per core cycle)'
set ylabel 'FIFO overflows'
set title 'Overflows against the trace port''s clock'
set yrange [0:*]
set logscale x 2
plot for [i=2:11] 'port-overflows.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'port-overflows.svg'
replot
