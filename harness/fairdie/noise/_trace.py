"""Recorded readings of a real pin, replayed: the :class:`Trace` noise model."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from fairdie._files import read_input
from fairdie.noise._adc import ADC_MAX, mv_for_code
from fairdie.noise._fixed import Cycle
from fairdie.noise._seeded import check_count, check_press, check_vcc
from fairdie.sim._noise import Values

__all__ = ["Trace"]

_COLUMNS = ("mv", "code")


class Trace(Cycle):
    """Readings recorded from a real pin, replayed in order and then again.

    ``path`` is a CSV file whose header names a column ``mv`` (millivolts,
    0..vcc) or ``code`` (ADC codes 0..1023, replayed as
    :func:`~fairdie.noise.mv_for_code` of the code); other columns are
    ignored, and so are blank lines. Every channel reads the one recording,
    in turn. ``per_press`` is how many conversions the firmware makes per
    press: :meth:`seek` starts press ``k`` at row ``(k * per_press) % rows``.
    A missing or empty file, a bad header or a bad value raises a one-line
    ValueError naming the file (and the row, by its line number in the file).
    """

    def __init__(self, path: str | Path, vcc_mv: float = 3000, *, per_press: int = 16) -> None:
        self.path = Path(path)
        self.vcc_mv = check_vcc(vcc_mv)
        self.per_press = per_press
        self._replay(_load(self.path, self.vcc_mv))

    @property
    def per_press(self) -> int:
        """The conversions the firmware makes per press (>= 1)."""
        return self._per_press

    @per_press.setter
    def per_press(self, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"per_press must be an integer >= 1, got {n!r}")
        self._per_press = n

    @property
    def rows(self) -> int:
        """The readings in the recording."""
        return len(self._mv)

    def seek(self, press: int) -> None:
        """Start press ``press`` at row ``(press * per_press) % rows``."""
        self._move(self._row(press))

    def press_values(self, press: int, n: int, channel: int = 0) -> Values:
        """The first ``n`` values of press ``press``, from its row on, in turn."""
        rows = self._row(press) + np.arange(check_count(n))
        return self._values[rows % len(self._mv)]

    def _row(self, press: int) -> int:
        return check_press(press) * self._per_press % len(self._mv)

    def __repr__(self) -> str:
        return f"Trace({str(self.path)!r}, vcc_mv={self.vcc_mv:g}, per_press={self.per_press})"


#: the largest recording read: some million readings (a device or a runaway
#: file given by mistake is refused, not read until memory runs out)
MAX_TRACE_BYTES = 16 * 1024 * 1024


def _load(path: Path, vcc: float) -> tuple[float, ...]:
    name = str(path)

    def error(message: str) -> ValueError:
        return ValueError(f"noise trace {message}")

    data = read_input(path, "recording", error, limit=MAX_TRACE_BYTES)
    try:
        return _read(io.StringIO(data.decode("utf-8-sig"), newline=""), name, vcc)
    except (csv.Error, UnicodeDecodeError) as e:
        raise ValueError(f"noise trace {name}: not a CSV text file ({e})") from None


def _read(lines: Iterable[str], name: str, vcc: float) -> tuple[float, ...]:
    rows = csv.reader(lines)
    header = next((r for r in rows if any(c.strip() for c in r)), None)
    if header is None:
        raise ValueError(f"noise trace {name}: empty, expected a header naming a column mv or code")
    names = [h.strip().lower() for h in header]
    found = [c for c in _COLUMNS if c in names]
    if len(found) != 1:
        raise ValueError(
            f"noise trace {name}: row {rows.line_num}: the header must name one column"
            f" mv or code, got {','.join(header)!r}"
        )
    column = found[0]
    i = names.index(column)
    values: list[float] = []
    for row in rows:
        if not any(c.strip() for c in row):
            continue
        where = f"noise trace {name}: row {rows.line_num}"
        text = row[i].strip() if i < len(row) else ""
        if column == "code":
            try:
                code = int(text)
            except ValueError:
                raise ValueError(f"{where}: {text!r} is not a code 0..{ADC_MAX}") from None
            if not 0 <= code <= ADC_MAX:
                raise ValueError(f"{where}: code {code} is outside 0..{ADC_MAX}")
            values.append(mv_for_code(code, vcc))
        else:
            try:
                mv = float(text)
            except ValueError:
                raise ValueError(f"{where}: {text!r} is not a number") from None
            if not 0 <= mv <= vcc:  # also NaN
                raise ValueError(f"{where}: {text} mV is outside 0..{vcc:g} mV")
            values.append(mv)
    if not values:
        raise ValueError(f"noise trace {name}: no readings after the header")
    return tuple(values)
