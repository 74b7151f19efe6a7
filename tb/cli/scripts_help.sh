#!/bin/sh
# The project's scripts answer --help at once, without setting up or building:
# each exits 0 within 5 seconds, prints its usage line, and nothing of the
# set-up script (which installs packages) or of cmake.
#   scripts_help.sh SOURCE_DIR
src=$1
fail=0
for s in run test fuzz; do
    out=$(timeout 5 "$src/scripts/$s" --help 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: scripts/$s --help exits $rc"
        fail=1
    elif ! printf '%s\n' "$out" | grep -q "scripts/$s"; then
        echo "FAIL: scripts/$s --help prints no usage line: $out"
        fail=1
    elif printf '%s\n' "$out" | grep -qiE "^setup:|^-- |ctest version|Usage: *ctest"; then
        echo "FAIL: scripts/$s --help ran more than its help: $out"
        fail=1
    fi
done
out=$(timeout 5 "$src/scripts/run" --no-such-option 2>&1)
[ $? -eq 2 ] || { echo "FAIL: scripts/run takes an unknown option: $out"; fail=1; }
exit $fail
