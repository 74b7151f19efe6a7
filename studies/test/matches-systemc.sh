#!/bin/sh
# Test whatif.matches_systemc: the what-if tool counts an external port's edges
# with arithmetic; sc_system has real SystemC clocks (docs/systemc.md). On the
# same program (a 32-byte FIFO), for five port clocks, without and with FIFOFULL holding the
# core, both must give the same figures: cycles, held cycles, bytes, overflows,
# bytes lost, FIFOFULL cycles, atoms.
#   matches-systemc.sh SC_SYSTEM ETM_WHATIF RECORDS PROGRAM OUT_DIR
set -eu
sc=$1 whatif=$2 rec=$3 prog=$4 out=$5
mkdir -p "$out"
ports="1:quarter 1:half 1:full 1:ddr 2:half-ddr"
for stall in 0 24; do
    args="" ; for p in $ports; do args="$args --port $p"; done
    [ "$stall" = 0 ] || args="$args --stall $stall"
    # shellcheck disable=SC2086
    SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sc" --records "$rec" --preset cm3-ca-whatif --set ETMCR=0x1810 --set FIFO_DEPTH=0x20 $args --quiet |
        sed -n 's/^summary sys[0-9]* /summary /p' > "$out/systemc-$stall.txt"
    : > "$out/whatif-$stall.txt"
    for p in $ports; do
        "$whatif" run "$prog" preset=cm3-ca-whatif ETMCR=0x1810 FIFO_DEPTH=32 port="$p" stall="$stall" | grep '^summary ' >> "$out/whatif-$stall.txt"
    done
    if ! diff "$out/systemc-$stall.txt" "$out/whatif-$stall.txt"; then
        echo "matches-systemc.sh: sc_system (<) and etm-whatif (>) differ, stall=$stall"
        exit 1
    fi
    [ "$(wc -l < "$out/whatif-$stall.txt")" = 5 ] || { echo "matches-systemc.sh: expected 5 summaries"; exit 1; }
done
grep -q ' overflows=[1-9]' "$out/systemc-0.txt" || { echo "matches-systemc.sh: no port overflowed"; exit 1; }
grep -q ' held=[1-9]' "$out/systemc-24.txt" || { echo "matches-systemc.sh: no core was held"; exit 1; }
# The TPIU on the ETM-M3's own ATB (tpiu_loop's back-pressure in both): the
# figures both print, per pin count and TRACECLK divider.
pick='s/.* cycles=\([0-9]*\).* instructions=\([0-9]*\) bytes=\([0-9]*\).* overflows=\([0-9]*\).* atoms=\([0-9]*\).*/cycles=\1 instructions=\2 bytes=\3 overflows=\4 atoms=\5/p'
tpius="1 2 4 2:2"
args=""; for t in $tpius; do args="$args --tpiu $t"; done
# shellcheck disable=SC2086
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$sc" --records "$rec" --preset etm-m3 --set ETMCR=0x810 --set ETMTRACEIDR=0x10 $args --quiet |
    sed -n "$pick" > "$out/systemc-tpiu.txt"
: > "$out/whatif-tpiu.txt"
for t in $tpius; do
    "$whatif" run "$prog" preset=etm-m3 ETMCR=0x810 tpiu="$t" | sed -n "$pick" >> "$out/whatif-tpiu.txt"
done
if ! diff "$out/systemc-tpiu.txt" "$out/whatif-tpiu.txt"; then
    echo "matches-systemc.sh: sc_system (<) and etm-whatif (>) differ with a TPIU"
    exit 1
fi
[ "$(wc -l < "$out/whatif-tpiu.txt")" = 4 ] || { echo "matches-systemc.sh: expected 4 TPIU summaries"; exit 1; }
grep -q ' overflows=[1-9]' "$out/systemc-tpiu.txt" || { echo "matches-systemc.sh: no TPIU run overflowed"; exit 1; }
echo "matches-systemc.sh: sc_system and etm-whatif agree on 14 runs"
cat "$out/systemc-tpiu.txt"
cat "$out/systemc-0.txt" "$out/systemc-24.txt"
