#!/bin/sh
# An output that is not a regular file (a FIFO here; /dev/null and other
# devices take the same path) is written in place, as standard output is: the
# FIFO stays a FIFO and its reader gets the whole file; no temporary is made
# beside it (renaming one over the node would replace it: /dev/null became a
# regular file so). An FST cannot go to one.
#   special_out.sh ETM WORKDIR
etm=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
"$etm" gen --cycles 500 --seed 3 ref.vec || exit 2
mkfifo p.vec || exit 2
cat p.vec > got.vec &
reader=$!
"$etm" gen --cycles 500 --seed 3 p.vec 2> err.txt || { echo "FAIL: gen into a FIFO: $(cat err.txt)"; fail=1; }
wait $reader
[ -p p.vec ] || { echo "FAIL: the FIFO p.vec is no longer a FIFO"; fail=1; }
cmp -s ref.vec got.vec || { echo "FAIL: the FIFO's reader got other bytes than the file"; fail=1; }
ls -A | grep -q '\.etm-' && { echo "FAIL: a temporary was left: $(ls -A)"; fail=1; }
mkfifo p.fst || exit 2
"$etm" convert ref.vec p.fst > out.txt 2> err.txt
[ $? -eq 2 ] && grep -q "not a regular file" err.txt || { echo "FAIL: an FST into a FIFO: $(cat err.txt)"; fail=1; }
[ -p p.fst ] || { echo "FAIL: the FIFO p.fst is no longer a FIFO"; fail=1; }
exit $fail
