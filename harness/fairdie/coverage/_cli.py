"""``fairdie cov``: combine coverage files and write reports from them.

    fairdie cov merge -o OUT.json IN.json... [--force]
    fairdie cov report IN.json... [--lcov PATH] [--xml PATH] [--html DIR] [--source DIR] [--force]

``report`` prints the per-file summary and writes only the outputs it is given.
An output replaces only what fairdie wrote, unless ``--force``; every output
is checked before any input is read.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from fairdie._cmdline import parser_once
from fairdie.coverage import check_output
from fairdie.coverage._data import CoverageSet

__all__ = ["cov_main", "merge_files", "report"]


def _load_all(inputs: Sequence[Path]) -> CoverageSet:
    out = CoverageSet()
    for p in inputs:
        out = out.merged(CoverageSet.load(Path(p)))
    return out


def merge_files(
    out: Path, inputs: Sequence[Path], *, what: str = "-o", force: bool = False
) -> CoverageSet:
    """Merge coverage files into ``out`` (which may be one of them); the merged set."""
    check_output("json", Path(out), what, force=force)
    merged = _load_all(inputs)
    merged.save(Path(out), what=what, force=force)
    return merged


def report(
    input: Path | Sequence[Path],
    *,
    lcov: Path | None = None,
    xml: Path | None = None,
    html: Path | None = None,
    sources: Sequence[Path] = (),
    force: bool = False,
) -> str:
    """Write the reports asked for from one or more coverage files; the summary table."""
    from fairdie.coverage import analyse, format_summary, summarise, write_output

    # (option, kind, path): the files first, so that a refused one claims no folder
    asked = [
        (w, k, Path(p))
        for w, k, p in [("--lcov", "lcov", lcov), ("--xml", "xml", xml), ("--html", "html", html)]
        if p is not None
    ]
    for what, kind, path in asked:
        if kind != "html":
            check_output(kind, path, what, force=force)
    inputs = [input] if isinstance(input, str | Path) else list(input)
    covset = _load_all(inputs)
    for what, kind, path in asked:
        if kind == "html":
            check_output(kind, path, what, force=force)
    rep = analyse(covset, sources)
    for what, kind, path in asked:
        write_output(kind, covset, rep, path, what=what, force=force)
    return format_summary(summarise(rep))


@parser_once
def _parser() -> argparse.ArgumentParser:
    from fairdie._cmdline import Parser, add_force_option

    p = Parser(prog="fairdie cov", description="Combine firmware coverage files; report them.")
    sub = p.add_subparsers(dest="what", required=True, metavar="{merge,report}")
    m = sub.add_parser("merge", help="sum coverage files into one")
    m.add_argument("-o", "--output", type=Path, required=True, help="the merged file")
    m.add_argument("inputs", type=Path, nargs="+", metavar="IN", help="coverage files")
    add_force_option(m)
    r = sub.add_parser("report", help="summary, and LCOV, Cobertura XML or HTML")
    r.add_argument("inputs", type=Path, nargs="+", metavar="IN", help="coverage files")
    r.add_argument("--lcov", type=Path, metavar="PATH", help="write an LCOV tracefile")
    r.add_argument("--xml", type=Path, metavar="PATH", help="write Cobertura XML")
    r.add_argument("--html", type=Path, metavar="DIR", help="write the HTML view into DIR")
    r.add_argument(
        "--source",
        type=Path,
        action="append",
        default=[],  # argparse appends to a copy: the parser serves call after call
        metavar="DIR",
        help="a folder to find source files in (repeatable)",
    )
    add_force_option(r)
    return p


def _run(a: argparse.Namespace) -> int:
    if a.what == "merge":
        merged = merge_files(a.output, a.inputs, force=a.force)
        print(f"{a.output}: {len(merged)} firmware(s) from {len(a.inputs)} file(s)")
        return 0
    print(report(a.inputs, lcov=a.lcov, xml=a.xml, html=a.html, sources=a.source, force=a.force))
    return 0


def cov_main(argv: list[str]) -> int:
    """``fairdie cov ...``: bad input is one line on stderr and exit 2."""
    from fairdie._cmdline import Parser, run_command

    p = _parser()
    assert isinstance(p, Parser)
    return run_command(p, argv, _run)
