"""Our compile flags, the one place they live (the Makefile and the CLI both come
here), and the compiler arguments of one build: ours, then the target's
``[build]`` options, the defines and simavr's include folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from ._target import BuildOptions, Define

__all__ = [
    "CFLAGS",
    "CXXFLAGS",
    "LDFLAGS",
    "NO_DEFINES",
    "Flags",
    "compile_flags",
    "prefix_map_flag",
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

_SIMAVR_INCLUDE_CANDIDATES = ("/usr/include/simavr/avr", "/usr/local/include/simavr/avr")
NO_DEFINES: Mapping[str, Define] = MappingProxyType({})


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
    defines: Mapping[str, Define] = NO_DEFINES,
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


def prefix_map_flag(version: str) -> str:
    """``-ffile-prefix-map`` (GCC 8+, also rewrites ``__FILE__``), else ``-fdebug-prefix-map``."""
    match = re.search(r"\) (\d+)\.", version.splitlines()[0] if version else "")
    return "-ffile-prefix-map" if match and int(match.group(1)) >= 8 else "-fdebug-prefix-map"
