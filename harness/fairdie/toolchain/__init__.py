"""Build AVR firmware with avr-gcc into a content-hashed cache.

    >>> from fairdie.toolchain import build
    >>> b = build("die_t13a", variant="charlieplex")   # doctest: +SKIP
    >>> b.elf, b.flash_bytes, b.flash_budget            # doctest: +SKIP

A target is a folder under ``firmware/`` (or any folder path) with a
``target.toml`` naming its MCU, clock, size budget and variants. Compile
flags live in one place (:data:`CFLAGS`, :data:`LDFLAGS`). Every failure is a
:class:`fairdie.errors.ToolchainError` with a one-line message.
Command line: ``python -m fairdie.toolchain [--variant V] [--f-cpu HZ]``.
"""

from __future__ import annotations

from ._build import CFLAGS, LDFLAGS, Build, build, compile_flags, simavr_include_dir
from ._cache import default_cache_dir
from ._target import Budget, Define, Target, firmware_dir, load_target, variants

__all__ = [
    "CFLAGS",
    "LDFLAGS",
    "Budget",
    "Build",
    "Define",
    "Target",
    "build",
    "compile_flags",
    "default_cache_dir",
    "firmware_dir",
    "load_target",
    "simavr_include_dir",
    "variants",
]
