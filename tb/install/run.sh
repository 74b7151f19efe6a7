#!/usr/bin/env bash
# The installed tree, used from outside the project (docs/install.md):
#   tb/install/run.sh BUILD_DIR SOURCE_DIR WORK_DIR
# installs BUILD_DIR into WORK_DIR/prefix, checks what is there, then builds and
# runs three consumers against it, out of the source tree: a C program on
# libetm (through the CMake package, shared and static, and through
# pkg-config), a SystemC program on the modules (etm::sc), and a Verilator
# testbench on the DPI package; and lints the installed RTL from its file list.
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
fail() { echo "install test: $*" >&2; exit 1; }

echo "== cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

echo "== what is there"
for f in bin/etm lib/libetm.a lib/libetm.so lib/libetm.so.0 lib/libetm_dpi.so lib/libetm_sc.a \
         include/etm/etm.h include/etm/verify.h include/etm/signals.def include/etm/sc/etm_sc.h \
         include/etm/dpi/etm_dpi.h lib/pkgconfig/etm.pc lib/cmake/etm/etmConfig.cmake \
         lib/cmake/etm/etmConfigVersion.cmake lib/cmake/etm/etmTargets.cmake lib/cmake/etm/etmScTargets.cmake \
         share/etm/rtl/etm.f share/etm/rtl/etm_ports.svh share/etm/rtl/lint_waivers.vlt \
         share/etm/dpi/etm_dpi_pkg.sv share/etm/dpi/etm_dpi_defs.svh share/etm/dpi/etm_scoreboard.sv \
         share/man/man1/etm.1 share/bash-completion/completions/etm share/doc/etm-model/README.md \
         share/doc/etm-model/docs/install.md lib/python3/dist-packages/etm/__init__.py \
         share/doc/etm-model/examples/fifo_sweep.py; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
soname=$(readelf -d "$prefix/lib/libetm.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libetm.so.0 ] || fail "libetm.so has soname '$soname', not libetm.so.0"
while read -r f; do
  case $f in *.sv) [ -e "$prefix/share/etm/rtl/$f" ] || fail "etm.f lists $f, which is not installed" ;; esac
done <"$prefix/share/etm/rtl/etm.f"
"$prefix/bin/etm" --version
# (Each output is taken whole before grep -q looks at it: under pipefail, grep -q
# leaving at its first match can kill the writer with SIGPIPE and fail the pipe.)
help=$("$prefix/bin/etm" --help)
grep -q "Subcommands:" <<<"$help" || fail "etm --help"
if command -v man >/dev/null; then
  page=$(man -l -P cat "$prefix/share/man/man1/etm.1" 2>/dev/null || true)
  grep -Eq "protocol +scoreboard" <<<"$page" || fail "the man page"
fi
bash -n "$prefix/share/bash-completion/completions/etm" || fail "the completion script"

export LD_LIBRARY_PATH=$prefix/lib
echo "== a C program through the CMake package"
cmake -S "$src/tb/install/c" -B "$work/c" -DCMAKE_PREFIX_PATH="$prefix" >"$work/c.log"
cmake --build "$work/c" >>"$work/c.log"
"$work/c/consumer"
"$work/c/consumer_static"
libs=$(ldd "$work/c/consumer")
grep -q "$prefix/lib/libetm.so.0" <<<"$libs" || fail "the consumer does not use the installed libetm.so.0"

echo "== the same through pkg-config"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion etm)" = "$("$prefix/bin/etm" --version | awk '{print $NF}')" ] ||
  fail "etm.pc's version is not the tool's"
# shellcheck disable=SC2046
cc -o "$work/consumer_pc" "$src/tb/install/c/main.c" $(pkg-config --cflags --libs etm)
"$work/consumer_pc"

echo "== a SystemC program on etm::sc"
cmake -S "$src/tb/install/sc" -B "$work/sc" -DCMAKE_PREFIX_PATH="$prefix" >"$work/sc.log"
cmake --build "$work/sc" >>"$work/sc.log"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/sc/consumer_sc"

echo "== a Verilator testbench on the DPI package"
dpi=$prefix/share/etm/dpi
verilator --binary -Wno-fatal -I"$dpi" --Mdir "$work/dpi" --top-module tb \
  "$dpi/etm_dpi_pkg.sv" "$src/tb/install/dpi/tb.sv" \
  -LDFLAGS "-L$prefix/lib -letm_dpi -Wl,-rpath,$prefix/lib" >"$work/dpi.log" 2>&1 ||
  { cat "$work/dpi.log"; fail "the DPI testbench does not build"; }
"$work/dpi/Vtb" | tee "$work/dpi.out"
grep -q "consumer_dpi: ok" "$work/dpi.out" || fail "the DPI testbench"

echo "== the Python package, from the prefix, finding libetm there"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
env -u LD_LIBRARY_PATH -u ETM_LIBRARY PYTHONPATH="$prefix/lib/python3/dist-packages" "$py" -c "
import os, sys, etm
lib = os.path.realpath(etm._lib._name)
assert lib.startswith(os.path.realpath(sys.argv[1])), lib
r = etm.generate(20000, seed=2)
with etm.Etm(etm.Config.preset('etm-m3')) as m:
    t = m.run(r, finish=True)
v = etm.verify(etm.Config.preset('etm-m3'), r, t)
assert v['passed'] and v['instructions'] > 5000, v
print('python: etm', etm.__version__, 'from', lib + ':', len(t), 'bytes,', v['instructions'], 'instructions verified')
" "$prefix" || fail "the Python package"

echo "== the installed RTL, linted from its file list"
verilator --lint-only -Wall "$prefix/share/etm/rtl/lint_waivers.vlt" -F "$prefix/share/etm/rtl/etm.f" \
  --top-module etm_top || fail "the installed RTL"
echo "install test: all consumers built and ran against $prefix"
