#!/usr/bin/env bash
# Runs rust-rocksdb's own integration tests, unchanged, against CairnDB's facade crate
# (crates/cairn-rocksdb), and prints one line per test file: tests passed, failed, and not run
# because the file does not compile (an API the facade lacks) or because the test is excluded.
#
# The tests come from the `rocksdb` 0.25.0 crate on crates.io (checksum pinned); they are copied
# into a scratch crate under target/ whose `rocksdb` dependency is the facade
# (`rocksdb = { package = "cairn-rocksdb", path = ... }`), the switch a user makes. Nothing of
# RocksDB is built. The test sources are never edited.
#
# Exit status: 0 when the tests that fail are exactly those listed in KNOWN_FAILING (below, each
# with the missing CairnDB feature; they still run and count as failed), at least MIN_PASSED
# tests passed and at most MAX_NOT_BUILT are in files that do not compile, so that losing a test
# file to a compile error fails CI. rust-rocksdb marks two tests #[ignore]; they are not run.
#
# Usage: scripts/rust-rocksdb-tests.sh [--keep-going]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

VERSION=0.25.0
SHA256=d8d90add70d1d420ee487bce4a1449880a8d147451c6051b2ee5f8354553dcbf
# The floor of passing tests; raise it as the facade grows.
MIN_PASSED=${MIN_PASSED:-150}
# The most tests allowed in files that do not compile (a file that stops compiling fails CI).
MAX_NOT_BUILT=${MAX_NOT_BUILT:-5}

OUT=$ROOT/target/rust-rocksdb-tests
mkdir -p "$OUT"
CRATE=$OUT/rocksdb-$VERSION.crate
if [ ! -f "$CRATE" ] || ! echo "$SHA256  $CRATE" | sha256sum -c --quiet - 2>/dev/null; then
  curl --proto '=https' -sSfL -o "$CRATE" "https://static.crates.io/crates/rocksdb/rocksdb-$VERSION.crate"
  echo "$SHA256  $CRATE" | sha256sum -c --quiet -
fi
rm -rf "$OUT/src-crate" && mkdir -p "$OUT/src-crate"
tar -xzf "$CRATE" -C "$OUT/src-crate" "rocksdb-$VERSION/tests"
SRC=$OUT/src-crate/rocksdb-$VERSION/tests

# The scratch crate: its own workspace, the tests as they are, the facade as `rocksdb`, and the
# dev-dependencies of rust-rocksdb's Cargo.toml.
SCRATCH=$OUT/scratch
mkdir -p "$SCRATCH/src"
rm -rf "$SCRATCH/tests"
cp -r "$SRC" "$SCRATCH/tests"
cat >"$SCRATCH/Cargo.toml" <<TOML
[package]
name = "rust-rocksdb-tests"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
rocksdb = { package = "cairn-rocksdb", path = "$ROOT/crates/cairn-rocksdb" }

[dev-dependencies]
bincode = "2"
pretty_assertions = "1"
tempfile = "3"
trybuild = "1"

# rust-rocksdb's feature names, with its default set on: the tests' cfg(feature = ...) choose
# what they expect from them (compressions present, single-threaded column families), and
# rust-rocksdb's own CI runs them with its defaults.
[features]
default = ["snappy", "lz4", "zstd", "zlib", "bzip2"]
snappy = []
lz4 = []
zstd = []
zlib = []
bzip2 = []
jemalloc = []
multi-threaded-cf = []
io-uring = []

[profile.dev.package."*"]
opt-level = 2
TOML
echo "// The tests are in tests/; rust-rocksdb's library is replaced by the facade." >"$SCRATCH/src/lib.rs"
# The workspace's lock, so shared dependencies resolve to the versions the workspace tests;
# cargo adds the tests' own dev-dependencies.
cp "$ROOT/Cargo.lock" "$SCRATCH/Cargo.lock"

