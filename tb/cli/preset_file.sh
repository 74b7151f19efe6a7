#!/bin/sh
# A register-image file that starts from a preset keeps the preset's
# implementation: "preset cm3-ca-whatif" then ETMCR=0x1810 (cycle accuracy,
# which that preset adds) is accepted by etm config FILE, etm gen --config and
# --config for a VCD, and the file's ETMCR_IMPL is the preset's, as etm config
# --preset prints it.
#   preset_file.sh ETM WORKDIR
etm=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
printf 'preset cm3-ca-whatif\nETMCR=0x1810\n' > ca.txt
"$etm" config ca.txt > file.txt 2> err.txt || { echo "FAIL: etm config ca.txt: $(cat err.txt)"; fail=1; }
"$etm" config --preset cm3-ca-whatif > preset.txt || exit 2
want=$(grep '^ETMCR_IMPL=' preset.txt)
got=$(grep '^ETMCR_IMPL=' file.txt)
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "FAIL: ETMCR_IMPL from the file '$got', the preset's '$want'"; fail=1; }
grep -q '^ETMCR=0x00001810' file.txt || { echo "FAIL: ETMCR not kept: $(grep '^ETMCR=' file.txt)"; fail=1; }
"$etm" gen --cycles 2000 --config ca.txt g.vec 2> err.txt || { echo "FAIL: etm gen --config: $(cat err.txt)"; fail=1; }
"$etm" convert --drop-config g.vec g.vcd 2> /dev/null || exit 2
"$etm" run --quiet --config ca.txt --trace t.bin g.vcd 2> err.txt || { echo "FAIL: a VCD with --config: $(cat err.txt)"; fail=1; }
"$etm" decode --config ca.txt --no-elements --stats t.bin > dec.txt 2> err.txt &&
    grep -q 'cycles [1-9]' dec.txt || { echo "FAIL: the cycle-accurate trace decodes with cycles: $(cat dec.txt err.txt)"; fail=1; }
exit $fail
