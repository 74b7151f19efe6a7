#!/bin/sh
# One definition of lag: the most instructions etm verify reports as having
# waited for their trace is the smallest --max-lag that passes; one less
# fails with the latency rule. On a real program's recording and on random
# stimulus behind a busy trace bus (a long lag).
#   lag_bound.sh ETM STIMULUS WORKDIR
etm=$1 stim=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
"$etm" gen --cycles 100000 --seed 7 --atb-stall 60 --atb-burst 50 g.vec || exit 2
for s in "$stim" g.vec; do
    "$etm" run --quiet --trace t.bin "$s" || exit 2
    n=$("$etm" verify "$s" t.bin | sed -n 's/.*at most \([0-9]*\) instructions waited.*/\1/p')
    if [ -z "$n" ] || [ "$n" -lt 2 ]; then
        echo "FAIL: $s: no lag reported"
        fail=1
        continue
    fi
    "$etm" verify --max-lag "$n" "$s" t.bin > out.txt 2> err.txt ||
        { echo "FAIL: $s: --max-lag $n, the lag reported, fails: $(cat out.txt err.txt | tail -2)"; fail=1; }
    "$etm" verify --max-lag $((n - 1)) "$s" t.bin > out.txt 2> err.txt
    if [ $? -ne 1 ] || ! grep -q "latency: the trace lags more than $((n - 1)) instructions" out.txt err.txt; then
        echo "FAIL: $s: --max-lag $((n - 1)) passes or fails otherwise: $(cat out.txt err.txt | tail -2)"
        fail=1
    fi
done
exit $fail
