"""Reading a TOML file a user names (a board, a scenario): every problem is
one line naming the file, raised as the caller's error class."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fairdie._files import read_input
from fairdie.errors import FairdieError

__all__ = ["MAX_TOML_BYTES", "loads", "read_toml", "read_toml_text"]

#: the largest TOML file read (a board, a scenario, a target): far more than any needs
MAX_TOML_BYTES = 1 << 20


def read_toml(path: Path, what: str, error: type[FairdieError]) -> dict[str, Any]:
    """The decoded file; ``what`` names it in errors ("board file", "scenario file")."""
    return loads(read_toml_text(path, what, error), str(path), error)


def read_toml_text(path: Path, what: str, error: type[FairdieError]) -> str:
    """The file's text, checked as :func:`read_toml` checks it, not yet decoded."""
    data = read_input(path, what, error, limit=MAX_TOML_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: not a {what} (not UTF-8 text)") from None


def loads(text: str, source: str, error: type[FairdieError]) -> dict[str, Any]:
    """Decoded TOML text, or one line naming ``source``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise error(" ".join(f"{source}: not valid TOML: {e}".split())) from None