# Tests excluded because they need something CairnDB deliberately does not offer, with the
# reason (file:test reason). None so far.
EXCLUDED=(
  "test_rocksdb_options:test_block_based_options reads RocksDB's LOG text (its option dump)"
  "test_rocksdb_options:test_set_data_block_index_type reads RocksDB's LOG text (its option dump)"
  "test_rocksdb_options:test_set_ttl reads RocksDB's LOG text (its option dump)"
  "test_rocksdb_options:jemalloc_init reads RocksDB's LOG text (its build report)"
  "test_rocksdb_options:test_crc32_build reads RocksDB's LOG text (its build report)"
)
# Tests that run and fail because CairnDB lacks a feature or differs on purpose (file:test
# reason). A test that starts passing must be taken off this list.
KNOWN_FAILING=(
  "test_db:cuckoo needs the cuckoo table format"
  "test_db:env_and_dbpaths_test needs db_paths"
  "test_db:fifo_compaction_test expects a FIFO family's manually compacted table in the last level; CairnDB's stays in level 1"
  "test_db:get_with_cache_and_bulkload_test needs unordered_write"
  "test_db:get_with_cache_and_bulkload_and_blobs_test needs unordered_write and blob files"
  "test_db:iterator_test_tailing needs tailing iterators"
  "test_db:set_column_family_metadata_test expects a one-key table file above 1300 bytes; CairnDB's is smaller"
  "test_db:test_atomic_flush_cfs needs atomic flush"
  "test_db:test_full_history_ts_low needs user-defined timestamps"
  "test_write_batch:test_write_batch_put_log_data needs WAL-only blobs in batches (put_log_data)"
  "test_db:test_open_cf_with_ttl needs the TTL database"
  "test_db:test_open_with_ttl needs the TTL database"
  "test_db:test_ttl_mix needs the TTL database"
  "test_db:set_option_test sets paranoid_file_checks and report_bg_io_stats, options CairnDB does not have"
  "test_db:set_option_cf_test sets paranoid_file_checks and report_bg_io_stats, options CairnDB does not have"
  "test_db:test_open_with_multiple_refs_as_single_threaded compares rustc's error text with one written by an older rustc (this compiler words the same error differently)"
  "test_comparator:test_comparator_lifetime CairnDB calls the comparator on a one-key database where RocksDB does not (the test's comparator panics when called)"
  "test_comparator:test_comparator_with_ts needs user-defined timestamps"
  "test_comparator:test_comparator_with_column_family_with_ts needs user-defined timestamps"
  "test_iterator:test_full_iterator needs the hash skip-list memtable (set_memtable_factory)"
  "test_iterator:test_iterator_user_defined_timestamp needs user-defined timestamps"
  "test_optimistic_transaction_db:cuckoo needs the cuckoo table format"
  "test_transaction_db:cuckoo needs the cuckoo table format"
  "test_sst_file_writer:sst_file_writer_with_ts_works needs user-defined timestamps"
  "test_transaction_db_memory_usage:test_transaction_db_memory_usage expects bytes in a block cache no block was read into (RocksDB's cache holds reservations from the start; CairnDB's is empty until a block is read)"
  "test_optimistic_transaction_db_memory_usage:test_optimistic_transaction_db_memory_usage expects bytes in a block cache no block was read into (as above)"
  "test_rocksdb_options:set_compression_options_zstd_max_train_bytes needs compression dictionaries"
  "test_rocksdb_options:set_wal_compression_unsupported expects the setter to panic; CairnDB refuses the option when the database opens"
  "test_rocksdb_options:set_wal_compression_zstd needs WAL compression"
  "test_rocksdb_options:test_add_compact_on_deletion_collector_factory CairnDB refuses a deletion trigger above the window size (and the test reads RocksDB's LOG text)"
  "test_rocksdb_options:test_block_based_table_pinning_tier needs pinned index and filter blocks"
  "test_rocksdb_options:test_bz2_compression needs bzip2 compression"
  "test_rocksdb_options:test_zlib_compression needs zlib compression"
  "test_rocksdb_options:test_lz4_compression needs LZ4HC compression"
  "test_rocksdb_options:test_get_options_from_string CairnDB's option strings refuse use_fsync, even false"
  "test_rocksdb_options:test_lru_cache_custom_opts needs a row cache"
  "test_rocksdb_options:test_set_avoid_unnecessary_blocking_io needs avoid_unnecessary_blocking_io"
  "test_rocksdb_options:test_set_blob_cache needs blob files (key-value separation)"
  "test_rocksdb_options:test_set_cf_paths needs cf_paths"
  "test_rocksdb_options:test_set_experimental_mempurge_threshold needs mempurge"
  "test_rocksdb_options:test_set_ratelimiter needs the auto-tuned rate limiter"
  "test_rocksdb_options:test_set_track_and_verify_wals_in_manifest needs WAL tracking in the MANIFEST"
  "test_rocksdb_options:test_set_write_dbid_to_manifest needs a database identity"
)

