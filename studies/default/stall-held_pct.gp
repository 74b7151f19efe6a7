# stall-held_pct: written by etm-whatif from stall-held_pct.dat; gnuplot stall-held_pct.gp makes stall-held_pct.png and stall-held_pct.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'stall-held_pct.png'
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
set ylabel 'core cycles held on FIFOFULL (% of the unheld run)'
set title 'FIFOFULL: holding the core instead of losing trace'
plot for [i=2:4] 'stall-held_pct.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'stall-held_pct.svg'
replot
