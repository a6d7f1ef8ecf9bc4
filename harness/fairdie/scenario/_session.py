"""A device run piece by piece: to a cycle, or until an event or a state.

The engine reports each sleep's mode (the SLEEP event's ``b`` is 1 + the
SM bits; :func:`fairdie.sim.sleep_mode_name` names it). Waits for
what an eye sees (LEDs, displays) look every millisecond of chip time; waits
for engine events (sleep, wake, EEPROM writes, pin levels, speaker edges)
stop on the event itself, to the cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fairdie.scenario._model import Expect
from fairdie.sim import Event, EventKind, Until, sleep_mode_name

if TYPE_CHECKING:
    from fairdie.device import Device
    from fairdie.sim import Chip

__all__ = ["POLL_S", "Session", "sleep_event_mode", "state_holds", "wait_condition"]

#: how often a wait for an LED or display looks, in seconds of chip time
POLL_S = 0.001
Done = Callable[[Event | None], bool]


def sleep_event_mode(chip: Chip, event: Event) -> str:
    """The mode of a SLEEP event, as the engine reported it."""
    return sleep_mode_name(chip.mcu, event.b - 1) if event.b else "unknown"


class Session:
    """A device, run piece by piece."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.chip: Chip = device.chip
        self.poll = max(1, self.chip.cycles_for(POLL_S))

    @property
    def mode(self) -> str | None:
        """The mode the chip sleeps in now (None: awake or off)."""
        return self.chip.sleep_mode if self.chip.powered else None

    def run_to(
        self, end: int, *, until: Until | None = None, done: Done | None = None, poll: bool = False
    ) -> bool:
        """Run to cycle ``end``; with ``done``, stop as soon as it holds, asked
        at each stop on ``until`` and (``poll``) each millisecond. Returns
        whether ``done`` held. An unpowered chip does not run."""
        chip = self.chip
        while chip.powered and chip.cycle < end:
            to = min(end, chip.cycle + self.poll) if poll else end
            chip.run(to_cycle=to, until=until)
            ev = chip.stop_event
            if done is not None and (poll or ev is not None) and done(ev):
                return True
        return False

    def sleep_modes(self, since: int, already: str | None) -> list[str]:
        """The modes of the sleeps from trace position ``since`` on: ``already``
        (the mode the chip was asleep in then, if it was), then each SLEEP's."""
        modes = [already] if already else []
        modes += [
            sleep_event_mode(self.chip, e) for e in self.chip.trace.events(EventKind.SLEEP, since)
        ]
        return modes


def state_holds(device: Device, state: Expect) -> bool:
    """The LEDs, displays and pin levels of ``state`` are what it says, now."""
    if state.leds is not None and device.lit() != state.leds:
        return False
    if any(device.read(d) != s for d, s in state.display):
        return False
    return all(device.chip.high(p) == h for p, h in state.pins)


def wait_condition(
    device: Device, event: str | None, state: Expect | None
) -> tuple[Until, Done, bool]:
    """What a session runs on to wait for ``event`` (a name of
    :data:`~fairdie.scenario._model.EVENTS`) or ``state``: the engine stops,
    the test at each stop, and whether it must also look every millisecond."""
    if state is not None:
        pins = tuple(p for p, _ in state.pins)
        until = Until.pin(*pins) if pins else Until()
        return (
            until,
            lambda ev: state_holds(device, state),
            bool(state.leds is not None or state.display),
        )
    if event == "leds":
        before = device.lit()
        return Until(), lambda ev: device.lit() != before, True
    if event == "tone":
        assert device.board.speaker is not None
        mark = device.chip.trace.mark()
        return Until.pin(device.board.speaker), lambda ev: bool(device.tones(mark)), False
    kind = {
        "sleep": EventKind.SLEEP,
        "wake": EventKind.WAKE,
        "eeprom-write": EventKind.EEPROM_DONE,
    }[event or ""]
    return Until.event(kind), lambda ev: ev is not None and ev.kind is kind, False
