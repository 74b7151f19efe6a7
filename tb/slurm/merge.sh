#!/usr/bin/env bash
# scripts/slurm-merge on shard summaries written here: it sums them, and fails
# on a mismatch, a failed configuration, a missing shard or another run's shard.
#   tb/slurm/merge.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
shard() { # I N FAILED MISMATCHES
  printf '{"schema":"etm-cosim-shard","schema_version":1,"shard":"%s/%s","configurations":31,"passed":%d,"failed":%d,"cycles":1000,"mismatches":%d,"instructions":400,"bytes":300,"violations":0}\n' \
    "$1" "$2" $((31 - $3)) "$3" "$4" >"$work/shard-$1.json"
}
merge() { python3 "$src/scripts/slurm-merge" "$work" "$1" >/dev/null 2>&1; }
shard 0 3 0 0; shard 1 3 0 0; shard 2 3 0 0
merge 3 || { echo "three good shards did not merge"; exit 1; }
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if (m['cycles'], m['configurations'], m['passed_all']) == (3000, 93, True) else 1)" \
  "$work/merged.json" || { echo "the sums are wrong"; exit 1; }
shard 1 3 0 2; ! merge 3 || { echo "a mismatch merged"; exit 1; }
shard 1 3 1 1; ! merge 3 || { echo "a failed configuration merged"; exit 1; }
shard 1 3 0 0; rm "$work/shard-2.json"; ! merge 3 || { echo "a missing shard merged"; exit 1; }
shard 2 4 0 0; ! merge 3 || { echo "another run's shard merged"; exit 1; }
echo "slurm-merge: sums, and refuses mismatches, failures, missing and foreign shards"
