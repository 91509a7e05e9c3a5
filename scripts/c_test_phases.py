#!/usr/bin/env python3
"""Assembles a test program from RocksDB's own db/c_test.c made of the phases CairnDB's C library
can run, each phase's code unchanged. Used by scripts/c_api.sh.

c_test.c is one main() whose phases (StartPhase("name") ... ) share the objects made in its
first phase, create_objects. The program written here keeps, unchanged:
  - every helper function, macro and global of the file whose code names only functions, types
    and constants that CairnDB's header declares (the others, and helpers that call them, go);
  - main()'s variable declarations of types CairnDB declares;
  - every phase whose code names only what CairnDB declares, except the phases given with
    --skip NAME=REASON (phases that compile but test behaviour CairnDB does not have).
create_objects uses 20 functions CairnDB does not provide (environments, data-block hash
indexes, pinning tiers, ...), so it is replaced by SETUP, which makes the same objects with the
provided subset; the final phase, cleanup, is replaced by the matching releases (the END part
of SETUP). The #include of c_api_gen/c_generated_roundtrip_tests.c.inc, a generated file the
RocksDB sources in librocksdb-sys do not ship, goes with the one phase that uses it.

Usage: c_test_phases.py C_TEST HEADER SETUP OUT --expect-run N [--skip NAME=REASON]...
Prints each phase with RUN or the reason it is left out, and fails unless exactly N phases run
and every --skip names a phase that would otherwise run (so that a change to the header, to
c_test.c or to this script cannot quietly shrink the test)."""

import re
import sys


def identifiers(text):
    return set(re.findall(r"\brocksdb_\w+", text))


def strip_comments(text):
    """The code of `text` without comments and with string literals emptied."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def top_level_items(text):
    """Splits C source into top-level items: preprocessor lines and declarations/definitions."""
    items, cur, depth = [], [], 0
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if depth == 0 and not cur and line.lstrip().startswith("#"):
            block = [line]
            while block[-1].rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            items.append("\n".join(block))
            i += 1
            continue
        cur.append(line)
        code = strip_comments(line)
        depth += code.count("{") - code.count("}")
        stripped = code.strip()
        if depth == 0 and (stripped.endswith("}") or stripped.endswith(";")):
            items.append("\n".join(cur))
            cur = []
        i += 1
    if cur:
        items.append("\n".join(cur))
    return items


def defined_name(item):
    m = re.search(r"\b(\w+)\s*\([^;{]*\)\s*\{", strip_comments(item), flags=re.S)
    return m.group(1) if m else None


def main():
    args = sys.argv[1:]
    skips = {}
    rest = []
    expect_run = None
    while args:
        a = args.pop(0)
        if a == "--skip":
            name, reason = args.pop(0).split("=", 1)
            skips[name] = reason
        elif a == "--expect-run":
            expect_run = int(args.pop(0))
        else:
            rest.append(a)
    if expect_run is None:
        raise SystemExit("c_test_phases.py: --expect-run N is required")
    c_test, header, setup, out = rest
    src = open(c_test).read()
    declared = identifiers(strip_comments(open(header).read()))
    setup_text = open(setup).read()
    setup_begin, setup_end = setup_text.split("/* END */")

    cut = src.index("int main(")
    preamble, main_src = src[:cut], src[cut:]
    preamble = preamble.replace('#include "c_api_gen/c_generated_roundtrip_tests.c.inc"', "")

    # Helpers: keep those naming only declared identifiers, transitively.
    items = top_level_items(preamble)
    dropped = set()
    keep = [True] * len(items)
    changed = True
    while changed:
        changed = False
        for n, item in enumerate(items):
            if not keep[n]:
                continue
            code = strip_comments(item)
            undeclared = identifiers(code) - declared
            calls_dropped = any(re.search(rf"\b{re.escape(d)}\s*\(", code) for d in dropped)
            if undeclared or calls_dropped:
                keep[n] = False
                name = defined_name(item)
                if name:
                    dropped.add(name)
                changed = True
    kept_preamble = "\n".join(item for n, item in enumerate(items) if keep[n])

    # main(): declarations, then phases.
    parts = re.split(r'(\n\s*StartPhase\("([^"]+)"\);)', main_src)
    head = parts[0]
    head_lines = [
        l for l in head.split("\n") if not (identifiers(strip_comments(l)) - declared)
    ]
    body = ["\n".join(head_lines)]
    report = []
    for k in range(1, len(parts), 3):
        marker, name, code = parts[k], parts[k + 1], parts[k + 2]
        if name == "create_objects":
            body.append(setup_begin)
            report.append((name, "REPLACED by the setup (20 of its 41 functions are not provided)"))
            continue
        if name == "cleanup":
            body.append(setup_end)
            report.append((name, "REPLACED by the setup's releases"))
            continue
        c = strip_comments(code)
        undeclared = sorted(identifiers(c) - declared)
        uses_dropped = sorted(d for d in dropped if re.search(rf"\b{re.escape(d)}\s*\(", c))
        if undeclared:
            shown = ", ".join(undeclared[:4]) + (" ..." if len(undeclared) > 4 else "")
            report.append((name, f"not provided: {shown} ({len(undeclared)})"))
        elif uses_dropped:
            report.append((name, f"needs helpers that use what is not provided: {', '.join(uses_dropped)}"))
        elif name in skips:
            report.append((name, f"SKIPPED: {skips[name]}"))
        else:
            body.append(marker + code)
            report.append((name, "RUN"))
    program = (
        "/* Generated by scripts/c_test_phases.py from RocksDB's db/c_test.c: its phases, unchanged,\n"
        "   that CairnDB's C library can run. Do not edit. */\n" + kept_preamble + "\n" + "".join(body)
    )
    open(out, "w").write(program)
    runs = sum(1 for _, r in report if r == "RUN")
    for name, r in report:
        print(f"c_test phase {name}: {r}")
    print(f"c_test phases: {runs} run of {len(report)}")
    skipped = {name for name, r in report if r.startswith("SKIPPED")}
    unused = sorted(set(skips) - skipped)
    if unused:
        raise SystemExit(f"c_test_phases.py: --skip names no runnable phase: {unused}")
    if runs != expect_run:
        raise SystemExit(f"c_test_phases.py: {runs} phases run, expected {expect_run}")


main()
