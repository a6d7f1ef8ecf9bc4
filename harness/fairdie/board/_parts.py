"""The parts a board file declares, as frozen values (parsing is in ``_model``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "GND",
    "INVALID",
    "OFF",
    "VCC",
    "AnalogInput",
    "Bounce",
    "Button",
    "Display",
    "Led",
]

VCC = "VCC"
GND = "GND"

#: What :meth:`Display.decode` returns for a lit set no symbol names.
INVALID = "invalid"
#: What :meth:`Display.decode` returns for nothing lit, unless a symbol claims it.
OFF = "off"


@dataclass(frozen=True, slots=True)
class Led:
    """One LED between two terminals: a port pin (``"PB0"``), ``"VCC"`` or ``"GND"``.

    ``x``/``y`` place it on the board's grid (column from the left, row from
    the top), or are ``None`` when the board file gives no position.
    ``series`` names the series string it belongs to: LEDs in series share
    one anode/cathode pair and light together.
    """

    name: str
    anode: str
    cathode: str
    x: int | None = None
    y: int | None = None
    series: str | None = None


@dataclass(frozen=True, slots=True)
class AnalogInput:
    """A named analog input: the pin, its single-ended ADC channel and its
    analog comparator input (``"AIN0"``, ``"AIN1"``), at least one of the two.
    Feeding the input feeds every one it has."""

    name: str
    pin: str
    channel: int | None
    comparator: str | None = None

    @property
    def inputs(self) -> str:
        """What the pin feeds, for messages: ``"ADC2"``, ``"AIN0"``, ``"ADC1/AIN0"``."""
        adc = f"ADC{self.channel}" if self.channel is not None else None
        return "/".join(x for x in (adc, self.comparator) if x)


@dataclass(frozen=True, slots=True)
class Bounce:
    """Contact bounce: after each edge the contact opens and closes again
    ``count`` times, ``spacing_us`` apart on average (each gap is drawn,
    seeded, from 0.5 to 1.5 times that)."""

    count: int = 0
    spacing_us: float = 500.0


NO_BOUNCE = Bounce()


@dataclass(frozen=True, slots=True)
class Button:
    """A button. ``kind == "power"`` is the supply switch (no pin).

    An ``"input"`` button pulls ``pin`` to its ``active`` level ("low" or
    "high") while pressed. ``pull`` is what holds the pin while it is
    released: ``"chip"`` (the MCU's own pull-up, which the firmware must
    switch on), ``"up"`` or ``"down"`` (a resistor on the board), or
    ``"none"`` (the button drives the inactive level itself). ``shares``
    names the LEDs on the same pin, when the firmware shares it between
    them (the package docstring says how the pin model resolves the two).
    """

    name: str
    kind: str
    pin: str | None = None
    active: str | None = None
    pull: str | None = None
    bounce: Bounce = NO_BOUNCE
    shares: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Display:
    """A named set of LEDs and the symbols their lit sets show."""

    name: str
    leds: tuple[str, ...]
    symbols: Mapping[frozenset[str], str]

    def __hash__(self) -> int:  # the symbol table is a mapping: hash its items
        return hash((self.name, self.leds, frozenset(self.symbols.items())))

    def decode(self, lit: frozenset[str]) -> str:
        """The symbol the display's lit LEDs show: one of its symbols, ``"off"``
        when none is lit (unless a symbol is the empty set), else ``"invalid"``."""
        mine = lit.intersection(self.leds)
        found = self.symbols.get(mine)
        if found is not None:
            return found
        return OFF if not mine else INVALID

    @property
    def symbol_names(self) -> tuple[str, ...]:
        return tuple(self.symbols.values())

    def lit_for(self, symbol: str) -> frozenset[str]:
        """The LEDs lit for ``symbol``. Raises KeyError for an unknown symbol."""
        for leds, name in self.symbols.items():
            if name == symbol:
                return leds
        if symbol == OFF:
            return frozenset()
        raise KeyError(f"display {self.name!r} has no symbol {symbol!r}")
