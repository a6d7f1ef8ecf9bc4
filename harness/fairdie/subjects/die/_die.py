"""A die as a device: rolled by its power switch or a button, read through
its board's face table, its noise fed to an analog input if it has one.

A power-switch die (ours) rolls at every power-on: a roll powers the chip
for ``hold`` seconds, then cuts it. A button die stays powered; a roll holds
its roll button for ``hold`` seconds (bouncing as the board says), lets go
and waits ``settle_ms`` for the face. Either way the face is what an eye
reads over a persistence window, so direct, series and multiplexed LEDs read
alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import FrozenInstanceError
from itertools import islice
from pathlib import Path
from typing import Any

from fairdie.board import OFF, Board, Bounce, Display, LedDecoder, load_board
from fairdie.device import MAX_HOLD_S, Device, check_hold, lit_a_whole_window, steady_symbol
from fairdie.errors import FairdieError
from fairdie.noise import NoiseModel, parse_noise
from fairdie.sim import Chip, EventKind, Firmware, PowerCycle, Trace, load_firmware
from fairdie.stimulus import HUMAN, PressTiming, parse_timing
from fairdie.subjects.die._board import DieSpec, die_spec
from fairdie.subjects.die._faces import POSITIONS, standard_faces
from fairdie.subjects.die._models import DieModel, model_named

__all__ = ["Die", "Press", "board_model", "die_parts"]


class Press:
    """What one press did: ``face`` (None: no face lit for a persistence
    window), ``display`` (what the LEDs showed when the press ended),
    ``counts`` (the six counters after the press; None: no table),
    ``adc_codes`` (the ADC codes the firmware converted this press) and
    ``hold_s``.

    Frozen, and equal, hashed, printed and pickled by those five. A die's
    press keeps the EEPROM image it left and reads ``counts`` from it when
    they are first asked for (decoding the table costs more Python than the
    rest of a press), and keeps its trace, reading ``adc_codes`` from it
    when they are first asked for.
    """

    # [face, display, counts, (model, image) while counts are unread, adc_codes, hold_s]
    __slots__ = ("_f",)
    _f: list[Any]

    def __init__(
        self,
        face: int | None,
        display: str,
        counts: tuple[int, ...] | None,
        adc_codes: tuple[int, ...],
        hold_s: float,
    ) -> None:
        object.__setattr__(self, "_f", [face, display, counts, None, adc_codes, hold_s])

    @classmethod
    def _leaving(
        cls,
        face: int | None,
        display: str,
        model: DieModel,
        image: bytes,
        adc_codes: tuple[int, ...] | Trace,
        hold_s: float,
    ) -> Press:
        """A press whose counts are ``model``'s table of ``image``, and whose
        codes those of a trace, read when asked for."""
        press = object.__new__(cls)
        object.__setattr__(press, "_f", [face, display, None, (model, image), adc_codes, hold_s])
        return press

    @property
    def face(self) -> int | None:
        return self._f[0]  # type: ignore[no-any-return]

    @property
    def display(self) -> str:
        return self._f[1]  # type: ignore[no-any-return]

    @property
    def counts(self) -> tuple[int, ...] | None:
        f = self._f
        if f[3] is not None:
            model, image = f[3]
            f[2], f[3] = model.table(image), None
        return f[2]  # type: ignore[no-any-return]

    @property
    def adc_codes(self) -> tuple[int, ...]:
        f = self._f
        if f[4].__class__ is Trace:
            f[4] = f[4].adc_codes()
        return f[4]  # type: ignore[no-any-return]

    @property
    def hold_s(self) -> float:
        return self._f[5]  # type: ignore[no-any-return]

    def _fields(self) -> tuple[object, ...]:
        return self.face, self.display, self.counts, self.adc_codes, self.hold_s

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Press):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Press(face={self.face!r}, display={self.display!r}, counts={self.counts!r},"
            f" adc_codes={self.adc_codes!r}, hold_s={self.hold_s!r})"
        )

    def __reduce__(self) -> tuple[type[Press], tuple[object, ...]]:
        return Press, self._fields()


class Die(Device):
    """A die in emulation.

    ``firmware``: an ELF/HEX path or :class:`Firmware` (default: build ours
    for the board's variant and clock). ``noise``: a noise model, a CLI noise
    name ("floating", "uniform", "stuck:MV") or None for the default; it feeds
    the analog input named "noise" (or the board's only one). ``eeprom``: the
    starting EEPROM (default: the firmware's own image, else erased).
    ``roll``: the button that rolls it (default: the board's ``[die] roll``,
    else its power button). ``variant``: the build of the board's firmware
    target (default: the board's). ``model``: the reference model the die's
    presses must match (default: the one the board's build names in its
    target.toml, also for a firmware given as a file for that board).
    """

    def __init__(
        self,
        *,
        board: Board | str | Path = "die-direct",
        firmware: Firmware | str | Path | None = None,
        noise: NoiseModel | str | None = None,
        seed: int = 0,
        eeprom: bytes | None = None,
        f_cpu: int | None = None,
        roll: str | None = None,
        variant: str | None = None,
        model: DieModel | str | None = None,
        timing: PressTiming | str | None = None,
    ) -> None:
        bd = board if isinstance(board, Board) else load_board(board)
        spec = die_spec(bd) or DieSpec()
        # everything about the board is checked before anything is built
        faces, control = die_parts(bd, roll)
        analog = [a for a in bd.analog if a.name == "noise"] or list(bd.analog[:1])
        if noise is not None and not analog:
            raise FairdieError(f"board {bd.name}: no analog input to feed the noise to")
        f = f_cpu or bd.f_cpu
        if firmware is not None and variant is not None:
            raise FairdieError(
                "variant names a build of the board's firmware: give one or the other"
            )
        build_variant = variant or bd.variant
        if firmware is None:
            if bd.firmware is None:
                raise FairdieError(f"board {bd.name} names no firmware target: give a firmware")
            from fairdie.toolchain import build

            firmware = build(bd.firmware, variant=build_variant, mcu=bd.mcu, f_cpu=f).elf
        if model is None:
            model = board_model(bd, build_variant)
        try:
            self.model: DieModel | None = model_named(model) if isinstance(model, str) else model
        except ValueError as e:
            raise FairdieError(str(e)) from None
        fw = (
            firmware
            if isinstance(firmware, Firmware)
            else load_firmware(firmware, mcu=bd.mcu, f_cpu=f_cpu)
        )
        chip = Chip(
            fw, mcu=bd.mcu, f_cpu=f_cpu or fw.f_cpu or f, vcc_mv=bd.vcc_mv, seed=seed, trace=False
        )
        if eeprom is not None:
            chip.write_eeprom(0, eeprom)
        # a press reads the LEDs from the engine's integrator and the ADC log:
        # the pin trace is not needed (users may switch it on for a VCD)
        chip.trace_kinds = EventKind.ADC
        super().__init__(chip, bd, seed=seed)
        self.faces: Display = faces
        self.roll_control: str = control
        self._by_power = self.button(control).kind == "power"
        self.settle_s = spec.settle_ms / 1000
        self._steps: dict[tuple[float, float], tuple[int, ...]] = {}  # press_steps' answers
        # _shows' answers, for these faces and LEDs
        self._shown: tuple[Display, LedDecoder, dict[int, str]] = (faces, self.leds, {})
        self._counters = spec.counters
        self._analog = analog[0] if analog else None
        self.noise: NoiseModel | None = None
        #: presses made so far: a seekable noise model reads press ``presses``
        #: next (a campaign shard that starts at press k sets it to k)
        self.presses = 0
        if self._analog is not None:
            self.set_noise(noise)
        #: when a person presses: a button die with no analog input to read
        #: chance from is pressed as a person would (human timing) by default
        if timing is None and self._analog is None and not self._by_power:
            timing = HUMAN
        self.timing: PressTiming | None = (
            parse_timing(timing) if isinstance(timing, str) else timing
        )
        self._times = self.timing.presses(seed) if self.timing is not None else None

    @property
    def rolls_by_power(self) -> bool:
        return self._by_power

    def seek(self, press: int) -> None:
        """Go on as if ``press`` presses had been made since the die was made:
        a seekable noise model and the press timing both give press ``press``
        next (a campaign shard that starts at press k; a fresh die at 0)."""
        self.presses = press
        if self.timing is not None:
            self._times = islice(self.timing.presses(self.seed), press, None)

    # ---- stimulus ---------------------------------------------------------

    def set_noise(self, noise: NoiseModel | str | None) -> None:
        """Attach a noise source to the die's analog input."""
        if self._analog is None:
            raise FairdieError(f"board {self.board.name}: no analog input to feed the noise to")
        if noise is None or isinstance(noise, str):
            try:
                noise = parse_noise(noise or "floating", seed=self.seed, vcc_mv=self.chip.vcc_mv)
            except ValueError as e:
                raise FairdieError(str(e)) from None
        self.noise = noise
        bind = getattr(noise, "bind_clock", None)
        if bind is not None:  # time-dependent noise (hum) reads the chip's clock
            chip = self.chip
            bind(lambda: chip.cycles_powered / chip.frequency)
        self.set_analog(self._analog.name, noise)

    # ---- the table ----------------------------------------------------------

    @property
    def has_counters(self) -> bool:
        return self.model is not None or self._counters is not None

    @property
    def counts(self) -> tuple[int, ...]:
        """The table the die keeps, face 1 first: its model's reading of the
        EEPROM, else the six counters at the board's ``[die] counters``."""
        if self.model is not None:
            return self.model.table(self.chip.eeprom)
        return tuple(self.chip.read_eeprom(self._counter_address(), 6))

    @property
    def table_kind(self) -> str:
        """What :attr:`counts` holds: ``"counts"``, or ``"offsets"`` for a rule
        that keeps each face's count above the least-shown face's (the fair rule)."""
        return self.model.table_kind if self.model is not None else "counts"

    def set_counts(self, counts: Sequence[int]) -> None:
        """Store a table as the die keeps it (a fresh image for a model)."""
        if self.model is not None:
            try:
                self.chip.write_eeprom(0, self.model.with_table(counts))
            except ValueError as e:
                raise FairdieError(str(e)) from None
            return
        if len(counts) != 6 or any(not 0 <= c <= 255 for c in counts):
            raise FairdieError(f"counts must be six bytes 0..255, not {list(counts)}")
        self.chip.write_eeprom(self._counter_address(), bytes(counts))

    def _counter_address(self) -> int:
        if self._counters is None:
            raise FairdieError(
                f"board {self.board.name}: the die keeps no counters ([die] counters)"
            )
        return self._counters

    # ---- the display ----------------------------------------------------------

    def display(self, at: int | None = None) -> str:
        """A face ("1".."6"), another symbol of the face table ("all"), "off"
        or "invalid", as an eye would read the LEDs."""
        return self.read(self.faces, at)

    # ---- pressing ---------------------------------------------------------------

    def power_on(self) -> None:
        self.chip.clear_trace()
        super().power_on()

    def power_cycle(self, steps: Sequence[int]) -> PowerCycle:
        self.chip.clear_trace()
        return super().power_cycle(steps)

    def press_steps(self, hold: float) -> tuple[int, ...]:
        """The runs of a power-switch roll held ``hold`` s, in cycles: to the
        settle time, where its face is read, then the rest of the hold."""
        key = hold, self.settle_s
        steps = self._steps.get(key)
        if steps is None:
            settle = min(hold, self.settle_s)
            cycles = self.chip.cycles_for
            steps = (cycles(settle), cycles(hold - settle)) if hold > settle else (cycles(settle),)
            if len(self._steps) < 64:  # a die is held a few ways
                self._steps[key] = steps
        return steps

    def roll(self, hold: float | None = None, *, bounce: Bounce | bool | None = None) -> Press:
        """Roll the die: hold its roll control for ``hold`` seconds.

        A power-switch die powers on, shows its face while held and powers
        off. A button die (powered on at its first roll) has its button
        pressed, bouncing as the board says or as ``bounce`` overrides, then
        released, and is read once its face has had ``settle_ms`` to settle.
        With a press timing (:attr:`timing`), each roll first waits the drawn
        time since the last release, and ``hold=None`` holds the drawn hold;
        without one, ``hold`` defaults to 0.2 s.
        """
        drawn = next(self._times) if self._times is not None else None
        if hold is None:
            hold = drawn.hold if drawn is not None else 0.2
        if not 0 < hold <= MAX_HOLD_S:
            check_hold(hold)
        if drawn is not None and self.presses and self.chip.powered:
            self.chip.run(seconds=drawn.interval)  # the person's wait before this press
        seek = getattr(self.noise, "seek", None)
        if seek is not None:  # each roll reads its own part of the noise
            seek(self.presses)
        press = self._power_roll(hold) if self._by_power else self._button_roll(hold, bounce)
        self.presses += 1
        return press

    def debug_press(self, limit_s: float = 1.0) -> str:
        """``monitor press`` in ``fairdie debug``: one press, the chip left
        powered (a power-switch die powers on and runs until its face settles,
        at most ``limit_s`` or the die's settle time); what it showed."""
        chip = self.chip
        if not self.rolls_by_power:
            press = self.roll()
            return f"press {self.presses}: face {press.face}, display {press.display!r}"
        if chip.powered:
            chip.power_off()  # a power-switch die: each press is a power-on
        seek = getattr(self.noise, "seek", None)
        if seek is not None:  # each press reads its own part of the noise
            seek(self.presses)
        self.presses += 1
        self.power_on()
        start = chip.cycle
        limit = start + chip.cycles_for(max(limit_s, self.settle_s))
        step = max(1, self.window // 4)
        while chip.cycle < limit:
            chip.run(min(step, limit - chip.cycle))
            lit = self.first_lit()
            if lit is not None and chip.cycle - lit >= self.window:
                break
        lit = self.first_lit()
        when = (
            f"lit {(lit - start) * 1000 / chip.frequency:.1f} ms after power-on"
            if lit is not None
            else f"nothing lit in {(chip.cycle - start) / chip.frequency:g} s"
        )
        table = f"; table {list(self.counts)}" if self.has_counters else ""
        return (
            f"press {self.presses}: display {self.display()!r} ({when}){table};"
            f" stopped at cycle {chip.cycle}, pc 0x{chip.pc:04x}"
        )

    def _power_roll(self, hold: float) -> Press:
        # power on, run to the settle time and read the face (a steady
        # symbol), run the rest of the hold, read the display, power off
        press = self.power_cycle(self.press_steps(hold))
        settled = lit_a_whole_window(press.first_lit, press.at[0], self.window)
        shown = self._shows(press.seen[0]) if settled else OFF
        end, chip = self._shows(press.seen[-1]), self.chip
        if self.model is None:
            return self._result(shown, end, chip.adc_codes(), hold)
        # its table and codes are read from the image and the trace when asked for
        face = int(shown) if shown.isdigit() else None
        return Press._leaving(face, end, self.model, chip.eeprom, chip.trace.copy(), hold)

    def _shows(self, seen: int) -> str:
        """What the faces show for a mask of seen LEDs (remembered: a face
        table has few)."""
        known = self._shown
        if known[0] is not self.faces or known[1] is not self.leds:
            known = self._shown = (self.faces, self.leds, {})
        shown = known[2].get(seen)
        if shown is None:
            shown = known[2][seen] = self.faces.decode(self.leds.lit(seen))
        return shown

    def _button_roll(self, hold: float, bounce: Bounce | bool | None) -> Press:
        chip = self.chip
        if not chip.powered:
            self.power_on()
            chip.run(seconds=self.settle_s)
        chip.clear_trace()  # it holds this roll only, as a power-on clears it
        self.press(self.roll_control, hold=hold, bounce=bounce)
        chip.run(seconds=self.settle_s)
        end = self.display()
        shown = steady_symbol(self, self.faces)
        codes = chip.adc_codes()
        return self._result(shown, end, codes, hold)

    def _result(self, shown: str, end: str, codes: tuple[int, ...], hold: float) -> Press:
        face = int(shown) if shown.isdigit() else None
        if self.model is not None:  # its table is read from the image when asked for
            return Press._leaving(face, end, self.model, self.chip.eeprom, codes, hold)
        return Press(face, end, self.counts if self.has_counters else None, codes, hold)


def board_model(board: Board, variant: str | None = None) -> str | None:
    """The name of the model a die on ``board`` follows: the one its build of
    the board's firmware target names (``variant``, default the board's), also
    for a firmware given as a file for that board; None for a board that names
    no target."""
    if board.firmware is None:
        return None
    from fairdie.toolchain import load_target

    return load_target(board.firmware).model_for(variant or board.variant)


def die_parts(board: Board, roll: str | None = None) -> tuple[Display, str]:
    """The die's face display and the button that rolls it (``roll``, else
    the board's ``[die] roll``, else its power button); a one-line
    :class:`FairdieError` when the board lacks them."""
    spec = die_spec(board) or DieSpec()
    return _face_display(board, spec), _roll_control(board, spec, roll)


def _face_display(board: Board, spec: DieSpec) -> Display:
    """The die's faces: the display ``[die]`` names, the board's only display,
    or the standard die's on LEDs named by position."""
    if spec.display is not None:
        return board.display(spec.display)
    if len(board.displays) == 1:
        return board.displays[0]
    names = set(board.led_names)
    if not board.displays and names == set(POSITIONS):
        return standard_faces()
    raise FairdieError(
        f"board {board.name}: no face table: add [display.face] with symbols"
        f' "1".."6" (or name its seven LEDs {", ".join(POSITIONS)})'
        if not board.displays
        else f"board {board.name}: several displays; name the faces with [die] display"
    )


def _roll_control(board: Board, spec: DieSpec, roll: str | None) -> str:
    name = roll or spec.roll
    if name is None:
        power = board.power_button
        if power is None:
            buttons = ", ".join(b.name for b in board.buttons) or "none"
            raise FairdieError(
                f"board {board.name}: what rolls the die? give [die] roll = BUTTON"
                f" (buttons: {buttons})"
            )
        return power.name
    if name not in {b.name for b in board.buttons}:
        buttons = ", ".join(b.name for b in board.buttons) or "none"
        raise FairdieError(f"board {board.name} has no button {name!r} (buttons: {buttons})")
    return name
