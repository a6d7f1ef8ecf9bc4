"""Spread independent pieces of work over processes or a Dask cluster.

A campaign cuts its work into pieces that depend on nothing but their
arguments (a seed, a ``Setup``), so they run anywhere and in any order. Local
processes are spawned (not forked: the simulator's state is not shared);
with a scheduler address the pieces go to Dask's distributed scheduler,
installed with the ``cluster`` extra. A :class:`Workers` keeps its processes
(or its client) for several rounds of work.

Stopping is the main process's business: its processes are started with
SIGINT blocked and then ignored (a Ctrl-C at the terminal reaches the whole
process group; the workers print nothing and go on until told), and whatever
ends the ``with`` block early (Ctrl-C, SIGTERM, an error) ends them at once,
not after the pieces they are running.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from types import TracebackType
from typing import Any, TypeVar

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
        self._pool: Executor | None = None
        self._lock = threading.Lock()
        self.last_done = 0.0
        self.outstanding = 0

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
        if self._pool is not None:
            if e is not None:
                _end(self._pool)
            self._pool.shutdown(cancel_futures=True)
        if self._client is not None:
            self._client.close()

    @property
    def in_process(self) -> bool:
        """Whether pieces run in this process (one job, no scheduler)."""
        return self._client is None and self.jobs <= 1

    def _done(self, _future: object, sent: int = 1) -> None:
        with self._lock:
            self.last_done = max(self.last_done, time.perf_counter())
            self.outstanding -= sent

    def _sent(self, futures: Sequence[Any]) -> None:
        with self._lock:
            self.outstanding += len(futures)
        for f in futures:
            f.add_done_callback(self._done)

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
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.jobs, mp_context=context, initializer=_ignore_interrupts
            )
        # the processes start at the first submit: with SIGINT blocked, which
        # they inherit until _ignore_interrupts runs in them
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            submitted: list[Future[R]] = [self._pool.submit(fn, x) for x in items]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        self._sent(submitted)
        return (f.result() for f in submitted)

    def _now(self, fn: Callable[[T], R], x: T) -> R:
        r = fn(x)
        self._done(None, 0)
        return r


def _ignore_interrupts() -> None:
    """In each worker: Ctrl-C is the main process's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


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
