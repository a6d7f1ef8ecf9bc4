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
#: the variables of a make that runs these tests (make test JOBS=auto ...): not the inner make's
OUTER = {
    "MAKEFLAGS",
    "MFLAGS",
    "MAKELEVEL",
    "MAKEOVERRIDES",
    "JOBS",
    "PYTEST_ARGS",
    "VENV",
    "COVERAGE",
}


def make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``make args`` in the checkout, with the environment ``env`` (default:
    this process's, without the outer make's variables)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k not in OUTER}
    return subprocess.run(
        ["make", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


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
    r = make("-n", *variables)
    assert r.returncode == 0, r.stderr
    assert f".venv/bin/python -m pytest {command}" in [
        line.strip() for line in r.stdout.splitlines()
    ]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_keeps_bytecode_where_the_environment_says_not_to() -> None:
    # make setup compiles the package, and make test's collection keeps pytest's
    # rewritten modules, for every later process to read (README "Make targets")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("MAKEFLAGS", None)
    show = 'show-env: ; @echo "[$${PYTHONDONTWRITEBYTECODE-}]"'
    r = make("-s", "--eval", show, "show-env", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_test_lints_beside_pytest_and_fails_when_either_fails(tmp_path: Path) -> None:
    # make test runs the linters beside the tests (README "Make targets"): a lint
    # failure is printed and fails make test, and pytest still runs to its end.
    # The linters and the interpreter are stood in for, and setup is left out
    # (STAMP=). Failing, `false` fails at once and `echo` says it ran half a
    # second after: the tests start after lint failed, which make -k allows.
    log = tmp_path / "lint.log"

    def make_test(lint: str, python: str) -> subprocess.CompletedProcess[str]:
        return make("test", "STAMP=", "COVERAGE=", f"LINT_LOG={log}", f"LINT={lint}", python)

    bad = make_test("echo lint said no; false", "VPY=sleep 0.5; echo ran")
    assert bad.returncode != 0
    assert "lint said no" in bad.stdout and "make lint: FAILED" in bad.stdout
    assert "ran -m pytest -m not slow -n 2 --dist loadgroup" in bad.stdout  # ran to its end
    good = make_test("true", "VPY=echo ran")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "make lint: passed" in good.stdout and "ran -m pytest" in good.stdout


def test_loadgroup_names_the_group_that_one_worker_runs(pytester: pytest.Pytester) -> None:
    # make test's --dist loadgroup runs each xdist_group on one worker (README
    # "For CI"): the scheduler reads the group off the node id each worker
    # reports, which pytest-xdist's worker hook sets. pytest 9.2 ignores it
    # (pytest-dev/pytest-xdist#1386), hence pyproject's pin: this fails without it.
    from xdist.remote import WorkerInteractor

    pytester.makepyfile(
        "import pytest\n@pytest.mark.xdist_group('g')\ndef test_a(): pass\ndef test_b(): pass\n"
    )
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider")
    config = items[0].config
    config.option.loadgroup = True
    WorkerInteractor.pytest_collection_modifyitems(None, config, items)  # type: ignore[arg-type]
    assert [i.nodeid.rpartition("::")[2] for i in items] == ["test_a@g", "test_b"]
