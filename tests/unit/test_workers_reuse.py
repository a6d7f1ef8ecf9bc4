"""fairdie.campaigns.Workers leaves its processes idle for the next block of
as many jobs, but only a pool whose block ended normally with every piece
done and whose processes all live; idle processes end with this process,
however it ends.

The pieces are builtins (``os.readlink("/proc/self")`` names the process
that ran it), so a worker imports no more than the pool's own module."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path

import psutil
import pytest

from fairdie.campaigns import Workers, map_work


def _workers() -> set[int]:
    """This process's pool workers."""
    found = set()
    for p in psutil.Process().children():
        try:
            if "--multiprocessing-fork" in p.cmdline():
                found.add(p.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def _gone(pids: Iterable[int], limit_s: float = 5.0) -> bool:
    """Whether every one of ``pids`` has ended (a zombie has) within ``limit_s``."""

    def ended(pid: int) -> bool:
        try:
            return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    pids = list(pids)
    end = time.monotonic() + limit_s
    while not all(ended(p) for p in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def _block(jobs: int = 2, body: Callable[[Workers], None] | None = None) -> set[int]:
    """Run a block of one piece on ``jobs`` processes (one is started, or
    taken): the process that ran it, as a set."""
    with Workers(jobs=jobs) as w:
        ran = {int(pid) for pid in w.map(os.readlink, ["/proc/self"])}
        if body is not None:
            body(w)
    return ran


def test_a_block_left_normally_leaves_its_processes_to_the_next() -> None:
    first = _block()
    kept = _workers()
    assert first <= kept
    assert _block() <= kept
    ran = {int(pid) for pid in map_work(os.readlink, ["/proc/self"] * 2, jobs=2)}
    assert ran & kept


def _raise(_w: Workers) -> None:
    raise ValueError("stop")


def _leave_pieces_out(w: Workers) -> None:
    w.map(time.sleep, [60])  # never read


@pytest.mark.parametrize("end", [_raise, _leave_pieces_out], ids=["error", "pieces-out"])
def test_a_block_ended_early_ends_its_processes_and_is_not_kept(
    end: Callable[[Workers], None],
) -> None:
    _block()
    before = _workers()
    t0 = time.monotonic()
    with pytest.raises(ValueError) if end is _raise else nullcontext():
        _block(body=end)
    assert time.monotonic() - t0 < 5  # at once, not after the pieces
    assert _gone(before)
    assert not _block() & before


def test_a_pool_whose_process_died_idle_is_not_taken() -> None:
    with Workers(jobs=2) as w:
        list(w.map(time.sleep, [0.2, 0.2]))  # both busy at once: two processes
    pool = _workers()
    assert len(pool) == 2
    os.kill(min(pool), signal.SIGKILL)
    assert _gone(pool)  # the other too: the pool saw it die (and ended the rest)
    assert not _block() & pool  # fresh processes, no BrokenProcessPool


def test_a_pool_spawned_under_another_environment_is_not_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker reads the environment it was spawned with (FAIRDIE_CACHE...):
    a block run under another spawns its own; the idle one ends."""
    first = _block()
    monkeypatch.setenv("FAIRDIE_WORKERS_TEST", "1")
    second = _block()
    assert not second & first
    assert _gone(first)
    assert not _block(jobs=3) & second  # nor a pool of another size
    assert _gone(second)


def test_a_pool_spawned_in_another_folder_or_with_another_path_is_not_taken(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker resolves files from the folder, and imports from the sys.path,
    it was spawned with: a block run under others spawns its own."""
    first = _block()
    monkeypatch.chdir(tmp_path)
    second = _block()
    assert not second & first
    monkeypatch.syspath_prepend(str(tmp_path))
    third = _block()
    assert not third & second
    assert _gone(first | second)


def test_a_forked_child_does_not_take_its_parents_idle_pool() -> None:
    from fairdie.campaigns import _pool

    _block()
    assert _pool._kept is not None
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status says
        os._exit(0 if _pool._kept is None else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0


_SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    import psutil
    from fairdie.campaigns import map_work
    for _ in range(2):  # two campaigns, the second on the first's processes
        assert list(map_work(abs, [-1, -2], jobs=2)) == [1, 2]
        kids = psutil.Process().children()
        print(*sorted(k.pid for k in kids if "--multiprocessing-fork" in k.cmdline()), flush=True)
    if sys.argv[1:] == ["wait"]:
        time.sleep(60)
    """
)


def _script(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_idle_processes_end_cleanly_with_the_process() -> None:
    p = _script()
    t0 = time.monotonic()
    out, err = p.communicate(timeout=60)
    assert (p.returncode, err) == (0, "")
    first, second = out.splitlines()
    assert second == first and len(first.split()) == 2
    assert _gone(int(pid) for pid in first.split())
    assert time.monotonic() - t0 < 30


def test_idle_processes_end_when_their_process_is_killed() -> None:
    p = _script("wait")
    try:
        assert p.stdout is not None
        first, second = p.stdout.readline(), p.stdout.readline()
        assert second == first and len(first.split()) == 2
        idle = psutil.Process(p.pid).children()  # with the resource tracker
        assert {int(pid) for pid in first.split()} <= {k.pid for k in idle}
        p.kill()
        p.wait()
        assert _gone(k.pid for k in idle)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_the_pools_state_that_decides_a_keep_is_there() -> None:
    """A pool is kept only if its executor has the state _healthy reads."""
    from fairdie.campaigns import _pool

    with Workers(jobs=2) as w:
        list(w.map(abs, [-1]))
        assert w._pool is not None
        assert all(hasattr(w._pool, name) for name in _pool._POOL_STATE)
        assert _pool._healthy(w._pool)
