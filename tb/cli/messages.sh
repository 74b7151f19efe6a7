#!/bin/sh
# Every message names the file, the position and the reason: a folder given
# as a file, a file that is not there, one that cannot be read (the system's
# own text), a UTF-8 byte-order mark, a VCD that cannot be opened (no
# warning about its configuration first), FIFO_DEPTH's one minimum.
#   messages.sh ETM STIMULUS WORKDIR
etm=$1 stim=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
fail=0
. "$(dirname "$0")/says.sh"
mkdir folder.vec
says "folder.vec: cannot open the file: is a directory, not a file" run folder.vec
says "folder.vec: cannot open the trace file: is a directory, not a file" decode folder.vec
says "none.vec: cannot open the file: No such file or directory" check none.vec
says "none.txt: cannot open the file: No such file or directory" config none.txt
printf '\357\273\277' > bom.vec && cat "$stim" >> bom.vec
says "bom.vec:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF)" run bom.vec
printf '\357\273\277ETMCR=0x810\n' > bom.txt
says "bom.txt:1: the file starts with a UTF-8 byte-order mark" config bom.txt
says "none.vcd: cannot open the file: No such file or directory" run none.vcd
if grep -q "holds no configuration" err.txt; then
    echo "FAIL: a VCD that cannot be opened is warned about first: $(cat err.txt)"
    fail=1
fi
printf "preset etm-m3\nFIFO_DEPTH=0x10\n" > small.txt
says "FIFO_DEPTH=16: the model needs 24 to 65535 bytes" config small.txt
says "FIFO_DEPTH=16: the model needs 24 to 65535 bytes" run --set FIFO_DEPTH=0x10 "$stim"
says "--sleep '1001' is out of range: 0 to 1000" gen --sleep 1001 x.vec
# A file the user may not read: the system's reason (as an unprivileged user
# when run as root, who may read anything).
cp "$stim" locked.vec && chmod 000 locked.vec
if [ "$(id -u)" != 0 ]; then
    says "locked.vec: cannot open the file: Permission denied" run locked.vec
elif command -v setpriv > /dev/null && chmod o+x . && setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$etm" run locked.vec > out.txt 2> err.txt
    grep -qF "locked.vec: cannot open the file: Permission denied" err.txt ||
        { echo "FAIL: unreadable file: $(cat err.txt)"; fail=1; }
fi
exit $fail
