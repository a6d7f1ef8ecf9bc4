"""The fair die as a device: a chip, its board, a noise source and a power switch.

Every press is a power-on: the switch powers the chip for ``hold`` seconds,
then cuts it. The display is read through the board's LED model (integrated
over the persistence window), so direct and charlieplexed builds read alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fairdie.board import Board, LedDecoder, load_board
from fairdie.die._faces import decode_face
from fairdie.errors import FairdieError
from fairdie.noise import NoiseModel, parse_noise
from fairdie.sim import Chip, EventKind, Firmware, load_firmware

__all__ = ["COUNTER_ADDRESSES", "SETTLE_S", "Die", "Press"]

#: EEPROM bytes 0..5 hold the counters of faces 1..6.
COUNTER_ADDRESSES = range(6)
#: When a press's face is read: long enough for six EEPROM writes (20.4 ms)
#: and one persistence window after the face lights.
SETTLE_S = 0.05
_MAX_HOLD_S = 3600.0


@dataclass(frozen=True, slots=True)
class Press:
    """What one press did."""

    face: int | None  #: the face shown (None: no face lit for a persistence window)
    display: str  #: what the LEDs showed when the press ended
    counts: tuple[int, ...]  #: the six counters after the press
    adc_codes: tuple[int, ...]  #: the ADC codes the firmware converted this press
    hold_s: float


class Die:
    """A fair die in emulation.

    ``firmware``: an ELF/HEX path or :class:`Firmware` (default: build ours
    for the board's variant and clock). ``noise``: a noise model, a CLI noise
    name ("floating", "uniform", "stuck:MV") or None for the default.
    ``eeprom``: the starting EEPROM (default: the firmware's own EEPROM image,
    from an ELF's .eeprom section or a HEX's .eep, else erased: all 0xFF).
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
    ) -> None:
        self.board = board if isinstance(board, Board) else load_board(board)
        f = f_cpu or self.board.f_cpu
        if firmware is None:
            from fairdie.toolchain import build

            b = build(
                self.board.firmware or "die_t13a",
                variant=self.board.variant,
                mcu=self.board.mcu,
                f_cpu=f,
            )
            firmware = b.elf
        fw = (
            firmware
            if isinstance(firmware, Firmware)
            else load_firmware(firmware, mcu=self.board.mcu, f_cpu=f_cpu)
        )
        self.seed = seed
        self.chip = Chip(
            fw,
            mcu=self.board.mcu,
            f_cpu=f_cpu or fw.f_cpu or f,
            vcc_mv=self.board.vcc_mv,
            seed=seed,
        )
        if eeprom is not None:
            self.chip.write_eeprom(0, eeprom)
        # a press reads the LEDs from the engine's integrator and the ADC log:
        # the pin trace is not needed (users may switch it on for a VCD)
        self.chip.trace_kinds = EventKind.ADC
        self._leds = LedDecoder(self.board)
        self.chip.set_leds(self._leds.pairs)
        # the persistence window at the chip's clock (a build may differ from the board's)
        self._window = self.board.persistence_cycles_at(self.chip.frequency)
        named = [a for a in self.board.analog if a.name == "noise"] or list(self.board.analog)
        if not named:
            raise FairdieError(f"board {self.board.name}: no analog input for the noise")
        self._analog = named[0]
        self._trace_start = 0
        self.set_noise(noise)

    # ---- stimulus ---------------------------------------------------------

    def set_noise(self, noise: NoiseModel | str | None) -> None:
        """Attach a noise source to the floating ADC pin."""
        if noise is None or isinstance(noise, str):
            try:
                noise = parse_noise(noise or "floating", seed=self.seed, vcc_mv=self.chip.vcc_mv)
            except ValueError as e:
                raise FairdieError(str(e)) from None
        self.noise = noise
        self.chip.set_adc(self._analog.channel, noise)

    # ---- the table ----------------------------------------------------------

    @property
    def counts(self) -> tuple[int, ...]:
        """The six counters as stored in EEPROM (face 1 first)."""
        return tuple(self.chip.read_eeprom(COUNTER_ADDRESSES.start, len(COUNTER_ADDRESSES)))

    def set_counts(self, counts: Sequence[int]) -> None:
        if len(counts) != 6 or any(not 0 <= c <= 255 for c in counts):
            raise FairdieError(f"counts must be six bytes 0..255, not {list(counts)}")
        self.chip.write_eeprom(COUNTER_ADDRESSES.start, bytes(counts))

    # ---- the display ----------------------------------------------------------

    def lit(self, at: int | None = None) -> frozenset[str]:
        """LEDs seen lit over the persistence window ending at cycle ``at`` (default: now)."""
        end = self.chip.cycle if at is None else at
        start = max(self._trace_start, end - self._window)
        if end <= start or (not self.chip.powered and at is None):
            return frozenset()
        return self._leds.visible_cycles(self.chip.leds_lit_cycles(start, end), end - start)

    def first_lit(self) -> int | None:
        """The cycle since the last power-on at which some LED first lit, if any."""
        return self.chip.leds_first_lit()

    def display(self, at: int | None = None) -> str:
        """ "1".."6", "all", "off" or "invalid", as an eye would read the LEDs."""
        return decode_face(self.lit(at))

    # ---- pressing ---------------------------------------------------------------

    def power_on(self) -> None:
        self.chip.clear_trace()
        self._trace_start = self.chip.cycle
        self.chip.leds_restart()
        self.chip.power_on()

    def press(self, hold: float = 0.2) -> Press:
        """Hold the power switch for ``hold`` seconds, then let go."""
        if not 0 < hold <= _MAX_HOLD_S:
            raise FairdieError(f"hold {hold} s is out of range (0..{_MAX_HOLD_S:g} s)")
        self.power_on()
        settle = min(hold, SETTLE_S)
        self.chip.run(seconds=settle)
        # a face counts as shown once it has been lit for a whole persistence
        # window: a multiplexed display needs that long to show every LED
        lit = self.first_lit()
        seen = lit is not None and self.chip.cycle - lit >= self._window
        shown = self.display() if seen else "off"
        if hold > settle:
            self.chip.run(seconds=hold - settle)
        end = self.display()
        codes = tuple(c.code for c in self.chip.adc_log())
        self.chip.power_off()
        return Press(
            face=int(shown) if shown.isdigit() else None,
            display=end,
            counts=self.counts,
            adc_codes=codes,
            hold_s=hold,
        )
