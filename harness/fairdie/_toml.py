"""Reading a TOML file a user names (a board, a scenario): every problem is
one line naming the file, raised as the caller's error class."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from fairdie.errors import FairdieError

__all__ = ["read_toml"]


def read_toml(path: Path, what: str, error: type[FairdieError]) -> dict[str, Any]:
    """The decoded file; ``what`` names it in errors ("board file", "scenario file")."""
    source = str(path)
    if path.exists() and not path.is_file():
        raise error(f"{source}: not a {what} (a directory or a device)")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{source}: no such {what}") from None
    except UnicodeDecodeError:
        raise error(f"{source}: not a {what} (not UTF-8 text)") from None
    except OSError as e:
        raise error(f"{source}: cannot read: {e.strerror or e}") from None
    return loads(text, source, error)


def loads(text: str, source: str, error: type[FairdieError]) -> dict[str, Any]:
    """Decoded TOML text, or one line naming ``source``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise error(" ".join(f"{source}: not valid TOML: {e}".split())) from None
