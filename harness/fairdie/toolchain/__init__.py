"""Build AVR firmware with avr-gcc into a content-hashed cache.

    >>> from fairdie.toolchain import build
    >>> b = build("die_t13a", variant="charlieplex")   # doctest: +SKIP
    >>> b.elf, b.flash_bytes, b.flash_budget            # doctest: +SKIP

A target is a folder of C, C++ (``.cpp``, ``.cc``, ``.cxx``) and assembler
(``.S``) sources with a ``target.toml`` naming its MCU, clock, size budget,
variants and, in a ``[build]`` table, its warnings and extra flags.

Where a target is (:func:`resolve_target`; ``fairdie build --target``,
``fairdie run``, ``fairdie trace`` and a scenario's ``firmware`` all follow
it): a plain name (``die_t13a``) is a shipped target, a subject's
(:func:`shipped_targets`), else a folder of the working directory; anything
else is a folder path, relative ones to the working directory, or else to
the package's firmware folder (:func:`firmware_dir`), where the engine's test
firmwares are ``tests/NAME`` (``tests/buzzer``). A scenario file's relative
paths start from the file's folder first.

A variant may name its reference model (``model = "fair"``) and how it
drives LEDs (``leds = "direct"``, ``"charlieplex"`` or ``"mixed"``; a
top-level ``leds`` covers the variants that do not say), which a board's
wiring must match (:func:`fairdie.board.check_build`); unknown keys are
errors. Our compile flags live in one place (:data:`CFLAGS`,
:data:`CXXFLAGS`, :data:`LDFLAGS`); the ELF does not depend on the folder
the target sits in. Every failure is a
:class:`fairdie.errors.ToolchainError` with a one-line message.
Command line: ``fairdie build`` (or ``python -m fairdie.toolchain``)
``[--target NAME_OR_DIR] [--variant V] [--f-cpu HZ] [-D NAME=VALUE] [--json]
[--out DIR [--force]]``; ``--out`` copies the files to burn out of the cache
(:mod:`fairdie.toolchain._out`).
"""

from __future__ import annotations

from ._build import Build, build
from ._cache import default_cache_dir
from ._cli import add_build_arguments, format_build, run_build_command
from ._compiler import hex_images
from ._flags import CFLAGS, CXXFLAGS, LDFLAGS, Flags, compile_flags, simavr_include_dir
from ._size import elf_fuse_bytes, elf_sections, sizes_from_sections
from ._target import (
    Budget,
    BuildOptions,
    Define,
    Target,
    firmware_dir,
    load_target,
    resolve_target,
    shipped_targets,
    variants,
)

__all__ = [
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "Budget",
    "Build",
    "BuildOptions",
    "Define",
    "Flags",
    "Target",
    "add_build_arguments",
    "build",
    "compile_flags",
    "default_cache_dir",
    "elf_fuse_bytes",
    "elf_sections",
    "firmware_dir",
    "format_build",
    "hex_images",
    "load_target",
    "resolve_target",
    "run_build_command",
    "shipped_targets",
    "simavr_include_dir",
    "sizes_from_sections",
    "variants",
]
