"""Content-hashed build cache: the key, the cache folder, atomic publishing."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["KEY_FORMAT", "TMP_PREFIX", "cache_key", "default_cache_dir", "prune_stale", "publish"]

KEY_FORMAT = "fairdie-build-2"
"""Bumped whenever the build procedure changes what lands in the cache."""

TMP_PREFIX = ".tmp-"
_STALE_SECONDS = 24 * 3600


def default_cache_dir() -> Path:
    """``$FAIRDIE_CACHE``, else ``$XDG_CACHE_HOME/fairdie/build`` (``~/.cache`` by default).

    Each build lives in ``<this dir>/<key>/``.
    """
    env = os.environ.get("FAIRDIE_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "fairdie" / "build"


def cache_key(
    *,
    files: Mapping[str, bytes],
    flags: Sequence[str],
    mcu: str,
    f_cpu: int,
    defines: Mapping[str, str | int | None],
    compiler_version: str,
    extra: Sequence[str] = (),
) -> str:
    """sha256 over everything that decides the build output (order-independent for files).

    ``extra``: anything else that shapes the output, e.g. the artifact name.
    """
    h = hashlib.sha256()

    def field(tag: str, data: bytes) -> None:
        # Length-prefixed so no two different inputs can hash the same stream.
        h.update(f"{tag}:{len(data)}:".encode())
        h.update(data)

    field("format", KEY_FORMAT.encode())
    field("mcu", mcu.encode())
    field("f_cpu", str(f_cpu).encode())
    for name in sorted(defines):
        value = defines[name]
        field("define", f"{name}={'' if value is None else value}|{value is None}".encode())
    for flag in flags:
        field("flag", flag.encode())
    field("compiler", compiler_version.encode())
    for item in extra:
        field("extra", item.encode())
    for name in sorted(files):
        field("file", name.encode())
        field("content", files[name])
    return h.hexdigest()


def publish(tmp: Path, final: Path) -> None:
    """Move a finished build into place atomically; a parallel winner is kept."""
    try:
        os.rename(tmp, final)
    except OSError:
        if not final.is_dir():
            raise
        # Another worker published the same key first; its output is identical.
        shutil.rmtree(tmp, ignore_errors=True)


def prune_stale(root: Path, keep: Iterable[Path] = ()) -> None:
    """Remove temp/failed build folders older than a day (best effort)."""
    keep_set = set(keep)
    cutoff = time.time() - _STALE_SECONDS
    try:
        entries = list(root.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(TMP_PREFIX) and entry not in keep_set:
            try:
                if entry.stat().st_mtime < cutoff:
                    shutil.rmtree(entry, ignore_errors=True)
            except OSError:
                pass
