#!/usr/bin/env bash
# Predicted against measured false positives of absent-key lookups, with 10 filter bits per key
# on every table and with optimize_filters (docs/design/lsm_math.md, "Predicted and measured").
# For each: a fillrandom database, flushed and compacted; the prediction
# (cairndb.filter-false-positives-per-lookup) and the filter memory of its tables; then
# readmissing lookups with statistics, whose false positives are
# rocksdb.bloom.filter.full.positive - rocksdb.bloom.filter.full.true.positive.
#
#   scripts/filter-bits.sh [NUM_KEYS] [READS]     (default 2000000 500000; needs a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
CAIRN=${CAIRN:-target/release/cairn}
NUM=${1:-2000000}
READS=${2:-500000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FLAGS=(--num="$NUM" --key_size=16 --value_size=100 --bloom_bits=10 --write_buffer_size=8388608
  --target_file_size_base=8388608 --max_bytes_for_level_base=33554432 --compression_type=none
  --cache_size=268435456 --seed=7)
for mode in uniform optimize_filters; do
  db=$WORK/$mode
  opt=()
  [ "$mode" = optimize_filters ] && opt=(--options=optimize_filters=true)
  "$CAIRN" bench "${FLAGS[@]}" "${opt[@]}" --db="$db" \
    --benchmarks=fillrandom,flush,waitforcompaction >/dev/null
  predicted=$("$CAIRN" stats --db "$db" --property cairndb.filter-false-positives-per-lookup)
  filter_bytes=$("$CAIRN" sst_dump --file="$db" --show_properties 2>/dev/null |
    awk '/rocksdb.filter.size/ {s += $2} END {print s + 0}')
  out=$("$CAIRN" bench "${FLAGS[@]}" "${opt[@]}" --db="$db" --use_existing_db=1 \
    --reads="$READS" --statistics --benchmarks=readmissing)
  positive=$(awk '/rocksdb.bloom.filter.full.positive COUNT/ {print $NF}' <<<"$out")
  true_positive=$(awk '/rocksdb.bloom.filter.full.true.positive COUNT/ {print $NF}' <<<"$out")
  measured=$(awk -v p="$positive" -v t="$true_positive" -v r="$READS" \
    'BEGIN {printf "%.4f", (p - t) / r}')
  echo "$mode filter_bytes=$filter_bytes predicted_fp_per_lookup=$predicted" \
    "measured_fp_per_lookup=$measured ($((positive - true_positive)) / $READS)"
done
