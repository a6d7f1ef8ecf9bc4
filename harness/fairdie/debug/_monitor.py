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
  press [NAME [S]]  press the board's button NAME for S seconds (default 0.2)
                    and say what its LEDs and displays show; without NAME,
                    the device's own press (a die: power on or roll, run
                    until its face shows), else the board's only button.
                    Breakpoints do not stop it; the chip stays powered
  power on          power-on reset: PC 0, halted; `continue` runs the firmware
  power off         cut the power (an EEPROM write in flight is lost)
  noise SPEC        what the analog input reads from now on: floating,
                    uniform, stuck:MV, rail-low, rail-high, dead,
                    weak:RATIO, hum:HZ, biased:P0,P1,..., trace:FILE.csv
  status            power, cycle, PC, sleep and what the LEDs and displays show
  help              this text
"""

_STALE = "(gdb shows the new registers at its next stop, or after `maint flush register-cache`)"
#: how long ``monitor press NAME`` holds the button by default
_HOLD_S = 0.2


def shown(device: Device) -> str:
    """What the board's LEDs and displays show now, in a few words."""
    lit = sorted(device.lit())
    parts = [f"LEDs lit: {', '.join(lit) if lit else 'none'}"]
    parts += [f"{d.name} {device.read(d)!r}" for d in device.board.displays]
    return "; ".join(parts)


class Monitor:
    """The monitor commands over a chip and, when there is one, its device.

    A device may press its own way (``debug_press() -> str``, for ``monitor
    press`` without a name) and feed its own analog input
    (``set_noise(spec)``); a subject's device class adds them."""

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
        dev = self.device
        if dev is None:
            raise FairdieError("no board here: run fairdie debug with --board to press buttons")
        if len(args) > 2:
            raise FairdieError("say `monitor press [NAME [SECONDS]]`")
        own = getattr(dev, "debug_press", None)  # a subject's device presses its own way
        if not args and own is not None:
            return f"{own()} {_STALE}"
        buttons = [b.name for b in dev.board.buttons]
        if not args and len(buttons) != 1:
            raise FairdieError(f"name a button (buttons: {', '.join(buttons) or 'none'})")
        name = args[0] if args else buttons[0]
        try:
            hold = float(args[1]) if len(args) > 1 else _HOLD_S
        except ValueError:
            raise FairdieError(f"not a number of seconds: {args[1]!r}") from None
        dev.press(name, hold=hold)
        chip = self.chip
        return f"pressed {name} for {hold:g} s: {shown(dev)}; cycle {chip.cycle} {_STALE}"

    def _noise(self, args: list[str]) -> str:
        if len(args) != 1:
            raise FairdieError("say `monitor noise SPEC`, e.g. `monitor noise stuck:1500`")
        spec, dev = args[0], self.device
        inputs = dev.board.analog if dev is not None else ()
        # the input a die feeds: the one named "noise", else the first
        analog = next((a for a in inputs if a.name == "noise"), inputs[0] if inputs else None)
        own = getattr(dev, "set_noise", None)  # a subject's device feeds its own input
        if own is not None:
            own(spec)
        elif dev is not None and analog is not None:
            try:
                model = parse_noise(spec, seed=dev.seed, vcc_mv=self.chip.vcc_mv)
            except ValueError as e:
                raise FairdieError(str(e)) from None
            dev.set_analog(analog.name, model)
        else:
            raise FairdieError("no analog input to feed (the board declares none)")
        where = f" on {analog.inputs} ({analog.name})" if analog is not None else ""
        return f"noise {spec}{where}"

    def _status(self, args: list[str]) -> str:
        chip = self.chip
        if not chip.powered:
            return f"powered off, cycle {chip.cycle}"
        t = chip.cycles_powered / chip.frequency
        state = "asleep" if chip.sleeping else "running"
        line = f"powered, cycle {chip.cycle} ({t:.6f} s powered), pc 0x{chip.pc:04x}, {state}"

        if self.device is not None:
            line += f"; {shown(self.device)}"
        return line
