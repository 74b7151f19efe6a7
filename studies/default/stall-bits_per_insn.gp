# stall-bits_per_insn: written by etm-whatif from stall-bits_per_insn.dat; gnuplot stall-bits_per_insn.gp makes stall-bits_per_insn.png and stall-bits_per_insn.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'stall-bits_per_insn.png'
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
set ylabel 'bits per instruction'
set title 'FIFOFULL: holding the core instead of losing trace'
plot for [i=2:4] 'stall-bits_per_insn.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'stall-bits_per_insn.svg'
replot
