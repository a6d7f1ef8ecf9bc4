"""Compile a firmware target with avr-gcc (avr-g++ for C++) into the content-hashed cache.

Each source is compiled on its own from the target's folder, by its bare file
name, with the folder mapped to the target's name in the debug info: the ELF
is the same whichever folder the target sits in.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from fairdie.errors import ToolchainError

from ._cache import TMP_PREFIX, cache_key, default_cache_dir, prune_stale, publish
from ._size import elf_fuse_bytes, elf_sections, sizes_from_sections
from ._target import (
    CXX_SUFFIXES,
    F_CPU_RANGE,
    BuildOptions,
    Define,
    Target,
    check_defines,
    load_target,
)

if TYPE_CHECKING:
    from fairdie.sim import Fuses

__all__ = [
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "Build",
    "Flags",
    "build",
    "compile_flags",
    "first_error",
    "hex_images",
    "simavr_include_dir",
]

# The one place compile flags live (the Makefile and the CLI both come here).
# Warnings come from each target's [build] table (BuildOptions), not from here.
_COMMON: tuple[str, ...] = (
    "-Os",
    "-ffunction-sections",
    "-fdata-sections",
    # Plain -g means stabs on avr-gcc 5.4; DWARF is what pyelftools and avr-gdb read.
    "-gdwarf-4",
    # avr-gcc 5.4 records its switches in the DWARF, the folder's prefix map with them.
    "-gno-record-gcc-switches",
)
CFLAGS: tuple[str, ...] = ("-std=gnu11", *_COMMON)
"""Every C (and assembler) compile."""
# No exceptions or RTTI (avr-libc has no C++ runtime); a function-local static
# needs no guard on a single-threaded chip.
CXXFLAGS: tuple[str, ...] = (
    "-std=gnu++14",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-threadsafe-statics",
    *_COMMON,
)
"""Every C++ compile."""
# No -flto: it made the die 12 bytes larger with avr-gcc 5.4.
LDFLAGS: tuple[str, ...] = (
    "-Wl,--gc-sections",
    # Keep simavr's .mmcu tags (nothing references them) and place them outside flash.
    "-Wl,--undefined=_mmcu,--section-start=.mmcu=0x910000",
)
"""The link (with ``-mmcu``); a target's ``ldflags`` follow the objects."""

_HINT = "install gcc-avr avr-libc binutils-avr (or run `make setup`)"
_TIMEOUT = 120.0
_META = "build.json"
_LOG = "build.log"
_EMPTY_HEX = ":00000001FF\n"
_SIMAVR_INCLUDE_CANDIDATES = ("/usr/include/simavr/avr", "/usr/local/include/simavr/avr")
_NO_DEFINES: Mapping[str, Define] = MappingProxyType({})
_OBJ = "obj"


