#!/bin/sh
# A waveform does not carry the register image: etm convert to VCD or FST
# refuses to drop an image that is not the etm-m3 preset (what a waveform is
# read with by default), saying how to keep it, unless --drop-config; the image
# given back with --config (the vector file itself) reads the waveform to the
# same trace as the vector file. An etm-m3 image converts without a word.
#   convert_config.sh ETM WORKDIR
etm=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
. "$(dirname "$0")/says.sh"
fail=0
printf "preset etm-m3\nETMSYNCFR=0x100\n" > id.txt && "$etm" gen --cycles 3000 --seed 5 --config id.txt g.vec || exit 2
"$etm" gen --cycles 3000 --seed 5 m3.vec || exit 2
for w in vcd fst; do
    says "a waveform does not carry the register image of g.vec" convert g.vec g.$w
    [ ! -e g.$w ] || { echo "FAIL: the refused g.$w was written"; fail=1; }
    grep -qF -- "--config g.vec" err.txt || { echo "FAIL: the refusal does not say how to keep the image: $(cat err.txt)"; fail=1; }
    "$etm" convert --drop-config g.vec g.$w 2> err.txt || { echo "FAIL: --drop-config: $(cat err.txt)"; fail=1; }
    "$etm" convert m3.vec m3.$w 2> err.txt || { echo "FAIL: an etm-m3 image refused: $(cat err.txt)"; fail=1; }
    "$etm" run --quiet --trace a.bin g.vec || exit 2
    "$etm" run --quiet --config g.vec --trace b.bin g.$w 2> err.txt || { echo "FAIL: g.$w with --config g.vec: $(cat err.txt)"; fail=1; }
    cmp -s a.bin b.bin || { echo "FAIL: g.$w read with the vector file's image traces otherwise"; fail=1; }
    "$etm" run --quiet --trace c.bin g.$w 2> /dev/null
    ! cmp -s a.bin c.bin || { echo "FAIL: without its image g.$w traces the same (the test shows nothing)"; fail=1; }
done
exit $fail
