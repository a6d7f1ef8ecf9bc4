"""The die's campaigns G5 (hostile images), G6 (hostile noise) and G7 (wear)."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from quick_runs import HOSTILE, SHARED, quick

from fairdie.board import load_board
from fairdie.subjects.die._models import HEALTHY_CODES, FairModel, SeedModel
from fairdie.subjects.die.faults import Report, Target, replay
from fairdie.subjects.die.faults._hostile import RECOVERY_BOUND, RECOVERY_WINDOW, recovery, run_g5
from fairdie.subjects.die.faults._hostile_noise import G6_NOISES, _table_step, run_g6
from fairdie.subjects.die.faults._images import ERASED
from fairdie.subjects.die.faults._rig import BOOT_LIMIT_S
from fairdie.subjects.die.faults._wear import LIFE_GOAL, WEAR_NOISES, WRITE_CYCLES
from fairdie.subjects.die.faults._work import Unit, Work, rig_for
from fairdie.toolchain import build

pytestmark = [pytest.mark.sim, SHARED]


@pytest.fixture(scope="module")
def fair_quick() -> Report:
    return quick(HOSTILE)


@pytest.fixture(scope="module")
def seed_quick() -> Report:
    return quick(
        HOSTILE, "seed"
    )  # test_faults spreads its G6 over processes (the whole tier: slow)


def _figures(report: Report, campaign: str) -> dict[str, float]:
    return report.outcomes[campaign].figures


def _other_build(variant: str, board: str) -> Target:
    """The die_t13a firmware built as ``variant``, given as a file for ``board``:
    the board's own model judges a firmware that is not its."""
    bd = load_board("die-direct")
    assert bd.firmware is not None
    elf = build(bd.firmware, variant=variant, mcu=bd.mcu, f_cpu=bd.f_cpu).elf
    return Target(board=board, firmware=str(elf))


# ---- the quick tiers ------------------------------------------------------------------------


def test_the_fair_die_passes_every_hostile_campaign(fair_quick: Report) -> None:
    assert fair_quick.violations == 0, fair_quick.as_json()["replays"]
    assert set(fair_quick.outcomes) == set(HOSTILE)


def test_g5_boots_every_hostile_image_and_each_recovers(fair_quick: Report) -> None:
    g5 = fair_quick.outcomes["G5"]
    assert len(g5.images) >= 2_000 + 64 * 4  # random images, and each byte corrupted
    f = _figures(fair_quick, "G5")
    assert 0 <= f["recovery_presses_max"] <= RECOVERY_BOUND
    assert f["chip_sampled"] >= len(g5.images) // 50


def test_g6_every_noise_lights_a_face_in_time(fair_quick: Report) -> None:
    f = _figures(fair_quick, "G6")
    for noise in G6_NOISES:
        if noise not in ("under-range", "search"):
            assert f[f"{noise}_presses"] >= 50, noise
    assert 0 < f["lit_ms_max"] < 1000 * BOOT_LIMIT_S
    assert f["search_examples"] >= 20
    # -500 mV: refused by Stuck, by parse_noise and by the chip at every press
    assert f["under-range_refused"] >= 2 + 5
    assert f["tables_up"] > 0 and f["tables_shift"] > 0  # the fair table normalises


def test_g7_the_fair_ring_lasts_a_million_presses_whatever_the_noise(fair_quick: Report) -> None:
    f = _figures(fair_quick, "G7")
    for label, _ in WEAR_NOISES:
        assert f.get(f"wear_{label}_presses_min", LIFE_GOAL) >= LIFE_GOAL, label
        # a lap of 10 slots: a byte written once in 10 presses that store; a press
        # whose noise fails the health tests stores nothing (a stuck pin: never;
        # biased:3,1 has less entropy than the tests assume: some 1 % fail)
        per_press = f[f"wear_{label}_per_press_max"]
        if label == "stuck":
            assert per_press == 0 and f"wear_{label}_presses_min" not in f, label
        else:
            assert 0.095 <= per_press <= 0.1, label
        assert f[f"wear_{label}_chip_presses"] >= 200, label


