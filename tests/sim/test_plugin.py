"""The plugin runs the die suite against a user's own build, and catches a wrong one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fairdie.toolchain import build

HERE = Path(__file__).resolve().parent
SUITE = str(HERE / "test_die.py")


def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        capture_output=True,
        text=True,
        cwd=HERE.parent.parent,
    )


def test_user_hex_runs_the_same_suite():
    hex_path = build("die_t13a", variant="direct").hex
    r = pytest_run(SUITE, f"--fairdie-firmware={hex_path}", "-k", "not Machine")
    assert r.returncode == 0, r.stdout[-2000:]
    assert "passed" in r.stdout
    # variants needing another build (the charlieplex wiring, another clock) skip, saying so
    assert "skipped" in r.stdout


def test_user_charlieplex_build_with_its_board():
    hex_path = build("die_t13a", variant="charlieplex").hex
    r = pytest_run(
        SUITE,
        f"--fairdie-firmware={hex_path}",
        "--fairdie-board=die-charlieplex",
        "-k",
        "faces or ten_seconds or differential_thousands",
    )
    assert r.returncode == 0, r.stdout[-2000:]


def test_a_wrong_firmware_fails_the_suite(tmp_path):
    wrong = build(HERE.parent / "firmware" / "ctc").hex  # blinks PB0, is no die
    r = pytest_run(SUITE, f"--fairdie-firmware={wrong}", "-k", "each_face and direct", "-x")
    assert r.returncode == 1
    assert "failed" in r.stdout


def test_bad_option_is_a_usage_error(tmp_path):
    r = pytest_run(SUITE, f"--fairdie-firmware={tmp_path / 'none.hex'}")
    assert r.returncode == 4  # pytest's usage error
    assert "no such firmware file" in r.stderr + r.stdout


@pytest.mark.parametrize("form", ["env", "ini"])
def test_option_forms(tmp_path, form):
    hex_path = build("die_t13a", variant="direct").hex
    env = None
    args = [SUITE, "-k", "each_face and direct and 3"]
    if form == "env":
        import os

        env = {**os.environ, "FAIRDIE_FIRMWARE": str(hex_path)}
    else:
        ini = tmp_path / "pytest.ini"
        ini.write_text(f"[pytest]\nfairdie_firmware = {hex_path}\n")
        args += ["-c", str(ini), f"--rootdir={HERE.parent.parent}"]
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        cwd=HERE.parent.parent,
        env=env,
    )
    assert r.returncode == 0, r.stdout[-2000:]
    assert f"fairdie_firmware={hex_path}" in r.stdout
