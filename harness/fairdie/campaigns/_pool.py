"""Spread independent pieces of work over processes or a Dask cluster.

A campaign cuts its work into pieces that depend on nothing but their
arguments (a seed, a ``Setup``), so they run anywhere and in any order. Local
processes are spawned (not forked: the simulator's state is not shared);
with a scheduler address the pieces go to Dask's distributed scheduler,
installed with the ``cluster`` extra.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from fairdie.errors import FairdieError

__all__ = ["map_work"]

T = TypeVar("T")
R = TypeVar("R")


def map_work(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    error: type[FairdieError] = FairdieError,
) -> Iterator[R]:
    """``fn`` of each item, as they finish (in order unless on Dask)."""
    if scheduler:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise error("--scheduler needs Dask: pip install 'fairdie[cluster]'") from None
        try:
            client = Client(scheduler, timeout="10s")  # type: ignore[no-untyped-call]
        except OSError as e:
            raise error(f"no Dask scheduler at {scheduler}: {e}") from None
        with client:
            futures = client.map(fn, items, pure=False)
            for future in as_completed(futures):  # type: ignore[no-untyped-call]
                yield future.result()
        return
    if jobs <= 1 or len(items) <= 1:
        yield from map(fn, items)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(jobs, len(items)), mp_context=context) as pool:
        yield from pool.map(fn, items)
