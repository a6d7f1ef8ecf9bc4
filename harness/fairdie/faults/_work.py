"""A unit of campaign work, the process-wide rigs it runs on, and replay ids.

A replay id names everything a cut depends on, so it replays alone:
``CAMPAIGN~BOARD~BUILD~IMAGE~CODES~STEPS`` where BUILD is a variant or
``@`` and a firmware path, IMAGE the starting EEPROM in hex, CODES the ADC
codes every press reads (three hex digits each), and STEPS the presses, each
``c<cycles>t<torn>`` (cut that many cycles after power-on, the byte in flight
left at ``torn``, two hex digits, or ``--`` for "lost") or ``boot``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fairdie.faults._outcome import Outcome
from fairdie.faults._rig import Boot, FaultsError, Rig, Target
from fairdie.faults._verdict import Expect, Violation, judge_boot

__all__ = ["Unit", "Work", "parse_replay", "replay_id", "rig_for"]

_RIGS: dict[Target, Rig] = {}
#: per process: image -> I4 verdict of its boot (None: fine)
_BOOTED: dict[tuple[Target, bytes], tuple[str, str] | None] = {}


def rig_for(target: Target) -> Rig:
    rig = _RIGS.get(target)
    if rig is None:
        rig = _RIGS[target] = Rig(target)
    return rig


@dataclass(frozen=True)
class Unit:
    """One piece of a campaign, run in any process: ``args`` are the campaign's."""

    campaign: str
    target: Target
    args: tuple[Any, ...]


def _codes_hex(codes: Sequence[int]) -> str:
    return "".join(f"{c:03x}" for c in codes)


def replay_id(
    campaign: str, target: Target, image: bytes, codes: Sequence[int], steps: Sequence[str]
) -> str:
    build = f"@{target.firmware}" if target.firmware else (target.variant or "")
    return "~".join(
        (campaign, target.board, build, image.hex(), _codes_hex(codes), ",".join(steps))
    )


def step(cycles: int, torn: int | None) -> str:
    return f"c{cycles}t{'--' if torn is None else f'{torn:02x}'}"


def parse_replay(
    text: str,
) -> tuple[str, Target, bytes, list[int], list[tuple[int, int | None] | None]]:
    """``(campaign, target, image, codes, steps)``; a step is ``(cycles, torn)`` or None (boot)."""
    parts = text.strip().split("~")
    try:
        campaign, board, build, image_hex, codes_hex, steps_text = parts
        image = bytes.fromhex(image_hex)
        if len(codes_hex) % 3:
            raise ValueError
        codes = [int(codes_hex[i : i + 3], 16) for i in range(0, len(codes_hex), 3)]
        steps: list[tuple[int, int | None] | None] = []
        for s in steps_text.split(","):
            if s == "boot":
                steps.append(None)
                continue
            cycles, torn = s[1:].split("t")
            if not s.startswith("c"):
                raise ValueError
            steps.append((int(cycles), None if torn == "--" else int(torn, 16)))
    except ValueError:
        raise FaultsError(f"not a replay id: {text!r}") from None
    target = (
        Target(board=board, firmware=build[1:])
        if build.startswith("@")
        else Target(board=board, variant=build or None)
    )
    return campaign, target, image, codes, steps


class Work:
    """A unit's run: its rig, its outcome, and the checks every campaign makes."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self.target = unit.target
        self.rig = rig_for(unit.target)
        self.model = self.rig.model
        self.out = Outcome(unit.campaign)

    def replay(self, image: bytes, codes: Sequence[int], steps: Sequence[str]) -> str:
        return replay_id(self.unit.campaign, self.target, image, codes, steps)

    def violate(self, found: tuple[str, str], replay: str) -> None:
        self.out.violate(Violation(found[0], replay, found[1]))

    def judge(
        self,
        expect: Expect,
        image: bytes,
        *,
        lit: bool,
        replay: tuple[bytes, Sequence[int], list[str]],
    ) -> bool:
        """Judge a cut's image (I1, I2); False if it broke one."""
        self.out.cuts += 1
        found = expect.judge(image, lit=lit)
        if found is not None:
            self.violate(found, self.replay(*replay))
            return False
        return True

    def boot(self, image: bytes) -> None:
        """Boot ``image`` once per process (I4)."""
        key = (self.target, image)
        if key not in _BOOTED:
            boot: Boot = self.rig.boot(image)
            _BOOTED[key] = judge_boot(self.model, image, boot)
            self.out.presses += 1
        self.out.booted(image)
        found = _BOOTED[key]
        if found is not None:
            self.violate(found, self.replay(image, (), ["boot"]))
