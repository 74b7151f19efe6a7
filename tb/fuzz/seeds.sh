#!/usr/bin/env bash
# Writes the seed corpora (tb/fuzz/corpus/NAME) from the project's own tools and
# test data: small, legal inputs of every kind each harness reads, so that the
# fuzzers start from the formats rather than from nothing. Run it again after a
# format changes:   tb/fuzz/seeds.sh BUILD_DIR
# Each seed is cut to a few KiB (the fuzzers' inputs are at most 16 KiB).
set -euo pipefail
build=${1:?usage: tb/fuzz/seeds.sh BUILD_DIR}
etm=$build/model/etm
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
c=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The first byte of fuzz_config: the preset's index in etm_config_preset_names
# (etm-m3 0, etm-m3-r2 1, etmv1.0..1.3 2..5, etmv3.0..3.5 6..11), no writes.
preset_byte() { case $1 in etm-m3) echo 0;; etm-m3-r2) echo 1;; etmv1.*) echo $((2 + ${1#etmv1.}));;
                           etmv3.*) echo $((6 + ${1#etmv3.}));; esac; }
bytes() { for b in "$@"; do printf "\\x$(printf %02x "$b")"; done; }
cut_to() { head -c "$1"; }

rm -rf "$c"
mkdir -p "$c"/{vector,vcd,config_text,snapshot,decode_v3,deformat,decode_v1,encoder,verify,sigrok,cli}

# Stimulus of several kinds.
$etm gen --cycles 150 --seed 3 "$tmp/m3.vec" >/dev/null
$etm gen --cycles 150 --seed 4 --data-mix --triggers "$tmp/data.vec" >/dev/null
$etm gen --cycles 150 --seed 5 --issue-width 2 "$tmp/dual.vec" >/dev/null
$etm gen --cycles 150 --seed 6 --preset etmv1.3 "$tmp/v1.vec" >/dev/null
$etm gen --cycles 120 --seed 7 "$tmp/m3.vcd" >/dev/null
$etm gen --cycles 2000 --seed 8 --data "$tmp/long.vec" >/dev/null

# vector: stimulus and expected output, and the files the tests already know are bad.
for v in m3 data dual v1; do cut_to 8192 <"$tmp/$v.vec" >"$c/vector/$v.vec"; done
$etm run --quiet --out "$tmp/m3.out" "$tmp/m3.vec"
$etm run --quiet --out "$tmp/v1.out" "$tmp/v1.vec"
cut_to 8192 <"$tmp/m3.out" >"$c/vector/expected-m3.vec"
cut_to 8192 <"$tmp/v1.out" >"$c/vector/expected-v1.vec"
for f in "$root"/tb/data/bad/*.vec "$root"/tb/data/v1/*.vec; do cut_to 8192 <"$f" >"$c/vector/$(basename "$f")"; done
cp "$root"/tb/data/rules/INTNUM_INVALID.vec "$root"/tb/data/rules/SLOT1_WITHOUT_SLOT0.vec "$c/vector/"
# Binary stimulus (vectors/README.md): the data stimulus in the binary form.
$etm convert --binary "$tmp/data.vec" "$tmp/data.bin"
cut_to 8192 <"$tmp/data.bin" >"$c/vector/binary.vec"

# vcd: two option bytes (fuzz_vcd.c), then the file.
{ bytes 0 0; cut_to 8192 <"$tmp/m3.vcd"; } >"$c/vcd/stimulus.vcd"
$etm run --quiet --vcd "$tmp/io.vcd" "$tmp/m3.vec"
{ bytes 1 0; cut_to 12000 <"$tmp/io.vcd"; } >"$c/vcd/expected.vcd"
{ bytes 16 0; cat "$root"/tb/data/bad/missing_signals.vcd; } >"$c/vcd/missing.vcd"
{ bytes 2 10; cut_to 8192 <"$tmp/m3.vcd"; } >"$c/vcd/period.vcd"

# config_text: every preset written out, one with comments and a preset line.
for p in etm-m3 etm-m3-r2 etmv1.0 etmv1.3 etmv3.0 etmv3.3 etmv3.5; do $etm config --preset "$p" >"$c/config_text/$p.txt"; done
printf '# hand-typed\npreset etmv3.4\nETMCR = 0x1810   # cycle-accurate\nETMTECR1=0x01000000\nFIFO_DEPTH=64\n' \
    >"$c/config_text/typed.txt"

# snapshot: folders packed as "=== NAME" sections (fuzz_snapshot.c).
pack() { # DIR: every file, cut to 2 KiB
    for f in "$1"/*; do echo "=== $(basename "$f")"; cut_to 2048 <"$f"; echo; done
}
$etm gen --cycles 300 --seed 9 --image "$tmp/img" "$tmp/snap.vec" >/dev/null
$etm snapshot --image 0:"$tmp/img.thread.bin" "$tmp/snap.vec" "$tmp/snap" >/dev/null
pack "$tmp/snap" >"$c/snapshot/etm-snapshot.txt"
pack "$root/tb/data/snapshot-bad" >"$c/snapshot/bad.txt"
tc2=$root/../shared/data/opencsd-tc2-etmv3
if [ -d "$tc2" ]; then
    { for f in snapshot.ini trace.ini device_10.ini cpu_0.ini; do [ -f "$tc2/$f" ] && { echo "=== $f"; cat "$tc2/$f"; echo; }; done
      echo "=== cstrace.bin"; cut_to 2048 <"$tc2/cstrace.bin"; } >"$c/snapshot/tc2.txt"
fi

# decode_v3: preset byte, option byte (bit 0 ARMv7-M, bit 1 follow the image,
# pieces of (opt>>2)+1 bytes), image length and image, then the trace.
trace() { # NAME STIMULUS [--set ...]: the ETMv3 bytes of a run
    local name=$1 stim=$2; shift 2
    $etm run --quiet --trace "$tmp/$name.bin" "$@" "$stim"
}
trace m3 "$tmp/long.vec"
trace ca "$tmp/long.vec" --preset cm3-ca-whatif --set ETMCR=0x1810
trace dual "$tmp/dual.vec"
{ bytes 0 $((1 | 63 << 2)) 0; cut_to 8192 <"$tmp/m3.bin"; } >"$c/decode_v3/m3.bin"
{ bytes 0 $((1 | 4 << 2)) 0; cut_to 8192 <"$tmp/ca.bin"; } >"$c/decode_v3/ca.bin"
{ bytes 0 1 0; cut_to 4096 <"$tmp/dual.bin"; } >"$c/decode_v3/dual.bin"
code=$root/tb/data/decode/loop_code.bin
{ bytes 0 $((3 | 63 << 2)) "$(stat -c %s "$code")"; cat "$code" "$root/tb/data/decode/loop.bin"; } >"$c/decode_v3/loop.bin"
for f in data reserved truncated; do { bytes 0 $((1 | 63 << 2)) 0; cat "$root/tb/data/decode/$f.bin"; } >"$c/decode_v3/$f.bin"; done
{ bytes 11 $((63 << 2)) 0; cut_to 4096 <"$tc2/cstrace.bin"; } >"$c/decode_v3/tc2-formatted.bin" 2>/dev/null || true

# deformat: mode (0 raw, 1 ETB dump, 2 TPIU capture; [7:2] choose the ID), piece size.
{ bytes $((1 | 0x10 << 2)) 15; cat "$root/tb/data/decode/loop_cs.bin"; } >"$c/deformat/loop-etb.bin"
{ bytes $((2 | 0x10 << 2)) 255; bytes 255 255 255 127; cat "$root/tb/data/decode/loop_cs.bin"; } >"$c/deformat/loop-tpiu.bin"
{ bytes 0 63; cut_to 2048 <"$tmp/m3.bin"; } >"$c/deformat/raw.bin"
if [ -f "$tc2/cstrace.bin" ]; then { bytes $((1 | 0x10 << 2)) 64; cut_to 8192 <"$tc2/cstrace.bin"; } >"$c/deformat/tc2-etb.bin"; fi

# decode_v1: preset byte, option byte, image length and image, then three bytes a
# cycle (PIPESTAT | TRACESYNC << 3, TRACEPKT low, high) from ETMv1 runs.
v1_port() { # EXPECTED.vec -> cycles as bytes
    python3 - "$1" <<'PY'
import sys
cols = None
out = bytearray()
for line in open(sys.argv[1]):
    t = line.split()
    if not t or t[0].startswith('#') or '=' in t[0]:
        continue
    if cols is None:
        if 'PIPESTAT' in t:
            cols = t
        continue
    if len(t) != len(cols):
        continue
    r = dict(zip(cols, t))
    ps, pkt, sync = int(r['PIPESTAT'], 16), int(r['TRACEPKT'], 16), int(r['TRACESYNC'], 16)
    out += bytes([ps | sync << 3, pkt & 0xff, pkt >> 8])
sys.stdout.buffer.write(out[:12000])
PY
}
for p in etmv1.0 etmv1.3; do
    $etm gen --cycles 600 --seed 10 --preset "$p" --image "$tmp/v1img" "$tmp/$p.vec" >/dev/null
    $etm run --quiet --out "$tmp/$p.out" "$tmp/$p.vec"
    { bytes "$(preset_byte "$p")" 0 0; v1_port "$tmp/$p.out"; } >"$c/decode_v1/$p.bin"
    img=$(head -c 255 "$tmp/v1img.thread.bin" | wc -c)
    { bytes "$(preset_byte "$p")" 1 "$img"; head -c 255 "$tmp/v1img.thread.bin"; v1_port "$tmp/$p.out"; } >"$c/decode_v1/$p-image.bin"
done

# encoder: preset byte, then per cycle a choice byte (fuzz_encoder.c): idle runs
# (x & 3 == 0), sequential instructions (1), or full records.
for p in etm-m3 etm-m3-r2 etmv1.3 etmv3.3 etmv3.5; do
    b=$(preset_byte "$p")
    { bytes "$b" $((1 | 40 << 2)) $((0 | 3 << 2)) $((1 | 10 << 2)) 2 1 1 0 0 0 1 0 0 0 $((1 | 20 << 2)) 0 $((1 | 63 << 2)) $((1 | 63 << 2))
    } >"$c/encoder/$p-runs.bin"
    { bytes "$b"; python3 -c 'import random,sys; random.seed(int(sys.argv[1])); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(4000)))' "$b"; } >"$c/encoder/$p-random.bin"
done
# verify: the encoder's inputs with, after the preset byte, how often the model's
# output is edited (fuzz_verify.c): never (the model's trace must pass), every
# 7th cycle.
for p in etm-m3 etmv1.3 etmv3.5; do
    for every in 0 7; do
        { head -c 1 "$c/encoder/$p-runs.bin"; bytes "$every"; tail -c +2 "$c/encoder/$p-runs.bin"; } >"$c/verify/$p-runs-$every.bin"
        { head -c 1 "$c/encoder/$p-random.bin"; bytes "$every"; tail -c +2 "$c/encoder/$p-random.bin" | head -c 2000; } \
            >"$c/verify/$p-random-$every.bin"
    done
done
# sigrok: the probe byte (bit 7: by the name SWO), the byte of samples a bit
# (2 + x % 32) and pieces, then the capture (fuzz_sigrok.c): the small captures
# of the etm swo tests, and the STM32F105 capture (10 KiB).
for f in "$root"/tb/data/swo/*.sr; do { bytes $((0x80)) 6; cat "$f"; } >"$c/sigrok/$(basename "$f")"; done
{ bytes 4 1; cat "$root/tb/data/swo/hello.sr"; } >"$c/sigrok/hello-probe5.sr"
swo=$root/../shared/data/stm32f105-etm-m3/trace_example.sr
if [ -f "$swo" ]; then { bytes $((0x80)) 1; cut_to 16000 <"$swo"; } >"$c/sigrok/stm32f105.sr"; fi
# cli: the subcommand's index, the argument count, each argument's index in
# fuzz_cli.c's table (in.dat 0, out.vec 3, out.vcd 4, out.bin 5, snapdir 7,
# --warn 12, --trace 14, --set 18, --hold 21, --tpiu 23, --cycles 25, --stats 44,
# ETMCR=0x810 71, nrz:0 75, 100 83), then in.dat's bytes.
$etm run --quiet --trace "$tmp/m3.bin" "$tmp/m3.vec"
$etm config --preset etm-m3 >"$tmp/m3.txt"
{ bytes 0 3 14 5 0; cut_to 6000 <"$tmp/m3.vec"; } >"$c/cli/run.bin"
{ bytes 0 6 23 75 21 18 71 0; cut_to 6000 <"$tmp/m3.vec"; } >"$c/cli/run-swo-hold.bin"
{ bytes 1 2 12 0; cut_to 6000 <"$tmp/data.vec"; } >"$c/cli/check.bin"
{ bytes 2 2 0 4; cut_to 6000 <"$tmp/m3.vec"; } >"$c/cli/convert.bin"
{ bytes 3 1 0; cat "$tmp/m3.txt"; } >"$c/cli/config.bin"
{ bytes 4 2 0 7; cut_to 6000 <"$tmp/m3.vec"; } >"$c/cli/snapshot.bin"
{ bytes 5 2 44 0; cut_to 2000 <"$tmp/m3.bin"; } >"$c/cli/decode.bin"
{ bytes 6 2 0 0; cut_to 6000 <"$tmp/m3.vec"; } >"$c/cli/verify.bin"
{ bytes 7 3 25 83 3; } >"$c/cli/gen.bin"
{ bytes 8 1 0; cat "$root/tb/data/swo/hello.sr"; } >"$c/cli/swo.bin"
echo "seeds written to $c"
