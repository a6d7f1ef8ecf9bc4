"""Value Change Dump output of a chip's recorded trace (pins and signals)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.sim._types import Level, PortChange, parse_pin

if TYPE_CHECKING:
    from fairdie.sim._chip import SignalChange

__all__ = ["write_vcd"]

_PIN_VALUE = {Level.LOW: "0", Level.HIGH: "1", Level.PULLUP: "1", Level.Z: "z"}
_WIDTH = {"sleep": 1, "eeprom_busy": 1, "adc_mv": 16}


def write_vcd(
    path: Path,
    *,
    frequency: int,
    pins: Sequence[str],
    port_changes: Sequence[PortChange],
    signals: Sequence[str],
    signal_changes: Sequence[SignalChange],
    end: int,
) -> Path:
    """Pins are 0/1 when driven, 1 with the pull-up on, z when floating.

    Time is in nanoseconds (rounded from cycles at ``frequency``).
    """
    for s in signals:
        if s not in _WIDTH:
            raise ValueError(f"unknown VCD signal {s!r}: choose from {', '.join(_WIDTH)}")
    ids: dict[str, str] = {}
    for i, name in enumerate([*pins, *signals]):
        ids[name] = _vcd_id(i)
    bits = {p: parse_pin(p) for p in pins}
    rows: list[tuple[int, int, str]] = []  # (cycle, order, text)
    last: dict[str, str] = {}
    for n, ch in enumerate(port_changes):
        for name, (port, bit) in bits.items():
            if port != ch.port:
                continue
            v = _PIN_VALUE[ch.level(bit)]
            if last.get(name) != v:
                last[name] = v
                rows.append((ch.cycle, n, v + ids[name]))
    wanted = set(signals)
    for n, sc in enumerate(signal_changes):
        if sc.name in wanted:
            text = (
                f"{sc.value & 1}{ids[sc.name]}"
                if _WIDTH[sc.name] == 1
                else f"b{sc.value:b} {ids[sc.name]}"
            )
            rows.append((sc.cycle, len(port_changes) + n, text))
    rows.sort()
    ns = 1e9 / frequency
    with path.open("w") as f:
        f.write("$timescale 1ns $end\n$scope module chip $end\n")
        for name in pins:
            f.write(f"$var wire 1 {ids[name]} {name} $end\n")
        for name in signals:
            f.write(f"$var wire {_WIDTH[name]} {ids[name]} {name} $end\n")
        f.write("$upscope $end\n$enddefinitions $end\n$dumpvars\n")
        for name in pins:
            f.write(f"z{ids[name]}\n")
        for name in signals:
            f.write(f"0{ids[name]}\n" if _WIDTH[name] == 1 else f"b0 {ids[name]}\n")
        f.write("$end\n")
        stamp = -1
        for cycle, _, text in rows:
            t = round(cycle * ns)
            if t != stamp:
                f.write(f"#{t}\n")
                stamp = t
            f.write(text + "\n")
        f.write(f"#{max(round(end * ns), stamp + 1)}\n")
    return path


def _vcd_id(i: int) -> str:
    chars = [chr(33 + i % 94)]
    i //= 94
    while i:
        chars.append(chr(33 + i % 94))
        i //= 94
    return "".join(chars)
