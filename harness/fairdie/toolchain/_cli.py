"""The build command: ``fairdie build`` and ``python -m fairdie.toolchain`` are this code."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from fairdie._cmdline import Terminated, stopped
from fairdie.errors import FairdieError, ToolchainError

from ._build import Build, build
from ._target import F_CPU_RANGE, Define, load_target

__all__ = ["add_build_arguments", "format_build", "main", "run_build_command"]


def _define(text: str) -> tuple[str, Define]:
    name, sep, value = text.partition("=")
    return name, (value if sep else None)


def _f_cpu(text: str) -> int:
    try:
        hz = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of Hz: {text!r}") from None
    lo, hi = F_CPU_RANGE
    if not lo <= hz <= hi:
        raise argparse.ArgumentTypeError(f"{hz} is out of range ({lo}..{hi})")
    return hz


def _usage(used: int, budget: int | None, note: str = "") -> str:
    if budget is None:
        return f"{used} B"
    return f"{used} / {budget} B ({100 * used / budget:.0f} %){note}"


def format_build(b: Build, stack: int | None = None) -> str:
    """The lines the build command prints without ``--json``."""
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
            *([f"fuses   {_fuses(b)}"] if b.fuses is not None else []),
            f"key     {b.key}",
        ]
    )


def _fuses(b: Build) -> str:
    f = b.fuses
    assert f is not None
    return f"{f.burn} (brown-out detector {f.bod}; {f.source})"


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """The build command's options, on ``parser``."""
    parser.add_argument(
        "--target",
        required=True,
        metavar="NAME_OR_DIR",
        help="a target shipped with fairdie (a subject's, e.g. die_t13a, or the engine's"
        " tests/NAME) or a folder with a target.toml",
    )
    parser.add_argument("--variant", help="build variant (see the target.toml)")
    parser.add_argument("--f-cpu", type=_f_cpu, metavar="HZ", help="override the clock")
    parser.add_argument("--mcu", help="override the MCU")
    parser.add_argument(
        "-D", dest="defines", action="append", metavar="NAME[=VALUE]", help="a define"
    )
    parser.add_argument("--cache-dir", type=Path, help="cache folder (default $FAIRDIE_CACHE)")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="also copy the ELF, HEX, EEP (when there is EEPROM data) and a fuses file there",
    )
    parser.add_argument(
        "--force", action="store_true", help="with --out: replace files fairdie did not write"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_build_command(args: argparse.Namespace) -> int:
    """Build as ``args`` (from :func:`add_build_arguments`) say and print the result.

    Raises :class:`~fairdie.errors.FairdieError` for the caller to report.
    """
    target = load_target(args.target)
    defines: dict[str, Define] = {}
    for text in args.defines or ():  # None when none given
        name, value = _define(text)
        if name in defines:
            raise ToolchainError(f"-D {name} given twice")
        defines[name] = value
    b = build(
        target.path,
        variant=args.variant,
        mcu=args.mcu,
        f_cpu=args.f_cpu,
        defines=defines,
        cache_dir=args.cache_dir,
    )
    if args.out is not None:
        from ._out import write_out

        written = write_out(b, args.out, force=args.force)
        b = replace(b, elf=written[0], hex=written[1], eep=written[2] if b.eeprom_bytes else b.eep)
    if args.json:
        out = b.as_dict()
        if args.out is not None:
            out["out"] = [str(p) for p in written]
        print(json.dumps(out))
    else:
        print(format_build(b, target.budget.stack if target.budget else None))
        if args.out is not None:
            print(f"out     {args.out}: {' '.join(p.name for p in written)}")
    return 0


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m fairdie.toolchain") -> int:
    """Entry point; returns the exit status (2 with one line on stderr for any error)."""
    parser = argparse.ArgumentParser(prog=prog, description="Build AVR firmware (cached).")
    add_build_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_build_command(args)
    except FairdieError as exc:
        print(f"fairdie: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Terminated) as e:
        return stopped(e)
