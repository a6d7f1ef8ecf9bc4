"""The files a user names: every input is checked before it is read, every
output before it is written.

An input must be a regular file (not a folder, a FIFO or a device such as
/dev/zero) of at most a given size; :func:`read_input` opens it without
blocking, checks what it opened, and reads no more than that bound, so a file
swapped or growing meanwhile is refused too. An output replaces only what
fairdie wrote: a file it recognises by its content (a VCD names fairdie as its
writer), a folder by the marker file :data:`MARKER` it leaves in every folder
it writes. ``--force`` lets a command replace anything else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from fairdie.errors import FairdieError

__all__ = [
    "MARKER",
    "check_input",
    "check_output_file",
    "claim_folder",
    "read_input",
]

#: the file that marks a folder as fairdie's (a report, plots)
MARKER = ".fairdie-output"
_MARKER_TEXT = "fairdie wrote this folder; it writes here again while this file is here.\n"

#: what a bad input raises: a FairdieError class, or ValueError where the
#: caller words the error its own way (a noise spec)
Error: TypeAlias = Callable[[str], Exception]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def _checked(st: os.stat_result, path: Path, what: str, error: Error, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path}: not a regular file ({_kind(st.st_mode)})")
    if st.st_size > limit:
        raise error(f"{path}: {st.st_size:,} bytes, more than the {limit:,} a {what} may have")


def _os_error(e: OSError, path: Path, what: str, error: Error) -> Exception:
    if isinstance(e, FileNotFoundError | NotADirectoryError):
        return error(f"{path}: no such {what}")
    return error(f"{path}: cannot read: {e.strerror or e}")


def check_input(path: Path, what: str, error: Error, *, limit: int) -> os.stat_result:
    """``path``'s status if it is a regular file of at most ``limit`` bytes,
    else a one-line ``error`` (``what`` names the file: "board file")."""
    try:
        st = path.stat()
    except OSError as e:
        raise _os_error(e, path, what, error) from None
    _checked(st, path, what, error, limit)
    return st


def read_input(path: Path, what: str, error: Error, *, limit: int) -> bytes:
    """The bytes of ``path``, checked as :func:`check_input` does, on the
    file actually opened (a FIFO opens without waiting for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise _os_error(e, path, what, error) from None
    try:
        _checked(os.fstat(fd), path, what, error, limit)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise _os_error(e, path, what, error) from None
    if len(data) > limit:
        raise error(f"{path}: more than the {limit:,} bytes a {what} may have")
    return data


def _writable_place(path: Path, what: str) -> None:
    parent = path.parent
    if not parent.is_dir():
        if parent.exists():
            raise FairdieError(f"{what} {path}: {parent} is not a folder")
        raise FairdieError(f"{what} {path}: no such directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise FairdieError(f"{what} {path}: not writable")


def check_output_file(
    path: Path,
    what: str,
    *,
    ours: Callable[[bytes], bool],
    force: bool = False,
    force_option: str = "--force",
) -> Path:
    """``path`` if a file may be written there: its folder exists and is
    writable, and what is there now is nothing, empty, or a file ``ours``
    recognises from its first 4 KiB (unless ``force``). ``what`` is the
    option that named it (``--vcd``), ``force_option`` the one that forces."""
    try:
        st = path.stat()
    except FileNotFoundError:
        _writable_place(path, what)
        return path
    except OSError as e:
        raise FairdieError(f"{what} {path}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise FairdieError(f"{what} {path}: is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise FairdieError(f"{what} {path}: not a regular file ({_kind(st.st_mode)})")
    _writable_place(path, what)
    if not os.access(path, os.W_OK):
        raise FairdieError(f"{what} {path}: not writable")
    if st.st_size and not force:
        try:
            with path.open("rb") as f:
                head = f.read(4096)
        except OSError as e:
            raise FairdieError(f"{what} {path}: cannot read: {e.strerror or e}") from None
        if not ours(head):
            raise FairdieError(
                f"{what} {path}: holds a file fairdie did not write;"
                f" not replaced (give {force_option} to replace it)"
            )
    return path


def claim_folder(
    folder: Path, what: str, *, force: bool = False, force_option: str = "--force"
) -> Path:
    """``folder``, made if new and marked as fairdie's (:data:`MARKER`), if
    fairdie may write there: it is new, empty, or marked already (else refused
    unless ``force``). ``what`` is the option that named it (``--report``),
    ``force_option`` the one that forces."""
    try:
        st = folder.stat()
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise FairdieError(f"{what} {folder}: {e.strerror or e}") from None
    if st is not None:
        if not stat.S_ISDIR(st.st_mode):
            raise FairdieError(f"{what} {folder}: not a folder")
        try:
            names = sorted(p.name for p in folder.iterdir())
        except OSError as e:
            raise FairdieError(f"{what} {folder}: {e.strerror or e}") from None
        if names and MARKER not in names and not force:
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            raise FairdieError(
                f"{what} {folder}: holds files fairdie did not write ({shown});"
                f" nothing written (give {force_option} to write there)"
            )
        if not os.access(folder, os.W_OK | os.X_OK):
            raise FairdieError(f"{what} {folder}: not writable")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")
    except OSError as e:
        raise FairdieError(f"{what} {folder}: {e.strerror or e}") from None
    return folder
