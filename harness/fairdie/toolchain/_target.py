"""Firmware targets: a folder of C, C++ and assembler sources plus its ``target.toml``."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie._toml import read_toml_text
from fairdie.errors import ToolchainError

__all__ = [
    "CXX_SUFFIXES",
    "F_CPU_RANGE",
    "LED_DRIVES",
    "SOURCE_SUFFIXES",
    "Budget",
    "BuildOptions",
    "Define",
    "Target",
    "check_defines",
    "firmware_dir",
    "load_target",
    "parse_build_options",
    "parse_target_toml",
    "resolve_target",
    "shipped_targets",
    "variants",
]

Define = str | int | None
"""A ``-D`` value: a string or integer is ``-DNAME=VALUE``, ``None`` is plain ``-DNAME``."""

CXX_SUFFIXES = (".cpp", ".cc", ".cxx")
"""C++ sources: compiled with avr-g++, which then also links the program."""

SOURCE_SUFFIXES = (".c", ".S", *CXX_SUFFIXES)
"""Files compiled and linked; every file in the folder is hashed for the cache key."""

TARGET_FILE = "target.toml"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLAIN = re.compile(r"[A-Za-z0-9_.+-]+\Z")
_WARNING = re.compile(r"[A-Za-z0-9][A-Za-z0-9_=+-]*\Z")
_RESERVED = frozenset({"F_CPU", "FAIRDIE_MCU"})
# Flags the toolchain sets itself: a target may not set them in [build].
_OWN_FLAGS = ("-mmcu", "-o", "-c", "-DF_CPU", "-DFAIRDIE_MCU", "-UF_CPU", "-UFAIRDIE_MCU")
_BUILD_KEYS = frozenset({"cflags", "cxxflags", "ldflags", "warnings", "werror"})
_TOP_KEYS = frozenset(
    {"name", "mcu", "f_cpu", "output", "default_variant", "leds", "budget", "build", "variants"}
)
_BUDGET_KEYS = frozenset({"flash", "sram", "stack", "eeprom"})
_VARIANT_KEYS = frozenset({"defines", "model", "leds"})

F_CPU_RANGE = (1_000, 32_000_000)
"""The clocks a build may have (Hz): what the simulator runs."""

LED_DRIVES = ("direct", "charlieplex", "mixed")
"""How a build drives its LEDs (``leds = ...``): each LED between a pin and a
rail, each between two pins, or both; a board's wiring must match it."""


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
class BuildOptions:
    """The ``[build]`` table of a ``target.toml``: warnings and extra flags.

    ``warnings`` are ``-W`` names (``"all"`` is ``-Wall``); ``werror`` adds
    ``-Werror``. ``cflags`` go to every compile (C, C++, assembler),
    ``cxxflags`` to C++ compiles after them, ``ldflags`` to the link after the
    objects (so ``-l`` libraries resolve).
    """

    warnings: tuple[str, ...] = ("all", "extra")
    werror: bool = False
    cflags: tuple[str, ...] = ()
    cxxflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()

    @property
    def warning_flags(self) -> tuple[str, ...]:
        """``-W<name>`` for each warning, then ``-Werror`` when asked for."""
        return tuple(f"-W{w}" for w in self.warnings) + (("-Werror",) if self.werror else ())


@dataclass(frozen=True)
class Target:
    """A parsed firmware target (a folder's ``target.toml``)."""

    name: str
    path: Path
    mcu: str | None
    f_cpu: int | None
    output: str
    budget: Budget | None
    default_variant: str | None
    variant_defines: tuple[tuple[str, tuple[tuple[str, Define], ...]], ...] = ()
    options: BuildOptions = BuildOptions()
    #: (variant, model): the reference model each variant names (``model = ...``)
    variant_models: tuple[tuple[str, str], ...] = ()
    #: the LED drive of the builds whose variant names none (``leds = ...``)
    leds: str | None = None
    #: (variant, drive): the LED drive each variant names (``leds = ...``)
    variant_leds: tuple[tuple[str, str], ...] = ()

    @property
    def variants(self) -> tuple[str, ...]:
        """Names accepted by ``build(variant=...)``, in file order."""
        return tuple(name for name, _ in self.variant_defines)

    def model_for(self, variant: str | None) -> str | None:
        """The reference model a variant names (``model = "..."``), if any."""
        self.defines_for(variant)  # an unknown variant fails here
        name = variant if variant is not None else self.default_variant
        return dict(self.variant_models).get(name or "")

    def leds_for(self, variant: str | None) -> str | None:
        """How a build of ``variant`` drives its LEDs (``leds = ...``), if the file says."""
        self.defines_for(variant)  # an unknown variant fails here
        name = variant if variant is not None else self.default_variant
        return dict(self.variant_leds).get(name or "", self.leds)

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

    @property
    def has_cxx(self) -> bool:
        """Whether any source is C++ (then avr-g++ links)."""
        return any(p.suffix in CXX_SUFFIXES for p in self.sources())