def test_the_seed_build_survives_hostile_images_and_noise(seed_quick: Report) -> None:
    for campaign in ("G5", "G6"):
        assert seed_quick.outcomes[campaign].violation_count == 0, seed_quick.as_json()
    assert _figures(seed_quick, "G5")["recovery_presses_max"] == 0  # counters in place
    assert _figures(seed_quick, "G6")["tables_rebase"] > 0  # the counters met 255


def test_g7_the_seed_counters_wear_out_and_say_so(seed_quick: Report) -> None:
    g7 = seed_quick.outcomes["G7"]
    f = _figures(seed_quick, "G7")
    assert {v.invariant for v in g7.violations} == {"G7"}  # the chip agrees with its model
    assert g7.violation_count == len(WEAR_NOISES)
    for label, _ in WEAR_NOISES:
        assert f[f"wear_{label}_presses_min"] < LIFE_GOAL, label
        assert f[f"wear_{label}_presses_min"] == pytest.approx(
            WRITE_CYCLES / f[f"wear_{label}_per_press_max"]
        )
    for v in g7.violations:  # each replays: its id reruns the noise's presses
        assert [a.detail for a in replay(v.replay) if a.invariant == "G7"] == [v.detail]


# ---- G5: the checks catch what they should ----------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "board", "invariant"),
    [
        ("direct", "die-charlieplex", "I4"),  # its LEDs on other pins: no face lights
        ("seed", "die-direct", "model"),  # one conversion a press, not the fair rule's 64 or more
    ],
)
def test_g5_a_firmware_its_model_does_not_describe_fails_and_replays(
    variant: str, board: str, invariant: str
) -> None:
    work = Work(Unit("G5", _other_build(variant, board), ("random", 0, 3, 0)))
    run_g5(work)
    found = work.out.violations
    assert invariant in {v.invariant for v in found}
    for v in found:
        again = replay(v.replay)
        assert again, v  # a boot judged again; a sampled press cut where it ended (I1/I2)
        if v.replay.endswith("~boot"):
            assert [a.invariant for a in again] == [v.invariant]


class _Forgetful:
    """The fair model, but its first ``lost`` presses store nothing."""

    def __init__(self, lost: int) -> None:
        self.model = FairModel()
        self.lost = lost
        self.reads = self.model.reads

    def state(self, image: bytes) -> bytes:
        return self.model.state(image)

    def conversions(self, codes: Sequence[int]) -> int:
        return self.model.conversions(codes)

    def step(self, state: bytes, codes: Sequence[int]) -> tuple[int | None, bytes]:
        return self.model.step(state, codes)

    def press(self, image: bytes, codes: Sequence[int]) -> tuple[int | None, bytes]:
        self.lost -= 1
        face, after = self.model.press(image, codes)
        return face, image if self.lost >= 0 else after


def test_recovery_counts_the_presses_before_the_die_keeps_them() -> None:
    rng = random.Random(0)
    assert recovery(FairModel(), ERASED, rng).presses == 0
    assert recovery(SeedModel(), bytes(64), rng).presses == 0
    r = recovery(_Forgetful(3), ERASED, rng)  # type: ignore[arg-type]
    assert (r.presses, r.unkept) == (3, 3) and r.last is not None
    never = recovery(_Forgetful(10**6), ERASED, rng)  # type: ignore[arg-type]  # stores nothing
    assert never.presses > RECOVERY_BOUND + RECOVERY_WINDOW and never.unkept == never.presses


# ---- G6: the table check, the refusal, the search ---------------------------------------------


