#!/bin/sh
# Success on nothing is an error: etm decode on input that never
# synchronises (random bytes, bytes of 0x80), on an empty file, on a file that
# is recognisably something else (a vector file, a VCD, an ELF file, a zip
# without --swo), and etm verify given a vector file as trace: each exits 2
# and says why; real trace still decodes (exit 0).
#   not_trace.sh ETM STIMULUS WORKDIR
etm=$1 stim=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
python3 -c "import random; r = random.Random(5); open('rnd.bin', 'wb').write(bytes(r.randrange(256) for _ in range(4096)))"
python3 -c "open('x80.bin', 'wb').write(b'\x80' * 4096)"
: > empty.bin
python3 -c "open('prog.elf', 'wb').write(b'\x7fELF\x01\x01\x01' + bytes(57))"
elf=prog.elf
"$etm" run --quiet --trace t.bin --out o.vec "$stim" || exit 2
"$etm" convert "$stim" s.vcd 2> /dev/null || exit 2
python3 -c "import zipfile; zipfile.ZipFile('c.sr', 'w').writestr('metadata', 'x')"
. "$(dirname "$0")/says.sh"
says "4096 bytes and no A-sync: the decoder never synchronised" decode rnd.bin
says "4096 bytes and no A-sync: the decoder never synchronised" decode x80.bin
says "the file is empty: no trace" decode empty.bin
says "a vector file (stimulus or expected output), not trace" decode "$stim"
says "a VCD, not trace" decode s.vcd
says "an ELF file, not trace" decode "$elf"
says "a zip archive (a sigrok capture of a pin?), not trace: give --swo" decode c.sr
says "no byte of trace ID 0x10 in the frames" decode --coresight --id 0x10 x80.bin
says "a vector file (stimulus or expected output), not trace" verify "$stim" o.vec
"$etm" decode --json x80.bin > out.json 2> /dev/null
grep -q '"exit_status":2' out.json && grep -q '"errors":1' out.json || { echo "FAIL: --json: $(cat out.json)"; fail=1; }
"$etm" decode --no-elements --stats t.bin > out.txt 2> err.txt || { echo "FAIL: real trace: $(cat err.txt)"; fail=1; }
exit $fail
