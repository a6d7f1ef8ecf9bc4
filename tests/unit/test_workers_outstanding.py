"""fairdie.campaigns.Workers counts the pieces its workers still hold, so a
campaign counts as serial only the time in which no worker had work; and it
starts its processes when asked, before any piece."""

from __future__ import annotations

import time
from collections.abc import Callable

import psutil
import pytest

from fairdie.campaigns import Workers


def _until(check: Callable[[], bool], limit_s: float = 30.0) -> bool:
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_pieces_on_workers_are_outstanding_until_they_finish() -> None:
    with Workers(jobs=2) as w:
        assert w.outstanding == 0
        slow = w.map(time.sleep, [0.5, 0.5, 0.5])
        assert w.outstanding == 3
        quick = w.map(abs, [-1])
        assert w.outstanding == 4
        assert list(quick) == [1]
        assert list(slow) == [None, None, None]
        assert _until(lambda: w.outstanding == 0), w.outstanding
        assert w.last_done > 0


def test_pieces_in_this_process_are_never_outstanding() -> None:
    with Workers(jobs=1) as w:
        it = w.map(abs, [-2, 3])
        assert w.outstanding == 0 and w.last_done == 0
        assert list(it) == [2, 3]
        assert w.outstanding == 0 and w.last_done > 0


def _spawned(loaded: str = "") -> set[int]:
    """This process's pool workers; with ``loaded``, those that have mapped a
    shared object of that name."""
    found = set()
    for p in psutil.Process().children():
        try:
            if "--multiprocessing-fork" in p.cmdline() and (
                not loaded or any(loaded in m.path for m in p.memory_maps())
            ):
                found.add(p.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def test_start_spawns_every_process_importing_the_modules_before_any_piece(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAIRDIE_WORKERS_START_TEST", "1")  # no idle pool to take
    with Workers(jobs=3) as w:
        before = _spawned()
        w.start("_decimal")  # a shared object that nothing else here loads
        assert w.outstanding == 0  # no piece of the campaign's
        assert _until(lambda: len(_spawned("_decimal") - before) == 3), _spawned("_decimal")
        assert list(w.map(abs, [-1])) == [1]


def test_start_in_this_process_starts_nothing() -> None:
    with Workers(jobs=1) as w:
        before = _spawned()
        w.start("_decimal")
        assert w.outstanding == 0
        assert not _spawned() - before  # a process would be there at once
