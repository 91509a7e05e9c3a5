#!/usr/bin/env bash
# Checks CairnDB's C library (crates/cairn-c) with the system C compiler; the CI step `capi`.
#
#   1. The header (crates/cairn-c/include/cairndb/c.h) declares exactly the functions the shared
#      library exports.
#   2. Each declaration has the signature of its Rust function (scripts/c_api_abi.py writes a
#      file of function-pointer bindings that rustc type-checks).
#   3. Each declaration is identical to RocksDB 11.8.1's include/rocksdb/c.h, compiled together
#      with it (RocksDB's sources come from the librocksdb-sys crate on crates.io, checksum
#      pinned below; nothing is built from them).
#   4. tests/c/api_test.c calls every declared function and passes under AddressSanitizer,
#      LeakSanitizer and UndefinedBehaviorSanitizer (linked to the static library), and again
#      linked to the shared library.
#   5. The README's C example builds and runs.
#   6. RocksDB's own db/c_test.c: the phases that use only provided functions, each unchanged
#      (scripts/c_test_phases.py assembles them; the phases it leaves out are printed with the
#      reason), under AddressSanitizer and LeakSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET="${CARGO_TARGET_DIR:-target}"
OUT="$TARGET/c-api"
LIB="$TARGET/debug"
CRATE=crates/cairn-c
HDR="$CRATE/include/cairndb/c.h"
ROCKSDB_CRATE="librocksdb-sys-0.19.0+11.8.1"
ROCKSDB_SHA256="4f45e86edad8e88efe97dbf384b4e48e1ff0f111eabf154c7b09d7a1e5fb573c"
CC="${CC:-cc}"
mkdir -p "$OUT"

# A C compiler with the sanitizer runtimes, Python 3 and curl; installed when missing (Debian).
if ! command -v python3 >/dev/null || ! command -v curl >/dev/null ||
  ! echo 'int main(void) { return 0; }' |
  "$CC" -x c -fsanitize=address,undefined - -o "$OUT/probe" 2>/dev/null; then
  echo "c_api: installing gcc, python3 and curl"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq gcc python3 curl >/dev/null
fi

cargo build -p cairndb-c

# 1. Header and exports.
declared=$(python3 - "$HDR" <<'EOF'
import re, sys
text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
print("\n".join(sorted(set(re.findall(r"extern CAIRNDB_API[^;(]*?\b(rocksdb_\w+)\(", text)))))
EOF
)
exported=$(nm -D --defined-only "$LIB/libcairndb_c.so" | awk '$2 == "T" && $3 ~ /^rocksdb_/ {print $3}' | sort)
if ! diff <(echo "$declared") <(echo "$exported"); then
  echo "c_api: the header and the library differ (<: declared only, >: exported only)"
  exit 1
fi
echo "c_api: $(echo "$declared" | wc -l) functions declared and exported"

# 2. Rust signatures.
python3 scripts/c_api_abi.py "$HDR" "$OUT/abi.rs"
rustc --edition 2021 --crate-type lib --crate-name c_abi_check --emit=metadata \
  -o "$OUT/abi.rmeta" -L "dependency=$LIB/deps" --extern "cairndb_c=$LIB/libcairndb_c.rlib" \
  "$OUT/abi.rs"
echo "c_api: every declaration matches its Rust function"

# 3. RocksDB's header.
RDB="$OUT/$ROCKSDB_CRATE/rocksdb"
if [ ! -f "$RDB/db/c_test.c" ]; then
  curl --proto '=https' -sSfL -o "$OUT/$ROCKSDB_CRATE.crate" \
    "https://static.crates.io/crates/librocksdb-sys/$ROCKSDB_CRATE.crate"
  echo "$ROCKSDB_SHA256  $OUT/$ROCKSDB_CRATE.crate" | sha256sum -c --quiet -
  tar -xzf "$OUT/$ROCKSDB_CRATE.crate" -C "$OUT" \
    "$ROCKSDB_CRATE/rocksdb/include/rocksdb/c.h" "$ROCKSDB_CRATE/rocksdb/db/c_test.c"
