# check-layout.awk - reads one of etm-whatif's gnuplot scripts (and its .dat)
# and names each rule of the layout that it breaks, one line per break
# ("NAME.gp: RULE: what"); exit status 1 if any (test whatif.layout):
#   key-margin    a key at the right has a right margin as wide as its longest entry
#   tics-level    level x tic labels are narrower than the room between their tics
#   tics-turned   turned x tic labels stand a line apart, the bottom margin holds
#                 them, and the last one ends on the canvas
#   side-margin   the labels beside the graph fit in the right margin
#   side-apart    the labels beside the graph stand a line apart
#   graph-room    the margins leave the graph room
# Sizes are gnuplot's character cells of the plots' font, 8 by 16 pixels on
# the PNG; a drawn character is taken as 0.85 of a cell wide (most are
# narrower, gnuplot itself counts a cell each), and the left margin as 10 cells.
#   awk -v dat=NAME.dat -f check-layout.awk NAME.gp

function bad(rule, what) { printf "%s: %s: %s\n", FILENAME, rule, what; failed = 1 }

# The "quoted" fields of a .dat line into q[1..]; how many.
function quoted(line, q,    p, n, i, k) {
    n = split(line, p, "\"")
    k = 0
    for (i = 2; i <= n; i += 2)
        q[++k] = p[i]
    return k
}

BEGIN { G = 0.85 }
/^set terminal pngcairo size / { split($5, wh, ","); width = wh[1]; height = wh[2] }
/^set rmargin / { rmargin = $3 }
/^set bmargin / { bmargin = $3 }
/^set xtics rotate by / { angle = -$5 }
/^set key outside top/ { key_top = 1 }
/^set yrange \[0:/ { y = $3; sub(/^\[0:/, "", y); sub(/\].*/, "", y); ymax = y + 0 }
/^set label '/ {
    t = $0; sub(/^set label '/, "", t); sub(/' at .*/, "", t)
    f = $0; sub(/.* first /, "", f); sub(/ .*/, "", f)
    nside++; side_len[nside] = length(t); side_y[nside] = f + 0
}
/^plot for \[i=2:[0-9]+\] .* using i:xtic\(1\)/ { histogram = 1 }
/^plot for \[i=2:[0-9]+\] .* using 1:i / { lines = 1 }

END {
    if (!width || !height) { bad("terminal", "no pngcairo size"); exit 1 }
    # The .dat: the key's entries in the header (after column 1), the x labels in column 1.
    nx = 0; keylen = 0
    if ((getline line < dat) > 0) {
        n = quoted(line, q)
        for (i = 2; i <= n; i++)
            if (length(q[i]) > keylen) keylen = length(q[i])
    }
    while (histogram && (getline line < dat) > 0)
        if (quoted(line, q)) x_len[++nx] = length(q[1])
    key_right = (histogram || lines) && !key_top && keylen > 0
    # gnuplot sizes the right margin itself when it is not set: to the key, if there.
    rm = rmargin != "" ? rmargin : key_right ? keylen + 10 : 2
    bm = bmargin != "" ? bmargin : 3
    if (key_right && rm < keylen + 6)
        bad("key-margin", "right margin " rm " cells for a key entry of " keylen " characters")

    if (nx) {
        pitch = (width / 8 - 10 - rm) / (nx + 1)
        maxlen = 0
        for (i = 1; i <= nx; i++) if (x_len[i] > maxlen) maxlen = x_len[i]
        if (!angle) {
            for (i = 1; i <= nx; i++) {
                reach = i < nx ? G * (x_len[i] + x_len[i + 1]) / 2 : G * x_len[i]
                if (reach > pitch) {
                    bad("tics-level", "labels " i " and " i + 1 " reach " reach " cells, the tics are " pitch " apart")
                    break
                }
            }
        } else {
            a = angle * atan2(1, 1) / 45
            if (pitch * 8 * sin(a) < 16)
                bad("tics-turned", "turned by " angle " degrees, tics " pitch " cells apart put labels " \
                    pitch * 8 * sin(a) " pixels apart")
            if (bmargin == "" || bmargin < G * maxlen * 8 * sin(a) / 16 + cos(a))
                bad("tics-turned", "bottom margin " (bmargin == "" ? "not set" : bmargin " lines") \
                    " for labels of " maxlen " characters turned by " angle " degrees")
            if (rm < G * maxlen * cos(a) - pitch)
                bad("tics-turned", "the last label runs " G * maxlen * cos(a) - pitch \
                    " cells past the graph, the margin is " rm)
        }
    }

    # Labels beside the graph, at the right.
    maxside = 0
    for (i = 1; i <= nside; i++) if (side_len[i] > maxside) maxside = side_len[i]
    if (nside && rm < G * maxside + 1)
        bad("side-margin", "right margin " rm " cells for a label of " maxside " characters")
    graph = height - (bm + 3 + (key_top ? 3 : 0)) * 16
    for (i = 1; i <= nside; i++)
        for (j = i + 1; j <= nside; j++) {
            d = side_y[i] - side_y[j]; if (d < 0) d = -d
            if (ymax > 0 && d / ymax * graph < 13)
                bad("side-apart", "labels " i " and " j " stand " d / ymax * graph " pixels apart")
        }
    if (graph < 200)
        bad("graph-room", "the margins leave the graph " graph " pixels of " height)
    exit failed
}