def firmware_dir() -> Path:
    """The firmware shipped in the package, ``fairdie/firmware/``.

    Target names resolve here; the environment variable ``FAIRDIE_FIRMWARE_DIR``
    names another folder instead. The engine's test firmwares are in its
    ``tests/`` subfolder.
    """
    env = os.environ.get("FAIRDIE_FIRMWARE_DIR")
    if env:
        return Path(env).expanduser()
    return _package_firmware()


@functools.cache
def _package_firmware() -> Path:
    """``fairdie/firmware/``, resolved once: the package does not move while it runs."""
    return Path(__file__).resolve().parent.parent / "firmware"


def _roots() -> tuple[Path, ...]:
    """Where shipped targets live, first found first: the core's firmware
    folder, then each subject's."""
    from fairdie.subjects import firmware_folders

    return (firmware_dir(), *firmware_folders())


def shipped_targets() -> dict[str, Path]:
    """Target name -> folder: the core's (``firmware_dir()``, its ``tests/``
    holding the engine's test firmwares) and each subject's ``firmware/``."""
    found: dict[str, Path] = {}
    for root in _roots():
        if root.is_dir():
            for d in sorted(root.iterdir()):
                if (d / TARGET_FILE).is_file():
                    found.setdefault(d.name, d)
    return found


def _shipped_target(name: str) -> Path | None:
    """``shipped_targets().get(name)`` without listing every folder: the
    first root holding ``name/target.toml``."""
    for root in _roots() if name else ():
        if (root / name / TARGET_FILE).is_file():
            return root / name
    return None


def resolve_target(target: str | Path) -> Path:
    """The absolute folder ``target`` names (the rule of :mod:`fairdie.toolchain`).

    A plain name (a string, ``"die_t13a"``: no separator, no leading ``.``) is a
    shipped target (:func:`shipped_targets`) when there is one, else a folder
    of the working directory. Anything else is a path, relative ones to the
    working directory; a relative path that names no folder there may name
    one under :func:`firmware_dir` (``"tests/buzzer"``: the engine's test
    firmwares). Raises :class:`ToolchainError` (one line) when none is found.
    """
    path = Path(target).expanduser()
    text = str(target)
    if isinstance(target, str) and not any(c in text for c in ("/", os.sep)) and text[:1] != ".":
        shipped = _shipped_target(text)
        if shipped is not None and (shipped.is_dir() or not path.is_dir()):
            path = shipped
        elif not path.is_dir():
            names = ", ".join(sorted(shipped_targets()))
            raise ToolchainError(f"firmware target not found: {target} (shipped: {names})")
    elif not path.is_dir() and not path.is_absolute() and text[:1] != ".":
        packaged = firmware_dir() / path
        if (packaged / TARGET_FILE).is_file():
            path = packaged
    if not path.is_dir():
        raise ToolchainError(f"firmware target not found: {path}")
    return path.resolve()


