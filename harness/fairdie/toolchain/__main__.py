"""``python -m fairdie.toolchain``: build a target and print paths and sizes, one per line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from fairdie.errors import FairdieError

from ._build import Build, build
from ._target import Define, load_target

__all__ = ["format_build", "main"]


def _define(text: str) -> tuple[str, Define]:
    name, sep, value = text.partition("=")
    return name, (value if sep else None)


def _usage(used: int, budget: int | None, note: str = "") -> str:
    if budget is None:
        return f"{used} B"
    return f"{used} / {budget} B ({100 * used / budget:.0f} %){note}"


def format_build(b: Build, stack: int | None = None) -> str:
    """The lines ``python -m fairdie.toolchain`` prints."""
    note = f"; + {stack} B stack headroom" if stack else ""
    return "\n".join(
        [
            f"target  {b.target}" + (f" ({b.variant})" if b.variant else ""),
            f"mcu     {b.mcu} @ {b.f_cpu} Hz",
            f"elf     {b.elf}",
            f"hex     {b.hex}",
            f"eep     {b.eep}",
            f"flash   {_usage(b.flash_bytes, b.flash_budget)}",
            f"sram    {_usage(b.sram_bytes, b.sram_budget, note)}",  # static: .data+.bss+.noinit
            f"eeprom  {_usage(b.eeprom_bytes, b.eeprom_budget)}",
            f"key     {b.key}",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m fairdie.toolchain", description="Build AVR firmware (cached)."
    )
    parser.add_argument("--target", default="die_t13a", help="name under firmware/ or a folder")
    parser.add_argument("--variant", help="build variant (see target.toml)")
    parser.add_argument("--f-cpu", type=int, metavar="HZ", help="override the clock")
    parser.add_argument("--mcu", help="override the MCU")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    parser.add_argument("--cache-dir", type=Path, help="cache folder (default $FAIRDIE_CACHE)")
    args = parser.parse_args(argv)
    try:
        target = load_target(args.target)
        if args.variant is not None and args.variant not in target.variants:
            choices = ", ".join(target.variants) or "none"
            parser.error(f"--variant must be one of: {choices}")
        b = build(
            args.target,
            variant=args.variant,
            mcu=args.mcu,
            f_cpu=args.f_cpu,
            defines=dict(_define(d) for d in args.defines),
            cache_dir=args.cache_dir,
        )
    except FairdieError as exc:
        print(f"fairdie: error: {exc}", file=sys.stderr)
        return 1
    print(format_build(b, target.budget.stack if target.budget else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
