#!/usr/bin/env python3
"""Writes a Rust file that checks, at compile time, that every function declared in CairnDB's C
header has that signature in the cairndb-c crate: for each declaration, a `let` binds the Rust
function to a function-pointer type built from the C declaration, so a wrong parameter or return
type fails to compile. Used by scripts/c_api.sh.

Usage: c_api_abi.py HEADER OUT.rs"""

import re
import sys

SCALARS = {
    "void": "()",
    "char": "c_char",
    "unsigned char": "c_uchar",
    "int": "c_int",
    "unsigned int": "c_uint",
    "size_t": "usize",
    "double": "c_double",
    "int32_t": "i32",
    "uint32_t": "u32",
    "int64_t": "i64",
    "uint64_t": "u64",
    "bool": "bool",
}


def callback_type(c):
    """The Rust type of C function-pointer parameter `c` (`ret (*name)(params)`): an optional
    `unsafe extern "C" fn`, since C may pass NULL."""
    m = re.match(r"^(.*?)\(\s*\*\s*\w*\s*\)\s*\((.*)\)$", c.strip())
    if not m:
        raise SystemExit(f"c_api_abi.py: cannot parse function pointer {c!r}")
    ret, params = m.group(1).strip(), m.group(2)
    ps = [] if params.strip() in ("", "void") else split_params(params)
    args = ", ".join(rust_type(strip_name(p)) for p in ps)
    r = rust_type(ret)
    arrow = "" if r == "()" else f" -> {r}"
    return f"Option<unsafe extern \"C\" fn({args}){arrow}>"


def rust_type(c):
    """The Rust type of C type `c` (a parameter or return type without a name)."""
    if "(" in c:
        return callback_type(c)
    tokens = c.replace("*", " * ").split()
    stars = tokens.index("*") if "*" in tokens else len(tokens)
    base_words = [t for t in tokens[:stars] if t != "const"]
    base = " ".join(base_words)
    if base in SCALARS:
        ty = SCALARS[base]
    elif base.startswith("rocksdb_"):
        ty = "cairndb_c::" + base
    else:
        raise SystemExit(f"c_api_abi.py: no Rust type for C type {c!r}")
    const = "const" in tokens[:stars]
    rest = tokens[stars:]
    i = 0
    while i < len(rest):
        assert rest[i] == "*", c
        if ty == "()":
            ty = "c_void"
        ty = ("*const " if const else "*mut ") + ty
        const = i + 1 < len(rest) and rest[i + 1] == "const"
        i += 2 if const else 1
    return ty


TYPE_WORDS = {"const", "unsigned", "char", "int", "void", "size_t", "double", "bool",
              "int32_t", "uint32_t", "int64_t", "uint64_t"}


def strip_name(p):
    """The type of parameter `p` without its name (`T name[]` is `T*`)."""
    if "(" in p:
        return p
    p = re.sub(r"(\w+)\s*\[\]", r"* \1", p)
    tokens = p.replace("*", " * ").split()
    last = tokens[-1]
    if last != "*" and last not in TYPE_WORDS and not last.startswith("rocksdb_"):
        tokens = tokens[:-1]
    return " ".join(tokens)


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out]


def main():
    header, out = sys.argv[1], sys.argv[2]
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = ["#![allow(unused_variables, clippy::all)]",
             "use std::ffi::{c_char, c_double, c_int, c_uchar, c_uint, c_void};",
             "pub fn check() {"]
    n = 0
    for m in re.finditer(r"extern CAIRNDB_API\s+(.*?);", text, flags=re.S):
        decl = " ".join(m.group(1).split())
        fm = re.match(r"^(.*?)\b(rocksdb_\w+)\((.*)\)$", decl)
        if not fm:
            raise SystemExit(f"c_api_abi.py: cannot parse {decl!r}")
        ret, name, params = fm.group(1).strip(), fm.group(2), fm.group(3)
        ps = [] if params.strip() in ("", "void") else split_params(params)
        args = ", ".join(rust_type(strip_name(p)) for p in ps)
        r = rust_type(ret)
        arrow = "" if r == "()" else f" -> {r}"
        lines.append(f"    let _: unsafe extern \"C\" fn({args}){arrow} = cairndb_c::{name};")
        n += 1
    lines.append("}")
    open(out, "w").write("\n".join(lines) + "\n")
    print(f"c_api_abi.py: {n} declarations")


main()
