# says.sh - what the shell tests of tb/cli share (sourced): `says TEXT ARGS...`
# runs "$etm" ARGS, which must exit 2 with TEXT on stderr; a miss is printed and
# sets fail=1. The caller sets etm and fail.
says() {
    want=$1
    shift
    "$etm" "$@" > out.txt 2> err.txt
    rc=$?
    if [ $rc -ne 2 ] || ! grep -qF -- "$want" err.txt; then
        echo "FAIL: etm $* -> exit $rc: $(cat err.txt) (want '$want')"
        fail=1
    fi
}
