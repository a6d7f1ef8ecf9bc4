"""C compiled for the host into a shared library, cached by content.

The die's models in C (the firmware's own rule.c, and the port of its
assembler in ``host/models.c``) are free of I/O, so the host's C compiler
(``cc``) builds them into a shared library that cffi opens in ABI mode,
which needs no Python headers. A check file compiled with them (a
:class:`HostBuild`'s ``check``) makes the build fail when the C stops
matching what Python declares.

Builds are cached by content (sources, flags, compiler) next to the
firmware builds (see :func:`fairdie.toolchain.default_cache_dir`), built in
a temporary folder and renamed into place, so parallel processes may build
at once.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie.errors import ToolchainError
from fairdie.toolchain import default_cache_dir
from fairdie.toolchain._cache import TMP_PREFIX, prune_stale, publish
from fairdie.toolchain._compiler import first_error

__all__ = ["HOST_CFLAGS", "HostBuild", "build_host_library"]

#: Host compile flags: the firmware's C dialect and warnings, as a shared library.
HOST_CFLAGS: tuple[str, ...] = (
    "-std=gnu11",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fPIC",
    "-shared",
)

_LIBRARY = "librule.so"
_LOG = "build.log"
_TIMEOUT = 120.0


@dataclass(frozen=True)
class HostBuild:
    """What to compile: ``sources`` (compiled) and ``headers`` (hashed, by
    file name), the folders to ``include`` from, and a ``check`` file."""

    name: str  #: what the messages call it ("rule": "host build of rule.c failed")
    key_format: str  #: changes every key when the recipe's meaning changes
    sources: tuple[Path, ...]
    headers: tuple[Path, ...]
    include: tuple[Path, ...]
    check: str
    #: added to the first error when it is the check file's
    mismatch: str


def _run(cc: Any, args: list[str]) -> tuple[int, str]:
    # plumbum loads with the first host build or compiler check (as the toolchain's builds)
    from plumbum import local
    from plumbum.commands.processes import ProcessTimedOut

    try:
        with local.env(LC_ALL="C"):
            rc, out, err = cc[args].run(retcode=None, timeout=_TIMEOUT)
    except ProcessTimedOut:
        raise ToolchainError(f"{cc} timed out after {_TIMEOUT:.0f} s") from None
    return int(rc), str(out) + str(err)


@functools.lru_cache(maxsize=8)
def _identity(path: str, _stamp: tuple[int, int]) -> str:
    """What names the compiler in the key: its path, version and target."""
    from plumbum import local

    cc = local[path]
    rc, version = _run(cc, ["--version"])
    if rc != 0:
        raise ToolchainError(f"{path} --version failed: {version.strip()[:120]}")
    _rc, machine = _run(cc, ["-dumpmachine"])
    return f"{path}\n{version}\n{machine}"


def _key(b: HostBuild, identity: str, files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for tag, data in (
        ("format", b.key_format.encode()),
        ("flags", " ".join(HOST_CFLAGS).encode()),
        ("compiler", identity.encode()),
        ("check", b.check.encode()),
        *((f"file {name}", files[name]) for name in sorted(files)),
    ):
        h.update(f"{tag}:{len(data)}:".encode())  # length-prefixed: no two inputs collide
        h.update(data)
    return h.hexdigest()


def _compile(b: HostBuild, cc: Any, tmp: Path) -> None:
    check = tmp / "check.c"
    check.write_text(b.check, encoding="ascii")
    sources = [str(s) for s in b.sources]
    includes = [f"-I{d}" for d in b.include]
    args = [*HOST_CFLAGS, *includes, "-o", str(tmp / _LIBRARY), *sources, str(check)]
    rc, out = _run(cc, args)
    log = tmp / _LOG
    log.write_text(f"$ {cc} {' '.join(args)}\n{out}", encoding="utf-8")
    if rc != 0:
        dirs = {str(s.parent) for s in b.sources} | {str(d) for d in b.include}
        line = first_error(out, *(f"{d}{os.sep}" for d in sorted(dirs)), f"{tmp}{os.sep}")
        if line.startswith("check.c"):
            line += f" ({b.mismatch})"
        raise ToolchainError(f"host build of {b.name}.c failed: {line} (full log: {log})")


def build_host_library(b: HostBuild, cc: str, cache_dir: Path | None) -> tuple[Path, str]:
    """Build (or take from the cache) ``b``: the library's path and key.
    Raises ``ToolchainError`` when the compiler is missing, a source is
    unreadable or the build fails."""
    from plumbum import local
    from plumbum.commands.processes import CommandNotFound

    try:
        compiler = local[cc]
    except CommandNotFound:
        raise ToolchainError(f"host C compiler {cc!r} not found: install gcc") from None
    try:
        files = {p.name: p.read_bytes() for p in (*b.sources, *b.headers)}
    except OSError as e:
        raise ToolchainError(f"{b.name} sources not readable: {e}") from None
    path = str(compiler.executable)
    stat = os.stat(path)
    key = _key(b, _identity(path, (stat.st_mtime_ns, stat.st_size)), files)
    root = (cache_dir if cache_dir is not None else default_cache_dir()).expanduser()
    final = root / key
    if not (final / _LIBRARY).is_file():
        # A published folder always holds the library (it is renamed in whole),
        # so one without it is a broken leftover: replace it.
        if final.is_dir():
            shutil.rmtree(final, ignore_errors=True)
        root.mkdir(parents=True, exist_ok=True)
        prune_stale(root)
        tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{key[:16]}-", dir=root))
        _compile(b, compiler, tmp)
        publish(tmp, final)
    return final / _LIBRARY, key