def test_the_table_check_allows_a_shift_or_the_rebase_and_nothing_else() -> None:
    seed = SeedModel()
    step = lambda before, after, face: _table_step(  # noqa: E731
        seed, seed.with_table(before), seed.with_table(after), face
    )
    assert step((1, 2, 3, 4, 5, 6), (2, 2, 3, 4, 5, 6), 1) == "up"
    assert step((5, 2, 3, 4, 5, 6), (3, 0, 1, 2, 3, 5), 6) == "shift"
    assert step((0, 255, 7, 7, 7, 7), (0, 9, 7, 7, 7, 7), 2) == ""
    # the seed's rebase: 254 is free, so the 255 drops to it before it goes up
    assert step((0, 255, 7, 7, 7, 7), (0, 255, 7, 7, 7, 7), 2) == "rebase"
    assert step((0, 255, 7, 7, 7, 7), (0, 0, 7, 7, 7, 7), 2) == ""  # wrapped
    assert step((1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6), 1) == ""  # lost
    fair = FairModel()
    lap = fair.with_table([3, 3, 3, 3, 3, 0])
    assert _table_step(fair, lap, fair.press(lap, HEALTHY_CODES)[1], 6) == "shift"


def test_g6_below_ground_is_refused_cleanly() -> None:
    work = Work(Unit("G6", Target(), ("under-range", 0, 30, 0)))
    run_g6(work)
    assert work.out.violation_count == 0, work.out.violations
    assert work.out.figures["under-range_refused"] == 2 + 3


def test_g6_the_search_finds_a_firmware_its_model_does_not_describe() -> None:
    work = Work(Unit("G6", _other_build("direct", "die-charlieplex"), ("search", 0, 20, 0)))
    run_g6(work)
    assert work.out.violation_count >= 1
    # found at once and shrunk, the search stops: no examples beyond the shrinker's
    assert 1 <= work.out.figures["search_examples"] < 20
    for v in work.out.violations:
        assert replay(v.replay), v


def _record(seq: int, state: bytes) -> bytes:
    """A valid record of the fair ring (fairdie.subjects.die._ring) for phase 0."""
    head = bytes((seq, *state))
    return head + bytes((head[0] ^ head[1] ^ head[2] ^ head[3] ^ 0x5B, 0xA5))


#: an erased chip but for three valid records laps apart, seqs 01, 12 and 43 in
#: slots 1..3: the ring goes on to slots 4..9 and wraps to slot 0 (lap 5). Were
#: the scan to take records up to 63 ahead, 0x01 (49 ahead of 0x50 in 7 bits)
#: would win over it and lead to slot 9 again, so that no later save was ever
#: the newest; store.S takes 1..15 ahead, as far as a ring of saves spreads
LAPS_APART = (
    b"\xff" * 6 + b"".join(_record(seq, b"\x00\x10\x01") for seq in (0x01, 0x12, 0x43))
).ljust(64, b"\xff")


def test_the_fair_ring_recovers_from_records_laps_apart() -> None:
    rig = rig_for(Target())
    model = rig.model
    rng = random.Random(3)
    image = LAPS_APART
    kept = []
    for _ in range(RECOVERY_BOUND + RECOVERY_WINDOW):
        codes = [rng.randrange(1024) for _ in range(model.reads)]
        w = rig.press(image, codes, 0.06)
        assert (w.face, w.after) == model.press(image, codes)  # the model is right
        kept.append(model.state(w.after) == model.step(model.state(image), codes)[1])
        image = w.after
    assert all(kept[RECOVERY_BOUND:]), kept


def test_a_rig_is_made_again_once_its_firmware_file_is_rewritten(tmp_path: Path) -> None:
    """A worker process serves campaign after campaign (fairdie.campaigns
    keeps its pool): a rig made of a file must not outlive the file's contents."""
    setup = Target().resolved().setup
    assert setup is not None
    elf = tmp_path / "die.elf"
    shutil.copy(setup.firmware, elf)
    target = Target(firmware=str(elf))
    rig = rig_for(target)
    assert rig_for(target) is rig
    st = elf.stat()
    os.utime(elf, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # as if rebuilt
    rebuilt = rig_for(target)
    assert rebuilt is not rig
    # rewritten, its modification time put back (cp -p, rsync -t): made again too
    st = elf.stat()
    shutil.copy(setup.firmware, elf)
    os.utime(elf, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert elf.stat().st_mtime_ns == st.st_mtime_ns
    assert rig_for(target) is not rebuilt
