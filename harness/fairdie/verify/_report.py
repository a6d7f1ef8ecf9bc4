"""``--report DIR``: a self-contained HTML page of a verify run.

``DIR/index.html`` embeds every plot as a base64 PNG (the PNG files are
written beside it too): what the subject's checks add (the die: its fairness
campaign's plots and table), a timing diagram of one recorded run from the
chip's trace, and the energy breakdown. Needs matplotlib (the ``plot`` extra).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie._files import claim_folder
from fairdie.errors import FairdieError
from fairdie.verify._check import FAIL, PASS
from fairdie.verify._figures import FIGURES
from fairdie.verify._run import all_checks
from fairdie.verify._timeline import Timeline

if TYPE_CHECKING:
    from fairdie.verify._energy import Energy
    from fairdie.verify._run import Verdict

__all__ = ["check_report_folder", "pyplot", "save_figure", "write_report"]

_COLOURS = {PASS: "#1a7f37", FAIL: "#cf222e"}
_INDEX = "index.html"


def check_report_folder(folder: Path, *, force: bool = False) -> None:
    """Fail early (bad input) when the report cannot be written, or would be
    written into a folder holding what fairdie did not write (unless ``force``)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise FairdieError("--report needs matplotlib: pip install 'fairdie[plot]'") from None
    claim_folder(folder, "--report", force=force)


def write_report(verdict: Verdict, folder: Path) -> Path:
    """Write the report; the path of its index.html."""
    check_report_folder(folder)
    pngs: list[tuple[str, str]] = []  # (title, file name)
    for part in verdict.report:
        pngs += part.images(folder)
    if verdict.timeline is not None:
        title = (
            "One press from the chip's trace: the LED pins (high, low, or mid-way while an"
            " input), EEPROM busy, ADC converting, CPU asleep (the mode its SM bits chose)"
        )
        pngs.append((title, _timing_png(verdict, folder)))
    if verdict.energy is not None:
        per = "press" if verdict.energy.run_s is None else "recorded run"
        pngs.append((f"Charge per {per}, by state", _energy_png(verdict.energy, folder)))
    page = _page(verdict, [(t, folder / n) for t, n in pngs])
    out = folder / _INDEX
    out.write_text(page, encoding="utf-8")
    return out


# ---- plots --------------------------------------------------------------------------


def pyplot() -> Any:
    """matplotlib's pyplot, drawing off screen."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path) -> str:
    """Write ``fig`` as a PNG at ``path``; its file name."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    pyplot().close(fig)
    return path.name


