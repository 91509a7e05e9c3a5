"""The type stubs (python/cairndb/_cairndb.pyi) declare exactly the public methods and
properties of each class of the extension module."""

import ast
import pathlib

import cairndb
from cairndb import _cairndb

STUBS = pathlib.Path(cairndb.__file__).with_name("_cairndb.pyi")


def stub_members():
    tree = ast.parse(STUBS.read_text())
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}

    def members(name):
        c = classes[name]
        out = {f.name for f in c.body if isinstance(f, ast.FunctionDef)}
        for base in c.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                out |= members(base.id)
        return out

    return {name: members(name) for name in classes}


def runtime_members(cls):
    return {
        n
        for n in dir(cls)
        if (not n.startswith("_") or n in ("__getitem__", "__setitem__", "__delitem__",
                                            "__contains__", "__iter__", "__next__", "__len__",
                                            "__enter__", "__exit__"))
        and n not in ("__init__", "__new__")
        and not (isinstance(cls, type) and issubclass(cls, BaseException))
    }


def test_stubs_match_the_module():
    stubs = stub_members()
    for name in _cairndb.__all__ if hasattr(_cairndb, "__all__") else dir(_cairndb):
        obj = getattr(_cairndb, name)
        if not isinstance(obj, type) or issubclass(obj, BaseException):
            continue
        assert name in stubs, f"{name} has no stub"
        declared = stubs[name] - {"__init__"}
        assert runtime_members(obj) == declared, name
