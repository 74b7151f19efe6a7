# modes-bits_per_insn: written by etm-whatif from modes-bits_per_insn.dat; gnuplot modes-bits_per_insn.gp makes modes-bits_per_insn.png and modes-bits_per_insn.svg
set terminal pngcairo size 1100,560 font 'sans,10' noenhanced
set output 'modes-bits_per_insn.png'
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
set title 'Trace cost by ETM version, cycle accuracy and branch broadcast'
plot for [i=2:9] 'modes-bits_per_insn.dat' using i:xtic(1) title columnheader(i)
set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced
set output 'modes-bits_per_insn.svg'
replot
