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
echo "matches-systemc.sh: sc_system and etm-whatif agree on 10 runs"
cat "$out/systemc-0.txt" "$out/systemc-24.txt"