@dataclass(frozen=True)
class Build:
    """The artifacts of one build and their sizes (bytes).

    ``sram_bytes`` counts static SRAM (.data + .bss + .noinit); ``sram_budget`` is
    the limit on it, i.e. total SRAM minus the stack headroom. Budgets are
    ``None`` when the target names none.
    """

    elf: Path
    hex: Path
    eep: Path
    mcu: str
    f_cpu: int
    flash_bytes: int
    sram_bytes: int
    eeprom_bytes: int
    key: str
    target: str = ""
    variant: str | None = None
    flash_budget: int | None = None
    sram_budget: int | None = None
    eeprom_budget: int | None = None
    fuse_bytes: bytes | None = None  #: the ELF's .fuse section (None: it declares none)

    @property
    def fuses(self) -> Fuses | None:
        """The fuses the ELF declares, else the MCU's factory values (None: an
        MCU the fuse tables do not know)."""
        from fairdie.sim import fuses

        return fuses(self.mcu, self.fuse_bytes)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields (paths as strings)."""
        return {
            "target": self.target,
            "variant": self.variant,
            "mcu": self.mcu,
            "f_cpu": self.f_cpu,
            "elf": str(self.elf),
            "hex": str(self.hex),
            "eep": str(self.eep),
            "flash_bytes": self.flash_bytes,
            "flash_budget": self.flash_budget,
            "sram_bytes": self.sram_bytes,
            "sram_budget": self.sram_budget,
            "eeprom_bytes": self.eeprom_bytes,
            "eeprom_budget": self.eeprom_budget,
            "fuses": f.as_json() if (f := self.fuses) is not None else None,
            "key": self.key,
        }


def simavr_include_dir() -> Path | None:
    """The folder holding simavr's ``avr_mcu_section.h``, if installed.

    ``FAIRDIE_SIMAVR_INCLUDE`` overrides the search. Only that folder is added
    (as ``-isystem``), so firmware can ``#include <avr_mcu_section.h>``.
    """
    env = os.environ.get("FAIRDIE_SIMAVR_INCLUDE")
    for cand in ([env] if env else []) + list(_SIMAVR_INCLUDE_CANDIDATES):
        if (Path(cand) / "avr_mcu_section.h").is_file():
            return Path(cand)
    return None


@dataclass(frozen=True)
class Flags:
    """The compiler arguments of one build, without source, object and output paths."""

    c: tuple[str, ...]
    """C and assembler compiles (avr-gcc)."""
    cxx: tuple[str, ...]
    """C++ compiles (avr-g++)."""
    ld: tuple[str, ...]
    """The link, before the objects."""
    libs: tuple[str, ...] = ()
    """The link, after the objects (the target's ``ldflags``)."""

    def all(self) -> tuple[str, ...]:
        """Every list in a fixed order, tagged (for the cache key and the build record)."""
        return (
            *(f"c:{f}" for f in self.c),
            *(f"cxx:{f}" for f in self.cxx),
            *(f"ld:{f}" for f in self.ld),
            *(f"libs:{f}" for f in self.libs),
        )


def compile_flags(
    mcu: str,
    f_cpu: int,
    defines: Mapping[str, Define] = _NO_DEFINES,
    *,
    options: BuildOptions | None = None,
    simavr_include: Path | None = None,
) -> Flags:
    """The compiler arguments of one build: ours, then the target's ``options``.

    The order on a compile: ``-mmcu``, the clock, :data:`CFLAGS` (or
    :data:`CXXFLAGS`), the warnings, the target's ``cflags`` (then ``cxxflags``),
    the defines, the simavr include folder.
    """
    opts = options if options is not None else BuildOptions()
    head = (f"-mmcu={mcu}", f"-DF_CPU={f_cpu}UL", f'-DFAIRDIE_MCU="{mcu}"')
    tail = [f"-D{n}" if defines[n] is None else f"-D{n}={defines[n]}" for n in sorted(defines)]
    if simavr_include is not None:
        tail += ["-isystem", str(simavr_include)]
    warn = opts.warning_flags
    return Flags(
        c=(*head, *CFLAGS, *warn, *opts.cflags, *tail),
        cxx=(*head, *CXXFLAGS, *warn, *opts.cflags, *opts.cxxflags, *tail),
        ld=(f"-mmcu={mcu}", *LDFLAGS),
        libs=opts.ldflags,
    )


def _prefix_map_flag(version: str) -> str:
    """``-ffile-prefix-map`` (GCC 8+, also rewrites ``__FILE__``), else ``-fdebug-prefix-map``."""
    match = re.search(r"\) (\d+)\.", version.splitlines()[0] if version else "")
    return "-ffile-prefix-map" if match and int(match.group(1)) >= 8 else "-fdebug-prefix-map"


def _tool(name: str) -> Any:
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
    rc, out, err = _run(_tool(path), ["--version"])
    if rc != 0:
        raise ToolchainError(f"{path} --version failed: {(err or out).strip()[:120]}")
    return out


def _compiler_version(gcc: Any) -> str:
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
class _Tools:
    gcc: Any
    gxx: Any | None  # avr-g++, when the target has C++ sources
    prefix_map: str  # the -f...-prefix-map option this compiler knows


def _compile(
    tools: _Tools, flags: Flags, tgt: Target, sources: list[Path], elf: Path, log: Path
) -> None:
    """Compile each source by its bare name from the target's folder, then link."""
    folder = tgt.path  # absolute and resolved, as the compiler's getcwd() sees it
    mapping = f"{tools.prefix_map}={folder}={tgt.name}"
    objdir = elf.parent / _OBJ
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


def _objcopy(objcopy: Any, elf: Path, hex_path: Path, eep: Path) -> None:
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
    _objcopy(_tool("avr-objcopy"), elf, hex_path, eep)


def _hashed_files(target: Target, simavr_include: Path | None) -> dict[str, bytes]:
    files = {
        p.name: p.read_bytes()
        for p in sorted(target.path.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }
    if simavr_include is not None:
        files["<simavr>/avr_mcu_section.h"] = (simavr_include / "avr_mcu_section.h").read_bytes()
    return files


def _load(final: Path, target: Target, variant: str | None, key: str) -> Build | None:
    try:
        meta = json.loads((final / _META).read_text(encoding="utf-8"))
        out = str(meta["output"])
        flash, sram, eeprom = sizes_from_sections(
            {str(k): int(v) for k, v in meta["sections"].items()}
        )
        budget = target.budget
        fuse = meta["fuse"] if "fuse" in meta else elf_fuse_bytes(final / f"{out}.elf")
        return Build(
            elf=final / f"{out}.elf",
            hex=final / f"{out}.hex",
            eep=final / f"{out}.eep",
            mcu=str(meta["mcu"]),
            f_cpu=int(meta["f_cpu"]),
            flash_bytes=flash,
            sram_bytes=sram,
            eeprom_bytes=eeprom,
            key=key,
            target=target.name,
            variant=variant,
            flash_budget=budget.flash if budget else None,
            sram_budget=budget.static_sram if budget else None,
            eeprom_budget=budget.eeprom if budget else None,
            fuse_bytes=bytes.fromhex(fuse) if isinstance(fuse, str) else fuse,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ToolchainError):
        return None


def _check_budget(target: Target, b: Build) -> None:
    budget = target.budget
    if budget is None:
        return
    what = f"{target.name}" + (f" ({b.variant})" if b.variant else "")
    if b.flash_bytes > budget.flash:
        raise ToolchainError(
            f"{what}: flash {b.flash_bytes} B exceeds the budget of {budget.flash} B"
        )
    if b.sram_bytes > budget.static_sram:
        raise ToolchainError(
            f"{what}: static SRAM (.data+.bss+.noinit) {b.sram_bytes} B exceeds the budget of "
            f"{budget.static_sram} B ({budget.sram} B SRAM - {budget.stack} B stack headroom)"
        )
    if budget.eeprom is not None and b.eeprom_bytes > budget.eeprom:
        raise ToolchainError(
            f"{what}: EEPROM {b.eeprom_bytes} B exceeds the budget of {budget.eeprom} B"
        )


def build(
    target: str | Path,
    *,
    variant: str | None = None,
    mcu: str | None = None,
    f_cpu: int | None = None,
    defines: Mapping[str, Define] = _NO_DEFINES,
    cache_dir: Path | None = None,
) -> Build:
    """Build ``target`` (a shipped target's name or a folder path), cached by content.

    ``variant`` picks the target's variant defines (default: its default variant);
    ``defines`` add to or override them. ``cache_dir`` replaces the default cache
    folder (see ``default_cache_dir``). A cache hit does not run the compiler.
    Raises ``ToolchainError`` if a tool is missing, the build fails, or the result
    exceeds the target's budget.
    """
    tgt = load_target(target)
    mcu = mcu or tgt.mcu
    f_cpu = f_cpu if f_cpu is not None else tgt.f_cpu
    if mcu is None or f_cpu is None:
        if not (tgt.path / "target.toml").is_file():
            raise ToolchainError(
                f"{tgt.path}: no target.toml: give the MCU and clock (--mcu and --f-cpu)"
            )
        missing = " and ".join(k for k, v in (("mcu", mcu), ("f_cpu", f_cpu)) if v is None)
        raise ToolchainError(f"{tgt.path}/target.toml: no {missing}; give it there or pass it")
    lo, hi = F_CPU_RANGE
    if not lo <= f_cpu <= hi:
        raise ToolchainError(f"{tgt.name}: f_cpu {f_cpu} is out of range ({lo}..{hi} Hz)")
    name = variant if variant is not None else tgt.default_variant
    all_defines = {**tgt.defines_for(variant), **check_defines(defines, "defines")}
    sources = tgt.sources()
    if not sources:
        raise ToolchainError(f"{tgt.path}: no .c, .S or C++ files to build")

    gcc = _tool("avr-gcc")
    gxx = _tool("avr-g++") if tgt.has_cxx else None
    objcopy = _tool("avr-objcopy")
    include = simavr_include_dir()
    flags = compile_flags(mcu, f_cpu, all_defines, options=tgt.options, simavr_include=include)
    version = _compiler_version(gcc) + (_compiler_version(gxx) if gxx is not None else "")
    tools = _Tools(gcc, gxx, _prefix_map_flag(version))
    key = cache_key(
        files=_hashed_files(tgt, include),
        flags=flags.all(),
        mcu=mcu,
        f_cpu=f_cpu,
        defines=all_defines,
        compiler_version=version,
        # The folder's path is not in the key (nor in the ELF): only its mapped name.
        extra=(f"output={tgt.output}", f"name={tgt.name}", f"map={tools.prefix_map}"),
    )

    root = (cache_dir if cache_dir is not None else default_cache_dir()).expanduser().absolute()
    final = root / key
    result = _load(final, tgt, name, key) if final.is_dir() else None
    if result is None:
        if final.is_dir():  # unreadable leftover: replace it
            shutil.rmtree(final, ignore_errors=True)
        if root.exists() and not root.is_dir():
            raise ToolchainError(
                f"cache folder {root}: not a folder (see --cache-dir, $FAIRDIE_CACHE)"
            )
        try:
            root.mkdir(parents=True, exist_ok=True)
            prune_stale(root)
            tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{key[:16]}-", dir=root))
        except OSError as exc:
            raise ToolchainError(
                f"cache folder {root}: {exc.strerror or exc} (see --cache-dir, $FAIRDIE_CACHE)"
            ) from None
        out = tgt.output
        elf = tmp / f"{out}.elf"
        try:
            _compile(tools, flags, tgt, sources, elf, tmp / _LOG)
        except ToolchainError as exc:
            if f"device-specs/specs-{mcu}:" in str(exc):  # the driver's word for an unknown -mmcu
                raise ToolchainError(f"{tgt.name}: avr-gcc knows no MCU {mcu!r}") from None
            raise ToolchainError(f"{tgt.name}: {exc}") from None
        shutil.rmtree(tmp / _OBJ, ignore_errors=True)
        _objcopy(objcopy, elf, tmp / f"{out}.hex", tmp / f"{out}.eep")
        meta = {
            "target": tgt.name,
            "output": out,
            "mcu": mcu,
            "f_cpu": f_cpu,
            "defines": all_defines,
            "flags": {"c": flags.c, "cxx": flags.cxx, "ld": flags.ld, "libs": flags.libs},
            "sections": elf_sections(elf),
            "fuse": None if (fb := elf_fuse_bytes(elf)) is None else fb.hex(),
        }
        (tmp / _META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        publish(tmp, final)
        result = _load(final, tgt, name, key)
        if result is None:
            raise ToolchainError(f"build cache entry unreadable: {final}")
    _check_budget(tgt, result)
    return result