def _int(table: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int | None:
    value = table.get(key, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ToolchainError(f"{where}: {key} must be a non-negative integer, got {value!r}")
    return value


def _flag_list(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ToolchainError(f"{where}: build.{key} must be a list of strings, got {value!r}")
    for flag in value:
        if not flag.startswith("-") or flag != flag.strip() or "\n" in flag:
            raise ToolchainError(f"{where}: build.{key}: {flag!r} is not a compiler flag")
        if flag == "-Werror":
            raise ToolchainError(f"{where}: build.{key}: use werror = true for -Werror")
        own = next((f for f in _OWN_FLAGS if flag == f or flag.startswith(f"{f}=")), None)
        if own is not None or flag.startswith("-mmcu"):
            raise ToolchainError(
                f"{where}: build.{key}: {flag!r} is set by the toolchain (use mcu, f_cpu)"
            )
    return tuple(value)


def _known_keys(table: Mapping[str, Any], known: frozenset[str], where: str, what: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ToolchainError(
            f"{where}: unknown key {what}{unknown[0]} (known: {', '.join(sorted(known))})"
        )


def _leds(table: Mapping[str, Any], where: str) -> str | None:
    value = table.get("leds")
    if value is not None and value not in LED_DRIVES:
        raise ToolchainError(f"{where}: leds must be one of {', '.join(LED_DRIVES)}, got {value!r}")
    return value


def parse_build_options(table: object, where: str) -> BuildOptions:
    """Validate a ``[build]`` table (see :class:`BuildOptions`)."""
    if not isinstance(table, dict):
        raise ToolchainError(f"{where}: [build] must be a table")
    unknown = sorted(set(table) - _BUILD_KEYS)
    if unknown:
        known = ", ".join(sorted(_BUILD_KEYS))
        raise ToolchainError(f"{where}: unknown key build.{unknown[0]} (known: {known})")
    werror = table.get("werror", False)
    if not isinstance(werror, bool):
        raise ToolchainError(f"{where}: build.werror must be true or false, got {werror!r}")
    warnings = table.get("warnings", list(BuildOptions.warnings))
    if not isinstance(warnings, list) or not all(
        isinstance(w, str) and _WARNING.match(w) for w in warnings
    ):
        raise ToolchainError(
            f'{where}: build.warnings must be a list of -W names like "all", got {warnings!r}'
        )
    if "error" in warnings:
        raise ToolchainError(f"{where}: build.warnings: use werror = true for -Werror")
    return BuildOptions(
        warnings=tuple(warnings),
        werror=werror,
        cflags=_flag_list(table, "cflags", where),
        cxxflags=_flag_list(table, "cxxflags", where),
        ldflags=_flag_list(table, "ldflags", where),
    )


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
    _known_keys(data, _TOP_KEYS, where, "")
    mcu = data.get("mcu")
    if mcu is not None and not (isinstance(mcu, str) and _IDENT.match(mcu)):
        raise ToolchainError(f"{where}: mcu must be a name like 'attiny13a', got {mcu!r}")
    f_cpu = _int(data, "f_cpu", where)
    lo, hi = F_CPU_RANGE
    if f_cpu is not None and not lo <= f_cpu <= hi:
        raise ToolchainError(f"{where}: f_cpu {f_cpu} is out of range ({lo}..{hi} Hz)")
    name = data.get("name", path.name)
    output = data.get("output", path.name)
    if not isinstance(name, str) or not _PLAIN.match(name):
        raise ToolchainError(f"{where}: name must be a plain name, got {name!r}")
    if not isinstance(output, str) or not _IDENT.match(output):
        raise ToolchainError(f"{where}: output must be a plain name, got {output!r}")
    options = parse_build_options(data.get("build", {}), where)

    budget = None
    if "budget" in data:
        table = data["budget"]
        if not isinstance(table, dict):
            raise ToolchainError(f"{where}: [budget] must be a table")
        _known_keys(table, _BUDGET_KEYS, where, "budget.")
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
    models: list[tuple[str, str]] = []
    drives: list[tuple[str, str]] = []
    for vname, spec in table.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("defines", {}), dict):
            raise ToolchainError(f"{where}: [variants.{vname}] needs a defines table")
        _known_keys(spec, _VARIANT_KEYS, where, f"variants.{vname}.")
        drive = _leds(spec, f"{where} [variants.{vname}]")
        if drive is not None:
            drives.append((vname, drive))
        defines = check_defines(spec.get("defines", {}), f"{where} [variants.{vname}]")
        found.append((vname, tuple(defines.items())))
        model = spec.get("model")
        if model is not None:
            if not isinstance(model, str) or not _PLAIN.match(model):
                raise ToolchainError(f"{where}: [variants.{vname}] model must be a plain name")
            models.append((vname, model))
    default = data.get("default_variant", found[0][0] if found else None)
    if default is not None and default not in {n for n, _ in found}:
        raise ToolchainError(f"{where}: default_variant {default!r} is not a variant")
    return Target(
        name,
        path,
        mcu,
        f_cpu,
        output,
        budget,
        default,
        tuple(found),
        options,
        tuple(models),
        _leds(data, where),
        tuple(drives),
    )


def load_target(target: str | Path) -> Target:
    """Load a target by name or folder path (:func:`resolve_target`).

    A folder without ``target.toml`` is allowed: then ``build()`` needs ``mcu`` and
    ``f_cpu``, no budget is enforced and the default :class:`BuildOptions` apply.
    """
    path = resolve_target(target)
    toml = path / TARGET_FILE
    if not os.path.lexists(toml):  # anything else there is read, or refused
        name = re.sub(r"[^A-Za-z0-9_.+-]", "_", path.name)
        output = re.sub(r"[^A-Za-z0-9_]", "_", name)
        output = output if _IDENT.match(output) else f"_{output}"
        return Target(name, path, None, None, output, None, None)
    return _parsed_target(read_toml_text(toml, "target file", ToolchainError), path)


@functools.lru_cache(maxsize=64)
def _parsed_target(text: str, path: Path) -> Target:
    """:func:`parse_target_toml`, once per text and folder: the file is read
    (and checked) on every load, so an edited one is parsed again, and a bad
    one, never kept, is refused every time; a Target is immutable."""
    return parse_target_toml(text, path)


def variants(target: str | Path) -> tuple[str, ...]:
    """The variant names a target accepts (for validating ``--variant``)."""
    return load_target(target).variants
