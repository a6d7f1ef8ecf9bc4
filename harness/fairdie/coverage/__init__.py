"""Firmware coverage from the emulator, with no instrumented build.

The engine records which flash words ran and, for each conditional branch and
skip, whether it was taken; :class:`Coverage` holds that per firmware and
:class:`CoverageSet` for several. The ELF's DWARF line table maps addresses to
source lines, functions and branches (:func:`analyse`); the writers turn that
into an LCOV tracefile, Cobertura XML and a self-contained HTML folder.

Each writer takes a :class:`CoverageSet` (or a :class:`Report` already
analysed) and, optionally, ``sources``: folders to find source files in
besides the working directory and the firmware targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fairdie.coverage._cobertura import cobertura_text
from fairdie.coverage._data import FORMAT_VERSION, Coverage, CoverageError, CoverageSet, write_text
from fairdie.coverage._html import html_pages
from fairdie.coverage._lcov import lcov_text
from fairdie.coverage._report import (
    Branch,
    FileReport,
    FileSummary,
    FunctionReport,
    RegionReport,
    Report,
    analyse,
    format_summary,
    summarise,
)

__all__ = [
    "FORMAT_VERSION",
    "Branch",
    "Coverage",
    "CoverageError",
    "CoverageSet",
    "FileReport",
    "FileSummary",
    "FunctionReport",
    "RegionReport",
    "Report",
    "analyse",
    "format_summary",
    "summarise",
    "write_cobertura",
    "write_html",
    "write_lcov",
]


def _report(covset: CoverageSet | Report, sources: Sequence[Path]) -> Report:
    return covset if isinstance(covset, Report) else analyse(covset, sources)


def write_lcov(covset: CoverageSet | Report, path: Path, sources: Sequence[Path] = ()) -> None:
    """An LCOV tracefile at ``path``."""
    write_text(path, lcov_text(_report(covset, sources)))


def write_cobertura(covset: CoverageSet | Report, path: Path, sources: Sequence[Path] = ()) -> None:
    """Cobertura XML at ``path``, file names relative to the working directory."""
    write_text(path, cobertura_text(_report(covset, sources)))


def write_html(covset: CoverageSet | Report, dir: Path, sources: Sequence[Path] = ()) -> None:
    """The HTML view in folder ``dir`` (made if missing): open ``index.html``."""
    pages = html_pages(_report(covset, sources))
    folder = Path(dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CoverageError(f"cannot make the folder {folder}: {e.strerror or e}") from None
    for name, text in pages.items():
        write_text(folder / name, text)
