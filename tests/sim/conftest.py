"""Fixtures for the tests that run firmware: they need avr-gcc and the binding."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

TEST_FIRMWARE = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "firmware" / "tests"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    inside = functools.cache(lambda path: here in path.resolve().parents)  # once per module
    for item in items:
        if inside(item.path):
            item.add_marker(pytest.mark.sim)


@pytest.fixture(scope="session")
def build_test_firmware() -> Callable[..., Any]:
    """Build one of harness/fairdie/firmware/tests/<name> (cached by content)."""
    from fairdie.toolchain import build

    def _build(
        name: str, *, mcu: str | None = None, f_cpu: int | None = None, **defines: Any
    ) -> Any:
        return build(TEST_FIRMWARE / name, mcu=mcu, f_cpu=f_cpu, defines=defines)

    return _build


@pytest.fixture
def make_chip(build_test_firmware: Callable[..., Any]) -> Callable[..., Any]:
    """A powered chip running a test firmware: ``make_chip("ctc", CTC_TOP=99)``."""
    from fairdie.sim import Chip

    def _make(
        name: str,
        *,
        mcu: str | None = None,
        f_cpu: int | None = None,
        chip_args: dict[str, Any] | None = None,
        power: bool = True,
        **defines: Any,
    ) -> Chip:
        b = build_test_firmware(name, mcu=mcu, f_cpu=f_cpu, **defines)
        chip = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu, **(chip_args or {}))
        if power:
            chip.power_on()
        return chip

    return _make


@pytest.fixture(scope="session")
def _build_cache() -> Path:
    """This process's firmware cache (a session fixture: set up before any
    test's pytester points HOME elsewhere)."""
    from fairdie.toolchain import default_cache_dir

    return default_cache_dir()


@pytest.fixture
def shared_build_cache(monkeypatch: pytest.MonkeyPatch, _build_cache: Path) -> None:
    """Inner pytester sessions build into this process's firmware cache:
    pytester gives each a fresh HOME, in whose empty cache every firmware an
    inner session builds would compile again."""
    monkeypatch.setenv("FAIRDIE_CACHE", str(_build_cache))


@pytest.fixture(scope="session")
def xdist_run(tmp_path_factory: pytest.TempPathFactory, _build_cache: Path) -> Any:
    """The inner session under xdist that several promises read (xdist_run.py),
    run once a process; its tests carry ``xdist_run.SHARED``."""
    from xdist_run import run_under_xdist

    return run_under_xdist(tmp_path_factory.mktemp("under-xdist"), _build_cache)


@pytest.fixture
def unrecorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chips made in the test are not recorded by the session's own
    ``--fairdie-cov`` (``make test`` records every chip): coverage stays off
    unless the test turns it on."""
    from fairdie.sim import _chip_coverage

    monkeypatch.setattr(_chip_coverage, "_RECORDERS", [])


@pytest.fixture
def on_a_terminal() -> Callable[..., tuple[int, bytes]]:
    """``on_a_terminal(*args)``: run the CLI with its stderr on a pseudo-terminal."""
    return _stderr_on_a_terminal


def _stderr_on_a_terminal(*args: str, timeout: float = 300) -> tuple[int, bytes]:
    """Run ``python -m fairdie.cli ARGS`` with its stderr on a pseudo-terminal:
    its exit status and what it drew there."""
    import os
    import pty
    import select
    import subprocess
    import sys

    main, sub = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "fairdie.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=sub,
    )
    os.close(sub)
    seen = b""
    try:  # read while it runs: the terminal keeps nothing once its last writer is gone
        while True:
            ready, _, _ = select.select([main], [], [], timeout)
            if not ready:
                break
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the command closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
        rc = proc.wait(timeout=timeout)
    return rc, seen
