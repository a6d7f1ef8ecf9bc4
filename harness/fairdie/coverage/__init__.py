"""Firmware coverage from the emulator, with no instrumented build.

The engine records which flash words ran and, for each conditional branch and
skip, whether it was taken; :class:`Coverage` holds that per firmware and
:class:`CoverageSet` for several. The ELF's DWARF line table maps addresses to
source lines, functions and branches (:func:`analyse`); the writers turn that
into an LCOV tracefile, Cobertura XML and a self-contained HTML folder.

Each writer takes a :class:`CoverageSet` (or a :class:`Report` already
analysed) and, optionally, ``sources``: folders to find source files in
besides the working directory and the firmware targets. A writer replaces
only what fairdie wrote (:func:`check_output`) unless given ``force``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fairdie._files import check_output_file, claim_folder
from fairdie.coverage._cobertura import cobertura_text, is_our_cobertura
from fairdie.coverage._data import (
    FORMAT_VERSION,
    MAX_COVERAGE_FILE,
    Coverage,
    CoverageError,
    CoverageSet,
    is_our_json,
    write_text,
)
from fairdie.coverage._html import html_pages
from fairdie.coverage._lcov import is_our_lcov, lcov_text
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
    "MAX_COVERAGE_FILE",
    "OUTPUT_KINDS",
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
    "check_output",
    "format_summary",
    "summarise",
    "write_cobertura",
    "write_html",
    "write_lcov",
    "write_output",
]


#: each kind of coverage output: a file recognised by its first bytes, or a folder
_OURS = {"lcov": is_our_lcov, "xml": is_our_cobertura, "json": is_our_json, "html": None}
OUTPUT_KINDS = tuple(_OURS)


def check_output(
    kind: str, path: Path, what: str, *, force: bool = False, force_option: str = "--force"
) -> Path:
    """``path`` if a ``kind`` output (one of :data:`OUTPUT_KINDS`) may be
    written there: a file only over nothing or one fairdie wrote in that
    format; the ``html`` folder is claimed (:func:`fairdie._files.claim_folder`:
    made and marked). Else one line, unless ``force``. ``what`` is the option,
    ``force_option`` the one that forces."""
    ours = _OURS[kind]
    if ours is None:
        return claim_folder(Path(path), what, force=force, force_option=force_option)
    return check_output_file(Path(path), what, ours=ours, force=force, force_option=force_option)


def _report(covset: CoverageSet | Report, sources: Sequence[Path]) -> Report:
    return covset if isinstance(covset, Report) else analyse(covset, sources)


def write_lcov(
    covset: CoverageSet | Report,
    path: Path,
    sources: Sequence[Path] = (),
    *,
    what: str = "LCOV file",
    force: bool = False,
) -> None:
    """An LCOV tracefile at ``path``."""
    write_text(path, lcov_text(_report(covset, sources)), what, ours=is_our_lcov, force=force)


def write_cobertura(
    covset: CoverageSet | Report,
    path: Path,
    sources: Sequence[Path] = (),
    *,
    what: str = "Cobertura XML",
    force: bool = False,
) -> None:
    """Cobertura XML at ``path``, file names relative to the working directory."""
    text = cobertura_text(_report(covset, sources))
    write_text(path, text, what, ours=is_our_cobertura, force=force)


def write_html(
    covset: CoverageSet | Report,
    dir: Path,
    sources: Sequence[Path] = (),
    *,
    what: str = "HTML folder",
    force: bool = False,
) -> None:
    """The HTML view in folder ``dir`` (made if missing): open ``index.html``."""
    pages = html_pages(_report(covset, sources))
    folder = check_output("html", Path(dir), what, force=force)
    for name, text in pages.items():
        write_text(folder / name, text, what, ours=None)


def write_output(
    kind: str, covset: CoverageSet, report: Report, path: Path, *, what: str, force: bool = False
) -> None:
    """Write one output of ``kind`` (one of :data:`OUTPUT_KINDS`): the counts
    themselves (``json``), or the ``report`` of them as LCOV, XML or HTML."""
    if kind == "json":
        covset.save(path, what=what, force=force)
        return
    writer = {"lcov": write_lcov, "xml": write_cobertura, "html": write_html}[kind]
    writer(report, path, what=what, force=force)
