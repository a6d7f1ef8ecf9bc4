"""Spread independent pieces of work over processes or a Dask cluster.

A campaign cuts its work into pieces that depend on nothing but their
arguments (a seed, a ``Setup``), so they run anywhere and in any order. Local
processes are spawned (not forked: the simulator's state is not shared);
with a scheduler address the pieces go to Dask's distributed scheduler,
installed with the ``cluster`` extra. A :class:`Workers` keeps its processes
(or its client) for several rounds of work.

Spawning a process costs about half a CPU-second before it does any work
(an interpreter importing fairdie): :meth:`Workers.start` spawns them at once,
to start up beside what the main process does before its first pieces; and the
processes outlive their block: a :class:`Workers` that ends normally, each
piece done, leaves its pool idle for the next :class:`Workers` of as many jobs
in this process (one pool is kept: another replaces it). It is taken only if
the environment, the working folder and ``sys.path`` are those its processes
were spawned with, and if none of its processes died. An idle pool ends at the
interpreter's exit (Python's own shutdown of its executors), and its processes
end of their own when this process is gone, however it ended (each watches its
parent's pipe).

Stopping is the main process's business: its processes are started with
SIGINT blocked and then ignored (a Ctrl-C at the terminal reaches the whole
process group; the workers print nothing and go on until told), and whatever
ends the ``with`` block early (Ctrl-C, SIGTERM, an error) ends them at once,
not after the pieces they are running; so does a block left with pieces still
out (a reader that stopped reading). Such a pool is never kept.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from types import TracebackType
from typing import Any, TypeAlias, TypeVar

from fairdie.errors import FairdieError

__all__ = ["Workers", "map_work"]

T = TypeVar("T")
R = TypeVar("R")


class Workers:
    """Where pieces run: in this process (``jobs`` 1), on ``jobs`` spawned
    processes, or on the Dask scheduler at ``scheduler``. A context manager;
    :attr:`last_done` is when (``time.perf_counter``) the last piece finished,
    :attr:`outstanding` how many pieces sent to workers have not."""

    def __init__(
        self,
        *,
        jobs: int = 1,
        scheduler: str | None = None,
        error: type[FairdieError] = FairdieError,
    ) -> None:
        self.jobs = max(jobs, 1)
        self.scheduler = scheduler
        self._error = error
        self._client: Any = None
        self._pool: ProcessPoolExecutor | None = None
        self._spawned: _Spawn | None = None  #: what the pool's processes were spawned under
        self._lock = threading.Lock()
        self._out: set[Any] = set()  #: the futures sent whose callbacks have not run
        self.last_done = 0.0

    def __enter__(self) -> Workers:
        if self.scheduler:
            try:
                from distributed import Client
            except ImportError:
                raise self._error(
                    "--scheduler needs Dask: pip install 'fairdie[cluster]'"
                ) from None
            try:
                self._client = Client(self.scheduler, timeout="10s")
            except OSError as e:
                raise self._error(f"no Dask scheduler at {self.scheduler}: {e}") from None
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            if e is None and self._spawned is not None and self._settled() and _healthy(pool):
                _keep(self._spawned, pool)
            else:  # stopped early, pieces still out, or a process died
                _end(pool)
                pool.shutdown(cancel_futures=True)
        if self._client is not None:
            self._client.close()

    @property
    def in_process(self) -> bool:
        """Whether pieces run in this process (one job, no scheduler)."""
        return self._client is None and self.jobs <= 1

    @property
    def outstanding(self) -> int:
        """How many pieces sent to workers have not finished."""
        with self._lock:
            return len(self._out)

    def _done(self, future: object) -> None:
        with self._lock:
            self.last_done = max(self.last_done, time.perf_counter())
            self._out.discard(future)

    def _sent(self, futures: Sequence[Any]) -> None:
        with self._lock:
            self._out.update(futures)
        for f in futures:
            f.add_done_callback(self._done)

    def _settled(self) -> bool:
        """Whether every piece sent has finished (its callback may be to come)."""
        with self._lock:
            return all(f.done() for f in self._out)

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        """Start ``fn`` of each item now; the results, as they finish (in
        order unless on Dask). In this process (one job) each runs when its
        result is asked for."""
        if self._client is not None:
            from distributed import as_completed

            futures = self._client.map(fn, items, pure=False)
            self._sent(futures)
            return (f.result() for f in as_completed(futures))
        if self.in_process:
            return (self._now(fn, x) for x in items)
        submitted = self._submit(fn, items)
        self._sent(submitted)
        return (f.result() for f in submitted)

    def start(self, *modules: str) -> None:
        """Start the local processes now, each importing ``modules`` first, so
        that their start-up (an interpreter, fairdie, the pieces' modules)
        runs beside what this process does before its first :meth:`map`
        instead of after it. It sends each process a piece that does nothing,
        which :attr:`outstanding` does not count (a campaign's serial time
        stays the time in which no worker had work). Nothing to do in this
        process (one job), on Dask, or once this block has its processes; an
        idle pool taken here has its processes already, and they import
        ``modules`` only as the pieces that need them come."""
        if self.in_process or self._client is not None or self._pool is not None:
            return
        self._submit(_nothing, [None] * self.jobs, modules)

    def _submit(
        self, fn: Callable[[T], R], items: Sequence[T], modules: Sequence[str] = ()
    ) -> list[Future[R]]:
        """``fn`` of each item, sent to the local processes (the pool made, or
        the idle one taken, at the first call: a new one's processes import
        ``modules`` as they start); :meth:`_sent` is the caller's to tell."""
        if self._pool is None:
            self._spawned = _spawn_state(self.jobs)
            self._pool = _take(self._spawned) or ProcessPoolExecutor(
                self.jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start,
                initargs=(tuple(modules),),
            )
        # the processes start at a submit (one more at each, up to jobs, while
        # none is idle): with SIGINT blocked, which they inherit until
        # _worker_start runs in them
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            submitted: list[Future[R]] = [self._pool.submit(fn, x) for x in items]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        return submitted

    def _now(self, fn: Callable[[T], R], x: T) -> R:
        r = fn(x)
        self._done(None)
        return r


def _worker_start(modules: tuple[str, ...]) -> None:
    """In each worker: Ctrl-C is the main process's to handle; and the worker
    ends as soon as the main process is gone, even killed (an idle worker
    waits on a queue whose writing end it holds too: it would wait forever).
    Then it imports ``modules`` (:meth:`Workers.start`); one that cannot be
    imported is left to fail where a piece needs it (the piece's own import
    ends the process, and the pool breaks), not here, before any piece."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    for name in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _nothing(_: object) -> None:
    """A piece that does nothing: :meth:`Workers.start` sends one per process."""


def _end_with(sentinel: int) -> None:
    """Wait until the main process is gone (``sentinel``, the pipe it spawned
    this process through, reads its end), then end this one at once."""
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


#: what a pool's processes were spawned under: their number, the environment
#: (but pytest's name of the running test, which nothing in a piece reads),
#: the working folder and sys.path
_Spawn: TypeAlias = tuple[int, tuple[tuple[str, str], ...], str, tuple[str, ...]]

#: the idle pool (and what it was spawned under) that a Workers left
_kept: tuple[_Spawn, ProcessPoolExecutor] | None = None
_kept_lock = threading.Lock()


def _forget_kept() -> None:
    """In a child forked from this process: the kept pool's processes and
    threads are the parent's, never to be taken."""
    global _kept, _kept_lock
    _kept, _kept_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_kept)


