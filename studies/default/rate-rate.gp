# rate-rate: written by etm-whatif from rate-rate.dat; gnuplot rate-rate.gp makes rate-rate.png and rate-rate.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'rate-rate.png'
set grid ytics
set key outside right top vertical
set border 3
set xtics nomirror
set ytics nomirror
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel 'trace bytes per core cycle'
set title 'Trace bytes per cycle against port capacity'
set key outside top center horizontal
set yrange [0:1.08]
set rmargin 14
set arrow from graph 0, first 0.25 to graph 1, first 0.25 nohead dt 2 lw 1.5 lc rgb '#444444'
set label 'port 1:quarter: 0.25' at graph 1.01, first 0.25 left textcolor rgb '#444444'
set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2 lw 1.5 lc rgb '#444444'
set label 'port 1:half: 0.5' at graph 1.01, first 0.5 left textcolor rgb '#444444'
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#444444'
set label 'port 1:full: 1' at graph 1.01, first 1 left textcolor rgb '#444444'

plot for [i=2:5] 'rate-rate.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'rate-rate.svg'
replot
