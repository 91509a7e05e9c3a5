#!/usr/bin/env bash
# Builds and tests the Python package `cairndb` (crates/cairn-py); the CI step `python`.
#
#   1. A virtual environment in target/py-venv with pinned maturin, pytest and rocksdict (RocksDB
#      for Python, prebuilt on PyPI: the other side of the differential test).
#   2. `pip install ./crates/cairn-py`, exactly as the README says, but with the dev profile
#      (MATURIN_PEP517_ARGS) to keep CI fast.
#   3. pytest on crates/cairn-py/tests: the API, threads, the stubs, and the differential test
#      against rocksdict, which prints a DIFFERENTIAL line per seed (CAIRNDB_DIFF_OPS operations
#      each).
#   4. The README's Python example.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET="${CARGO_TARGET_DIR:-target}"
VENV="$TARGET/py-venv"
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python: installing python3-venv"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-venv >/dev/null
fi
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check \
  "maturin==1.16.0" "pytest==9.2.0" "rocksdict==0.3.29"
MATURIN_PEP517_ARGS="--profile dev" "$VENV/bin/pip" install -q --disable-pip-version-check \
  --force-reinstall --no-deps ./crates/cairn-py
status=0
"$VENV/bin/python" -m pytest -q -s -p no:cacheprovider crates/cairn-py/tests \
  >"$TARGET/py-tests.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$TARGET/py-tests.log"
  exit "$status"
fi
grep -oE 'DIFFERENTIAL.*|[0-9]+ passed.*' "$TARGET/py-tests.log"
# The README's Python example, as a user would run it.
"$VENV/bin/python" - README.md >"$TARGET/py-example.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text[text.index("## From Python"):]
print(re.search(r"```python\n(.*?)```", section, flags=re.S).group(1))
PY
"$VENV/bin/python" "$TARGET/py-example.py" | tee "$TARGET/py-example.out"
grep -q "^b'red' b'green'$" "$TARGET/py-example.out"
echo "python: ok"
