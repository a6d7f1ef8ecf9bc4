"""Shared fixtures: the die's rule.c built for the host. Collection of the sim
tier without the compiled binding (see :class:`SimTierWithoutBinding`).

The Hypothesis profiles come with the fairdie plugin (``fairdie-ci`` under
CI, derandomized, so a CI run is reproducible from the commit alone).
"""

from __future__ import annotations

import functools
import gc
import itertools
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from fairdie.subjects.die._rule_host import HostRule


class SimTierWithoutBinding:
    """Leaves the sim tier's modules out of collection when ``-m`` deselects
    every sim test and the compiled simavr binding is missing.

    Those modules (tests/sim, the shipped suite fairdie.subjects.die.suite) import the
    binding at the top, so collecting them would fail a run that selected
    none of them, such as ``pytest -m "not sim"`` on a machine without it.
    When sim tests are selected they are collected as ever and fail loudly.
    Registered as a plugin, not a conftest hook, so it reaches fairdie.subjects.die.suite
    (outside tests/) too.
    """

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        inside = any(collection_path.is_relative_to(f) for f in self.folders)
        if inside and _sim_deselected(config.option.markexpr) and not _binding_importable():
            return True
        return None


def pytest_configure(config: pytest.Config) -> None:
    import fairdie

    package = Path(fairdie.__file__).resolve().parent
    suites = sorted((package / "subjects").glob("*/suite"))  # each subject's shipped suite
    folders = [Path(__file__).resolve().parent / "sim", *suites]
    config.pluginmanager.register(SimTierWithoutBinding(folders), "fairdie-tests-sim-tier")


@functools.cache
def _binding_importable() -> bool:
    try:
        import fairdie.sim._simavr  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def _sim_deselected(markexpr: str) -> bool:
    """True when ``markexpr`` is false for every item marked sim, whatever other
    marks (named in the expression) it carries. Undecidable cases say False."""
    if not markexpr or "=" in markexpr:  # marks with arguments: mark(key=value)
        return False
    # pytest has no public API to evaluate -m; its own parser decides.
    from _pytest.mark.expression import Expression

    try:
        expr = Expression.compile(markexpr)
    except Exception:  # pytest reports the bad expression itself
        return False
    names = set(re.findall(r"[\w:+\-.\[\]\\/]+", markexpr))
    others = sorted(names - {"and", "or", "not", "sim"})
    if len(others) > 8:
        return False
    for n in range(len(others) + 1):
        for extra in itertools.combinations(others, n):
            if expr.evaluate(_has_marks({"sim", *extra})):
                return False
    return True


def _has_marks(marks: set[str]) -> Callable[..., bool]:
    return lambda name, /, **kwargs: name in marks and not kwargs


@pytest.fixture(scope="session")
def host_cc() -> str:
    """The host C compiler: skips without one, saying why (in CI it fails instead)."""
    cc = shutil.which("cc")
    if cc is None:
        reason = "no host C compiler (cc) to build the die's rule.c for the host: install gcc"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI must run these tests)")
        pytest.skip(reason)
    return cc


@pytest.fixture(scope="session")
def c_rule(host_cc: str) -> HostRule:
    """The die firmware's rule.c compiled for the host (cached by content)."""
    from fairdie.subjects.die._rule_host import host_rule

    return host_rule(cc=host_cc)


#: Long tests that share nothing with their neighbours: they run first, so that
#: pytest-xdist's load scheduling fills the other workers around them instead
#: of leaving one worker alone with a long test at the end of the run. Then
#: each group of tests that one worker runs (``xdist_group``, under ``--dist
#: loadgroup``): the longest units of work, for the same reason.
FIRST = ("tests/unit/test_tiers.py", "tests/sim/test_wheel.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    first = {i: n for n, i in enumerate(FIRST)}

    @functools.cache
    def named(path: Path) -> str:  # once per module: resolving is a system call per part
        path = path.resolve()
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else ""

    def rank(item: pytest.Item) -> int:
        grouped = item.get_closest_marker("xdist_group") is not None
        return first.get(named(item.path), len(FIRST) + (0 if grouped else 1))

    items.sort(key=rank)  # stable: each module keeps its own order


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """pytester, whose in-process sessions and teardown leave fairdie's modules
    loaded (tests/kept_modules.py says why). pytester takes its snapshots
    through a private method, replaced here on the instance; pytest is pinned
    below 9.2 (pyproject's dev extra)."""
    import kept_modules

    assert hasattr(pytester, "_Pytester__take_sys_modules_snapshot"), "pytester changed"
    pytester._sys_modules_snapshot = kept_modules.snapshot()  # type: ignore[attr-defined]
    pytester._Pytester__take_sys_modules_snapshot = kept_modules.snapshot  # type: ignore[attr-defined]
    return pytester


def pytest_collection_finish(session: pytest.Session) -> None:
    """The modules, tests and fixture definitions collected live until the
    session ends: moved out of the cyclic garbage collector's reach, its full
    collections no longer walk them again and again."""
    gc.freeze()
