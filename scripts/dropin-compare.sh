#!/usr/bin/env bash
# The drop-in comparison of issue 19: examples/dropin-kv, a small program written against the
# `rocksdb` crate, built as written (CairnDB through crates/cairn-rocksdb) and with its one
# dependency line replaced by rust-rocksdb 0.25 itself; prints each build's time and binary size,
# then runs both programs in alternating rounds (same keys, same options) and prints their rates.
#
# Not run by CI: RocksDB's C++ library takes over half an hour to build on 2 cores. Set
# ROCKSDB_TARGET_DIR to a target directory where rocksdb 0.25 (features lz4, zstd,
# bindgen-runtime; the release profile below) was built before, and cargo reuses that build
# (the RocksDB build time printed is then only what was left to do). The CairnDB build always
# starts from nothing.
#
#   scripts/dropin-compare.sh [KEYS] [ROUNDS]      (defaults 1000000 and 3)
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KEYS=${1:-1000000}
ROUNDS=${2:-3}
if ! [[ $KEYS =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [KEYS] [ROUNDS] (positive integers)" >&2
  exit 2
fi
for tool in bc strip cargo; do
  command -v "$tool" >/dev/null || { echo "dropin-compare: $tool is missing" >&2; exit 2; }
done
OUT=$ROOT/target/dropin
rm -rf "$OUT"
mkdir -p "$OUT/cairn" "$OUT/rocksdb"

for v in cairn rocksdb; do
  cp -r "$ROOT/examples/dropin-kv/src" "$ROOT/examples/dropin-kv/Cargo.toml" "$OUT/$v/"
done
# The one line that differs: the dependency named `rocksdb`.
ROOT_ESCAPED=$(printf '%s' "$ROOT" | sed 's/[\\|&]/\\&/g')
sed -i "s|path = \"../../crates/cairn-rocksdb\"|path = \"$ROOT_ESCAPED/crates/cairn-rocksdb\"|" "$OUT/cairn/Cargo.toml"
sed -i 's|^rocksdb = { package = "cairn-rocksdb".*|rocksdb = { version = "=0.25.0", default-features = false, features = ["lz4", "zstd", "bindgen-runtime"] }|' \
  "$OUT/rocksdb/Cargo.toml"
grep -qF "rocksdb = { package = \"cairn-rocksdb\", path = \"$ROOT/crates/cairn-rocksdb\"" "$OUT/cairn/Cargo.toml" &&
  grep -q '^rocksdb = { version = "=0.25.0"' "$OUT/rocksdb/Cargo.toml" ||
  { echo "dropin-compare: the dependency lines were not rewritten" >&2; exit 1; }
echo "dependency lines:"
grep -h '^rocksdb' "$OUT/cairn/Cargo.toml" "$OUT/rocksdb/Cargo.toml" | sed 's/^/  /'
# The workspace's lock, so shared dependencies resolve to the versions the workspace tests (and
# to those of a reused RocksDB build).
cp "$ROOT/Cargo.lock" "$OUT/cairn/Cargo.lock"
cp "$ROOT/Cargo.lock" "$OUT/rocksdb/Cargo.lock"

build() {
  local v=$1 target=$2 t0 secs
  t0=$(date +%s.%N)
  CARGO_TARGET_DIR=$target cargo build --release --quiet --manifest-path "$OUT/$v/Cargo.toml"
  secs=$(echo "$(date +%s.%N) - $t0" | bc)
  cp "$target/release/dropin-kv" "$OUT/dropin-kv-$v"
  cp "$OUT/dropin-kv-$v" "$OUT/dropin-kv-$v.stripped"
  strip "$OUT/dropin-kv-$v.stripped"
  printf "build %-8s %8.1f s   binary %6.1f MB (stripped %6.1f MB)\n" "$v" "$secs" \
    "$(echo "$(stat -c %s "$OUT/dropin-kv-$v") / 1000000" | bc -l)" \
    "$(echo "$(stat -c %s "$OUT/dropin-kv-$v.stripped") / 1000000" | bc -l)"
}
build cairn "$OUT/cairn/target"
build rocksdb "${ROCKSDB_TARGET_DIR:-$OUT/rocksdb/target}"

for r in $(seq 1 "$ROUNDS"); do
  # Each engine goes first in every other round.
  order="cairn rocksdb"
  if [ $((r % 2)) -eq 0 ]; then order="rocksdb cairn"; fi
  for v in $order; do
    echo "round $r: $v"
    "$OUT/dropin-kv-$v" "$OUT/db-$v" "$KEYS" | sed 's/^/  /'
    rm -rf "$OUT/db-$v"
  done
done
