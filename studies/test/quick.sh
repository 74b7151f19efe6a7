#!/bin/sh
# Test whatif.quick: run studies/quick.study, check that the report and its plots
# are there and that the figures are sensible (check-sense.awk); then break the
# figures one way at a time and check that the checker names the broken rule.
#   quick.sh ETM_WHATIF STUDIES_DIR OUT_DIR
set -eu
whatif=$1 studies=$2 out=$3
check="$studies/check-sense.awk"
rm -rf "$out"
# The area sweep reads the Yosys table kept with the default study (synthesis
# itself takes minutes: scripts/yosys-area).
mkdir -p "$out"
cp "$studies/default/area-area.txt" "$out/area-area.txt"
"$whatif" "$studies/quick.study" -o "$out" --quiet
for f in report.md results.csv modes-bits_per_insn.png modes-bits_per_insn.svg modes-packets.png \
         rate-rate.svg port-overflows.png fifo-overflows.png fifo-overflows.svg stall-held_pct.png \
         timing-cpi.png issue-bits_per_insn.png area-area.png area-area.svg area-area.dat \
         pins-overflows.png pins_fifo-overflows-knee.png pins_fifo-overflows-knee.svg atb-fmt_bits_per_insn.png; do
    [ -s "$out/$f" ] || { echo "quick.sh: $out/$f is missing or empty"; exit 1; }
done
grep -q '^| fnptr | ' "$out/report.md" || { echo "quick.sh: report.md has no table row for fnptr"; exit 1; }
grep -q '^Knee (the smallest FIFO_DEPTH' "$out/report.md" || { echo "quick.sh: report.md has no knee"; exit 1; }
# The FIFO-depth x pins table: a row per workload, a column per pin count, and
# its cells where the CSV says overflows stop (checked against the CSV here).
grep -q '^| workload | tpiu=1 | tpiu=4 |' "$out/report.md" || { echo "quick.sh: report.md has no FIFO x pins table"; exit 1; }
awk -F, -v rep="$out/report.md" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["sweep"] == "pins_fifo" { p = $c["tpiu"] + 0; d = $c["fifo_depth"] + 0; w = $c["workload"]
        ovf[w, p, d] = $c["overflows"] + 0; ws[w] = 1; ds[d] = 1 }
    END {
        n = 0; for (d in ds) dl[++n] = d + 0
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (dl[j] < dl[i]) { t = dl[i]; dl[i] = dl[j]; dl[j] = t }
        for (w in ws) {
            row = "| " w
            for (pi = 1; pi <= 2; pi++) {
                p = pi == 1 ? 1 : 4; k = n
                while (k > 0 && ovf[w, p, dl[k]] == 0) k--
                row = row " | " (k < n ? dl[k + 1] : "> " dl[n])
            }
            row = row " |"
            found = 0
            while ((getline l < rep) > 0) if (l == row) found = 1
            close(rep)
            if (!found) { print "quick.sh: report.md lacks the knee row " row; bad = 1 }
        }
        exit bad }' "$out/results.csv"
awk -f "$check" "$out/results.csv"

# The area table: every row of the script's output in the report and the plot's
# data, and the figures sensible (flip-flops fewer than cells, a smaller FIFO
# smaller in both).
awk -v rep="$out/report.md" -v dat="$out/area-area.dat" '
    FNR == 1 { next }
    { n++; name[n] = $1; cells[$1] = $2; flops[$1] = $3
      want = "| " $1 " | " $2 " | " $3 " | "
      found = 0
      while ((getline l < rep) > 0) if (index(l, want) == 1) found = 1
      close(rep)
      if (!found) { print "quick.sh: report.md lacks the area row " want; bad = 1 }
      found = 0
      while ((getline l < dat) > 0) if (l == "\"" $1 "\" " $2 " " $3) found = 1
      close(dat)
      if (!found) { print "quick.sh: area-area.dat lacks " $1; bad = 1 }
      if ($3 + 0 <= 0 || $3 + 0 >= $2 + 0) { print "quick.sh: area row " $1 ": flip-flops not below cells"; bad = 1 } }
    END {
      if (n < 6) { print "quick.sh: the area table has " n " rows"; bad = 1 }
      a = "etm-m3"; b = "v34-fifo64-port1"  # the ETM-M3 with its 24-byte FIFO and with 64 bytes
      if (!(a in cells) || !(b in cells) || cells[a] >= cells[b] || flops[a] >= flops[b]) {
        print "quick.sh: the 24-byte FIFO is not smaller than the 64-byte one"; bad = 1 }
      exit bad }' "$out/area-area.txt"

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
mutant pins-monotonic    '$c["sweep"] == "pins" && $c["tpiu"] == "4:1"'       '$c["overflows"] = 999999'
mutant ca-costs          '$c["sweep"] == "modes" && $c["config"] == "v3.4 CA"' '$c["bits_per_insn"] = 0.5'
mutant port-capacity     '$c["sweep"] == "port" && $c["port"] == "1:quarter"' '$c["port_bytes"] = $c["port_cycles"]; $c["bytes"] = $c["port_cycles"]'
mutant bytes-conserved   '$c["sweep"] == "port" && $c["port"] == "1:full"'    '$c["port_bytes"] = $c["bytes"] - 1'
mutant stall-no-overflow '$c["sweep"] == "stall" && $c["stall"] == 24'        '$c["overflows"] = 3'
mutant held-needs-stall  '$c["sweep"] == "fifo" && $c["fifo_depth"] == 64'    '$c["held"] = 5'
mutant same-program      '$c["sweep"] == "rate" && $c["workload"] == "fnptr"' '$c["instructions"] = $c["instructions"] + 1'
mutant lost-needs-overflow '$c["sweep"] == "fifo" && $c["fifo_depth"] == 24'  '$c["cycles_lost"] = 0'
echo "quick.sh: the figures are sensible, and 10 broken ones were caught"
