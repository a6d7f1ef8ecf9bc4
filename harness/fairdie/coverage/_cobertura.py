"""Cobertura XML (coverage-04.dtd), read by GitLab and Jenkins."""

from __future__ import annotations

import os
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

from fairdie import __version__
from fairdie.coverage._report import FileReport, FileSummary, Report, file_summary

__all__ = ["cobertura_text", "is_our_cobertura"]

DOCTYPE = '<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">'
_HEADER = f'<?xml version="1.0" encoding="UTF-8"?>\n{DOCTYPE}\n'
#: how :func:`cobertura_text` begins: its header, then a root that names fairdie
_OURS = re.compile(re.escape(_HEADER.encode()) + rb'<coverage [^>]*\bversion="fairdie ')


def is_our_cobertura(head: bytes) -> bool:
    """Whether ``head`` (a file's first bytes) begins Cobertura XML fairdie wrote."""
    return _OURS.match(head) is not None


def _rate(hit: int, found: int) -> str:
    return f"{hit / found:.4f}".rstrip("0").rstrip(".") if found else "1"


def _filename(fr: FileReport, root: Path) -> str:
    """The file relative to ``root`` (the one ``<source>``) when it is under it."""
    if fr.source is None:
        return fr.name
    try:
        return fr.source.relative_to(root).as_posix()
    except ValueError:
        return fr.source.as_posix()


def _timestamp() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    return str(int(epoch) * 1000 if epoch.isdigit() else int(time.time() * 1000))


def cobertura_text(report: Report, root: Path | None = None) -> str:
    """One package per folder of the debug information's names (a firmware
    target), one class per source file; filenames relative to ``root``
    (default: the working directory), the report's one ``<source>``."""
    base = (root or Path.cwd()).resolve()
    sums = [file_summary(f) for f in report.files]
    lf, lh = sum(s.lines_found for s in sums), sum(s.lines_hit for s in sums)
    bf, bh = sum(s.branches_found for s in sums), sum(s.branches_hit for s in sums)
    top = ET.Element(
        "coverage",
        {
            "line-rate": _rate(lh, lf),
            "branch-rate": _rate(bh, bf),
            "lines-covered": str(lh),
            "lines-valid": str(lf),
            "branches-covered": str(bh),
            "branches-valid": str(bf),
            "complexity": "0",
            "version": f"fairdie {__version__}",
            "timestamp": _timestamp(),
        },
    )
    ET.SubElement(ET.SubElement(top, "sources"), "source").text = str(base)
    packages = ET.SubElement(top, "packages")
    groups: dict[str, list[int]] = {}
    for i, fr in enumerate(report.files):
        groups.setdefault(str(PurePosixPath(fr.name).parent), []).append(i)
    for folder in sorted(groups):
        members = groups[folder]
        ps = [sums[i] for i in members]
        pkg = ET.SubElement(
            packages,
            "package",
            {
                "name": "." if folder == "." else folder.strip("/").replace("/", "."),
                "line-rate": _rate(sum(s.lines_hit for s in ps), sum(s.lines_found for s in ps)),
                "branch-rate": _rate(
                    sum(s.branches_hit for s in ps), sum(s.branches_found for s in ps)
                ),
                "complexity": "0",
            },
        )
        classes = ET.SubElement(pkg, "classes")
        for i in members:
            _class(classes, report.files[i], sums[i], base)
    ET.indent(top)
    body = ET.tostring(top, encoding="unicode")
    return f"{_HEADER}{body}\n"


def _class(parent: ET.Element, fr: FileReport, s: FileSummary, base: Path) -> None:
    cls = ET.SubElement(
        parent,
        "class",
        {
            "name": PurePosixPath(fr.name).name,
            "filename": _filename(fr, base),
            "line-rate": _rate(s.lines_hit, s.lines_found),
            "branch-rate": _rate(s.branches_hit, s.branches_found),
            "complexity": "0",
        },
    )
    methods = ET.SubElement(cls, "methods")
    for f in sorted(fr.functions.values(), key=lambda f: (f.line, f.symbol)):
        hit = "1" if f.hits else "0"
        m = ET.SubElement(
            methods,
            "method",
            {"name": f.symbol, "signature": "", "line-rate": hit, "branch-rate": hit,
             "complexity": "0"},
        )  # fmt: skip
        ET.SubElement(
            ET.SubElement(m, "lines"), "line", {"number": str(f.line), "hits": str(f.hits)}
        )
    lines = ET.SubElement(cls, "lines")
    for n in sorted(fr.lines):
        attrs = {"number": str(n), "hits": str(fr.lines[n]), "branch": "false"}
        branches = fr.branches.get(n, [])
        if branches:
            seen, found = sum(b.hit for b in branches), 2 * len(branches)
            attrs["branch"] = "true"
            attrs["condition-coverage"] = f"{100 * seen // found}% ({seen}/{found})"
        line = ET.SubElement(lines, "line", attrs)
        if branches:
            conds = ET.SubElement(line, "conditions")
            for k, b in enumerate(branches):
                pct = 50 * b.hit
                ET.SubElement(
                    conds, "condition", {"number": str(k), "type": "jump", "coverage": f"{pct}%"}
                )
