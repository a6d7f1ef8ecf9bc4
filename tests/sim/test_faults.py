"""The power-cut campaigns on the chip: the die's ring survives every cut of
the quick tier, the seed's storage does not, and every violation replays."""

from __future__ import annotations

import json
import random

import pytest
from quick_runs import CUTS, HOSTILE, SHARED, quick
from simsupport import run_on_a_terminal

from fairdie.cli import main
from fairdie.subjects.die._models import HEALTHY_CODES
from fairdie.subjects.die.faults import (
    CAMPAIGNS,
    FaultsError,
    Report,
    Target,
    replay,
    run_faults,
)
from fairdie.subjects.die.faults._cuts import CLEAR_S, PRESS_S, QUICK_TORN
from fairdie.subjects.die.faults._images import start_images
from fairdie.subjects.die.faults._rig import Rig

pytestmark = [pytest.mark.sim, SHARED]


@pytest.fixture(scope="module")
def fair() -> Report:
    # the board's build named as verify names it: test_verify's check of the default
    # build reads this same run (quick_runs)
    return quick(CUTS, "direct")


@pytest.fixture(scope="module")
def seed() -> Report:
    return quick(CUTS, "seed")


@pytest.mark.parametrize("campaign", CUTS)
def test_the_fair_ring_survives_every_cut(fair, campaign):
    o = fair.outcomes[campaign]
    assert o.cuts > 0 and o.presses > 0
    assert o.violation_count == 0, [v.as_json() for v in o.violations[:3]]


def test_cuts_at_every_cycle_reach_only_images_g1_reaches(fair):
    f = fair.outcomes["G2"].figures
    assert f["images_outside_g1"] == 0


def test_cycles_covered_are_every_cycle_of_the_presses_cut_at_every_cycle(fair):
    o, chip = fair.outcomes["G2"], Rig(Target()).chip
    # the quick tier: a press and a 10 s press from an erased chip, each to the
    # end of its last instruction (at most a few cycles past the hold)
    held = chip.cycles_for(PRESS_S) + chip.cycles_for(CLEAR_S)
    assert held <= o.cycles_covered <= held + 8
    # each simulated cut stands for an instruction or a stretch of sleep: far fewer
    assert 10_000 < o.cuts < o.cycles_covered // 100


def test_cuts_count_each_torn_value_tried(fair):
    o = fair.outcomes["G1"]  # the detector on: no cut misexecutes
    assert o.cuts == sum(n * writes for n, writes in o.torn.items())
    # the quick tier: every write of the presses from an erased chip and across the
    # ring's wrap (a press and a 10 s press each, 6 writes or more apiece) with all 256
    assert o.torn[256] >= 4 * 6 and set(o.torn) == {256, 8}
    out = fair.as_json()
    assert out["torn_values"] == QUICK_TORN
    assert out["campaigns"]["G1"]["torn_values_per_write"] == {
        "256": o.torn[256],
        "8": o.torn[8],
    }


def test_the_soak_holds_from_under_4_ms_to_past_10_s(fair):
    f = fair.outcomes["G4"].figures
    assert f["hold_s_min"] < 0.004 and f["hold_s_max"] > 10
    assert f["cuts_in_writes"] > 100 and f["cuts_in_clears"] > 10


@pytest.mark.parametrize("campaign", CUTS)
def test_the_seeds_counters_are_not_power_safe(seed, campaign):
    o = seed.outcomes[campaign]
    assert o.violation_count > 0
    assert {v.invariant for v in o.violations} <= {"I1", "I2"}


@pytest.mark.parametrize("campaign", CUTS)
def test_every_violation_replays_from_its_id(seed, campaign):
    for v in seed.outcomes[campaign].violations[:5]:
        again = replay(v.replay)
        assert again and again[-1].detail == v.detail


def test_a_fine_replay_finds_nothing(fair):
    rig = Rig(Target())
    w = rig.press(b"\xff" * 64, HEALTHY_CODES, 0.1)
    codes = "".join(f"{c:03x}" for c in w.codes)
    text = f"G1~die-direct~direct~{'ff' * 64}~{codes}~c{w.writes[-1].cycle - w.start}t00"
    assert replay(text) == []


@pytest.mark.parametrize("board", ["die-direct", "die-charlieplex"])
def test_a_boot_from_the_shared_prefix_is_the_whole_boot(board):
    """Rig.boot's shortcut (the chip where the firmware first reads its EEPROM,
    the image stored there) lights the same face at the same cycle, stores the
    same image and reads the same codes as a boot run whole."""
    short, whole = Rig(Target(board=board)), Rig(Target(board=board))
    whole._prefix = None  # made: none, so every boot runs whole
    assert short._boot_prefix() is not None
    rng = random.Random(board)
    images = [image for _, image in start_images(short.model)[:16]]
    images += [rng.randbytes(short.size) for _ in range(8)]
    for image in images:
        assert short.boot(image) == whole.boot(image), image.hex()


