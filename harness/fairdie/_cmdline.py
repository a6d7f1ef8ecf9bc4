"""What the subcommands with parsers of their own share: one-line usage
errors, checked numbers, and a progress bar that only a terminal sees."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import NoReturn

__all__ = ["BadInput", "Parser", "int_at_least", "parse", "progress_bar"]


class BadInput(Exception):
    """A usage error, reported as one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise BadInput(message)


def int_at_least(lo: int) -> Callable[[str], int]:
    def check(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{v} is below {lo}")
        return v

    return check


def parse(parser: Parser, argv: list[str]) -> argparse.Namespace | int:
    """The arguments, or the exit status: 2 after one line for bad input, 0 after --help."""
    try:
        return parser.parse_args(argv)
    except BadInput as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    except SystemExit:  # --help printed the usage (errors raise BadInput)
        return 0


def progress_bar(
    total: int, *, unit: str, quiet: bool
) -> tuple[Callable[[int], object] | None, Callable[[], None]]:
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
    return bar.update, bar.close
