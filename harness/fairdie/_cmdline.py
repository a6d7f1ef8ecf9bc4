"""What the subcommands with parsers of their own share: one-line usage
errors, checked numbers, how a command ends when stopped (Ctrl-C, SIGTERM, a
reader that closed the pipe), and a progress bar that only a terminal sees."""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn, TypeVar

from fairdie._cov_cli import add_cov_option, check_cov, covering

__all__ = [
    "MAX_JOBS",
    "MAX_SEED",
    "SEED",
    "BadInput",
    "Parser",
    "Terminated",
    "add_cov_option",
    "add_force_option",
    "add_spread_options",
    "check_cov",
    "covering",
    "int_at_least",
    "int_in",
    "parse",
    "parser_once",
    "progress_bar",
    "run_command",
    "run_stoppable",
    "scheduler_address",
    "stopped",
    "stopping",
]

MAX_JOBS = 256  #: local processes a command may ask for
MAX_SEED = 2**63 - 1  #: the largest seed a run takes (every chip, noise model and timing)
# [scheme://]host:port, as Dask takes a scheduler address
_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(\d{1,5})\Z")


class BadInput(Exception):
    """A usage error, reported as one line."""


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like Ctrl-C (worker pools end their processes)."""


def _terminate(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def stopping() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Terminated` in the main thread, so
    a command unwinds through its ``finally`` blocks and worker pools as it
    does for Ctrl-C. Elsewhere than the main thread it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def stopped(e: BaseException, prog: str = "fairdie") -> int:
    """The exit status of a command stopped by ``e`` after its one line:
    130 for Ctrl-C, 143 for SIGTERM; quietly 141 (as if killed by SIGPIPE)
    when the reader of stdout went away, with stdout sent to /dev/null so
    nothing more fails at exit."""
    if isinstance(e, BrokenPipeError):
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):  # stdout is no file (captured)
            pass
        return 128 + signal.SIGPIPE
    if isinstance(e, Terminated):
        print(f"{prog}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    print(f"{prog}: interrupted", file=sys.stderr)
    return 128 + signal.SIGINT


def run_stoppable(body: Callable[[], int], prog: str = "fairdie") -> int:
    """``body()``'s exit status, or :func:`stopped`'s when Ctrl-C, SIGTERM or a
    closed pipe ends it: the entry points' one way to stop."""
    try:
        with stopping():
            return body()
    except (KeyboardInterrupt, Terminated, BrokenPipeError) as e:
        return stopped(e, prog)


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise BadInput(message)


_Build = TypeVar("_Build", bound=Callable[..., argparse.ArgumentParser])


def parser_once(build: _Build) -> _Build:
    """A command's parser builder, run once a process for each set of its
    (hashable) arguments: argparse formats each option as it is added, about
    half a millisecond a command, most of what a refused command line costs.
    Parsing changes no parser, so one serves every call; the builders read
    no state that may change (the environment, the files)."""
    return functools.cache(build)  # type: ignore[return-value]


def int_in(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """A whole number in ``lo..hi`` (no upper bound when ``hi`` is None); the
    argument parsers of every subcommand use it."""

    def check(text: str) -> int:
        try:  # decimal, or with a 0x / 0o / 0b prefix
            v = int(text, 0) if text.strip()[:2].lower() in ("0x", "0o", "0b") else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            span = f"{lo}..{'' if hi is None else hi}"
            raise argparse.ArgumentTypeError(f"{v} is out of range ({span})")
        return v

    return check


def int_at_least(lo: int) -> Callable[[str], int]:
    return int_in(lo)


def scheduler_address(text: str) -> str:
    """A Dask scheduler address, ``[scheme://]host:port``."""
    m = _ADDRESS.match(text.strip())
    if m is None or not 1 <= int(m.group(1)) <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a scheduler address such as tcp://host:8786"
        )
    return text.strip()


def add_spread_options(p: argparse.ArgumentParser, *, pieces: str) -> None:
    """``--jobs``, ``--scheduler``: where a run's ``pieces`` go (fairdie.campaigns.map_work)."""
    p.add_argument(
        "--jobs", type=int_in(1, MAX_JOBS), default=1, help="local processes (default 1)"
    )
    p.add_argument(
        "--scheduler",
        type=scheduler_address,
        metavar="ADDRESS",
        help=f"run the {pieces} on this Dask scheduler",
    )


def add_force_option(p: argparse.ArgumentParser) -> None:
    """``--force``: replace an output that fairdie did not write (fairdie._files)."""
    p.add_argument(
        "--force",
        action="store_true",
        help="write the outputs even over files (or into folders) fairdie did not write",
    )


def parse(parser: Parser, argv: list[str]) -> argparse.Namespace | int:
    """The arguments, or the exit status: 2 after one line for bad input, 0 after --help."""
    try:
        return parser.parse_args(argv)
    except BadInput as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    except SystemExit:  # --help printed the usage (errors raise BadInput)
        return 0


def run_command(
    parser: Parser,
    argv: list[str],
    command: Callable[[argparse.Namespace], int],
    *,
    replay: bool = False,
) -> int:
    """Parse ``argv`` and run ``command``: bad input is one line and exit 2
    (a usage error or a FairdieError), Ctrl-C is 130 and SIGTERM 143 (:func:`stopped`).
    With ``replay`` the
    arguments get ``replay``, the command line that runs it again."""
    from fairdie.errors import FairdieError

    a = parse(parser, argv)
    if isinstance(a, int):
        return a
    if replay:  # every run is reproducible from its arguments
        a.replay = shlex.join([*parser.prog.split(), *argv])
    try:
        with stopping(), covering(a):  # --cov, for a command that has it
            return command(a)
    except FairdieError as e:
        print(f"fairdie: error: {e}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated, BrokenPipeError) as e:
        return stopped(e)


def progress_bar(
    total: int, *, unit: str, quiet: bool
) -> tuple[Callable[[int], None] | None, Callable[[], None]]:
    """``(update(n), close())`` of a bar on a terminal's stderr; nothing when
    ``quiet`` (``--json``) or when stderr is not a terminal."""
    if quiet or not sys.stderr.isatty():
        return None, lambda: None
    from tqdm import tqdm

    # a terminal that reports no size (a fresh pseudo-terminal) counts as 80 x 24:
    # tqdm draws nothing on a terminal of 0 rows
    size = os.get_terminal_size(sys.stderr.fileno())
    bar = tqdm(
        total=total,
        unit=unit,
        file=sys.stderr,
        leave=False,
        ncols=size.columns or 80,
        nrows=size.lines or 24,
    )

    def update(n: int) -> None:
        bar.update(n)

    return update, bar.close


#: a seed as every command and the plugin take it: a whole number 0..MAX_SEED
SEED = int_in(0, MAX_SEED)
