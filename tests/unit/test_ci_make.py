"""The README's CI commands: ``make test`` hands ``JOBS`` to pytest-xdist's
``-n`` and ``PYTEST_ARGS`` to pytest (``make -n`` prints what it would run)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(
    ("variables", "command"),
    [
        ([], "-n 2"),
        (["JOBS=auto"], "-n auto"),
        (["JOBS=auto", "PYTEST_ARGS=--junitxml=out/junit.xml"], "-n auto --junitxml=out/junit.xml"),
    ],
)
def test_make_test_runs_pytest_on_jobs_workers(variables: list[str], command: str) -> None:
    # not the variables of a make that runs these tests (make test JOBS=auto ...)
    outer = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "JOBS", "PYTEST_ARGS", "VENV"}
    env = {k: v for k, v in os.environ.items() if k not in outer}
    out = subprocess.run(
        ["make", "-n", "test", *variables],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert f".venv/bin/python -m pytest {command}" in [line.strip() for line in out.splitlines()]
