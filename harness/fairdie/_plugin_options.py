"""The fairdie plugin's options (:mod:`fairdie.plugin` tells them all), each
declared once with its ini and environment forms; how a value is read (the
command line, the environment, the ini file, the default); the session's seed
and board; and the Hypothesis profiles with the test depth they scale
(:func:`examples`). :mod:`fairdie.plugin` imports these from here and
re-exports the public ones.

This module imports nothing compiled.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from fairdie._cmdline import SEED

if TYPE_CHECKING:
    from fairdie.board import Board

__all__ = [
    "DEFAULT_EXAMPLES",
    "OPTIONS",
    "PROFILES",
    "board_option",
    "examples",
    "option_value",
    "session_board",
]


@dataclass(frozen=True)
class _Option:
    name: str  # fixture and ini name
    help: str
    default: str | None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return self.name.upper()


OPTIONS = (
    _Option("fairdie_firmware", "firmware to test, ELF or HEX (default: build ours)", None),
    _Option("fairdie_board", "board file or shipped board name", None),
    _Option("fairdie_seed", "seed for noise and power-on SRAM contents (default: 0)", "0"),
)
_FIRMWARE, _BOARD, _SEED = OPTIONS
#: where a failing test's evidence goes (not a suite property: it names no input)
_EVIDENCE = _Option(
    "fairdie_evidence",
    "directory for failing tests' VCDs (default: fairdie-evidence/ next to --junitxml,"
    " else under pytest's basetemp)",
    None,
)


_HYPOTHESIS = _Option(
    "fairdie_hypothesis_profile",
    "load this Hypothesis profile (fairdie-dev, fairdie-ci, fairdie-thorough); by default"
    " fairdie loads fairdie-ci under CI, else fairdie-dev, only when the session loaded none",
    None,
)

#: Hypothesis profiles: ``fairdie-ci`` when the environment sets CI, else
#: ``fairdie-dev``; FAIRDIE_HYPOTHESIS_PROFILE or ``--hypothesis-profile`` pick another.
PROFILES = {
    "fairdie-dev": {"deadline": None, "print_blob": True, "derandomize": False},
    "fairdie-ci": {"deadline": None, "print_blob": True, "derandomize": True},
    "fairdie-thorough": {
        "deadline": None,
        "print_blob": True,
        "derandomize": False,
        "max_examples": 1000,
    },
}
# Each names derandomize: a profile inherits the default of the moment it is
# registered, which is Hypothesis' own derandomized one when CI is set.
for _name, _kw in PROFILES.items():
    settings.register_profile(_name, **_kw)  # type: ignore[arg-type]

#: Hypothesis' own default depth, against which a profile's depth is a scale
DEFAULT_EXAMPLES = 100


def examples(n: int) -> int:
    """A test's explicit depth: ``n`` under a profile of Hypothesis' default depth
    (fairdie-ci, fairdie-dev), scaled by the loaded profile's ``max_examples``
    (ten times under fairdie-thorough), at least 1.

    ``settings(max_examples=60)`` would override every profile; call this where
    the test module is imported, after pytest loaded the profile."""
    return max(1, n * settings().max_examples // DEFAULT_EXAMPLES)


def _value(config: pytest.Config, o: _Option) -> str | None:
    cli = config.getoption(o.name)
    if cli is not None:
        return str(cli)
    if os.environ.get(o.env):
        return os.environ[o.env]
    ini = config.getini(o.name)
    return str(ini) if ini else o.default


def _load_profile(config: pytest.Config) -> None:
    """Load a profile of ours only when asked, or when the session loaded none:
    a user's own profile (their conftest, ``--hypothesis-profile``) stands."""
    asked = _value(config, _HYPOTHESIS) or os.environ.get("FAIRDIE_HYPOTHESIS_PROFILE")
    if asked:
        if asked not in PROFILES:
            raise pytest.UsageError(
                f"fairdie: no Hypothesis profile {asked!r} (profiles: {', '.join(PROFILES)})"
            )
        settings.load_profile(asked)
        return
    theirs = config.getoption("hypothesis_profile", None)
    if theirs is None and settings.get_current_profile_name() == "default":
        settings.load_profile("fairdie-ci" if os.environ.get("CI") else "fairdie-dev")


def option_value(config: pytest.Config, name: str) -> str | None:
    """An option's value (``fairdie_firmware``, ...): the command line, the
    environment, the ini file, the default, in that order."""
    return _value(config, next(o for o in (*OPTIONS, _EVIDENCE) if o.name == name))


def session_board(config: pytest.Config, default: str) -> Board:
    """The session's board (``--fairdie-board`` and its ini and env forms), else
    ``default`` (a subject's own board); a bad one is one usage error."""
    from fairdie.board import load_board
    from fairdie.errors import FairdieError

    try:
        return load_board(option_value(config, "fairdie_board") or default)
    except FairdieError as e:
        raise pytest.UsageError(str(e)) from None


def _seed(config: pytest.Config) -> int:
    """The session's seed, in the range every command takes (``SEED``); one
    usage error naming where the bad value came from if not."""
    raw = _value(config, _SEED) or "0"
    try:
        return SEED(raw)
    except argparse.ArgumentTypeError as e:
        given = config.getoption(_SEED.name) is not None
        where = _SEED.flag if given or not os.environ.get(_SEED.env) else _SEED.env
        raise pytest.UsageError(f"fairdie: {where}: {e}") from None


def board_option(config: pytest.Config, given: object, board: Board) -> str:
    """The ``--board`` that names ``board``: a shipped name, else its file."""
    if given is None:
        given = _value(config, _BOARD) or board.name
    if isinstance(given, str | Path) and Path(given).is_file():
        return str(Path(given).resolve())
    if isinstance(given, str | Path):
        return str(given)
    return board.name if board.source.endswith("(shipped)") else str(Path(board.source).resolve())