def _spawn_state(jobs: int) -> _Spawn:
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"))
    return (jobs, env, os.getcwd(), tuple(sys.path))


#: what :func:`_healthy` reads of a ProcessPoolExecutor (its own state, not
#: an API: a Python without one of them keeps no pool; a test says they exist)
_POOL_STATE = ("_processes", "_broken", "_shutdown_thread")


def _healthy(pool: ProcessPoolExecutor) -> bool:
    """Whether ``pool`` takes work: not shut down, and none of its processes
    ended (a process's sentinel reads its end, whoever reaped it)."""
    if not all(hasattr(pool, name) for name in _POOL_STATE):
        return False
    if pool._broken or pool._shutdown_thread:
        return False
    procs = (pool._processes or {}).values()
    return not multiprocessing.connection.wait([p.sentinel for p in procs], 0)


def _keep(spawned: _Spawn, pool: ProcessPoolExecutor) -> None:
    """Leave ``pool`` idle for the next Workers (the one kept before ends)."""
    global _kept
    with _kept_lock:
        before, _kept = _kept, (spawned, pool)
    if before is not None:
        before[1].shutdown(wait=False)


def _take(spawned: _Spawn) -> ProcessPoolExecutor | None:
    """The idle pool, if its processes were spawned as they would be now and
    all still live; else None (and a kept pool that cannot be taken ends)."""
    global _kept
    with _kept_lock:
        kept, _kept = _kept, None
    if kept is None:
        return None
    if kept[0] == spawned and _healthy(kept[1]):
        return kept[1]
    kept[1].shutdown(wait=False)  # idle (a broken pool's manager kills what is left)
    return None


#: how long a worker told to end (SIGTERM) has before it is killed
_GRACE_S = 2.0


def _end(pool: Executor) -> None:
    """End ``pool``'s processes now (SIGTERM, then SIGKILL after a grace)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        p.terminate()
    deadline = time.monotonic() + _GRACE_S
    for p in procs:
        p.join(max(deadline - time.monotonic(), 0))
        if p.is_alive():
            p.kill()
            p.join()


def map_work(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    error: type[FairdieError] = FairdieError,
) -> Iterator[R]:
    """``fn`` of each item, as they finish (in order unless on Dask)."""
    with Workers(jobs=min(jobs, max(len(items), 1)), scheduler=scheduler, error=error) as w:
        yield from w.map(fn, items)
