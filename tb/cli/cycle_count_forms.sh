#!/bin/sh
# IHI 0014Q 7.3.4: cycle-accurate, a non-periodic I-sync is an I-sync with
# cycle count (0x70), or a normal I-sync (0x08) followed by a cycle-count
# packet (0x04) before the next non-periodic I-sync. A trace with overflow
# restarts (their I-syncs with cycle count) is rewritten into the other form,
# the count packet right after the I-sync and after the next packet: etm verify
# passes both, and the project's decoder gives the same atoms; with the count
# packet left out, it fails. In a loop, so the restart address recurs.
#   cycle_count_forms.sh ETM WORKDIR
etm=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
set_ca="--set ETMCR=0x1810"
"$etm" gen --preset cm3-ca-whatif --cycles 150000 --seed 27 --atb-stall 70 --atb-burst 40 s.vec || exit 2
"$etm" run --quiet $set_ca --trace t.bin s.vec || exit 2
"$etm" decode --packets --no-elements $set_ca t.bin > p.txt || exit 2
python3 - <<'PY'
import re
b = open("t.bin", "rb").read()
pk = []
for l in open("p.txt"):
    m = re.match(r"@(\d+)\s+(\S+)\s+((?:[0-9a-f]{2} )+)", l)
    if m:
        pk.append((int(m.group(1)), m.group(2), bytes.fromhex(m.group(3))))
def rewrite(delay, keep=True):
    out, pending, n, wait = bytearray(), None, 0, 0
    for off, kind, raw in pk:
        assert b[off:off + len(raw)] == raw, (off, kind)
        if kind == "I_SYNC_CC" and raw[0] == 0x70 and (raw[-5] >> 5) & 3 == 2:  # reason overflow
            k = 1
            while raw[k] & 0x80:
                k += 1
            cc = raw[1:k + 1]
            out += bytes([0x08]) + raw[k + 1:]
            pending, wait, n = cc, delay, n + 1
        else:
            out += raw
        if pending is not None and kind != "I_SYNC_CC" or (pending is not None and delay == 0):
            if wait == 0:
                if keep:
                    out += bytes([0x04]) + pending
                pending = None
            else:
                wait -= 1
    return bytes(out), n
for name, delay, keep in (("now", 0, True), ("later", 1, True), ("none", 0, False)):
    data, n = rewrite(delay, keep)
    open("t_%s.bin" % name, "wb").write(data)
    open("n.txt", "w").write(str(n))
PY
n=$(cat n.txt)
[ "$n" -gt 3 ] || { echo "FAIL: only $n overflow restarts to rewrite"; exit 1; }
ref=$("$etm" decode --no-elements --stats $set_ca t.bin | grep -o 'atoms [0-9]*')
for f in now later; do
    "$etm" verify $set_ca s.vec t_$f.bin > out.txt 2>&1 ||
        { echo "FAIL: $n restarts with the count packet $f refused: $(tail -1 out.txt)"; fail=1; }
    got=$("$etm" decode --no-elements --stats $set_ca t_$f.bin | grep -o 'atoms [0-9]*')
    [ "$got" = "$ref" ] || { echo "FAIL: the count packet $f: the decoder gives $got, the original $ref"; fail=1; }
done
"$etm" verify $set_ca s.vec t_none.bin > out.txt 2>&1
if [ $? -ne 1 ] || ! grep -q "cycle" out.txt; then
    echo "FAIL: restarts without any count pass or fail otherwise: $(tail -1 out.txt)"
    fail=1
fi
exit $fail
