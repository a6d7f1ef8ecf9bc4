"""The README's CI commands: ``make test`` runs the tests not marked ``slow``,
``make campaigns`` the slow ones; both hand ``JOBS`` to pytest-xdist's ``-n`` and
``PYTEST_ARGS`` to pytest (``make -n`` prints what it would run)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: make test's firmware coverage outputs (the README's "Firmware coverage")
COVERAGE = "--fairdie-cov=lcov:out/coverage/firmware.info --fairdie-cov=html:out/coverage/html"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(
    ("variables", "command"),
    [
        (["test"], f'-m "not slow" -n 2 --dist loadgroup {COVERAGE}'),
        (["test", "JOBS=auto", "COVERAGE="], '-m "not slow" -n auto --dist loadgroup'),
        (
            ["test", "JOBS=auto", "PYTEST_ARGS=--junitxml=out/junit.xml"],
            f'-m "not slow" -n auto --dist loadgroup {COVERAGE} --junitxml=out/junit.xml',
        ),
        (["campaigns"], "-m slow -n 2 --dist loadgroup"),
        (["campaigns", "JOBS=4"], "-m slow -n 4 --dist loadgroup"),
    ],
)
def test_make_runs_pytest_on_jobs_workers(variables: list[str], command: str) -> None:
    # not the variables of a make that runs these tests (make test JOBS=auto ...)
    outer = {
        "MAKEFLAGS",
        "MFLAGS",
        "MAKELEVEL",
        "MAKEOVERRIDES",
        "JOBS",
        "PYTEST_ARGS",
        "VENV",
        "COVERAGE",
    }
    env = {k: v for k, v in os.environ.items() if k not in outer}
    out = subprocess.run(
        ["make", "-n", *variables],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert f".venv/bin/python -m pytest {command}" in [line.strip() for line in out.splitlines()]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_keeps_bytecode_where_the_environment_says_not_to() -> None:
    # make setup compiles the package, and make test's collection keeps pytest's
    # rewritten modules, for every later process to read (README "Make targets")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("MAKEFLAGS", None)
    out = subprocess.run(
        ["make", "-s", "--eval", 'show-env: ; @echo "[$${PYTHONDONTWRITEBYTECODE-}]"', "show-env"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.strip() == "[]"
