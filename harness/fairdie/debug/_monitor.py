"""gdb's ``monitor`` commands: drive the device around the chip from gdb.

Each command returns the text gdb prints. A command that runs the chip
(``press``) runs it as the device layer does, without stopping at
breakpoints; gdb sees where it ended at its next stop (``stepi``), or at
once after ``maint flush register-cache``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from fairdie.device import Device
from fairdie.errors import FairdieError
from fairdie.noise import parse_noise
from fairdie.sim._chip import Chip

__all__ = ["HELP", "Monitor"]

HELP = """\
monitor commands (fairdie debug):
  press             press the die: power on and run until its face shows
                    (breakpoints do not stop it); the chip stays powered
  power on          power-on reset: PC 0, halted; `continue` runs the firmware
  power off         cut the power (an EEPROM write in flight is lost)
  noise SPEC        what the analog input reads from now on: floating,
                    uniform, stuck:MV, rail-low, rail-high, hum:HZ,
                    biased:P0,P1,..., trace:FILE.csv
  status            power, cycle, PC, sleep and what the display shows
  help              this text
"""

_STALE = "(gdb shows the new registers at its next stop, or after `maint flush register-cache`)"
#: the longest a press runs waiting for a face
_PRESS_LIMIT_S = 1.0


class Monitor:
    """The monitor commands over a chip and, when there is one, its device
    (a :class:`~fairdie.die.Die` can be pressed)."""

    def __init__(self, chip: Chip, device: Device | None = None) -> None:
        self.chip = chip
        self.device = device
        self._commands: dict[str, Callable[[list[str]], str]] = {
            "help": self._help,
            "press": self._press,
            "power": self._power,
            "noise": self._noise,
            "status": self._status,
        }

    def run(self, line: str) -> str:
        """One command line; the answer ends in a newline."""
        try:
            words = shlex.split(line)
        except ValueError as e:
            return f"monitor: {e}\n"
        if not words:
            return HELP
        command = self._commands.get(words[0].lower())
        if command is None:
            return f"monitor: unknown command {words[0]!r}: try `monitor help`\n"
        try:
            return command(words[1:]).rstrip("\n") + "\n"
        except FairdieError as e:
            return f"monitor {words[0]}: {e}\n"

    # ---- commands ---------------------------------------------------------------

    def _help(self, args: list[str]) -> str:
        return HELP

    def _power(self, args: list[str]) -> str:
        chip = self.chip
        if args == ["on"]:
            if chip.powered:
                return "power on: already on (`monitor power off` first)"
            if self.device is not None:
                self.device.power_on()
            else:
                chip.power_on()
            return f"powered on at cycle {chip.cycle}: pc 0x{chip.pc:04x} (reset) {_STALE}"
        if args == ["off"]:
            if not chip.powered:
                return "power off: already off"
            cut = chip.power_off()
            what = ""
            if cut is not None:
                what = f"; the EEPROM write of 0x{cut.new:02x} to {cut.address} was cut"
            return f"powered off at cycle {chip.cycle}{what}"
        raise FairdieError("say `monitor power on` or `monitor power off`")

    def _press(self, args: list[str]) -> str:
        from fairdie.die import Die

        if args:
            raise FairdieError("press takes no arguments")
        die = self.device
        if not isinstance(die, Die):
            raise FairdieError("no die to press here (a board with a [die] table has one)")
        chip = die.chip
        if not die.rolls_by_power:
            press = die.roll()
            return f"press {die.presses}: face {press.face}, display {press.display!r} {_STALE}"
        if chip.powered:
            chip.power_off()  # a power-switch die: each press is a power-on
        seek = getattr(die.noise, "seek", None)
        if seek is not None:  # each press reads its own part of the noise
            seek(die.presses)
        die.presses += 1
        die.power_on()
        start = chip.cycle
        limit = start + chip.cycles_for(max(_PRESS_LIMIT_S, die.settle_s))
        step = max(1, die.window // 4)
        while chip.cycle < limit:
            chip.run(min(step, limit - chip.cycle))
            lit = die.first_lit()
            if lit is not None and chip.cycle - lit >= die.window:
                break
        lit = die.first_lit()
        when = (
            f"lit {(lit - start) * 1000 / chip.frequency:.1f} ms after power-on"
            if lit is not None
            else f"nothing lit in {(chip.cycle - start) / chip.frequency:g} s"
        )
        table = f"; table {list(die.counts)}" if die.has_counters else ""
        return (
            f"press {die.presses}: display {die.display()!r} ({when}){table};"
            f" stopped at cycle {chip.cycle}, pc 0x{chip.pc:04x} {_STALE}"
        )

    def _noise(self, args: list[str]) -> str:
        from fairdie.die import Die

        if len(args) != 1:
            raise FairdieError("say `monitor noise SPEC`, e.g. `monitor noise stuck:1500`")
        spec, dev = args[0], self.device
        inputs = dev.board.analog if dev is not None else ()
        # the input a die feeds: the one named "noise", else the first
        analog = next((a for a in inputs if a.name == "noise"), inputs[0] if inputs else None)
        if isinstance(dev, Die):
            dev.set_noise(spec)
        elif dev is not None and analog is not None:
            try:
                model = parse_noise(spec, seed=dev.seed, vcc_mv=self.chip.vcc_mv)
            except ValueError as e:
                raise FairdieError(str(e)) from None
            dev.set_analog(analog.name, model)
        else:
            raise FairdieError("no analog input to feed (the board declares none)")
        where = f" on ADC{analog.channel} ({analog.name})" if analog is not None else ""
        return f"noise {spec}{where}"

    def _status(self, args: list[str]) -> str:
        from fairdie.die import Die

        chip = self.chip
        if not chip.powered:
            return f"powered off, cycle {chip.cycle}"
        t = chip.cycles_powered / chip.frequency
        state = "asleep" if chip.sleeping else "running"
        line = f"powered, cycle {chip.cycle} ({t:.6f} s powered), pc 0x{chip.pc:04x}, {state}"

        if isinstance(self.device, Die):
            line += f", display {self.device.display()!r}"
        return line