def _timing_png(verdict: Verdict, folder: Path) -> str:
    """Rows: each LED pin's level, EEPROM busy, ADC converting, CPU asleep."""
    tl = verdict.timeline
    assert tl is not None
    plt = pyplot()
    events = [tl.first_lit or tl.start, tl.eeprom_done or tl.start]
    events += [b for _, b in tl.adc]
    busy_end = max(events)
    span = min(tl.end, busy_end + max(round(0.25 * (busy_end - tl.start)), tl.frequency // 200))
    x_end = tl.ms(span)
    rows = len(tl.pin_names) + 3
    fig, axes = plt.subplots(rows, 1, figsize=(9, 0.55 * rows + 1.4), sharex=True)
    for ax, pin in zip(axes, tl.pin_names, strict=False):
        xs, ys = _pin_levels(tl, pin, span)
        ax.step(xs, ys, where="post", color="#0969da")
        _row(ax, pin)
    bars = [
        ("EEPROM busy", [(a, b) for a, b, _ in tl.eeprom], "#bf8700"),
        ("ADC converting", list(tl.adc), "#8250df"),
        ("CPU asleep", [(s.start, s.end) for s in tl.sleeps], "#57606a"),
    ]
    for ax, (name, spans, colour) in zip(axes[len(tl.pin_names) :], bars, strict=True):
        cut = [(tl.ms(a), tl.ms(min(b, span)) - tl.ms(a)) for a, b in spans if a < span]
        ax.broken_barh(cut, (0.15, 0.7), color=colour)
        _row(ax, name)
    modes = sorted({s.mode for s in tl.sleeps if s.start < span})
    if modes:
        axes[-1].text(x_end, 0.5, " " + ", ".join(modes), va="center", fontsize=8)
    if tl.first_lit is not None and tl.first_lit < span:
        for ax in axes:
            ax.axvline(tl.ms(tl.first_lit), color="#cf222e", lw=0.8, ls="--")
    axes[-1].set_xlabel("ms after power-on" if tl.release == tl.end else "ms after the press")
    axes[-1].set_xlim(0, x_end)
    held = tl.ms(tl.end)
    fig.suptitle(
        f"{verdict.candidate.label}: one press (shown {tl.shown}); the first {x_end:.0f} ms of"
        f" {held:.0f} ms, red: the first LED lit",
        fontsize=10,
    )
    return save_figure(fig, folder / "timing.png")


def _row(ax: Any, name: str) -> None:
    ax.set_ylim(-0.1, 1.1)
    ax.set_yticks([])
    ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)


def _pin_levels(tl: Timeline, pin: str, span: int) -> tuple[list[float], list[float]]:
    """1 driven high, 0 driven low, 0.5 not driven (an input)."""
    port, bit = pin[1], int(pin[2])

    def level(state: int) -> float:
        driven = (state >> (8 + bit)) & 1 or (state >> (16 + bit)) & 1
        return float((state >> bit) & 1) if driven else 0.5

    changes = [c for c in tl.pins if c.port == port]
    first = level(changes[0].before) if changes else 0.5
    xs, ys = [0.0], [first]
    for c in changes:
        if c.cycle >= span:
            break
        xs.append(tl.ms(c.cycle))
        ys.append(level(c.state))
    xs.append(tl.ms(span))
    ys.append(ys[-1])
    return xs, ys


def _energy_png(energy: Energy, folder: Path) -> str:
    plt = pyplot()
    parts = list(reversed(energy.parts))
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(parts) + 1.5))
    values = [max(p.uc, 1e-3) for p in parts]
    ax.barh([p.name for p in parts], values, color="#0969da")
    ax.set_xscale("log")
    for i, p in enumerate(parts):
        ax.text(values[i], i, f" {p.uc:.4g} uC", va="center", fontsize=8)
    what = (
        f"press held {energy.hold_s:g} s"
        if energy.run_s is None
        else f"run of {energy.run_s:.3g} s"
    )
    ax.set(
        xlabel=f"charge per {what.split()[0]} (uC, log scale)",
        title=f"Energy estimate: {energy.per_press_uc / 1000:.3g} mC per {what}",
    )
    return save_figure(fig, folder / "energy.png")


# ---- the page -----------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text))


def _img(title: str, path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f"<figure><img alt='{_e(title)}' src='data:image/png;base64,{data}'>"
        f"<figcaption>{_e(title)} ({_e(path.name)})</figcaption></figure>"
    )


def _page(verdict: Verdict, images: list[tuple[str, Path]]) -> str:
    s = verdict.candidate
    what = {c.name: c.what for c, _ in all_checks()}
    rows = "".join(
        f"<tr><td title='{_e(what.get(c.name, ''))}'>{_e(c.name)}</td>"
        f"<td style='color:{_COLOURS.get(c.status, '#57606a')};font-weight:bold'>"
        f"{_e(c.status)}</td><td>{_e(c.reason)}</td><td>{c.seconds:.2f}</td></tr>"
        for c in verdict.checks
    )
    verdict_line = (
        "PASS: every check passed"
        if verdict.passed and not verdict.count("skipped")
        else "PASS (no check failed)"
        if verdict.passed
        else f"FAIL: {', '.join(c.name for c in verdict.failed)}"
    )
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>fairdie verify: {_e(s.label)}</title>",
        "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#24292f}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d7de;"
        "padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}"
        "img{max-width:100%}figure{margin:1.5em 0}figcaption{color:#57606a}</style>",
        "</head><body>",
        f"<h1>fairdie verify: {_e(s.label)}</h1>",
        f"<p>{_e(s.path)} on board {_e(s.board.name)} ({_e(s.board.source)}): the"
        f" {_e(s.board.mcu)} at {s.f_cpu} Hz, {s.board.vcc_mv} mV."
        f" Build: {_e(s.identified or s.identify_note or 'not identified')}"
        + "".join(f"; {_e(k)}: {_e('none' if v is None else v)}" for k, v in verdict.facts.items())
        + ".</p>",
        f"<h2>{_e(verdict_line)}</h2>",
        f"<p>{verdict.count('pass')} passed, {verdict.count('fail')} failed,"
        f" {verdict.count('skipped')} skipped in {verdict.seconds:.1f} s.</p>",
        "<table><tr><th>check</th><th>result</th><th>reason</th><th>s</th></tr>",
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
    )
