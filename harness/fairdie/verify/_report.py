"""``--report DIR``: an HTML page of a verify run, and the evidence it links.

``DIR/index.html`` opens with a coloured PASS/FAIL banner, then the burn
sheet (:mod:`fairdie.verify._burn`: the bytes checked, by SHA-256, the MCU,
clock and fuses, the fairdie version and date, and the avrdude command).
Each check's row links its evidence, written into ``DIR``: the VCDs of the
presses or runs it judged, drawings of the LEDs expected against those lit,
and the command that replays it. Every plot is embedded as a base64 PNG
(and written beside the page): what the subject's checks add (the die: its
fairness campaign's plots), a timing diagram of one recorded press, the
energy breakdown and the battery figure's sensitivity to the LEDs' current
and the hold (:mod:`fairdie.verify._plots`). Needs matplotlib (the ``plot``
extra).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie._files import claim_folder
from fairdie.errors import FairdieError
from fairdie.verify._check import FAIL, PASS, SKIP
from fairdie.verify._figures import CR2032_MAH, FIGURES
from fairdie.verify._plots import battery_png, energy_png, need_matplotlib, timing_png
from fairdie.verify._run import all_checks

if TYPE_CHECKING:
    from fairdie.verify._burn import BurnSheet
    from fairdie.verify._energy import Energy
    from fairdie.verify._evidence import Evidence
    from fairdie.verify._run import Verdict

__all__ = ["check_report_folder", "write_report"]

_COLOURS = {PASS: "#1a7f37", FAIL: "#cf222e", SKIP: "#6e7781"}
_LABELS = {PASS: "PASS", FAIL: "FAIL", SKIP: "SKIP"}
_INDEX = "index.html"
_STYLE = (
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#24292f}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d7de;"
    "padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}"
    "img{max-width:100%}figure{margin:1.5em 0}figcaption{color:#57606a}"
    "#verdict{color:white;font-size:2.2em;font-weight:bold;padding:0.5em 0.8em;"
    "border-radius:6px;margin-bottom:0.5em}#verdict small{font-size:0.45em;font-weight:normal;"
    "display:block}.status{color:white;font-weight:bold;padding:1px 6px;border-radius:3px}"
    "code,pre{background:#f6f8fa;font-size:13px}pre{padding:8px;white-space:pre-wrap;"
    "word-break:break-all}ul.ev{margin:0;padding-left:1.2em}"
)


def check_report_folder(folder: Path, *, force: bool = False) -> None:
    """Fail early (bad input) when the report cannot be written, or would be
    written into a folder holding what fairdie did not write (unless ``force``)."""
    need_matplotlib("--report")
    claim_folder(folder, "--report", force=force)


def write_report(verdict: Verdict, folder: Path) -> Path:
    """Write the report; the path of its index.html."""
    check_report_folder(folder)
    try:
        for name, data in verdict.files.items():
            path = folder / name
            if path.is_symlink():
                path.unlink()
            path.write_bytes(data)
    except OSError as e:
        raise FairdieError(f"--report {folder}: {e.strerror or e}") from None
    pngs: list[tuple[str, str]] = []  # (title, file name)
    for part in verdict.report:
        pngs += part.images(folder)
    if verdict.timeline is not None:
        title = (
            "One press from the chip's trace: the LED pins (high, low, or mid-way while an"
            " input), EEPROM busy, ADC converting, CPU asleep (the mode its SM bits chose)"
        )
        pngs.append((title, timing_png(verdict, folder)))
    energy = verdict.energy
    if energy is not None:
        per = "press" if energy.run_s is None else "recorded run"
        pngs.append((f"Charge per {per}, by state", energy_png(energy, folder)))
        if energy.run_s is None:
            pngs.append((_battery_title(energy), battery_png(energy, folder)))
    page = _page(verdict, [(t, folder / n) for t, n in pngs])
    out = folder / _INDEX
    out.write_text(page, encoding="utf-8")
    return out


# ---- the page -----------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text))


def _img(title: str, path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f"<figure><img alt='{_e(title)}' src='data:image/png;base64,{data}'>"
        f"<figcaption>{_e(title)} ({_e(path.name)})</figcaption></figure>"
    )


def _banner(verdict: Verdict) -> str:
    skipped = verdict.count(SKIP)
    if not verdict.passed:
        status, line = FAIL, f"FAIL: {', '.join(c.name for c in verdict.failed)}"
    else:
        status = PASS
        line = "PASS: every check passed" if not skipped else "PASS: no check failed"
    counts = (
        f"{verdict.count(PASS)} passed, {verdict.count(FAIL)} failed, {skipped} skipped"
        f" (SKIP: does not apply, with the reason) in {verdict.seconds:.1f} s"
    )
    return (
        f"<div id='verdict' class='{status}' style='background:{_COLOURS[status]}'>"
        f"{_e(line)}<small>{_e(counts)}</small></div>"
    )


def _burn_html(b: BurnSheet) -> str:
    f = b.fuses
    rows = [
        ("HEX", f"{b.hex_name} ({b.flash_bytes} B)"),
        ("HEX SHA-256", b.hex_sha256),
        (
            "EEP",
            "none (no EEPROM data)" if b.eep_name is None else f"{b.eep_name} ({b.eeprom_bytes} B)",
        ),
    ]
    if b.eep_sha256 is not None:
        rows.append(("EEP SHA-256", b.eep_sha256))
    rows += [
        ("MCU", b.mcu),
        ("clock", f"{b.f_cpu} Hz"),
        ("fuses", "unknown" if f is None else f"{f.burn} (brown-out detector {f.bod})"),
        ("fuses from", b.fuse_source),
        ("fairdie", b.version),
        ("date (UTC)", b.date),
        ("programmer", b.programmer),
    ]
    cells = "".join(f"<tr><th>{_e(k)}</th><td><code>{_e(v)}</code></td></tr>" for k, v in rows)
    return (
        "<h2>Burn sheet: the bytes checked</h2>"
        f"<table id='burn-sheet'>{cells}</table>"
        f"<p>Burn exactly these bytes and fuses:</p><pre id='avrdude'>{_e(b.avrdude)}</pre>"
    )


def _links(items: list[Evidence]) -> str:
    out = []
    for ev in items:
        if ev.file is not None:
            out.append(f"<li><a href='{_e(ev.file)}'>{_e(ev.title)}</a></li>")
        if ev.command is not None:
            out.append(f"<li>{_e(ev.title)}: <code>{_e(ev.command)}</code></li>")
    return f"<ul class='ev'>{''.join(out)}</ul>" if out else ""


def _page(verdict: Verdict, images: list[tuple[str, Path]]) -> str:
    s = verdict.candidate
    what = {c.name: c.what for c, _ in all_checks()}
    rows = "".join(
        f"<tr id='check-{_e(c.name)}'><td title='{_e(what.get(c.name, ''))}'>{_e(c.name)}</td>"
        f"<td><span class='status' style='background:{_COLOURS.get(c.status, '#6e7781')}'>"
        f"{_e(_LABELS.get(c.status, c.status))}</span></td><td>{_e(c.reason)}</td>"
        f"<td>{_links(verdict.evidence.get(c.name, []))}</td><td>{c.seconds:.2f}</td></tr>"
        for c in verdict.checks
    )
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>fairdie verify: {_e(s.label)}</title>",
        f"<style>{_STYLE}</style>",
        "</head><body>",
        _banner(verdict),
        f"<h1>fairdie verify: {_e(s.label)}</h1>",
        f"<p>{_e(s.path)} on board {_e(s.board.name)} ({_e(s.board.source)}): the"
        f" {_e(s.board.mcu)} at {s.f_cpu} Hz, {s.board.vcc_mv} mV."
        f" Build: {_e(s.identified or s.identify_note or 'not identified')}"
        + "".join(f"; {_e(k)}: {_e('none' if v is None else v)}" for k, v in verdict.facts.items())
        + ".</p>",
    ]
    if verdict.burn is not None:
        parts.append(_burn_html(verdict.burn))
    parts += [
        "<h2>Checks</h2>",
        "<table id='checks'><tr><th>check</th><th>result</th><th>reason</th><th>evidence</th>"
        "<th>s</th></tr>",
        rows,
        "</table>",
    ]
    if verdict.energy is not None:
        parts.append(_energy_html(verdict.energy))
    parts += [part.html() for part in verdict.report]
    if verdict.notes:
        parts.append("<ul>" + "".join(f"<li>note: {_e(n)}</li>" for n in verdict.notes) + "</ul>")
    for title, path in images:
        parts.append(_img(title, path))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _battery_title(e: Energy) -> str:
    return (
        f"Presses from a CR2032 against the LEDs' current and the hold; the figure rests on"
        f" {e.led_ma:g} mA per lit LED (the board's led_ma), a press held {e.hold_s:g} s and"
        f" the cell's nominal {CR2032_MAH:g} mAh. Holds other than {e.hold_s:g} s are"
        " extrapolated at the rate of the second half of each recorded press"
    )


def _energy_html(e: Energy) -> str:
    rows = "".join(
        f"<tr><td>{_e(p.name)}</td><td>{p.seconds * 1000:.3f}</td><td>{p.ma:.4g}</td>"
        f"<td>{p.uc:.4g}</td></tr>"
        for p in e.parts
    )
    figs = "".join(
        f"<li>{_e(f.name)}: {f.value:g} {_e(f.unit)} ({_e(f.source)})</li>"
        for f in (FIGURES[k] for k in e.figures)
    )
    notes = "".join(f"<li>{_e(n)}</li>" for n in e.notes)
    return (
        f"<h2>Energy (an estimate)</h2><p>{_e(e.summary())}. Averaged over"
        f" {e.presses_recorded or len(e.runs)} recorded"
        f" {'presses' if e.run_s is None else 'runs'}; LEDs at {e.led_ma:g} mA each (the board's"
        " <code>led_ma</code>).</p><table><tr><th>state</th><th>ms</th><th>mA</th>"
        f"<th>uC</th></tr>{rows}</table><p>The currents it rests on:</p><ul>{figs}</ul>"
        + (f"<ul>{notes}</ul>" if notes else "")
        + (
            f"<p id='rests-on'>The battery figure rests on: LEDs at {e.led_ma:g} mA each, a"
            f" press held {e.hold_s:g} s, a CR2032 of {CR2032_MAH:g} mAh (nominal). The plot"
            " below shows how it moves with the first two.</p>"
            if e.run_s is None
            else ""
        )
    )
