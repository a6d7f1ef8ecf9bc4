"""Firmware targets: a folder of C sources plus its ``target.toml``."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie.errors import ToolchainError

__all__ = [
    "SOURCE_SUFFIXES",
    "Budget",
    "Define",
    "Target",
    "check_defines",
    "firmware_dir",
    "load_target",
    "parse_target_toml",
    "variants",
]

Define = str | int | None
"""A ``-D`` value: a string or integer is ``-DNAME=VALUE``, ``None`` is plain ``-DNAME``."""

SOURCE_SUFFIXES = (".c", ".S")
"""Files compiled and linked; every file in the folder is hashed for the cache key."""

TARGET_FILE = "target.toml"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = frozenset({"F_CPU", "FAIRDIE_MCU"})


@dataclass(frozen=True)
class Budget:
    """Size limits in bytes; ``stack`` is SRAM kept free for the stack."""

    flash: int
    sram: int
    stack: int = 0
    eeprom: int | None = None

    @property
    def static_sram(self) -> int:
        """Largest allowed ``.data + .bss + .noinit``: SRAM minus the stack headroom."""
        return self.sram - self.stack


@dataclass(frozen=True)
class Target:
    """A parsed firmware target (see ``firmware/die_t13a/target.toml``)."""

    name: str
    path: Path
    mcu: str | None
    f_cpu: int | None
    output: str
    budget: Budget | None
    default_variant: str | None
    variant_defines: tuple[tuple[str, tuple[tuple[str, Define], ...]], ...] = ()

    @property
    def variants(self) -> tuple[str, ...]:
        """Names accepted by ``build(variant=...)``, in file order."""
        return tuple(name for name, _ in self.variant_defines)

    def defines_for(self, variant: str | None) -> dict[str, Define]:
        """The ``-D`` defines of ``variant`` (``None``: the default variant)."""
        name = variant if variant is not None else self.default_variant
        if name is None:
            return {}
        for known, defines in self.variant_defines:
            if known == name:
                return dict(defines)
        choices = ", ".join(self.variants) or "none"
        raise ToolchainError(f"unknown variant {name!r} for {self.name}: choose from {choices}")

    def sources(self) -> list[Path]:
        """The files to compile, sorted by name."""
        return sorted(p for p in self.path.iterdir() if p.suffix in SOURCE_SUFFIXES and p.is_file())


def firmware_dir() -> Path:
    """The repository's ``firmware/`` folder (env ``FAIRDIE_FIRMWARE_DIR`` overrides)."""
    env = os.environ.get("FAIRDIE_FIRMWARE_DIR")
    if env:
        return Path(env)
    # harness/fairdie/toolchain/_target.py -> repository root
    return Path(__file__).resolve().parents[3] / "firmware"


def _resolve(target: str | Path) -> Path:
    path = Path(target)
    if isinstance(target, str) and not path.is_absolute() and len(path.parts) == 1:
        path = firmware_dir() / target
    if not path.is_dir():
        raise ToolchainError(f"firmware target not found: {path}")
    return path


def _int(table: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int | None:
    value = table.get(key, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ToolchainError(f"{where}: {key} must be a non-negative integer, got {value!r}")
    return value


def check_defines(defines: Mapping[str, Define], where: str) -> dict[str, Define]:
    """Validate ``-D`` names and values; returns a plain dict."""
    out: dict[str, Define] = {}
    for name, value in defines.items():
        if not isinstance(name, str) or not _IDENT.match(name):
            raise ToolchainError(f"{where}: bad define name {name!r}")
        if name in _RESERVED:
            raise ToolchainError(f"{where}: {name} is set by the toolchain (use f_cpu= / mcu=)")
        if isinstance(value, bool) or not (value is None or isinstance(value, str | int)):
            raise ToolchainError(f"{where}: define {name} must be str, int or None")
        out[name] = value
    return out


def parse_target_toml(text: str, path: Path) -> Target:
    """Parse the text of a ``target.toml`` found in folder ``path``."""
    where = str(path / TARGET_FILE)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ToolchainError(f"{where}: {exc}") from None
    mcu = data.get("mcu")
    if mcu is not None and not (isinstance(mcu, str) and _IDENT.match(mcu)):
        raise ToolchainError(f"{where}: mcu must be a name like 'attiny13a', got {mcu!r}")
    f_cpu = _int(data, "f_cpu", where)
    name = data.get("name", path.name)
    output = data.get("output", path.name)
    if not isinstance(name, str) or not isinstance(output, str) or not _IDENT.match(output):
        raise ToolchainError(f"{where}: name and output must be plain names")

    budget = None
    if "budget" in data:
        table = data["budget"]
        if not isinstance(table, dict):
            raise ToolchainError(f"{where}: [budget] must be a table")
        flash = _int(table, "flash", where)
        sram = _int(table, "sram", where)
        if flash is None or sram is None:
            raise ToolchainError(f"{where}: [budget] needs flash and sram")
        stack = _int(table, "stack", where, 0)
        assert stack is not None
        if stack > sram:
            raise ToolchainError(f"{where}: budget.stack {stack} exceeds budget.sram {sram}")
        budget = Budget(flash, sram, stack, _int(table, "eeprom", where))

    table = data.get("variants", {})
    if not isinstance(table, dict):
        raise ToolchainError(f"{where}: [variants] must be a table")
    found: list[tuple[str, tuple[tuple[str, Define], ...]]] = []
    for vname, spec in table.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("defines", {}), dict):
            raise ToolchainError(f"{where}: [variants.{vname}] needs a defines table")
        defines = check_defines(spec.get("defines", {}), f"{where} [variants.{vname}]")
        found.append((vname, tuple(defines.items())))
    default = data.get("default_variant", found[0][0] if found else None)
    if default is not None and default not in {n for n, _ in found}:
        raise ToolchainError(f"{where}: default_variant {default!r} is not a variant")
    return Target(name, path, mcu, f_cpu, output, budget, default, tuple(found))


def load_target(target: str | Path = "die_t13a") -> Target:
    """Load a target by name (a folder under ``firmware/``) or by path.

    A folder without ``target.toml`` is allowed: then ``build()`` needs ``mcu`` and
    ``f_cpu`` and no budget is enforced.
    """
    path = _resolve(target)
    toml = path / TARGET_FILE
    if not toml.is_file():
        return Target(path.name, path, None, None, path.name, None, None)
    return parse_target_toml(toml.read_text(encoding="utf-8"), path)


def variants(target: str | Path = "die_t13a") -> tuple[str, ...]:
    """The variant names a target accepts (for validating ``--variant``)."""
    return load_target(target).variants
