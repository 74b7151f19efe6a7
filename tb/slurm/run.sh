#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for scripts/slurm-cosim
# (docs/slurm.md):
#   tb/slurm/run.sh SOURCE_DIR BUILD_DIR WORK_DIR
# writes a munge key and a slurm.conf into WORK_DIR, starts munged, slurmctld
# and slurmd (controller and one node on localhost, every file and port its
# own), runs the long lockstep regression as a four-shard job array with a few
# thousand cycles and the quick what-if study as three shards, checks the
# merged results (the study's against one run's), and shuts everything down again,
# leaving nothing running. Needs root (the daemons run as root here) and
# Debian's slurmctld, slurmd, slurm-client and munge: exit 77 (skipped) without.
set -euo pipefail
src=$1 build=$2 work=$3
fail() { echo "slurm test: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then echo "slurm test: needs root; skipped"; exit 77; fi
for t in munged mungekey slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$t" >/dev/null || { echo "slurm test: $t not found (scripts/setup installs Slurm); skipped"; exit 77; }
done
rm -rf "$work"
mkdir -p "$work/state" "$work/spool" "$work/out"
work=$(cd "$work" && pwd)

# Ports of our own, away from a real cluster's 6817/6818.
port=$((20000 + $$ % 20000))
mungekey --create --keyfile="$work/munge.key" --force
chmod 600 "$work/munge.key"
cat >"$work/slurm.conf" <<CONF
ClusterName=etmtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

pids=()
# The daemons of this cluster: their command lines name its files.
daemons() { pgrep -af "$work/slurm.conf|$work/munge.key"; }
stop_all() {
  scontrol shutdown >/dev/null 2>&1 || true
  sleep 1
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 20); do
    daemons >/dev/null || break
    sleep 0.5
  done
  pkill -9 -f "$work/slurm.conf" 2>/dev/null || true
  pkill -9 -f "$work/munge" 2>/dev/null || true
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_all EXIT

munged --force --foreground --key-file="$work/munge.key" --socket="$work/munge.sock" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed" &
pids+=($!)
for _ in $(seq 20); do [ -S "$work/munge.sock" ] && break; sleep 0.2; done
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { cat "$work"/*.log "$work"/*.out 2>/dev/null | tail -30; fail "the node did not come up (state '$state')"; }
echo "slurm test: controller and node up (ports $port, $((port + 1)))"

bash "$src/scripts/slurm-cosim" --shards 4 --cycles 4000 --out "$work/out" --build "$build" ||
  { tail -20 "$work"/out/shard-*.log 2>/dev/null; fail "scripts/slurm-cosim"; }
/usr/bin/env python3 - "$work/out/merged.json" <<'PY' || fail "the merged result"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["shards"] == 4 and m["shards_reported"] == 4, m
assert m["passed_all"] and m["mismatches"] == 0 and m["failed"] == 0, m
assert m["configurations"] == 4 * m["passed"] // 4 and m["configurations"] >= 4 * 20, m
assert m["cycles"] >= 4000 * m["configurations"] // 4 * 0.9, m
print("merged:", m["configurations"], "configuration runs,", m["cycles"], "cycles,", m["mismatches"], "mismatches")
PY
for i in 0 1 2 3; do
  grep -q "shard $i/4 of cosim on" "$work/out/shard-$i.log" || fail "shard $i did not run as an array task"
done

# A what-if study as a job array of three shards, merged: the results of one
# run on this machine.
mkdir -p "$work/whatif"
cp "$src/studies/default/area-area.txt" "$work/whatif/" 2>/dev/null || true
bash "$src/scripts/slurm-whatif" "$src/studies/quick.study" --shards 3 --out "$work/whatif" --build "$build" ||
  { tail -20 "$work"/whatif/shard-*.log 2>/dev/null; fail "scripts/slurm-whatif"; }
mkdir -p "$work/whatif/report" "$work/local"
"$build/studies/etm-whatif" "$src/studies/quick.study" -o "$work/local" -j 2 --quiet --no-plots
cmp "$work/local/results.csv" "$work/whatif/report/results.csv" || fail "the sharded study's results differ from one run's"
[ -s "$work/whatif/report/report.md" ] || fail "the sharded study wrote no report"
for i in 0 1 2; do
  grep -q "shard $i/3 of whatif on" "$work/whatif/shard-$i.log" || fail "what-if shard $i did not run as an array task"
done
trap - EXIT
stop_all
if daemons; then fail "something of the cluster is still running (above)"; fi
echo "slurm test: the regression's four shards and the study's three ran as job arrays, merged; nothing left running"
