#!/bin/sh
# Every numeric option of the tool refuses what it cannot hold: no clipping
# at 2^64-1, no wrap modulo 2^32, no sign taken as 2^64 minus it, no value
# past its documented range; each exits 2 naming the option, the value and
# the range or the reason (etm/number.h). The cases are those a user was
# seen to type; in-range neighbours of each are taken.
#   numbers.sh ETM STIMULUS WORKDIR
etm=$1 stim=$2 work=$3
mkdir -p "$work" && cd "$work" || exit 2
fail=0
refuse() { # EXPECTED-TEXT ARGS...: exit 2, the text on stderr, no output file left
    want=$1
    shift
    rm -f out.vec
    "$etm" "$@" > stdout.txt 2> stderr.txt
    rc=$?
    if [ $rc -ne 2 ] || ! grep -qF -- "$want" stderr.txt || [ -e out.vec ]; then
        echo "FAIL: etm $* -> exit $rc: $(cat stderr.txt) (want '$want')"
        fail=1
    fi
}
take() { # ARGS...: exit 0
    "$etm" "$@" > stdout.txt 2> stderr.txt || { echo "FAIL: etm $* -> $(cat stderr.txt)"; fail=1; }
}
refuse "--cycles '18446744073709551617' is above 2^64-1" gen --cycles 18446744073709551617 out.vec
refuse "--seed '18446744073709551617' is above 2^64-1" gen --seed 18446744073709551617 out.vec
refuse "--seed '-1' has a sign" gen --seed -1 out.vec
refuse "--max-intnum '4294967312' is out of range: 16 to 511" gen --max-intnum 4294967312 out.vec
refuse "--atb-stall '4294967296' is out of range: 0 to 99" gen --atb-stall 4294967296 out.vec
refuse "--issue-width '4294967298' is out of range: 1 to 2" gen --issue-width 4294967298 out.vec
refuse "--stall-pct '4294967397' is out of range: 0 to 100" gen --stall-pct 4294967397 out.vec
refuse "--irq-period '4294967296' is out of range: 0 to 4294967295" gen --irq-period 4294967296 out.vec
refuse "--data-delay '4294967297' is out of range: 0 to 16" gen --data-delay 4294967297 out.vec
refuse "--sleep '1001' is out of range: 0 to 1000" gen --sleep 1001 out.vec
refuse "--atb-burst '0' is out of range: 1 to 1000000" gen --atb-burst 0 out.vec
refuse "--reprogram '0x' is no number" gen --reprogram 0x out.vec
refuse "--max-report '-5' has a sign" check --max-report -5 "$stim"
refuse "--period '18446744073709551616' is above 2^64-1" run --period 18446744073709551616 s.vcd
refuse "--period '0' is out of range: 1 to 2^64-1" run --period 0 s.vcd
refuse "--offset '18446744073709551616' is above 2^64-1" run --offset 18446744073709551616 s.vcd
refuse "--tpiu PINS '4294967297' is out of range: 1 to 32" run --tpiu 4294967297 "$stim"
refuse "--tpiu ACPR (the SWO prescaler) '-1' has a sign" run --tpiu nrz:-1 "$stim"
refuse "--tpiu queue (bytes) '4294967300' is out of range: 4 to 256" run --tpiu nrz:0,queue=4294967300 "$stim"
refuse "--id (a trace ID, 0x01-0x6f) '0x170' is out of range: 1 to 111" decode --coresight --id 0x170 "$stim"
refuse "--max-lag (instructions) '-1' has a sign" verify --max-lag -1 "$stim" "$stim"
refuse "--max-report '1e3' is no number" swo --max-report 1e3 c.sr
refuse "--hold=4294967297: the path from FIFOFULL" run --hold=4294967297 "$stim"
take gen --cycles 100 --seed 18446744073709551615 --max-intnum 511 --atb-stall 99 --issue-width 2 --sleep 1000 \
    --data-delay 16 --irq-period 4294967295 ok.vec
take check --max-report 0 ok.vec
take run --quiet --tpiu 32:2,queue=0x100 "$stim"
exit $fail
