"""fairdie.sim: a simulated AVR chip, driven from Python, run in C.

The public names are re-exported from private modules. Importing this package
does not load the compiled simavr binding until :class:`Chip` is first used,
so pure-Python parts (firmware parsing, value types) work without it;
:class:`NoiseStream` (the noise models' C kernels) is a compiled module of its
own that needs only libm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdie.sim._firmware import (
    DeviceInfo,
    Firmware,
    Symbol,
    check_fits,
    load_firmware,
    mcu_matches,
)
from fairdie.sim._fuses import MCU_FUSES, FuseLayout, Fuses, fuses
from fairdie.sim._sleep import SLEEP_MODES, canonical_sleep_mode, sleep_mode_name, sleep_modes
from fairdie.sim._types import (
    AdcConversion,
    EepromWrite,
    Event,
    EventKind,
    Level,
    PinChange,
    PowerCycle,
    StopReason,
    Until,
    parse_pin,
)
from fairdie.sim._unmodelled import UNMODELLED, Unmodelled

if TYPE_CHECKING:
    from fairdie.sim._chip import (
        AdcSource,
        Chip,
        ChipRecorder,
        Snapshot,
        Trace,
        record_chips,
        simavr_models,
    )
    from fairdie.sim._noise import NoiseStream

__all__ = [
    "MCU_FUSES",
    "SLEEP_MODES",
    "UNMODELLED",
    "AdcConversion",
    "AdcSource",
    "Chip",
    "ChipRecorder",
    "DeviceInfo",
    "EepromWrite",
    "Event",
    "EventKind",
    "Firmware",
    "FuseLayout",
    "Fuses",
    "Level",
    "NoiseStream",
    "PinChange",
    "PowerCycle",
    "Snapshot",
    "StopReason",
    "Symbol",
    "Trace",
    "Unmodelled",
    "Until",
    "canonical_sleep_mode",
    "check_fits",
    "fuses",
    "load_firmware",
    "mcu_matches",
    "parse_pin",
    "record_chips",
    "simavr_models",
    "sleep_mode_name",
    "sleep_modes",
]

_COMPILED = {
    "AdcSource",
    "Chip",
    "ChipRecorder",
    "Snapshot",
    "Trace",
    "record_chips",
    "simavr_models",
}


def __getattr__(name: str) -> Any:
    if name in _COMPILED:
        from fairdie.sim import _chip

        return getattr(_chip, name)
    if name == "NoiseStream":  # the noise kernels: a module of their own, without simavr
        from fairdie.sim._noise import NoiseStream

        return NoiseStream
    raise AttributeError(f"module 'fairdie.sim' has no attribute {name!r}")
