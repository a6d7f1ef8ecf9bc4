"""The supply currents the energy estimate rests on, each with its source.

The ATtiny13A datasheet (Atmel 8126F-AVR-05/12), Table 18-1 "DC
Characteristics", gives typical supply currents at a few points only
(measured with an external clock, PRR = 0xFF, no I/O load, 25 C):

- active mode: 0.2 mA at 1 MHz / 2 V, 1.2 mA at 4 MHz / 3 V;
- idle mode: 0.03 mA at 1 MHz / 2 V, 0.2 mA at 4 MHz / 3 V;
- power-down at 3 V: 3.9 uA with the watchdog on, 0.15 uA with it off.

The estimate scales the 3 V points linearly with the clock (0.30 mA per MHz
active, 0.05 mA per MHz idle: 0.36 and 0.06 mA at the die's 1.2 MHz). The
datasheet gives no EEPROM programming current and no ADC current in a table;
those two are assumptions, stated as such (replace them with a measurement
of your board). A CR2032's 225 mAh is its nominal capacity (to 2.0 V at a
light load); a coin cell gives less at the milliamps LEDs draw.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CR2032_MAH", "FIGURES", "Figure", "active_ma", "idle_ma"]


@dataclass(frozen=True)
class Figure:
    """One current the estimate uses."""

    name: str
    value: float
    unit: str  #: "mA", "uA" or "mA/MHz"
    source: str

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "value": self.value, "unit": self.unit, "source": self.source}


_TABLE = "ATtiny13A datasheet 8126F, Table 18-1, typical"

#: every figure, by key
FIGURES: dict[str, Figure] = {
    f.name: f
    for f in (
        Figure("active", 0.30, "mA/MHz", f"{_TABLE}: 1.2 mA at 4 MHz, 3 V, scaled by the clock"),
        Figure("idle", 0.05, "mA/MHz", f"{_TABLE}: 0.2 mA at 4 MHz, 3 V, scaled by the clock"),
        Figure("power-down, watchdog on", 3.9, "uA", f"{_TABLE}: WDT enabled, 3 V"),
        Figure("power-down, watchdog off", 0.15, "uA", f"{_TABLE}: WDT disabled, 3 V"),
        Figure(
            "ADC on",
            0.3,
            "mA",
            "assumption: the order of the AVR datasheets' typical ADC current at 3 V"
            " (no table figure for the ATtiny13A)",
        ),
        Figure(
            "EEPROM programming",
            1.5,
            "mA",
            "assumption: added while EEPE is set (the datasheet gives no figure)",
        ),
    )
}

#: nominal capacity of a CR2032 coin cell (mAh)
CR2032_MAH = 225.0


def active_ma(f_cpu: int) -> float:
    """Active-mode supply current (mA) at ``f_cpu`` Hz."""
    return FIGURES["active"].value * f_cpu / 1e6


def idle_ma(f_cpu: int) -> float:
    """Idle-mode supply current (mA) at ``f_cpu`` Hz."""
    return FIGURES["idle"].value * f_cpu / 1e6
