# modes-overflows: written by etm-whatif from modes-overflows.dat; gnuplot modes-overflows.gp makes modes-overflows.png and modes-overflows.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'modes-overflows.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set yrange [0:*]
set ylabel 'FIFO overflows'
set title 'Trace cost by ETM version, cycle accuracy and branch broadcast'
plot for [i=2:9] 'modes-overflows.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'modes-overflows.svg'
replot
