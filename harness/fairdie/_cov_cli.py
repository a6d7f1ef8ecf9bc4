"""``--cov PATH`` of the commands that run firmware (``run``, ``trace``,
``press``, ``verify``, and ``run --scenario``): the coverage of every chip the
command makes, written when it has run.

A path ending in ``.info`` or ``.lcov`` gets an LCOV tracefile (mapped to
source through the ELF); any other a coverage file (the JSON that ``fairdie
cov merge`` and ``fairdie cov report`` read, exact counts per address). The
file is written when the command ran to its end, also when a check failed
(exit 1); not after bad input. Like every output it replaces only what
fairdie wrote (a coverage file, or an LCOV tracefile as fairdie writes them),
unless ``--force``, and that is checked before anything runs. Chips of
worker processes are not seen, so ``--cov`` refuses ``--jobs`` above 1 and ``--scheduler``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fairdie.errors import FairdieError

__all__ = ["LCOV_SUFFIXES", "add_cov_option", "check_cov", "cov_kind", "covering"]

#: suffixes that make ``--cov`` write LCOV rather than a coverage file
LCOV_SUFFIXES = (".info", ".lcov")


def add_cov_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cov",
        type=Path,
        metavar="PATH",
        help="record the firmware's coverage and write it to PATH: LCOV when PATH ends in"
        " .info or .lcov, else a coverage file for `fairdie cov`",
    )


def cov_kind(path: Path) -> str:
    """What ``--cov path`` writes: "lcov" or "json" (a coverage file)."""
    return "lcov" if path.suffix in LCOV_SUFFIXES else "json"


def check_cov(a: argparse.Namespace) -> None:
    """Refuse a bad ``--cov`` (one line) before anything is run or written;
    :func:`covering` asks it too, so a command asks it itself only to check
    it before an output of its own is made (a report folder)."""
    path: Path | None = getattr(a, "cov", None)
    if path is None:
        return
    if getattr(a, "jobs", 1) > 1 or getattr(a, "scheduler", None):
        raise FairdieError(
            "--cov sees the chips of this process only: give --jobs 1, no --scheduler"
        )
    from fairdie.coverage import check_output

    check_output(cov_kind(path), path, "--cov", force=getattr(a, "force", False))


@contextmanager
def covering(a: argparse.Namespace) -> Iterator[None]:
    """Record every chip made inside when ``a.cov`` is set; write it on a normal exit."""
    path: Path | None = getattr(a, "cov", None)
    if path is None:
        yield
        return
    check_cov(a)
    from fairdie.sim import record_chips

    with record_chips() as rec:
        yield
        covset = rec.coverage_set()
    force = getattr(a, "force", False)
    if cov_kind(path) == "lcov":
        from fairdie.coverage import write_lcov

        write_lcov(covset, path, what="--cov", force=force)
    else:
        covset.save(path, what="--cov", force=force)
    print(f"coverage: {path} ({len(covset)} firmware)", file=sys.stderr)
