"""The build refuses a libsimavr other than 1.6 with one line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BUILD = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "sim" / "_build.py"


@pytest.fixture(scope="module")
def build_module(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("FAIRDIE_SKIP_SIMAVR_VERSION_CHECK", "1")  # importing must not check this host
    spec = importlib.util.spec_from_file_location("fairdie_build_script", BUILD)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    mp.undo()
    return module


@pytest.mark.parametrize("found", ["1.6", "1.6.1"])
def test_simavr_1_6_is_accepted(build_module, found):
    build_module.check_simavr_version(found)


@pytest.mark.parametrize(
    ("found", "message"),
    [("1.7", "libsimavr 1.7 found, but fairdie needs 1.6"), (None, "libsimavr not found")],
)
def test_other_versions_stop_the_build_with_one_line(build_module, found, message):
    with pytest.raises(SystemExit) as e:
        build_module.check_simavr_version(found)
    text = str(e.value)
    assert message in text and "\n" not in text
