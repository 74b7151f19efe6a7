# timing-bytes_per_cycle: written by etm-whatif from timing-bytes_per_cycle.dat; gnuplot timing-bytes_per_cycle.gp makes timing-bytes_per_cycle.png and timing-bytes_per_cycle.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'timing-bytes_per_cycle.png'
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
set ylabel 'trace bytes per core cycle'
set title 'The Cortex-M3 timing model''s parameters'
plot for [i=2:8] 'timing-bytes_per_cycle.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'timing-bytes_per_cycle.svg'
replot
