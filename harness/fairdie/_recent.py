"""The values made for the last few keys a process asked for.

A process that serves one request after another (a kept campaign worker, a
test session, a long CLI run) keeps what it made for the recent ones: loaded
firmwares, rigs, walks of a model. :func:`functools.lru_cache` keys on a
function's arguments; these caches key on something the caller derives (a
file's stamp, a model's name and a seed), so they share this small class.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar, cast

__all__ = ["Recent"]

_K = TypeVar("_K", bound=Hashable)
_MISSING: Any = object()
_V = TypeVar("_V")


class Recent(Generic[_K, _V]):
    """Values by key, at most ``keep`` of them: a key asked for or put moves
    to the newest end, and beyond ``keep`` the oldest is dropped."""

    def __init__(self, keep: int) -> None:
        if keep < 1:
            raise ValueError(f"a cache keeps at least 1 value, not {keep}")
        self.keep = keep
        self._values: dict[_K, _V] = {}

    def get(self, key: _K, make: Callable[[], _V]) -> _V:
        """The value kept for ``key``, else ``make()``'s, kept."""
        values = self._values
        value = values.pop(key, _MISSING)
        if value is _MISSING:
            return self.put(key, make())
        values[key] = value  # the newest
        return cast("_V", value)

    def put(self, key: _K, value: _V) -> _V:
        """Keep ``value`` for ``key`` (the newest), and return it."""
        values = self._values
        values.pop(key, None)
        values[key] = value
        while len(values) > self.keep:
            del values[next(iter(values))]
        return value