fi
python3 - "$RDB/include/rocksdb/c.h" $declared <<'EOF'
import re, sys
text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
theirs = set(re.findall(r"\b(rocksdb_\w+)\s*\(", text))
unknown = sorted(set(sys.argv[2:]) - theirs)
if unknown:
    sys.exit(f"c_api: declared but not in RocksDB's header: {unknown}")
EOF
printf '#include <rocksdb/c.h>\n#define CAIRNDB_C_NO_DEFINITIONS\n#include <cairndb/c.h>\n' \
  >"$OUT/signatures.c"
"$CC" -std=c11 -Wall -Werror -fsyntax-only -I "$RDB/include" -I "$CRATE/include" \
  "$OUT/signatures.c"
echo "c_api: every declaration is identical to RocksDB 11.8.1's"

# 4. CairnDB's C tests.
# Comments stripped, so that only calls count.
python3 - "$CRATE/tests/c/api_test.c" >"$OUT/api_test_code.c" <<'EOF'
import re, sys
text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
print(re.sub(r"//[^\n]*", "", text))
EOF
uncalled=""
for f in $declared; do
  grep -qw "$f" "$OUT/api_test_code.c" || uncalled="$uncalled $f"
done

if [ -n "$uncalled" ]; then
  echo "c_api: declared but not called by tests/c/api_test.c:$uncalled"
  exit 1
fi
LIBS=(-lpthread -ldl -lm)
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
"$CC" -std=c11 -Wall -Wextra -Werror -g "${SAN[@]}" -I "$CRATE/include" \
  "$CRATE/tests/c/api_test.c" "$LIB/libcairndb_c.a" "${LIBS[@]}" -o "$OUT/api_test"
rm -rf "$OUT/scratch" && mkdir -p "$OUT/scratch"
ASAN_OPTIONS=detect_leaks=1 "$OUT/api_test" "$OUT/scratch"
"$CC" -std=c11 -Wall -Wextra -Werror -I "$CRATE/include" "$CRATE/tests/c/api_test.c" \
  -L "$LIB" -lcairndb_c -o "$OUT/api_test_shared"
rm -rf "$OUT/scratch" && mkdir -p "$OUT/scratch"
LD_LIBRARY_PATH="$LIB" "$OUT/api_test_shared" "$OUT/scratch"

# 5. The README's C example, as a user would build it.
python3 - README.md "$OUT/hello.c" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
section = text[text.index("## From C"):]
open(sys.argv[2], "w").write(re.search(r"```c\n(.*?)```", section, flags=re.S).group(1))
EOF
"$CC" -I "$CRATE/include" "$OUT/hello.c" -L "$LIB" -lcairndb_c -o "$OUT/hello"
LD_LIBRARY_PATH="$LIB" "$OUT/hello" | tee "$OUT/hello.out"
grep -q '^banana -> yellow$' "$OUT/hello.out"

# 6. RocksDB's c_test.c. Phases that compile against CairnDB but cannot run, with the reason:
SKIPS=(
  --skip "two-phase commit=runs after the phase transactions (not runnable: WAL iterator, memory usage, WAL flush), which closes and destroys the main database; here that database still exists, so this phase's open fails (error_if_exists)"
  --skip "transactions_multi_get_for_update=as two-phase commit: its open fails on the main database that the phase transactions would have destroyed"
)
python3 scripts/c_test_phases.py "$RDB/db/c_test.c" "$HDR" "$CRATE/tests/c/c_test_setup.c" \
  "$OUT/c_test_phases.c" --expect-run 24 "${SKIPS[@]}"
"$CC" -std=gnu11 -g -fsanitize=address -fno-omit-frame-pointer -I "$CRATE/include" \
  "$OUT/c_test_phases.c" "$LIB/libcairndb_c.a" "${LIBS[@]}" -o "$OUT/c_test_phases"
rm -rf "$OUT/c_test_tmp" && mkdir -p "$OUT/c_test_tmp"
TEST_TMPDIR="$OUT/c_test_tmp" ASAN_OPTIONS=detect_leaks=1 "$OUT/c_test_phases"
echo "c_api: ok"
