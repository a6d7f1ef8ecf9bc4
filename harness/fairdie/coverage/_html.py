"""A self-contained HTML view: one folder, an index and a page per source
file with each line's count and its untaken branch outcomes marked; no
script, style sheet or image from elsewhere."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fairdie.coverage._report import Branch, FileReport, Report, file_summary

__all__ = ["html_pages"]

_STYLE = """
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; }
td, th { padding: 0 .6em; text-align: right; }
td.name, th.name { text-align: left; }
pre { margin: 0; }
.src td { text-align: left; font: 13px/1.35 monospace; white-space: pre; vertical-align: top; }
.src td.n, .src td.c { text-align: right; color: #666; }
tr.hit td.c { background: #d7f5d7; } tr.miss td.c, tr.miss td.t { background: #fbd3d3; }
tr.part td.b { background: #fbe6b0; } td.b { color: #a15c00; }
.low { color: #b00; } .full { color: #070; }
"""


def _pct(hit: int, found: int) -> str:
    if not found:
        return "-"
    cls = "full" if hit == found else "low" if hit * 2 < found else ""
    return f'<span class="{cls}">{100 * hit / found:.1f}%</span> ({hit}/{found})'


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )


def _untaken(b: Branch) -> list[str]:
    if not b.ran:
        return [f"{b.address:#06x}: never ran"]
    out = []
    if not b.taken:
        out.append(f"{b.address:#06x}: never taken")
    if not b.not_taken:
        out.append(f"{b.address:#06x}: never fell through")
    return out


def _source_page(fr: FileReport) -> str:
    s = file_summary(fr)
    text: list[str] = []
    if fr.source is not None:
        try:
            text = fr.source.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            text = []
    head = (
        f'<h1>{html.escape(fr.name)}</h1><p><a href="index.html">index</a> &middot; '
        f"lines {_pct(s.lines_hit, s.lines_found)} &middot; branches "
        f"{_pct(s.branches_hit, s.branches_found)} &middot; functions "
        f"{_pct(s.functions_hit, s.functions_found)}</p>"
    )
    if not text:
        head += "<p>The source file was not found: lines are listed by number.</p>"
    starts = {f.line: f for f in fr.functions.values()}
    rows = []
    last = max([len(text), *fr.lines, *fr.branches, 0])
    for n in range(1, last + 1):
        count = fr.lines.get(n)
        bs = fr.branches.get(n, [])
        missing = [m for b in bs for m in _untaken(b)]
        cls = "" if count is None else "hit" if count else "miss"
        if missing:
            cls += " part"
        hit = sum(b.hit for b in bs)
        mark = (
            f'<span title="{html.escape("; ".join(missing))}">{hit}/{2 * len(bs)}</span>'
            if bs
            else ""
        )
        fn = starts.get(n)
        note = f' title="{html.escape(fn.symbol)}: entered {fn.hits} times"' if fn else ""
        line = html.escape(text[n - 1]) if n <= len(text) else ""
        rows.append(
            f'<tr class="{cls.strip()}" id="L{n}"{note}><td class="n">{n}</td>'
            f'<td class="c">{"" if count is None else count}</td><td class="b">{mark}</td>'
            f'<td class="t">{line}</td></tr>'
        )
    untaken = [
        f'<li><a href="#L{n}">line {n}</a>: {html.escape(m)}</li>'
        for n in sorted(fr.branches)
        for b in fr.branches[n]
        for m in _untaken(b)
    ]
    listing = f"<h2>Untaken branch outcomes</h2><ul>{''.join(untaken)}</ul>" if untaken else ""
    table = (
        '<table class="src"><tr><th>line</th><th>count</th><th>branches</th>'
        f'<th class="name">source</th></tr>{"".join(rows)}</table>'
    )
    return _page(fr.name, head + listing + table)


def _slug(i: int, name: str) -> str:
    return f"f{i:03d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', Path(name).name)}.html"


def html_pages(report: Report) -> dict[str, str]:
    """File name -> page: ``index.html`` and one page per source file."""
    pages: dict[str, str] = {}
    rows = []
    for i, fr in enumerate(report.files):
        s = file_summary(fr)
        slug = _slug(i, fr.name)
        pages[slug] = _source_page(fr)
        rows.append(
            f'<tr><td class="name"><a href="{slug}">{html.escape(fr.name)}</a></td>'
            f"<td>{_pct(s.lines_hit, s.lines_found)}</td>"
            f"<td>{_pct(s.branches_hit, s.branches_found)}</td>"
            f"<td>{_pct(s.functions_hit, s.functions_found)}</td></tr>"
        )
    body = [
        "<h1>Firmware coverage</h1>",
        '<table><tr><th class="name">file</th><th>lines</th><th>branches</th>'
        f"<th>functions</th></tr>{''.join(rows)}</table>",
    ]
    if report.unmapped:
        body.append(
            "<h2>Code without line information</h2>"
            '<table><tr><th class="name">firmware</th><th class="name">symbol</th>'
            "<th>addresses</th><th>instructions run</th><th>branch outcomes</th>"
            "<th>entered</th></tr>"
        )
        for r in report.unmapped:
            body.append(
                f'<tr><td class="name">{html.escape(r.firmware)}</td>'
                f'<td class="name">{html.escape(r.name)}</td>'
                f"<td>{r.start:#06x}-{r.end - 1:#06x}</td><td>{_pct(r.executed, r.instructions)}"
                f"</td><td>{_pct(r.branches_hit, r.branches)}</td><td>{r.entered}</td></tr>"
            )
        body.append("</table>")
    for mcu, sha, n in report.no_elf:
        body.append(
            f"<p>A firmware run without its ELF ({html.escape(mcu)}, flash SHA-256 "
            f"{sha[:12]}): {n} instructions ran, not mapped to source.</p>"
        )
    pages["index.html"] = _page("Firmware coverage", "\n".join(body))
    return pages
