#!/usr/bin/env bash
# Runs every reliability suite of docs/design/durability.md at CI volume and prints each suite's
# `RELIABILITY ...` line. Fails if any suite fails: a counted violation, a floor not reached
# (`floor_NAME>=N` in the line: the suite did not check enough), a panic, or a hang (a suite
# whose cases make no progress for CAIRN_RELIABILITY_HANG_SECS, default 600 s; no speed is
# asserted, each line prints its rate). Also fails when a suite's RELIABILITY line has no
# floor fields, so that a suite cannot pass without proving it checked something.
#
#   scripts/reliability.sh                          # CI volume
#   CAIRN_RELIABILITY_SCALE=10 scripts/reliability.sh   # ten times the volume (and floors)
#   CAIRN_RELIABILITY_SEED=0x1234 scripts/reliability.sh  # fixed suite seeds
#   scripts/reliability.sh power_cut bit_flips      # only the named suites
#   CAIRN_RELIABILITY_SKIP="model kill9" scripts/reliability.sh  # all but these (printed as SKIPPED)
#
# A failing case prints `CAIRN_RELIABILITY_REPLAY=0x...`; rerun its suite with that variable set
# to replay exactly that case, e.g.
#   CAIRN_RELIABILITY_REPLAY=0xabc cargo test -p cairndb --test reliability_power_cut -- --ignored
set -euo pipefail
cd "$(dirname "$0")/.."

# suite name -> cargo test arguments
declare -A SUITES=(
  [model]="-p cairndb --test reliability_model"
  [power_cut]="-p cairndb --test reliability_power_cut"
  [bit_flips]="-p cairndb --test reliability_bit_flips"
  [faults]="-p cairndb --test reliability_faults"
  [crash_points]="-p cairndb --test reliability_crash_points"
  [concurrency]="-p cairndb --test reliability_concurrency"
  [transactions]="-p cairndb --test reliability_transactions"
  [kill9]="-p cairn-cli --test reliability_kill9"
  [raft]="-p cairn-kv --test reliability_raft"
  [concurrency_models]="-p cairndb --lib memtable::loom_models::"
)
ORDER=(model power_cut bit_flips faults crash_points concurrency transactions kill9 raft concurrency_models)

selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then
  selected=("${ORDER[@]}")
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
start=$(date +%s)
for s in "${selected[@]}"; do
  if [[ " ${CAIRN_RELIABILITY_SKIP:-} " == *" $s "* ]]; then
    echo "RELIABILITY $s SKIPPED (CAIRN_RELIABILITY_SKIP)"
    continue
  fi
  args=${SUITES[$s]:-}
  if [ -z "$args" ]; then
    echo "reliability: unknown suite $s (known: ${ORDER[*]})" >&2
    exit 2
  fi
  t0=$(date +%s)
  runner=(cargo test)
  if [ "$s" = concurrency_models ]; then
    # The loom models run the real memtable code with loom's atomics, which only a
    # `--cfg loom` build has (crates/cairndb/src/util/sync.rs); a target directory of its own
    # keeps that build from displacing the normal one.
    runner=(env RUSTFLAGS="${RUSTFLAGS:-} --cfg loom" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/loom" cargo test)
  fi
  # shellcheck disable=SC2086
  if "${runner[@]}" $args -- --ignored --nocapture --test-threads=1 >"$log" 2>&1; then
    if ! grep -E '^RELIABILITY ' "$log"; then
      echo "reliability: $s printed no RELIABILITY line" >&2
      echo "RELIABILITY $s FAILED (no RELIABILITY line)"
      status=1
    elif grep -E '^RELIABILITY ' "$log" | grep -vqE ' floor_[a-z0-9_]+>=[0-9]+'; then
      echo "reliability: $s printed a RELIABILITY line without floor fields (floor_NAME>=N)" >&2
      echo "RELIABILITY $s FAILED (no floors)"
      status=1
    fi
    # Measurements a suite prints beside its counts (not checked).
    grep -E '^MEASURED ' "$log" || true
    echo "reliability: $s done in $(($(date +%s) - t0)) s"
  else
    grep -E '^RELIABILITY|FAILED|panicked|REPLAY' "$log" | head -n 40 || true
    tail -n 30 "$log"
    echo "RELIABILITY $s FAILED ($(($(date +%s) - t0)) s)"
    status=1
  fi
done
echo "reliability: ${#selected[@]} suites in $(($(date +%s) - start)) s, status $status"
exit $status
