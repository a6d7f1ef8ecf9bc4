"""Run avr-gcc, avr-g++ and avr-objcopy: the tools found on PATH (one line
saying what to install when one is missing), the compiler's version, one
build's compiles and link in the target's folder, its Intel HEX files, and
the most telling line of a failed compile.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie.errors import ToolchainError

from ._flags import Flags
from ._target import CXX_SUFFIXES, Target

__all__ = [
    "OBJ_DIR",
    "Tools",
    "compile_target",
    "compiler_version",
    "first_error",
    "hex_images",
    "tool",
    "write_hex",
]

_HINT = "install gcc-avr avr-libc binutils-avr (or run `make setup`)"
_TIMEOUT = 120.0
_EMPTY_HEX = ":00000001FF\n"
#: the folder of a build's object files, beside its ELF until the link is done
OBJ_DIR = "obj"


def tool(name: str) -> Any:
    # plumbum (and the `uname -p` its import runs) loads with the first build,
    # not with the package: a process that only reads firmware never needs it
    from plumbum import local
    from plumbum.commands.processes import CommandNotFound

    try:
        return local[name]
    except CommandNotFound:
        raise ToolchainError(f"{name} not found: {_HINT}") from None


@functools.lru_cache(maxsize=8)
def _version(path: str, _stamp: tuple[int, int]) -> str:
    rc, out, err = _run(tool(path), ["--version"])
    if rc != 0:
        raise ToolchainError(f"{path} --version failed: {(err or out).strip()[:120]}")
    return out


def compiler_version(gcc: Any) -> str:
    path = str(gcc.executable)
    st = os.stat(path)
    return _version(path, (st.st_mtime_ns, st.st_size))


def _run(cmd: Any, args: list[str], folder: Path | None = None) -> tuple[int, str, str]:
    """Run ``cmd`` with ``args`` (in ``folder``, when given, which PWD names
    too, so that the compiler records exactly this path, then maps it)."""
    from plumbum import local
    from plumbum.commands.processes import ProcessTimedOut

    where = {"PWD": str(folder)} if folder is not None else {}
    try:
        # plain ASCII messages, the same on every machine
        place = local.cwd(folder) if folder is not None else contextlib.nullcontext()
        with place, local.env(LC_ALL="C", **where):
            rc, out, err = cmd[args].run(retcode=None, timeout=_TIMEOUT)
    except ProcessTimedOut:
        raise ToolchainError(f"{cmd} timed out after {_TIMEOUT:.0f} s") from None
    return int(rc), str(out), str(err)


_ERROR_LINE = re.compile(r"(^|: )(fatal )?error: ", re.IGNORECASE)
_LINK_LINE = re.compile(r"(^|/)ld: |undefined reference|overflowed")


def first_error(log: str, *strip: str) -> str:
    """The most telling line of a failed compile or link, shortened to one line.

    Each ``strip`` prefix (a folder path) is removed from the lines.
    """
    lines = []
    for raw in log.splitlines():
        line = raw.strip()
        for prefix in strip:
            line = line.replace(prefix, "")
        if line:
            lines.append(line)
    picks = (
        [ln for ln in lines if _ERROR_LINE.search(ln) and not ln.startswith("collect2")]
        or [re.sub(r"^\S*/ld: ", "ld: ", ln) for ln in lines if _LINK_LINE.search(ln)]
        or lines
        or ["no compiler output"]
    )
    line = picks[0]
    return line if len(line) <= 200 else line[:197] + "..."


@dataclass(frozen=True)
class Tools:
    gcc: Any
    gxx: Any | None  # avr-g++, when the target has C++ sources
    prefix_map: str  # the -f...-prefix-map option this compiler knows


def compile_target(
    tools: Tools, flags: Flags, tgt: Target, sources: list[Path], elf: Path, log: Path
) -> None:
    """Compile each source by its bare name from the target's folder, then link."""
    folder = tgt.path  # absolute and resolved, as the compiler's getcwd() sees it
    mapping = f"{tools.prefix_map}={folder}={tgt.name}"
    objdir = elf.parent / OBJ_DIR
    objdir.mkdir(exist_ok=True)
    steps: list[tuple[Any, list[str]]] = []
    objects = []
    for src in sources:
        obj = objdir / f"{src.name}.o"
        cxx = src.suffix in CXX_SUFFIXES
        tool = tools.gxx if cxx else tools.gcc
        steps.append(
            (tool, [*(flags.cxx if cxx else flags.c), mapping, "-c", src.name, "-o", str(obj)])
        )
        objects.append(str(obj))
    linker = tools.gxx if tools.gxx is not None else tools.gcc
    steps.append((linker, [*flags.ld, "-o", str(elf), *objects, *flags.libs]))
    text = []
    for tool, args in steps:
        rc, out, err = _run(tool, args, folder)
        text.append(f"$ {' '.join([str(tool), *args])}\n{out}{err}")
        if rc != 0:
            break
    log.write_text("".join(text), encoding="utf-8")
    if rc != 0:
        dirs = (f"{objdir}{os.sep}", f"{elf.parent}{os.sep}", f"{folder}{os.sep}")
        raise ToolchainError(f"build failed: {first_error(out + err, *dirs)} (full log: {log})")


def write_hex(objcopy: Any, elf: Path, hex_path: Path, eep: Path) -> None:
    for args in (
        ["-j", ".text", "-j", ".data", "-O", "ihex", str(elf), str(hex_path)],
        ["-j", ".eeprom", "--change-section-lma", ".eeprom=0", "-O", "ihex", str(elf), str(eep)],
    ):
        rc, out, err = _run(objcopy, args)
        if rc != 0:
            raise ToolchainError(f"avr-objcopy failed: {(err or out).strip()[:160]}")
    if not eep.exists() or eep.stat().st_size == 0:
        eep.write_text(_EMPTY_HEX, encoding="ascii")  # no .eeprom: a valid, empty HEX


def hex_images(elf: Path, hex_path: Path, eep: Path) -> None:
    """Write ``elf``'s flash (``.text``, ``.data``) and EEPROM (``.eeprom``) as
    Intel HEX, as a build does (an ELF with no EEPROM data: an empty HEX)."""
    write_hex(tool("avr-objcopy"), elf, hex_path, eep)
