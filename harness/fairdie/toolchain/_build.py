"""Compile a firmware target with avr-gcc (avr-g++ for C++) into the content-hashed cache.

Each source is compiled on its own from the target's folder, by its bare file
name, with the folder mapped to the target's name in the debug info: the ELF
is the same whichever folder the target sits in. Here: the build, its cache
entry and its size budget. The compile flags are in :mod:`fairdie.toolchain._flags`,
running the tools in :mod:`fairdie.toolchain._compiler`.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.errors import ToolchainError

from ._cache import TMP_PREFIX, cache_key, default_cache_dir, prune_stale, publish
from ._compiler import (
    OBJ_DIR,
    Tools,
    compile_target,
    compiler_version,
    tool,
    write_hex,
)
from ._flags import (
    NO_DEFINES,
    compile_flags,
    prefix_map_flag,
    simavr_include_dir,
)
from ._size import elf_fuse_bytes, elf_sections, sizes_from_sections
from ._target import F_CPU_RANGE, Define, Target, check_defines, load_target

if TYPE_CHECKING:
    from fairdie.sim import Fuses

__all__ = [
    "Build",
    "build",
]

_META = "build.json"
_LOG = "build.log"


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
    defines: Mapping[str, Define] = NO_DEFINES,
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

    gcc = tool("avr-gcc")
    gxx = tool("avr-g++") if tgt.has_cxx else None
    objcopy = tool("avr-objcopy")
    include = simavr_include_dir()
    flags = compile_flags(mcu, f_cpu, all_defines, options=tgt.options, simavr_include=include)
    version = compiler_version(gcc) + (compiler_version(gxx) if gxx is not None else "")
    tools = Tools(gcc, gxx, prefix_map_flag(version))
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
            compile_target(tools, flags, tgt, sources, elf, tmp / _LOG)
        except ToolchainError as exc:
            if f"device-specs/specs-{mcu}:" in str(exc):  # the driver's word for an unknown -mmcu
                raise ToolchainError(f"{tgt.name}: avr-gcc knows no MCU {mcu!r}") from None
            raise ToolchainError(f"{tgt.name}: {exc}") from None
        shutil.rmtree(tmp / OBJ_DIR, ignore_errors=True)
        write_hex(objcopy, elf, tmp / f"{out}.hex", tmp / f"{out}.eep")
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
