"""The power-cut campaigns' parts that need no chip: replay ids, starting
images, and how outcomes merge (torn values: tests/unit/test_campaigns_torn.py)."""

from __future__ import annotations

import pytest

from fairdie.subjects.die._models import model_named
from fairdie.subjects.die.faults import FaultsError, Target, Violation
from fairdie.subjects.die.faults._ids import parse_replay, replay_id, step
from fairdie.subjects.die.faults._images import every_value_images, start_images
from fairdie.subjects.die.faults._outcome import KEEP, Outcome


def test_replay_ids_round_trip():
    target = Target(board="die-direct", variant="seed")
    text = replay_id(
        "G3",
        target,
        bytes(range(64)),
        [0, 1023, 512],
        [step(100, 0x5A), step(7, None), step(9, None, 33), step(9, 0xA0, 0)],
    )
    assert parse_replay(text) == (
        "G3",
        target,
        bytes(range(64)),
        [0, 1023, 512],
        [(100, 0x5A, None), (7, None, None), (9, None, 33), (9, 0xA0, 0)],
    )
    fw = Target(board="b.toml", firmware="/x/die.elf")
    assert parse_replay(replay_id("G1", fw, b"\xff" * 64, [], ["boot"]))[1:] == (
        fw,
        b"\xff" * 64,
        [],
        [None],
    )


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "G1~a~b",
        "G1~die-direct~~zz~000~c1t00",
        "G1~die-direct~~ff~00~c1t00",
        "G1~d~~ff~000~x1",
        "G1~d~~ff~000~c1t00m",
        "G1~d~~ff~000~c1t00mzz",
    ],
)
def test_a_bad_replay_id_is_one_error(bad):
    with pytest.raises(FaultsError, match="not a replay id"):
        parse_replay(bad)


@pytest.mark.parametrize("name", ["fair", "seed"])
def test_at_least_40_distinct_starting_images(name):
    images = start_images(model_named(name))
    assert len({i for _, i in images}) == len(images) >= 40
    assert all(len(i) == 64 for _, i in images)


def test_the_quick_tier_cuts_every_value_across_the_storages_edge():
    from fairdie.subjects.die import _ring
    from fairdie.subjects.die._models import HEALTHY_CODES

    for name in ("fair", "seed"):
        model = model_named(name)
        images = dict(start_images(model))
        fresh, edge = every_value_images(model)
        assert images[fresh] == b"\xff" * 64
        before = images[edge]
        after = model.press(before, HEALTHY_CODES)[1]
        changed = [a for a in range(64) if before[a] != after[a]]
        if name == "fair":  # the ring's wrap: slot 9 newest, the save goes to slot 0
            assert _ring.load(before).slot == _ring.SLOTS - 1 and changed == list(range(6))
        else:  # the seed's rebase: every counter comes down
            assert changed == list(range(6)) and all(after[i] < before[i] for i in changed)


def test_outcomes_merge_figures_and_keep_a_bounded_list():
    a, b = Outcome("G4"), Outcome("G4")
    for o, (hold, n) in ((a, (0.5, 3)), (b, (11.0, 4))):
        o.figure("hold_s_max", hold)
        o.figure("hold_s_min", hold)
        o.figure("cuts_in_writes", n)
        o.booted(bytes([n]) * 64)
        o.cut_write(256)
        o.cycles_covered += n
    for _ in range(KEEP + 5):
        b.violate(Violation("I1", "id", "x"))
    a.merge(b)
    assert a.figures == {"hold_s_max": 11.0, "hold_s_min": 0.5, "cuts_in_writes": 7}
    assert len(a.images) == 2 and a.violation_count == KEEP + 5 and len(a.violations) == KEEP
    assert a.torn == {256: 2} and a.cycles_covered == 7


def test_a_unit_replay_id_carries_the_units_arguments():
    from fairdie.subjects.die.faults._ids import unit_args, unit_step

    args = ("biased", "biased:3,1", 0, 2000, 200, 7)
    text = replay_id("G7", Target(variant="seed"), b"", [], [unit_step(args)])
    assert unit_args(text) == args
    assert parse_replay(text)[:2] == ("G7", Target(variant="seed"))
    assert unit_args(replay_id("G1", Target(), b"\xff", [1], [step(5, 1)])) is None
    with pytest.raises(FaultsError, match="not a replay id"):
        unit_args("G7~die-direct~~~~unit=zz")
