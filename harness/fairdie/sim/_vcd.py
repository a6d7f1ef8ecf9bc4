"""Value Change Dump output of a chip's recorded trace (pins and signals)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fairdie.sim._types import Event, EventKind, Level, parse_pin

__all__ = ["write_vcd"]

_PIN_VALUE = {
    Level.LOW: "0",
    Level.HIGH: "1",
    Level.PULLUP: "1",
    Level.PULLDOWN: "0",
    Level.Z: "z",
}
_WIDTH = {"sleep": 1, "eeprom_busy": 1, "adc_mv": 16}


def _signal(e: Event) -> tuple[str, int] | None:
    if e.kind is EventKind.SLEEP:
        return "sleep", 1
    if e.kind is EventKind.WAKE or (e.kind is EventKind.POWER and e.a == 0):
        return "sleep", 0
    if e.kind is EventKind.EEPROM_START:
        return "eeprom_busy", 1
    if e.kind is EventKind.EEPROM_DONE:
        return "eeprom_busy", 0
    if e.kind is EventKind.ADC:
        return "adc_mv", e.b
    return None


def write_vcd(
    path: Path,
    *,
    frequency: int,
    pins: Sequence[str],
    events: Sequence[Event],
    signals: Sequence[str],
    end: int,
) -> Path:
    """Pins as the pin model has them: 0/1 when driven or pulled, z when
    floating. Signals: sleep, eeprom_busy, adc_mv (the millivolts fed).

    Time is in nanoseconds (rounded from cycles at ``frequency``).
    """
    for s in signals:
        if s not in _WIDTH:
            raise ValueError(f"unknown VCD signal {s!r}: choose from {', '.join(_WIDTH)}")
    ids: dict[str, str] = {}
    for i, name in enumerate([*pins, *signals]):
        ids[name] = _vcd_id(i)
    by_port: dict[str, list[tuple[str, int]]] = {}
    for p in pins:
        port, bit = parse_pin(p)
        by_port.setdefault(port, []).append((p, bit))
    wanted = set(signals)
    rows: list[tuple[int, int, str]] = []  # (cycle, order, text)
    last: dict[str, str] = {}
    for n, e in enumerate(events):
        if e.kind is EventKind.PIN:
            for name, bit in by_port.get(chr(e.a), ()):
                v = _PIN_VALUE[Level.of(e.b, bit)]
                if last.get(name) != v:
                    last[name] = v
                    rows.append((e.cycle, n, v + ids[name]))
            continue
        sig = _signal(e)
        if sig is None or sig[0] not in wanted:
            continue
        name, value = sig
        text = f"{value & 1}{ids[name]}" if _WIDTH[name] == 1 else f"b{value:b} {ids[name]}"
        rows.append((e.cycle, n, text))
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
