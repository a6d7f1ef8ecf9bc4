"""A chip on its board: press its buttons, feed its analog inputs, read its
LEDs, displays and speaker, switch its power."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from fairdie.board import MCU_COMPARATOR_PINS, Board, Bounce, Button, Display, LedDecoder
from fairdie.device._tones import Tone, tones_from_edges
from fairdie.errors import FairdieError
from fairdie.sim import EventKind, mcu_matches, parse_pin
from fairdie.stimulus import MAX_HOLD_S, PressTime, PressTiming, parse_timing

if TYPE_CHECKING:
    from fairdie.sim import Chip, PowerCycle

__all__ = ["MAX_HOLD_S", "Device", "check_hold"]


def check_hold(hold: float) -> None:
    """Refuse a hold outside (0, MAX_HOLD_S] seconds, in one line."""
    if not 0 < hold <= MAX_HOLD_S:
        raise FairdieError(f"hold {hold} s is out of range (0..{MAX_HOLD_S:g} s)")


class Device:
    """The parts a board file declares, wired to a chip.

    >>> dev = Device(Chip("game.elf"), load_board("game.toml"))   # doctest: +SKIP
    >>> dev.power_on(); dev.press("go", hold=0.1)                  # doctest: +SKIP
    >>> dev.read("score"), dev.tones()                             # doctest: +SKIP

    Buttons hold their pins through the chip's pin model: a released button
    leaves its pin to its pull (the board's resistor, or the chip's own
    pull-up), a pressed one drives its active level. Contact bounce follows
    the board's seeded model, so a run is reproducible from ``seed``. LED
    light is integrated in C over the board's persistence window, so
    multiplexed displays read like direct ones.
    """

    def __init__(self, chip: Chip, board: Board, *, seed: int = 0) -> None:
        if not mcu_matches(board.mcu, chip.mcu):
            raise FairdieError(f"board {board.name} is for the {board.mcu}, not the {chip.mcu}")
        self.chip = chip
        self.board = board
        self.seed = seed
        self.leds = LedDecoder(board)
        chip.set_leds(self.leds.pairs)
        #: the persistence window at the chip's clock (a build may differ from the board's)
        self.window = board.persistence_cycles_at(chip.frequency)
        self._edges = 0
        self._pressed: set[str] = set()
        self._speaker: tuple[str, int] | None = None
        for b in board.input_buttons:
            assert b.pin is not None
            if b.pull in ("up", "down"):
                chip.pull(b.pin, b.pull)
            self._set(b, pressed=False)
        if board.speaker is not None:
            self._speaker = parse_pin(board.speaker)
            chip.trace_kinds |= EventKind.PIN

    # ---- power ----------------------------------------------------------------------

    @property
    def powered(self) -> bool:
        return self.chip.powered

    def power_on(self) -> None:
        """Switch the supply on; LED light is counted from here."""
        self.chip.leds_restart()
        self.chip.power_on()

    def power_off(self) -> None:
        self.chip.power_off()

    def power_cycle(self, steps: Sequence[int]) -> PowerCycle:
        """A press of the power switch in one call to the engine: switch the
        supply on, run ``steps[0]`` cycles, then ``steps[1]`` more and so on,
        and switch it off. After each run it reads the LEDs an eye sees, as
        :meth:`lit` reads them then (``seen``: masks for :meth:`seen`)."""
        d = self.leds
        return self.chip.power_cycle(steps, self.window, relative=d.relative, floor=d.floor)

    def seen(self, mask: int) -> frozenset[str]:
        """The LEDs of a mask of seen LEDs (bit i: the board's i-th LED)."""
        return self.leds.lit(mask)

    # ---- buttons --------------------------------------------------------------------

    def button(self, name: str) -> Button:
        try:
            return self.board.button(name)
        except KeyError:
            names = ", ".join(b.name for b in self.board.buttons) or "none"
            raise FairdieError(
                f"board {self.board.name} has no button {name!r} (buttons: {names})"
            ) from None

    def is_pressed(self, name: str) -> bool:
        return name in self._pressed

    def press(
        self, name: str, *, hold: float | None = None, bounce: Bounce | bool | None = None
    ) -> None:
        """Press a button; with ``hold`` (seconds), keep it down that long, then
        release it. A power button switches the supply on (and off).

        ``bounce``: None for the board's model, False for a clean contact, or
        a :class:`~fairdie.board.Bounce`.
        """
        b = self.button(name)
        if hold is not None:
            check_hold(hold)
        if name in self._pressed:
            raise FairdieError(f"button {name!r} is already pressed")
        start = self.chip.cycle
        if b.kind == "power":
            self.power_on()
        else:
            self._edge(b, pressed=True, bounce=bounce)
        self._pressed.add(name)
        if hold is not None:
            self.chip.run(to_cycle=max(self.chip.cycle, start + self.chip.cycles_for(hold)))
            self.release(name, bounce=bounce)

    def press_many(
        self,
        name: str,
        n: int,
        *,
        timing: PressTiming | str = "human",
        seed: int | None = None,
        bounce: Bounce | bool | None = None,
    ) -> Iterator[PressTime]:
        """Press a button ``n`` times as a person would, timed by ``timing``
        (a :class:`~fairdie.stimulus.PressTiming` or its spec, such as
        ``"human:interval=0.8,hold=0.12"``) drawn from ``seed`` (default: the
        device's seed). Each press is held its drawn hold, and the next comes
        its drawn interval after the release (contact bounce, as the board or
        ``bounce`` says, plays out inside both): the chip runs all the while,
        so the firmware's timers advance as between a person's presses.

        Lazy: each press happens as the loop asks for the next, and the loop
        body sees the chip at the end of that press's interval (just before
        the next press), e.g. ``[dev.read() for _ in dev.press_many("go", 60)]``.
        Yields each press's :class:`~fairdie.stimulus.PressTime`. Arguments
        are checked when it is called, in one line.
        """
        self.button(name)
        if isinstance(timing, str):
            timing = parse_timing(timing)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise FairdieError(f"the number of presses must be a whole number >= 0, not {n!r}")
        return self._press_many(name, n, timing, self.seed if seed is None else seed, bounce)

    def _press_many(
        self, name: str, n: int, timing: PressTiming, seed: int, bounce: Bounce | bool | None
    ) -> Iterator[PressTime]:
        presses = timing.presses(seed)
        for _ in range(n):
            drawn = next(presses)
            start = self.chip.cycle
            self.press(name, hold=drawn.hold, bounce=bounce)
            # the interval counts from the release, as the hold from the press:
            # the release's contact bounce plays out inside it
            end = start + self.chip.cycles_for(drawn.hold + drawn.interval)
            self.chip.run(to_cycle=max(self.chip.cycle, end))
            yield drawn

    def release(self, name: str, *, bounce: Bounce | bool | None = None) -> None:
        """Let a pressed button go (a power button cuts the supply)."""
        b = self.button(name)
        if name not in self._pressed:
            raise FairdieError(f"button {name!r} is not pressed")
        self._pressed.discard(name)
        if b.kind == "power":
            self.power_off()
        else:
            self._edge(b, pressed=False, bounce=bounce)

    def _edge(self, b: Button, *, pressed: bool, bounce: Bounce | bool | None) -> None:
        """One press or release, its contact bouncing: the pin reaches its new
        level, then leaves and regains it ``count`` times. Bounces play out
        only while the chip runs; unpowered, the pin just takes its new level."""
        model = b.bounce if bounce is None or bounce is True else bounce or Bounce()
        self._edges += 1
        self._set(b, pressed)
        if not self.chip.powered or model.count == 0:
            return
        for when, level in self._bounces(b, model, pressed):
            self.chip.run(to_cycle=when)
            self._set(b, level)

    def _bounces(self, b: Button, model: Bounce, pressed: bool) -> Iterator[tuple[int, bool]]:
        rng = random.Random(f"bounce:{self.seed}:{b.name}:{self._edges}")
        at = self.chip.cycle
        for i in range(2 * model.count):
            gap_us = model.spacing_us * rng.uniform(0.5, 1.5)
            at += max(1, round(gap_us * self.chip.frequency / 1e6))
            yield at, pressed if i % 2 else not pressed

    def _set(self, b: Button, pressed: bool) -> None:
        assert b.pin is not None
        active_high = b.active == "high"
        if pressed:
            self.chip.drive(b.pin, active_high)
        elif b.pull == "none":
            self.chip.drive(b.pin, not active_high)
        else:
            self.chip.drive(b.pin, None)

    # ---- analog inputs --------------------------------------------------------------

    def set_analog(self, name: str, source: float | Callable[[int], float]) -> None:
        """Feed a named analog input: millivolts, or ``channel -> millivolts``
        called at each conversion (a noise model).

        Millivolts reach every input the pin has: its ADC channel, its
        analog comparator input (AIN0, AIN1) and, on an MCU with a
        comparator, the comparator's multiplexer input for that channel
        (which ACME selects). A noise model feeds only the ADC, at each
        conversion (the comparator keeps the last millivolts it was fed), so
        an input on a comparator pin without an ADC channel refuses one.
        """
        try:
            a = self.board.analog_input(name)
        except KeyError:
            names = ", ".join(a.name for a in self.board.analog) or "none"
            raise FairdieError(
                f"board {self.board.name} has no analog input {name!r} (inputs: {names})"
            ) from None
        if callable(source):
            if a.channel is None:
                raise FairdieError(
                    f"analog input {name!r} is the comparator's {a.comparator} only, which"
                    " reads a level, not conversions: feed it millivolts, not a noise model"
                )
            self.chip.set_adc(a.channel, source)
            return
        if a.channel is not None:
            self.chip.set_adc(a.channel, source)
            if self.board.mcu in MCU_COMPARATOR_PINS:
                self.chip.set_comparator(f"ADC{a.channel}", source)
        if a.comparator is not None:
            self.chip.set_comparator(a.comparator, source)

    # ---- LEDs and displays ----------------------------------------------------------

    def lit(self, at: int | None = None) -> frozenset[str]:
        """The LEDs an eye sees lit over the persistence window ending at cycle
        ``at`` (default: now), counted from the last power-on."""
        end = self.chip.cycle if at is None else at
        start = max(self.chip.power_on_cycle, end - self.window)
        if end <= start or (not self.chip.powered and at is None):
            return frozenset()
        d = self.leds
        return d.lit(self.chip.leds_seen(start, end, relative=d.relative, floor=d.floor))

    def first_lit(self) -> int | None:
        """The cycle since the last power-on at which some LED first lit, if any."""
        return self.chip.leds_first_lit()

    def find_display(self, name: str | None = None) -> Display:
        """A display of the board (default: its only one)."""
        if name is None and len(self.board.displays) == 1:
            return self.board.displays[0]
        try:
            return self.board.display(name or "")
        except KeyError:
            names = ", ".join(d.name for d in self.board.displays) or "none"
            raise FairdieError(
                f"board {self.board.name}: name a display (displays: {names})"
                if name is None
                else f"board {self.board.name} has no display {name!r} (displays: {names})"
            ) from None

    def read(self, display: str | Display | None = None, at: int | None = None) -> str:
        """What a display shows: one of its symbols, "off" or "invalid"."""
        d = display if isinstance(display, Display) else self.find_display(display)
        return d.decode(self.lit(at))

    # ---- the speaker ----------------------------------------------------------------

    def tones(self, since: int = 0, *, min_hz: float = 20.0) -> list[Tone]:
        """The tones on the speaker pin, from trace position ``since``."""
        if self._speaker is None:
            raise FairdieError(f"board {self.board.name} has no speaker")
        port, bit = self._speaker
        edges, _ = self.chip.trace.pin_edges(port, bit, since)
        return tones_from_edges(edges, self.chip.frequency, min_hz=min_hz)
