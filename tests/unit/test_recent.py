"""The process caches' one rule (fairdie._recent.Recent): the newest kept, the oldest dropped."""

from __future__ import annotations

import pytest

from fairdie._recent import Recent


def test_a_value_is_made_once_while_its_key_is_among_the_last_asked_for() -> None:
    made: list[str] = []
    cache: Recent[str, str] = Recent(2)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    def get(key: str) -> str:
        return cache.get(key, lambda: make(key))

    assert [get("a"), get("b"), get("a")] == ["A", "B", "A"]
    assert made == ["a", "b"]
    get("c")  # three keys: b, asked for least recently, goes; a stays
    get("a")
    get("b")
    assert made == ["a", "b", "c", "b"]


def test_a_value_put_is_the_newest() -> None:
    cache: Recent[int, int] = Recent(2)
    cache.put(1, 10)
    cache.put(2, 20)
    assert cache.put(1, 11) == 11  # 1 again: now newer than 2
    cache.put(3, 30)
    assert cache.get(1, lambda: -1) == 11
    assert cache.get(2, lambda: -1) == -1


def test_a_cache_keeps_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Recent(0)


def test_an_error_of_make_is_its_own_and_keeps_nothing() -> None:
    cache: Recent[str, int] = Recent(2)

    def broken() -> int:
        raise RuntimeError("no such firmware")

    with pytest.raises(RuntimeError) as raised:
        cache.get("a", broken)
    assert raised.value.__context__ is None  # not raised while handling a lookup's KeyError
    assert cache.get("a", lambda: 1) == 1
