#!/bin/sh
# A snapshot's .ini names files inside its folder: one naming ../outside.bin,
# an absolute path, or a symbolic link out of the folder is refused (exit 2,
# the .ini file, its line and the name), for the trace buffer, a device file
# and a memory dump; --snapshot-outside reads it; the snapshot as written
# decodes.
#   snapshot_paths.sh ETM STIMULUS WORKDIR
etm=$1 stim=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
printf '\000\000\000\000\000\200' > code.bin
"$etm" snapshot --image 0x0:code.bin "$stim" snap > /dev/null || exit 2
"$etm" decode --snapshot snap --no-elements --stats > out.txt 2> err.txt || { echo "FAIL: as written: $(cat err.txt)"; fail=1; }
. "$(dirname "$0")/says.sh"
variant() { # NAME: a copy of snap as NAME
    rm -rf "$1" && cp -r snap "$1"
}
cp snap/trace.bin outside.bin
variant up
sed -i 's|^file=trace.bin|file=../outside.bin|' up/trace.ini
says "up/trace.ini:6: '../outside.bin' leads out of the folder ('..')" decode --snapshot up --no-elements
"$etm" decode --snapshot up --snapshot-outside --no-elements --stats > out.txt 2> err.txt ||
    { echo "FAIL: --snapshot-outside: $(cat err.txt)"; fail=1; }
variant abs
sed -i "s|^file=trace.bin|file=$PWD/outside.bin|" abs/trace.ini
says "is an absolute path" decode --snapshot abs --no-elements
variant link
rm link/trace.bin && ln -s ../outside.bin link/trace.bin
says "link/trace.ini:6: 'trace.bin' is a symbolic link out of the folder" decode --snapshot link --no-elements
variant dev
cp snap/cpu_0.ini cpu_out.ini
sed -i 's|^device0=cpu_0.ini|device0=../cpu_out.ini|' dev/snapshot.ini
says "'../cpu_out.ini' leads out of the folder" decode --snapshot dev --no-elements
variant dump
sed -i 's|^file=image0.bin|file=/etc/passwd|' dump/cpu_0.ini
says "'/etc/passwd' is an absolute path" decode --snapshot dump --no-elements
exit $fail
