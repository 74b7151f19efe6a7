#!/bin/sh
# IHI 0014Q 7.3.5: several branch packets may be output for one instruction;
# each is interpreted in turn and all but the final one are ignored. A branch
# packet with another address inserted before a real one (the issue's bytes
# 8d cc 00) is legal: etm verify passes it, and the project's decoder reads the
# same instructions from it as from the trace without it. The same packet
# after the real one (so the final one is wrong) still fails branch-target.
#   superseded_branch.sh ETM WORKDIR
etm=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
"$etm" gen --cycles 20000 --seed 11 --image code s.vec || exit 2
"$etm" run --quiet --trace t.bin s.vec || exit 2
# The first branch packet of three bytes (a 20-bit address: the inserted
# packet's bits are all replaced by it) and the offset after it.
at=$("$etm" decode --packets --no-elements t.bin | awk '$2 == "BRANCH" && $(NF-1) == "(20" {print substr($1, 2); exit}')
[ -n "$at" ] || { echo "FAIL: no branch packet"; exit 1; }
python3 - "$at" <<'PY'
import sys
at = int(sys.argv[1])
b = open("t.bin", "rb").read()
pk = bytes([0x8D, 0xCC, 0x00])
open("ok.bin", "wb").write(b[:at] + pk + b[at:])
open("bad.bin", "wb").write(b[:at + 3] + pk + b[at + 3:])
PY
"$etm" verify s.vec ok.bin > out.txt 2>&1 || { echo "FAIL: a superseded branch packet is refused: $(tail -1 out.txt)"; fail=1; }
img="--image 0x0:code.thread.bin --image 0x20000000:code.handler.bin"
# The instructions (the decoder lists each branch packet too: the extra one is the difference).
"$etm" decode $img t.bin | grep -v '^BRANCH' > a.txt && "$etm" decode $img ok.bin | grep -v '^BRANCH' > b.txt &&
    [ "$(wc -l < a.txt)" -gt 1000 ] && cmp -s a.txt b.txt ||
    { echo "FAIL: the decoder reads other instructions with the superseded packet"; fail=1; }
"$etm" verify s.vec bad.bin > out.txt 2>&1
if [ $? -ne 1 ] || ! grep -q "branch-target" out.txt; then
    echo "FAIL: a wrong final branch packet passes: $(tail -1 out.txt)"
    fail=1
fi
exit $fail
