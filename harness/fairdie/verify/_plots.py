"""The report's plots, as PNG files: the timing diagram of one recorded
press, the energy breakdown, and the battery figure's sensitivity to what it
rests on (the LEDs' current and the hold). Needs matplotlib (the ``plot``
extra); every plot draws off screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie.errors import FairdieError
from fairdie.verify._figures import CR2032_MAH
from fairdie.verify._timeline import Timeline

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from fairdie.verify._energy import Energy
    from fairdie.verify._run import Verdict

__all__ = [
    "battery_png",
    "energy_png",
    "need_matplotlib",
    "new_figure",
    "plain_numbers",
    "save_figure",
    "timing_png",
]


def need_matplotlib(option: str) -> None:
    """Fail (bad input) when ``option``'s plots cannot be drawn, without
    importing matplotlib (half a second) before anything draws."""
    from importlib.util import find_spec

    if find_spec("matplotlib") is None:
        raise FairdieError(f"{option} needs matplotlib: pip install 'fairdie[plot]'")


#: the PNGs' resolution (the figures' sizes are in inches)
_DPI = 100


def new_figure(figsize: tuple[float, float]) -> Figure:
    """An empty figure on white, drawn off screen by :func:`save_figure`:
    no pyplot, so nothing to close, and no matplotlibrc's dpi or savefig
    settings change the PNG."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # installed (need_matplotlib found it) but broken
        raise FairdieError(f"matplotlib does not import: {e}") from None
    return Figure(figsize=figsize, dpi=_DPI, facecolor="white")


def save_figure(fig: Figure, path: Path) -> str:
    """Write ``fig`` as a PNG at ``path``, laid out as ``fig.tight_layout()``
    lays it out; its file name."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.layout_engine import TightLayoutEngine
    from PIL import Image

    canvas: Any = FigureCanvasAgg(fig)  # its draw and buffer are untyped
    # rect None: the whole figure, in one pass. The engine's default rect,
    # (0, 0, 1, 1), measures every Axes a second time to refit the margins the
    # first pass found, and finds the same ones (fig.tight_layout() does that)
    TightLayoutEngine(rect=None).execute(fig)  # type: ignore[arg-type]
    canvas.draw()  # what savefig draws, but it would write RGBA at zlib's level 6:
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    # on white every pixel is opaque and RGB holds them all; at level 3 the
    # default build's six PNGs take 200 KiB, not 210, written in half the time
    image.convert("RGB").save(path, format="png", compress_level=3, dpi=(_DPI, _DPI))
    return path.name


def plain_numbers(axis: Any) -> None:
    """Label a log or symlog axis in plain numbers, 20,000 where matplotlib
    writes 2x10^4, at the ticks it would label: its labels are mathtext,
    whose parser is built once a process (0.2 s) and parses each label of
    each figure again. Call it once the axis has its scale."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
            return f"{x:,.0f}" if x >= 1 else f"{x:g}"

    base = axis.get_transform().base
    axis.set_major_formatter(Plain(base))
    axis.set_minor_formatter(Plain(base))


