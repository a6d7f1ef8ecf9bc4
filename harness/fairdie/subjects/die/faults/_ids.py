"""Replay ids: everything a cut depends on, in one word of text.

``CAMPAIGN~BOARD~BUILD~IMAGE~CODES~STEPS`` where BUILD is a variant or
``@`` and a firmware path, IMAGE the starting EEPROM in hex, CODES the ADC
codes every press reads (three hex digits each), and STEPS the presses, each
``c<cycles>t<torn>`` (cut that many cycles after power-on, the byte in flight
left at ``torn``, two hex digits, or ``--`` for "lost"), with ``m<address>``
after it when the cut misexecutes (the brown-out detector off: the write
lands at that address instead, fairdie.campaigns), or ``boot``; or a
whole campaign unit to run again (``unit=`` and its arguments), for a
violation that no single press shows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from fairdie.subjects.die.faults._target import FaultsError, Target

__all__ = [
    "Step",
    "WholePress",
    "parse_replay",
    "press_step",
    "replay_id",
    "step",
    "unit_args",
    "unit_step",
]


def _codes_hex(codes: Sequence[int]) -> str:
    return "".join(f"{c:03x}" for c in codes)


def replay_id(
    campaign: str, target: Target, image: bytes, codes: Sequence[int], steps: Sequence[str]
) -> str:
    build = f"@{target.firmware}" if target.firmware else (target.variant or "")
    return "~".join(
        (campaign, target.board, build, image.hex(), _codes_hex(codes), ",".join(steps))
    )


def step(cycles: int, torn: int | None, land: int | None = None) -> str:
    text = f"c{cycles}t{'--' if torn is None else f'{torn:02x}'}"
    return text if land is None else f"{text}m{land}"


class WholePress(NamedTuple):
    """A replay step: press ``cycles`` long, judged whole against the model
    (what it showed and stored), not cut."""

    cycles: int


def press_step(cycles: int) -> str:
    return f"p{cycles}"


def unit_step(args: Sequence[object]) -> str:
    """The step that reruns a whole campaign unit (a violation no single cut
    shows, such as G7's wear): its arguments, as hex of their JSON."""
    return "unit=" + json.dumps(list(args), separators=(",", ":")).encode().hex()


def unit_args(text: str) -> tuple[object, ...] | None:
    """The unit arguments a replay id names (None: it names cuts or a boot)."""
    steps = text.strip().rsplit("~", 1)[-1]
    if not steps.startswith("unit="):
        return None
    try:
        return tuple(json.loads(bytes.fromhex(steps[5:])))
    except ValueError:
        raise FaultsError(f"not a replay id: {text!r}") from None


#: a cut: (cycles after power-on, torn value or None, the address it lands at or None)
Step = tuple[int, int | None, int | None]


def parse_replay(
    text: str,
) -> tuple[str, Target, bytes, list[int], list[Step | WholePress | None]]:
    """``(campaign, target, image, codes, steps)``; a step is a :data:`Step`
    (a cut), a :class:`WholePress` or None (boot)."""
    parts = text.strip().split("~")
    try:
        campaign, board, build, image_hex, codes_hex, steps_text = parts
        image = bytes.fromhex(image_hex)
        if len(codes_hex) % 3:
            raise ValueError
        codes = [int(codes_hex[i : i + 3], 16) for i in range(0, len(codes_hex), 3)]
        steps: list[Step | WholePress | None] = []
        for s in steps_text.split(","):
            if s.startswith("unit="):
                continue  # fairdie.subjects.die.faults._run.replay reruns the unit (unit_args)
            if s == "boot":
                steps.append(None)
                continue
            if s.startswith("p"):
                steps.append(WholePress(int(s[1:])))
                continue
            cycles, rest = s[1:].split("t")
            torn, _, land = rest.partition("m")
            if not s.startswith("c") or (_ and not land):
                raise ValueError
            steps.append(
                (int(cycles), None if torn == "--" else int(torn, 16), int(land) if land else None)
            )
    except ValueError:
        raise FaultsError(f"not a replay id: {text!r}") from None
    target = (
        Target(board=board, firmware=build[1:])
        if build.startswith("@")
        else Target(board=board, variant=build or None)
    )
    return campaign, target, image, codes, steps