#: the ATtiny13A's EEDR (I/O 0x1D) in the data space: what a read of the EEPROM leaves
EEDR = 0x20 + 0x1D


@pytest.mark.parametrize("how", ["read", "wrote"])
def test_a_prefix_that_touched_the_eeprom_is_not_shared(how):
    """Rig._boot_prefix refuses a prefix in whose runs (from an erased chip and
    from all zeros) the EEPROM was read (a byte of the CPU's differs: here EEDR)
    or written (the image changed): boots then run whole."""
    rig = Rig(Target(board="die-direct"))
    start = rig._start

    def touched(image, codes):
        start(image, codes)
        if image == bytes(rig.size):  # the second run, from all zeros
            if how == "read":
                rig.chip.write_data(EEDR, b"\x5a")
            else:
                rig.chip.write_eeprom(rig.size - 1, b"\x5a")

    rig._start = touched
    assert rig._boot_prefix() is None
    rig._start = start
    image = bytes(rig.size)
    assert rig.boot(image) == Rig(Target(board="die-direct")).boot(image)


def test_a_rebase_cut_in_its_4th_write_is_caught():
    """The issue's example: [254, 255, 255, 255, 255, 255] cut during the rebase."""
    rig = Rig(Target(variant="seed"))
    image = bytes([254, 255, 255, 255, 255, 255]) + b"\xff" * 58
    w = rig.press(image, [1], 0.06)
    assert len(w.writes) == 6  # the rebase rewrites all six counters
    steps = f"c{w.writes[3].cycle - w.start}t--"
    found = replay(f"G1~die-direct~seed~{image.hex()}~001~{steps}")
    assert [v.invariant for v in found] == ["I1"]


#: the board's build, named as the fair fixture names it: the images its campaigns
#: booted are not booted again in this process (fairdie.subjects.die.faults._work)
DIRECT = ("--variant", "direct")


def test_cli_json_contract(capsys):
    rc, drawn = run_on_a_terminal("faults", "--campaign", "G1", "--quick", *DIRECT, "--json")
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and drawn == b""  # --json: no bar, even on a terminal
    assert out["violations"] == 0 and out["replays"] == []
    assert out["cuts"] > 0 and out["images"] > 0 and out["seconds"] > 0
    assert out["cycles_covered"] == 0  # G1 cuts as writes start, not at every cycle
    # the parent's share: planning (from starting images this process may have walked
    # already, a few ms that can round to 0) and merging, apart from the units'
    assert (
        0 <= out["parent_cpu_seconds"] < out["cpu_seconds"] == out["campaigns"]["G1"]["cpu_seconds"]
    )
    assert set(out["campaigns"]) == {"G1"}


def test_cli_violations_exit_1_and_print_their_replay(capsys):
    rc = main(["faults", "--campaign", "G1", "--quick", "--variant", "seed"])
    out = capsys.readouterr().out
    assert rc == 1
    replay_line = next(line for line in out.splitlines() if "--replay" in line)
    rc = main(["faults", *replay_line.split("fairdie faults ")[1].split()])
    assert rc == 1 and "I1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--campaign", "G9"], "invalid choice: 'G9'"),
        (["--jobs", "0"], "0 is out of range (1.."),
        (["--seed", "x"], "not a whole number"),
        (["--replay", "nonsense"], "not a replay id"),
        (["--variant", "seed", "--firmware", "x.elf"], "not both"),
        (["--variant", "nope"], "nope"),
        (["--scheduler", "nonsense"], "not a scheduler address"),
        (["--jobs", "100000"], "out of range (1..256)"),
        (["--board", "die-charlieplex", "--variant", "direct"], "charlieplexed"),
    ],
)
def test_bad_input_is_one_line(capsys, argv, message):
    rc = main(["faults", *argv])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_firmware_without_a_model_is_refused(tmp_path):
    from fairdie.toolchain import build

    elf = build("die_t13a").elf
    # our board without its firmware target: a maker's board, no model
    from pathlib import Path

    import fairdie

    ours = Path(fairdie.__file__).parent / "subjects" / "die" / "boards" / "die-direct.toml"
    text = (
        ours.read_text().replace('firmware = "die_t13a"\n', "").replace('variant = "direct"\n', "")
    )
    board = tmp_path / "b.toml"
    board.write_text(text)
    with pytest.raises(FaultsError, match="need a model"):
        run_faults(["G1"], quick=True, target=Target(board=str(board), firmware=str(elf)))


