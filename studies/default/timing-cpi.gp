# timing-cpi: written by etm-whatif from timing-cpi.dat; gnuplot timing-cpi.gp makes timing-cpi.png and timing-cpi.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'timing-cpi.png'
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
set ylabel 'core cycles per instruction'
set title 'The Cortex-M3 timing model''s parameters'
plot for [i=2:8] 'timing-cpi.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'timing-cpi.svg'
replot
