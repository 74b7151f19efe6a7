# check-sense.awk - are a study's figures sensible? Reads the results.csv that
# etm-whatif writes, by column name, and prints FILE:LINE: RULE: what, for each
# row that breaks a rule. Exit status 1 when any does, 2 when a column is missing.
# Written apart from the tool, on purpose: it knows only the CSV.
#
#   awk -f studies/check-sense.awk DIR/results.csv
#
# Rules (runs compared are in the same sweep, on the same workload, and differ
# only in the one setting named):
#   fifo-monotonic     overflows never increase as FIFO_DEPTH grows
#   port-monotonic     a port with less capacity never has fewer overflows
#   pins-monotonic     a TPIU with fewer pins (same TRACECLK) never has fewer overflows
#   ca-costs           bits per instruction with cycle accuracy >= without
#                      (both runs free of overflows)
#   port-capacity      bytes that left the port <= its capacity x the cycles it ran
#   bytes-conserved    every byte that entered the FIFO left it
#   held-needs-stall   no held cycles without FIFOFULL stalling; held <= FIFOFULL cycles
#   stall-no-overflow  ETMFFLR >= 24 (the most one cycle writes): no overflow
#   lost-needs-overflow cycles lost to overflows if and only if there were overflows
#   same-program       one workload under one timing: the same instructions, and
#                      the same cycles once the held ones are taken out
BEGIN {
    FS = "\n"
    need = "sweep config workload version ca bb etmcr fifo_depth port capacity stall issue_width timing " \
           "cycles held instructions bytes port_bytes port_cycles overflows cycles_lost fifofull_cycles " \
           "bits_per_insn " \
           "tpiu atb_stall"
    bad = 0
}

# Split one CSV line into f[1..n] (double quotes group, "" is a quote).
function csv(line, f,    n, i, c, q, cur) {
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
            else if (c == "\"") q = 0
            else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
    }
    f[++n] = cur
    return n
}

function fail(rule, what, ln) {
    printf "%s:%d: %s: %s\n", FILENAME, ln ? ln : FNR, rule, what
    bad = 1
}

# "0x1810" -> 6160
function hex(s,    i, n, c) {
    n = 0
    s = tolower(s)
    sub(/^0x/, "", s)
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1))
        if (!c) return -1
        n = n * 16 + c - 1
    }
    return n
}

FNR == 1 {
    ncol = csv($0, h)
    for (i = 1; i <= ncol; i++) col[h[i]] = i
    nn = split(need, nl, " ")
    for (i = 1; i <= nn; i++)
        if (!(nl[i] in col)) { printf "%s:1: column '%s' is missing\n", FILENAME, nl[i]; missing = 1 }
    if (missing) exit 2
    next
}