def timing_png(verdict: Verdict, folder: Path) -> str:
    """Rows: each LED pin's level, EEPROM busy, ADC converting, CPU asleep."""
    tl = verdict.timeline
    assert tl is not None
    events = [tl.first_lit or tl.start, tl.eeprom_done or tl.start]
    events += [b for _, b in tl.adc]
    busy_end = max(events)
    span = min(tl.end, busy_end + max(round(0.25 * (busy_end - tl.start)), tl.frequency // 200))
    x_end = tl.ms(span)
    names = [*tl.pin_names, "EEPROM busy", "ADC converting", "CPU asleep"]
    fig = new_figure((9, 0.55 * len(names) + 1.4))
    # one Axes, the rows stacked in it (the first on top): an Axes a row, each
    # with its own x axis, made 7 Axes and 77 ticks to lay out and draw, not 18
    ax = fig.subplots()
    base = [_PITCH * (len(names) - 1 - i) for i in range(len(names))]
    for pin, y in zip(tl.pin_names, base, strict=False):
        xs, ys = _pin_levels(tl, pin, span)
        ax.step(xs, [y + v for v in ys], where="post", color="#0969da")
    bars = [
        ([(a, b) for a, b, _ in tl.eeprom], "#bf8700"),
        (list(tl.adc), "#8250df"),
        ([(s.start, s.end) for s in tl.sleeps], "#57606a"),
    ]
    for (spans, colour), y in zip(bars, base[len(tl.pin_names) :], strict=True):
        cut = [(tl.ms(a), tl.ms(min(b, span)) - tl.ms(a)) for a, b in spans if a < span]
        ax.broken_barh(cut, (y + 0.15, 0.7), color=colour)
    modes = sorted({s.mode for s in tl.sleeps if s.start < span})
    if modes:
        ax.text(x_end, 0.5, " " + ", ".join(modes), va="center", fontsize=8)
    if tl.first_lit is not None and tl.first_lit < span:
        ax.axvline(tl.ms(tl.first_lit), color="#cf222e", lw=0.8, ls="--")
    # each row on a line of its own, the time grid across them all
    ax.hlines([y - 0.1 for y in base[:-1]], 0, x_end, color="black", lw=0.8)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_axisbelow(True)  # the grid under the bars
    ax.set_yticks([y + 0.5 for y in base], names, fontsize=8)
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_ylim(-0.1, base[0] + 1.1)
    ax.set_xlabel("ms after power-on" if tl.release == tl.end else "ms after the press")
    ax.set_xlim(0, x_end)
    held = tl.ms(tl.end)
    fig.suptitle(
        f"{verdict.candidate.label}: one press (shown {tl.shown}); the first {x_end:.0f} ms of"
        f" {held:.0f} ms, red: the first LED lit",
        fontsize=10,
    )
    return save_figure(fig, folder / "timing.png")


#: the rows' pitch in the timing diagram: a row spans 1.2 (-0.1 .. 1.1), then a gap
_PITCH = 1.9


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


def energy_png(energy: Energy, folder: Path) -> str:
    parts = list(reversed(energy.parts))
    fig = new_figure((8, 0.45 * len(parts) + 1.5))
    ax = fig.subplots()
    values = [max(p.uc, 1e-3) for p in parts]
    ax.barh([p.name for p in parts], values, color="#0969da")
    ax.set_xscale("log")
    plain_numbers(ax.xaxis)
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


#: the LED currents and holds the battery plot spans
_LED_MA = tuple(0.5 + 0.25 * i for i in range(39))  # 0.5 .. 10 mA
_HOLDS = tuple(0.2 + 0.1 * i for i in range(49))  # 0.2 .. 5 s


def battery_png(energy: Energy, folder: Path) -> str:
    """Presses from a CR2032 against the LEDs' current (at the recorded hold)
    and against the hold (at the board's LED current), the estimate marked."""
    fig = new_figure((9, 3.6))
    left, right = fig.subplots(1, 2, sharey=True)
    ma = sorted({*_LED_MA, energy.led_ma})
    left.plot(ma, [energy.presses_at(energy.hold_s, m) for m in ma], color="#0969da")
    left.set(xlabel="LED current (mA each)", ylabel=f"presses from a CR2032 ({CR2032_MAH:g} mAh)")
    left.set_title(f"held {energy.hold_s:g} s", fontsize=10)
    holds = sorted({*_HOLDS, energy.hold_s})
    right.plot(holds, [energy.presses_at(h, energy.led_ma) for h in holds], color="#0969da")
    right.set(xlabel="hold (s)")
    right.set_title(f"LEDs at {energy.led_ma:g} mA each", fontsize=10)
    for ax, x in ((left, energy.led_ma), (right, energy.hold_s)):
        ax.plot([x], [energy.presses], "o", color="#cf222e")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    plain_numbers(left.yaxis)  # the right's too: they share the axis
    fig.suptitle(
        f"~{energy.presses:,} presses at {energy.led_ma:g} mA, held {energy.hold_s:g} s (red)",
        fontsize=10,
    )
    return save_figure(fig, folder / "battery.png")