export CARGO_TARGET_DIR=$OUT/target
cd "$SCRATCH"
total_pass=0 total_fail=0 total_nocompile=0 total_excluded=0 unexpected=()
printf '%-48s %6s %6s %10s %8s\n' "file" "passed" "failed" "not-built" "excluded"
for f in tests/test_*.rs; do
  name=$(basename "$f" .rs)
  ntests=$(grep -c '^\s*#\[test\]' "$f" || true)
  skips=() nexcl=0
  for e in "${EXCLUDED[@]}"; do
    file=${e%%:*}; rest=${e#*:}; test=${rest%% *}
    if [ "$file" = "$name" ]; then skips+=(--skip "$test"); nexcl=$((nexcl + 1)); fi
  done
  if ! cargo test -q --test "$name" --no-run >"$OUT/$name.build.log" 2>&1; then
    printf '%-48s %6s %6s %10s %8s\n' "$name" 0 0 "$ntests" "$nexcl"
    total_nocompile=$((total_nocompile + ntests))
    { grep -E '^error' "$OUT/$name.build.log" || true; } | sort | uniq -c | sort -rn | head -5 |
      sed 's/^/      /'
    for e in "${KNOWN_FAILING[@]}"; do
      if [ "${e%%:*}" = "$name" ]; then
        unexpected+=("$name (listed in KNOWN_FAILING but does not compile)")
        break
      fi
    done
    continue
  fi
  set +e
  # One test at a time. With two, test_transaction_db's snapshot_test failed about 1 run in
  # 10: its DBPath's destroy found the LOCK still held just after the database closed, while
  # the file's trybuild tests were spawning compilers. CairnDB locks with flock(2), and a lock
  # on an open file description is inherited by a forked child until it execs, so a process
  # that forks while a database is open holds its LOCK for that moment (RocksDB uses fcntl
  # record locks, which children do not inherit). An engine defect, noted in stop 35's note.
  cargo test -q --test "$name" -- --test-threads=1 --exact "${skips[@]}" >"$OUT/$name.log" 2>&1
  set -e
  line=$({ grep -E '^test result:' "$OUT/$name.log" || true; } | tail -1)
  pass=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line"); pass=${pass:-0}
  fail=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line"); fail=${fail:-0}
  if [ -z "$line" ]; then fail=$((ntests - nexcl)); fi
  printf '%-48s %6s %6s %10s %8s\n' "$name" "$pass" "$fail" 0 "$nexcl"
  failing=$(sed -nE 's/^---- ([A-Za-z0-9_:]+) stdout ----$/\1/p' "$OUT/$name.log" | sort)
  known=$(for e in "${KNOWN_FAILING[@]}"; do
    file=${e%%:*}; rest=${e#*:}
    if [ "$file" = "$name" ]; then echo "${rest%% *}"; fi
  done | sort)
  if [ -n "$failing" ]; then sed 's/^/      failed: /' <<<"$failing"; fi
  if [ -z "$line" ] || [ "$failing" != "$known" ]; then
    unexpected+=("$name (failing: ${failing:-none}; listed: ${known:-none})")
  fi
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
  total_excluded=$((total_excluded + nexcl))
done
printf '%-48s %6s %6s %10s %8s\n' "TOTAL" "$total_pass" "$total_fail" "$total_nocompile" "$total_excluded"
echo "RELIABILITY rust_rocksdb_tests passed=$total_pass failed=$total_fail not_built=$total_nocompile excluded=$total_excluded"
if [ "${#unexpected[@]}" != 0 ]; then
  printf 'rust-rocksdb tests: failures differ from KNOWN_FAILING in %s\n' "${unexpected[@]}" >&2
  exit 1
fi
if [ "$total_nocompile" -gt "$MAX_NOT_BUILT" ]; then
  echo "rust-rocksdb tests: $total_nocompile in files that do not compile, above $MAX_NOT_BUILT" >&2
  exit 1
fi
if [ "$total_pass" -lt "$MIN_PASSED" ]; then
  echo "rust-rocksdb tests: $total_pass passed, below the floor of $MIN_PASSED" >&2
  exit 1
fi
