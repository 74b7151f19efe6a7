# issue-bits_per_insn: written by etm-whatif from issue-bits_per_insn.dat; gnuplot issue-bits_per_insn.gp makes issue-bits_per_insn.png and issue-bits_per_insn.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'issue-bits_per_insn.png'
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
set title 'Dual issue (random stimulus)'
plot for [i=2:5] 'issue-bits_per_insn.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'issue-bits_per_insn.svg'
replot
