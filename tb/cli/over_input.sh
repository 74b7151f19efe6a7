#!/bin/sh
# No command writes over its own input: the same path, ./path, a symbolic
# link, a hard link, text or binary vectors, a VCD; each refused (exit 2,
# naming both) with the input left byte for byte. And a failure mid-way leaves
# no half output: a stimulus whose line 500 is broken gives no output file.
#   over_input.sh ETM WORKDIR
etm=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
"$etm" gen --cycles 3000 --seed 9 c.vec || exit 2
"$etm" convert c.vec s.vcd || exit 2
"$etm" config --preset etm-m3 > cfg.txt || exit 2
cp c.vec c.orig && cp s.vcd s.orig && cp cfg.txt cfg.orig
ln -s c.vec link.vec
ln c.vec hard.vec
refuse() { # ARGS...
    "$etm" "$@" > out.txt 2> err.txt
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q "that is the input" err.txt || ! cmp -s c.vec c.orig || ! cmp -s s.vcd s.orig ||
        ! cmp -s cfg.txt cfg.orig; then
        echo "FAIL: etm $* -> exit $rc: $(cat err.txt)"
        fail=1
    fi
}
refuse convert c.vec c.vec
refuse convert ./c.vec c.vec
refuse convert c.vec "$PWD/c.vec"
refuse convert c.vec link.vec
refuse convert link.vec c.vec
refuse convert hard.vec c.vec
refuse convert --binary c.vec hard.vec
refuse convert s.vcd s.vcd
refuse run --trace c.vec c.vec
refuse run --out hard.vec c.vec
refuse run --vcd link.vec c.vec
refuse run --config cfg.txt --trace cfg.txt s.vcd
refuse gen --config cfg.txt --events cfg.txt x.vec
refuse gen --config cfg.txt cfg.txt
refuse swo --out c.vec c.vec
# A broken input: no output, the old one kept.
head -n 500 c.vec > broken.vec && echo "this is no record" >> broken.vec
echo old > out.vec
"$etm" convert broken.vec out.vec 2> err.txt
if [ $? -ne 2 ] || [ "$(cat out.vec)" != old ]; then
    echo "FAIL: convert of a broken file: exit $?, out.vec now $(head -c 40 out.vec)"
    fail=1
fi
"$etm" convert broken.vec fresh.vec 2> err.txt
if [ -e fresh.vec ]; then
    echo "FAIL: convert of a broken file left fresh.vec"
    fail=1
fi
if ls -a | grep -q '\.etm-'; then
    echo "FAIL: a temporary was left: $(ls -a | grep '\.etm-')"
    fail=1
fi
exit $fail
