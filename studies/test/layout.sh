#!/bin/sh
# Test whatif.layout: run test/layout.study (long labels, many categories) and
# check the layout of every plot's script with check-layout.awk: margins and the
# turn of the x tic labels sized from the labels, so that no text runs into
# other text, and short labels left level. Then the checker must catch a broken
# layout.
#   layout.sh ETM_WHATIF STUDIES_DIR WORKLOAD_DIR OUT_DIR
set -eu
whatif=$1 studies=$2 wl=$3 out=$4
check="$studies/test/check-layout.awk"
rm -rf "$out"
mkdir -p "$out"
# The study's programs: fnptr under long names.
for i in 1 2 3 4 5 6; do
    ln -s "$wl/fnptr.elf" "$out/fnptr-under-a-long-name-$i.elf"
done
# The area sweep's table: many configurations with long names.
{
    echo "configuration cells flops seconds parameters"
    for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14; do
        echo "etmv34-cycle-accurate-fifo64-port1-variant-$i 77189 828 512 ETMCR=0x1810"
    done
} > "$out/area-area.txt"
cd "$out"
"$whatif" "$studies/test/layout.study" -o . --quiet

n=0
for gp in *.gp; do
    awk -v dat="${gp%.gp}.dat" -f "$check" "$gp" || { echo "layout.sh: $gp breaks the layout (above)"; exit 1; }
    n=$((n + 1))
done
[ "$n" -eq 6 ] || { echo "layout.sh: $n plots, not 6"; exit 1; }
# Long labels are turned, short ones level; 48 bars widen the canvas; the
# reference labels say which port.
turned() { grep -q '^set xtics rotate by' "$1"; }
turned long-packets.gp || { echo "layout.sh: long-packets.gp: labels not turned"; exit 1; }
turned long-bits_per_insn.gp || { echo "layout.sh: long-bits_per_insn.gp: labels not turned"; exit 1; }
if turned short-bits_per_insn.gp; then
    echo "layout.sh: short-bits_per_insn.gp: short labels turned"; exit 1
fi
awk '/^set terminal pngcairo size / { split($5, wh, ","); wide = wh[1] > 1100 } END { exit !wide }' many-packets.gp ||
    { echo "layout.sh: many-packets.gp: the canvas is not wider"; exit 1; }
grep -q "^set label '2:quarter port (0.5)'" rate-rate.gp ||
    { echo "layout.sh: rate-rate.gp: no label for 2:quarter"; exit 1; }

# broken WHAT RULE SED: the long-packets script broken by SED (WHAT) must fail
# the checker, which must name RULE.
broken() {
    sed "$3" long-packets.gp > broken.gp
    if awk -v dat=long-packets.dat -f "$check" broken.gp > broken.log; then
        echo "layout.sh: the checker missed $1"; exit 1
    fi
    grep -q ": $2: " broken.log || { echo "layout.sh: $1 reported as:"; cat broken.log; exit 1; }
}
broken "labels turned too little" tics-turned 's/^set xtics rotate by -[0-9]*/set xtics rotate by -5/'
broken "no bottom margin" tics-turned '/^set bmargin/d'
broken "a narrow key margin" key-margin 's/^set rmargin .*/set rmargin 12/'
broken "level labels" tics-level '/^set xtics rotate/d'
echo "layout.sh: $n plots laid out, and 4 broken layouts were caught"
