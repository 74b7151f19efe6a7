#!/usr/bin/env bash
# The Debian package (docs/install.md):
#   tb/install/deb.sh BUILD_DIR WORK_DIR
# builds it with cpack -G DEB (its Depends with python3-numpy), installs it with
# dpkg -i, runs the installed etm --help (FST named), shows its man page (FST
# named), finds vectors/README.md, imports the Python package, then removes
# it and checks that nothing of it is left. Needs root (it installs into /usr): exit 77 (skipped) without.
set -euo pipefail
build=$1 work=$2
fail() { echo "deb test: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
  echo "deb test: needs root to install a package; skipped"
  exit 77
fi
# (Outputs are taken whole before grep -q looks at them: under pipefail, grep -q
# leaving at its first match can kill the writer with SIGPIPE and fail the pipe.)
status=$(dpkg-query -W -f='${Status}' etm-model 2>/dev/null || true)
if grep -q installed <<<"$status"; then
  fail "a package etm-model is installed already; remove it first (dpkg -r etm-model)"
fi
rm -rf "$work"
mkdir -p "$work"
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work" >cpack.log) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/etm-model_*.deb)
info=$(dpkg-deb --info "$deb")
grep -E "Package|Version|Depends" <<<"$info"
# The Python package it installs needs NumPy: the package says so.
grep -Eq "^ Depends:.*python3-numpy" <<<"$info" || fail "the package does not depend on python3-numpy"
trap 'dpkg -r etm-model >/dev/null 2>&1 || true' EXIT
dpkg -i "$deb" >"$work/dpkg-i.log" || { cat "$work/dpkg-i.log"; fail "dpkg -i"; }
help=$(/usr/bin/etm --help)
grep -q "Subcommands:" <<<"$help" || fail "the installed etm --help"
/usr/bin/etm --version
page=$(man -P cat etm 2>/dev/null || true)
grep -Eq "protocol +scoreboard" <<<"$page" || fail "man etm"
pkg-config --exists etm || fail "pkg-config does not find etm.pc"
# The vector format the tool's help and man page point to.
[ -s /usr/share/doc/etm-model/vectors/README.md ] || fail "vectors/README.md is not installed"
grep -q "vectors/README.md" <<<"$(/usr/bin/etm convert --help)" || fail "etm convert --help names no vector format"
grep -q "FST" <<<"$help" || fail "etm --help does not name FST"
grep -q "FST" <<<"$page" || fail "man etm does not name FST"
/usr/bin/python3 -c "import etm; print('python3: import etm:', etm.__version__, etm._lib._name)" ||
  fail "python3 -c 'import etm'"
files=$(dpkg -L etm-model | grep -c .)
dpkg -r etm-model >"$work/dpkg-r.log" || { cat "$work/dpkg-r.log"; fail "dpkg -r"; }
trap - EXIT
[ ! -e /usr/bin/etm ] || fail "/usr/bin/etm is left after dpkg -r"
[ ! -e /usr/lib/libetm.so.0 ] || fail "libetm.so.0 is left after dpkg -r"
status=$(dpkg-query -W -f='${Status}' etm-model 2>/dev/null || true)
grep -q "not-installed\|deinstall" <<<"$status" ||
  ! dpkg-query -W etm-model >/dev/null 2>&1 || fail "the package is still listed as installed"
echo "deb test: $(basename "$deb") installed ($files paths), ran and removed cleanly"
