# issue-packets: written by etm-whatif from issue-packets.dat; gnuplot issue-packets.gp makes issue-packets.png and issue-packets.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'issue-packets.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.75
set yrange [0:100]
set ylabel 'packets (%)'
set xtics rotate by -40
set title 'Dual issue (random stimulus)'
plot for [i=2:12] 'issue-packets.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'issue-packets.svg'
replot
