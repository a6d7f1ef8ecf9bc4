"""The pieces every board-file table is parsed with: typed values, known
keys and pins, each problem a one-line :class:`~fairdie.errors.BoardError`
naming the file."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fairdie.board._mcus import MCU_PINS
from fairdie.board._parts import GND, VCC
from fairdie.errors import BoardError
from fairdie.sim._types import parse_pin

__all__ = [
    "Ctx",
    "check_keys",
    "get_int",
    "get_str",
    "led_names",
    "port_pin",
    "positive",
    "table",
    "terminal",
]


class Ctx:
    """Where we are in the file, for one-line error messages."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> BoardError:
        msg = f"{self.source}: {where}: {problem}" if where else f"{self.source}: {problem}"
        return BoardError(" ".join(msg.split()))


def table(ctx: Ctx, where: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ctx.fail(where, f"expected a table, got {type(value).__name__}")
    return value


def check_keys(ctx: Ctx, where: str, table: Mapping[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ctx.fail(where, f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")


def get_str(
    ctx: Ctx, where: str, table: Mapping[str, Any], key: str, *, required: bool
) -> str | None:
    if key not in table:
        if required:
            raise ctx.fail(where, f"missing key {key!r}")
        return None
    v = table[key]
    if not isinstance(v, str) or not v.strip():
        raise ctx.fail(where, f"{key} must be a non-empty string, got {v!r}")
    return v.strip()


def get_int(
    ctx: Ctx, where: str, table: Mapping[str, Any], key: str, *, required: bool
) -> int | None:
    if key not in table:
        if required:
            raise ctx.fail(where, f"missing key {key!r}")
        return None
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.fail(where, f"{key} must be an integer, got {v!r}")
    return v


def positive(
    ctx: Ctx, where: str, table: Mapping[str, Any], key: str, default: float, hi: float = math.inf
) -> float:
    """A finite number in (0, hi], ``default`` when the key is absent."""
    v: object = table.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        v = None
    if v is None or not 0 < v <= hi:
        bound = "a positive number" + ("" if hi == math.inf else f" up to {hi:g}")
        raise ctx.fail(where, f"{key} must be {bound}, got {table.get(key)!r}")
    return float(v)


def port_pin(ctx: Ctx, where: str, key: str, value: str, mcu: str) -> str:
    try:
        port, bit = parse_pin(value)
    except ValueError:
        raise ctx.fail(where, f"{key} {value!r} is not a pin name such as PB3") from None
    pin = f"P{port}{bit}"
    known = MCU_PINS.get(mcu)
    if known is not None and pin not in known:
        raise ctx.fail(where, f"{key} {pin} is not a pin of the {mcu} ({_describe(known)})")
    return pin


def _describe(pins: frozenset[str]) -> str:
    ports: dict[str, list[int]] = {}
    for p in pins:
        ports.setdefault(p[1], []).append(int(p[2]))
    return ", ".join(f"P{port}{min(b)}-P{port}{max(b)}" for port, b in sorted(ports.items()))


def terminal(ctx: Ctx, where: str, key: str, value: str, mcu: str, rail: str) -> str:
    if value.upper() in (VCC, GND):
        if value.upper() != rail:
            raise ctx.fail(where, f"{key} {value!r} must be a pin or {rail}")
        return rail
    return port_pin(ctx, where, key, value, mcu)


def led_names(ctx: Ctx, where: str, what: str, value: object, known: set[str]) -> list[str]:
    """A list of LED names, each known and none twice."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ctx.fail(where, f"{what}: expected a list of LED names, got {value!r}")
    seen: set[str] = set()
    for v in value:
        if v not in known:
            raise ctx.fail(where, f"no LED named {v!r}")
        if v in seen:
            raise ctx.fail(where, f"LED {v!r} is listed twice")
        seen.add(v)
    return list(value)
