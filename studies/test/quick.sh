#!/bin/sh
# Test whatif.quick: run studies/quick.study, check that the report and its plots
# are there and that the figures are sensible (check-sense.awk); then break the
# figures one way at a time and check that the checker names the broken rule.
#   quick.sh ETM_WHATIF STUDIES_DIR OUT_DIR
set -eu
whatif=$1 studies=$2 out=$3
check="$studies/check-sense.awk"
rm -rf "$out"
"$whatif" "$studies/quick.study" -o "$out" --quiet
for f in report.md results.csv modes-bits_per_insn.png modes-bits_per_insn.svg modes-packets.png \
         rate-rate.svg port-overflows.png fifo-overflows.png fifo-overflows.svg stall-held_pct.png \
         timing-cpi.png issue-bits_per_insn.png; do
    [ -s "$out/$f" ] || { echo "quick.sh: $out/$f is missing or empty"; exit 1; }
done
grep -q '^| fnptr | ' "$out/report.md" || { echo "quick.sh: report.md has no table row for fnptr"; exit 1; }
grep -q '^Knee (the smallest FIFO_DEPTH' "$out/report.md" || { echo "quick.sh: report.md has no knee"; exit 1; }
awk -f "$check" "$out/results.csv"

# mutant RULE CONDITION ASSIGNMENT: rows matching CONDITION get ASSIGNMENT (awk,
# columns by name through c["name"]); the checker must fail naming RULE.
mutant() {
    awk -F, -v OFS=, "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; print; next }
                      $2 { $3 } { print }" "$out/results.csv" > "$out/mutant.csv"
    if awk -f "$check" "$out/mutant.csv" > "$out/mutant.log"; then
        echo "quick.sh: the checker missed a broken $1 rule"; exit 1
    fi
    grep -q ": $1: " "$out/mutant.log" || { echo "quick.sh: mutant for $1 reported as:"; cat "$out/mutant.log"; exit 1; }
}
mutant fifo-monotonic    '$c["sweep"] == "fifo" && $c["fifo_depth"] == 256'   '$c["overflows"] = 999999'
mutant port-monotonic    '$c["sweep"] == "port" && $c["port"] == "1:ddr"'     '$c["overflows"] = 999999'
mutant ca-costs          '$c["sweep"] == "modes" && $c["config"] == "v3.4 CA"' '$c["bits_per_insn"] = 0.5'
mutant port-capacity     '$c["sweep"] == "port" && $c["port"] == "1:quarter"' '$c["port_bytes"] = $c["port_cycles"]; $c["bytes"] = $c["port_cycles"]'
mutant bytes-conserved   '$c["sweep"] == "port" && $c["port"] == "1:full"'    '$c["port_bytes"] = $c["bytes"] - 1'
mutant stall-no-overflow '$c["sweep"] == "stall" && $c["stall"] == 24'        '$c["overflows"] = 3'
mutant held-needs-stall  '$c["sweep"] == "fifo" && $c["fifo_depth"] == 64'    '$c["held"] = 5'
mutant same-program      '$c["sweep"] == "rate" && $c["workload"] == "fnptr"' '$c["instructions"] = $c["instructions"] + 1'
echo "quick.sh: the figures are sensible, and 8 broken ones were caught"
