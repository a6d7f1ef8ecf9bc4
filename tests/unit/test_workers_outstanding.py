"""fairdie.campaigns.Workers counts the pieces its workers still hold, so a
campaign counts as serial only the time in which no worker had work."""

from __future__ import annotations

import time
from collections.abc import Callable

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