def test_only_power_removal_tears_a_watchdog_reset_lets_the_write_finish(make_chip):
    """The fault model's third rule, on the engine: a reset that is no power
    cut (here the watchdog's, during a 30 ms write) completes the write."""
    from fairdie.sim import EventKind, StopReason, Until

    chip = make_chip("eeprom", power=False)
    chip.set_eeprom_times(erase_write_us=30_000)
    chip.write_eeprom(0, b"\x11")
    chip.power_on()
    chip.run(200)
    assert chip.eeprom_in_flight is not None
    chip.write_io("WDTCR", 1 << 3)  # WDE, 16 ms: a reset in the middle of the write
    assert chip.run(seconds=0.02, until=Until.event(EventKind.RESET)) == StopReason.RESET
    assert chip.eeprom_in_flight is not None and chip.eeprom[0] == 0x11
    assert chip.run(seconds=0.03, until=Until.event(EventKind.EEPROM_DONE)) & StopReason.EEPROM_DONE
    done = chip.stop_event
    assert done is not None and (done.a, done.b, done.c) == (0, 0x5A, 0)  # stored, not cut
    assert chip.eeprom[0] == 0x5A


def test_a_progress_bar_shows_on_a_terminal_only(capsys):
    rc, seen = run_on_a_terminal("faults", "--campaign", "G1", "--quick", *DIRECT)
    # tqdm's bar: 7 units (6 starting images, and the ring's wrap with every torn value)
    assert rc == 0 and b"unit" in seen and b"/7" in seen, seen
    # (test_cli_json_contract: --json draws nothing on a terminal) and off one, no bar
    assert main(["faults", "--campaign", "G3", "--quick"]) == 0
    assert capsys.readouterr().err == ""


def test_the_workers_receive_the_setup_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The target's strings resolve to one Setup in the process that plans;
    every unit carries it, whole in its pickle, so a worker loads no board."""
    import pickle

    import fairdie.board
    from fairdie.subjects.die.faults._cuts import plan_g1

    target = Target(variant="seed").resolved()
    assert target.setup is not None and target.setup.variant == "seed"
    assert target == Target(variant="seed")  # the strings are its identity (replay ids)
    units = plan_g1(target, True, 0)
    assert units and all(u.target.setup is target.setup for u in units)

    def no_board(*_: object, **__: object) -> None:
        raise AssertionError("a worker loaded a board")

    monkeypatch.setattr(fairdie.board, "load_board", no_board)
    again = pickle.loads(pickle.dumps(units[0]))
    assert again.target.setup == target.setup
    assert again.target.die().model is not None  # made from the setup alone


def _result(report) -> dict:
    """A report's JSON without its times."""
    out = report.as_json()
    for key in ("seconds", "cpu_seconds", "parent_cpu_seconds"):
        out.pop(key)
    for c in out["campaigns"].values():
        c.pop("seconds"), c.pop("cpu_seconds")
    return out


def _in_one_process(seed: Report, campaigns: tuple[str, ...]) -> Report:
    """The seed's quick tier of ``campaigns`` in this process: the runs the other
    tests read (a unit's outcome depends on nothing but its arguments, so the
    campaigns run apart are the whole tier)."""
    hostile = quick(HOSTILE, "seed")
    outcomes = {**seed.outcomes, **hostile.outcomes}
    return Report(
        seed.target,
        True,
        0,
        {c: outcomes[c] for c in campaigns},
        seed.seconds + hostile.seconds,
        seed.brown_out,
    )


def test_a_cut_and_a_hostile_campaign_do_not_depend_on_the_number_of_processes(
    seed: Report,
) -> None:
    """G1 (units of unequal cost, so the costliest first is not the plan's
    order, and violations in several of them) and G6 (a noise per unit, the
    search among them) in one process and spread over two: the same counts,
    figures and violations, merged in the plan's order."""
    campaigns = ("G1", "G6")
    one = _in_one_process(seed, campaigns)
    two = run_faults(campaigns, quick=True, target=Target(variant="seed"), jobs=2)
    assert one.outcomes["G1"].violation_count > 0  # the seed's counters: each kept in order
    assert _result(one) == _result(two)


@pytest.mark.slow  # the whole tier on two more processes; make test keeps
# test_a_cut_and_a_hostile_campaign_do_not_depend_on_the_number_of_processes
def test_the_result_does_not_depend_on_the_number_of_processes(seed: Report) -> None:
    """The quick tier in one process and spread over two (the costliest units
    first): the same counts, figures and violations, merged in the plan's order."""
    names = list(CAMPAIGNS)
    assert names == [*CUTS, *HOSTILE]
    one = _in_one_process(seed, tuple(names))
    two = run_faults(names, quick=True, target=Target(variant="seed"), jobs=2)
    assert one.violations > 0  # the seed's counters: violations, each kept in order
    assert _result(one) == _result(two)


def test_the_costliest_units_go_first_and_merge_in_the_plans_order():
    from fairdie.subjects.die.faults._run import _longest_first
    from fairdie.subjects.die.faults._work import Unit

    target = Target()
    units = [Unit("G1", target, (i,), cost=c) for i, c in enumerate([1.0, 5.0, 2.0, 5.0])]
    assert [i for i, _ in _longest_first(units)] == [1, 3, 2, 0]
