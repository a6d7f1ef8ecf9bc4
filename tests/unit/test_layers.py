"""Layers: nothing in the core imports a subject, and subjects do not import
each other.

The core (every module of ``fairdie`` outside ``fairdie.subjects``) finds
subjects only through the registry, ``fairdie.subjects``, at run time; the
registry itself imports no subject. The import graph is grimp's (the engine
of import-linter, whose contract in pyproject.toml ``make lint`` checks):
it reads the sources without importing them, and counts imports inside
functions and under ``TYPE_CHECKING`` too. Dynamic imports escape a graph,
so core code naming a subject's module in a string is caught here as well.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
import tomllib
from pathlib import Path

import grimp
import pytest

import fairdie
from fairdie.subjects import REGISTRY

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
REGISTRY_MODULE = "fairdie.subjects"
#: a string naming a subject's module (``"fairdie.subjects.die._cli:press_main"``), not prose
MODULE_NAME = re.compile(r"fairdie\.subjects\.\w+(\.\w+)*(:[\w.]+)?")


def _subject(module: str, package: str) -> str | None:
    """The subject ``module`` belongs to (``"die"``), else None (the core, the registry)."""
    prefix = f"{package}.subjects."
    return module[len(prefix) :].split(".")[0] if module.startswith(prefix) else None


def violations(graph: grimp.ImportGraph, package: str) -> list[str]:
    """Each import that breaks the layers, as ``importer -> imported (why)``."""
    out = []
    for module in sorted(graph.modules):
        mine = _subject(module, package)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            theirs = _subject(imported, package)
            if theirs is None or theirs == mine:
                continue
            if mine is not None:
                why = "subjects do not import each other"
            elif module == f"{package}.subjects":
                why = "the registry imports no subject"
            else:
                why = "the core imports no subject"
            out.append(f"{module} -> {imported} ({why})")
    return out


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("fairdie", cache_dir=None)


def test_the_core_imports_no_subject_and_subjects_not_each_other(
    graph: grimp.ImportGraph,
) -> None:
    assert violations(graph, "fairdie") == []
    # the graph is the whole package: the core, the registry and each subject
    for package in REGISTRY.values():
        assert package in graph.modules
    assert {"fairdie.cli", "fairdie.plugin", REGISTRY_MODULE} <= graph.modules


def _strings(tree: ast.AST) -> list[ast.Constant]:
    """The string constants of a module that are not docstrings."""
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_the_core_names_no_subject_module_in_code() -> None:
    """A dynamic import (``import_module("fairdie.subjects.die...")``) is no
    import in the graph; no string in the core's code is a subject's module
    name. The registry's table of subjects is the one place that has them."""
    root = Path(fairdie.__file__).resolve().parent
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "subjects" and rel != Path("subjects/__init__.py"):
            continue
        for node in _strings(ast.parse(path.read_text(), str(path))):
            if MODULE_NAME.fullmatch(node.value.strip()):
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    registry = root / "subjects" / "__init__.py"
    allowed = {
        f"subjects/__init__.py:{n.lineno}: {n.value!r}"
        for n in _strings(ast.parse(registry.read_text()))
        if n.value in REGISTRY.values()
    }
    assert sorted(set(found) - allowed) == []


def test_the_import_linter_contract_covers_every_core_module(graph: grimp.ImportGraph) -> None:
    """A new core module (or subject) cannot slip past ``lint-imports``."""
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    assert config["root_package"] == "fairdie"
    (contract,) = [c for c in config["contracts"] if c["type"] == "forbidden"]
    core = graph.find_children("fairdie") - {REGISTRY_MODULE}
    assert sorted(contract["source_modules"]) == sorted(core)
    assert sorted(contract["forbidden_modules"]) == sorted(REGISTRY.values())
    assert not contract.get("allow_indirect_imports", False)


def test_the_check_sees_type_checking_and_function_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check can fail: on a package of its own that breaks each rule, the
    graph holds an import under TYPE_CHECKING and one inside a function."""
    files = {
        "__init__.py": "",
        "core.py": """
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from layerpkg.subjects.one import thing
            """,
        "cli.py": """
            def main():
                import layerpkg.subjects.two
            """,
        "subjects/__init__.py": "import layerpkg.subjects.one\n",
        "subjects/one/__init__.py": "thing = 1\n",
        "subjects/two/__init__.py": "from layerpkg.subjects.one import thing\n",
    }
    for name, text in files.items():
        path = tmp_path / "layerpkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "layerpkg", raising=False)
    got = violations(grimp.build_graph("layerpkg", cache_dir=None), "layerpkg")
    assert got == [
        "layerpkg.cli -> layerpkg.subjects.two (the core imports no subject)",
        "layerpkg.core -> layerpkg.subjects.one (the core imports no subject)",
        "layerpkg.subjects -> layerpkg.subjects.one (the registry imports no subject)",
        "layerpkg.subjects.two -> layerpkg.subjects.one (subjects do not import each other)",
    ]
