"""The shipped suites' Hypothesis tests follow the loaded profile's depth.

An explicit ``settings(max_examples=60)`` would hold under every profile; the
suites ask ``fairdie.plugin.examples`` instead, so a shallow profile makes every
one of their tests shallow and fairdie-thorough makes them deep.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

from fairdie.subjects.die.suite._support import MODEL_MARK

SUITES = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "subjects"


def _fresh(path: Path) -> ModuleType:
    """The module imported anew, under a name of its own (its decorators run now)."""
    spec = importlib.util.spec_from_file_location(
        f"_depth_{path.parent.parent.name}_{path.stem}", path
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _depths(module: ModuleType) -> Iterator[tuple[str, int]]:
    for name, fn in vars(module).items():
        chosen = getattr(fn, "_hypothesis_internal_use_settings", None)
        if name.startswith("test_") and chosen is not None:
            yield name, chosen.max_examples


@pytest.mark.parametrize("path", sorted(SUITES.glob("*/suite/test_*.py")), ids=lambda p: p.stem)
def test_every_suite_test_follows_a_shallow_profile(
    path: Path, pytestconfig: pytest.Config
) -> None:
    # the die suite's own marker, registered by its conftest when pytest collects it
    pytestconfig.addinivalue_line("markers", f"{MODEL_MARK}(name): a test of one rule")
    settings.register_profile("fairdie-test-depth", max_examples=2)
    loaded = settings.get_current_profile_name()
    settings.load_profile("fairdie-test-depth")
    try:
        depths = dict(_depths(_fresh(path)))
    finally:
        settings.load_profile(loaded)
    deep = {name: n for name, n in depths.items() if n > 2}
    assert not deep, f"{path.name}: explicit depths that ignore the profile: {deep}"