{
    csv($0, f)
    rows++
    for (k in col) {
        v[k] = f[col[k]]
        if (v[k] ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/)
            v[k] = v[k] + 0 # a number, compared as one
    }
    where = sprintf("%s, %s, %s", v["sweep"], v["config"], v["workload"])
    line[rows] = FNR

    # Per-row rules.
    if (v["port"] == "internal") {
        cap_bytes = v["capacity"] * v["port_cycles"]
    } else {
        cap_bytes = v["capacity"] * v["port_cycles"] + 8
    }
    if (v["version"] >= 3 && v["port_bytes"] > cap_bytes)
        fail("port-capacity", sprintf("%s: %d bytes left a port of %s bytes per cycle in %d cycles", where,
             v["port_bytes"], v["capacity"], v["port_cycles"]))
    if (v["version"] >= 3 && v["port"] != "internal" && v["port_bytes"] != v["bytes"])
        fail("bytes-conserved", sprintf("%s: %d bytes entered the FIFO, %d left it", where, v["bytes"], v["port_bytes"]))
    if (v["stall"] == 0 && v["held"] != 0)
        fail("held-needs-stall", sprintf("%s: %d cycles held without a stall", where, v["held"]))
    if (v["held"] > v["fifofull_cycles"])
        fail("held-needs-stall", sprintf("%s: %d held cycles, %d with FIFOFULL", where, v["held"], v["fifofull_cycles"]))
    if (v["stall"] >= 24 && v["overflows"] != 0)
        fail("stall-no-overflow", sprintf("%s: ETMFFLR=%d and %d overflows", where, v["stall"], v["overflows"]))
    if ((v["overflows"] > 0) != (v["cycles_lost"] > 0))
        fail("lost-needs-overflow", sprintf("%s: %d overflows and %d cycles lost", where, v["overflows"], v["cycles_lost"]))

    # Groups for the comparisons. same: the core's run (workload, timing, issue).
    core = v["workload"] SUBSEP v["timing"] SUBSEP v["issue_width"]
    if (core in insns) {
        if (insns[core] != v["instructions"] || unheld[core] != v["cycles"] - v["held"])
            fail("same-program", sprintf("%s: %d instructions in %d unheld cycles; %s had %d in %d", where,
                 v["instructions"], v["cycles"] - v["held"], first[core], insns[core], unheld[core]))
    } else {
        insns[core] = v["instructions"]; unheld[core] = v["cycles"] - v["held"]; first[core] = where
    }
    base0 = v["sweep"] SUBSEP v["workload"] SUBSEP v["version"] SUBSEP v["etmcr"] SUBSEP v["stall"] SUBSEP \
            v["issue_width"] SUBSEP v["timing"] SUBSEP v["atb_stall"]
    base = base0 SUBSEP v["tpiu"]
    r_fifo[rows] = base SUBSEP v["port"]
    r_port[rows] = base SUBSEP v["fifo_depth"]
    # TPIUs of other pin counts at the same TRACECLK divider ("PINS:DIV").
    tdiv = v["tpiu"]; sub(/^[0-9]+:/, "", tdiv)
    r_pinkey[rows] = v["tpiu"] == "none" ? "none" SUBSEP rows : base0 SUBSEP v["fifo_depth"] SUBSEP v["port"] SUBSEP tdiv
    r_pins[rows] = v["tpiu"] + 0
    ca_off = hex(v["etmcr"]) - (v["ca"] ? 4096 : 0)
    r_ca[rows] = v["sweep"] SUBSEP v["workload"] SUBSEP v["version"] SUBSEP ca_off SUBSEP v["fifo_depth"] SUBSEP \
                 v["port"] SUBSEP v["stall"] SUBSEP v["issue_width"] SUBSEP v["timing"]
    r_depth[rows] = v["fifo_depth"]; r_cap[rows] = v["capacity"]; r_ovf[rows] = v["overflows"]
    r_isca[rows] = v["ca"]; r_bpi[rows] = v["bits_per_insn"]; r_where[rows] = where
}

# Pairs: a the smaller setting, b the larger; overflows(b) must not exceed overflows(a).
function monotonic(rule, key, x, what,    i, j) {
    for (i = 1; i <= rows; i++)
        for (j = 1; j <= rows; j++)
            if (i != j && key[i] == key[j] && x[i] < x[j] && r_ovf[j] > r_ovf[i])
                fail(rule, sprintf("%s: %s %s has %d overflows, %s %s has %d", r_where[j], what, x[j], r_ovf[j],
                     what, x[i], r_ovf[i]), line[j])
}

END {
    if (missing) exit 2
    monotonic("fifo-monotonic", r_fifo, r_depth, "FIFO_DEPTH")
    monotonic("port-monotonic", r_port, r_cap, "capacity")
    monotonic("pins-monotonic", r_pinkey, r_pins, "TPIU pins")
    for (i = 1; i <= rows; i++)
        for (j = 1; j <= rows; j++)
            if (r_ca[i] == r_ca[j] && !r_isca[i] && r_isca[j] && r_ovf[i] == 0 && r_ovf[j] == 0 &&
                r_bpi[j] < r_bpi[i])
                fail("ca-costs", sprintf("%s: %s bits per instruction cycle-accurate, %s without (%s)", r_where[j],
                     r_bpi[j], r_bpi[i], r_where[i]), line[j])
    if (!rows) { printf "%s: no results\n", FILENAME; exit 1 }
    if (!bad) printf "%s: %d rows, every rule holds\n", FILENAME, rows
    exit bad
}
