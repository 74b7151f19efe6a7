#!/bin/sh
# Test whatif.shards: studies/quick.study run whole and as three shards merged
# gives the same results.csv; a merge with a shard missing, or with another
# study's shard, fails and says which.
#   shards.sh ETM_WHATIF STUDIES_DIR OUT_DIR
set -eu
whatif=$1 studies=$2 out=$3
study="$studies/quick.study"
rm -rf "$out"
mkdir -p "$out"
"$whatif" "$study" -o "$out/whole" -j 2 --quiet --no-plots
for i in 0 1 2; do
    "$whatif" "$study" --shard "$i/3" -o "$out/s$i" -j 1 --quiet
    [ -s "$out/s$i/shard.res" ] || { echo "shards.sh: shard $i wrote no shard.res"; exit 1; }
    [ ! -e "$out/s$i/results.csv" ] || { echo "shards.sh: shard $i wrote a results.csv"; exit 1; }
done
"$whatif" "$study" --merge "$out/s0/shard.res" "$out/s1/shard.res" "$out/s2/shard.res" -o "$out/merged" --quiet --no-plots
cmp "$out/whole/results.csv" "$out/merged/results.csv" || { echo "shards.sh: the merged results differ"; exit 1; }
[ -s "$out/merged/report.md" ] || { echo "shards.sh: the merge wrote no report"; exit 1; }
if "$whatif" "$study" --merge "$out/s0/shard.res" "$out/s2/shard.res" -o "$out/bad" --quiet --no-plots 2>"$out/err"; then
    echo "shards.sh: a merge without shard 1 succeeded"; exit 1
fi
grep -q "a shard is missing" "$out/err" || { echo "shards.sh: the missing shard is not named"; cat "$out/err"; exit 1; }
"$whatif" "$studies/test/layout.study" --shard 0/2 -o "$out/other" -j 1 --quiet 2>/dev/null || true
if [ -s "$out/other/shard.res" ] && "$whatif" "$study" --merge "$out/other/shard.res" -o "$out/bad2" --quiet --no-plots 2>"$out/err2"; then
    echo "shards.sh: another study's shard merged"; exit 1
fi
echo "shards.sh: three shards merged into the whole run's results"
