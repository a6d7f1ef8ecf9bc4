"""Fairness campaigns on the emulated die (fairdie.subjects.die.lab._campaign)."""

from __future__ import annotations

import json
import pickle
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from simsupport import TAB, png_colours, run, run_on_a_terminal

import fairdie.subjects.die._die  # noqa: F401  (the engine, loaded once)
from fairdie.campaigns import Workers
from fairdie.subjects.die.lab._campaign import (
    DASK_WIDTH,
    FAULT,
    SHARDS_PER_JOB,
    Campaign,
    CampaignError,
    run_campaign,
)

pytestmark = pytest.mark.sim


@pytest.fixture(scope="module")
def two_jobs() -> Iterator[Workers]:
    """Two worker processes for the module's campaigns on 2 jobs, given to
    them: a campaign given ``jobs=2`` would take the idle pool another left,
    but one that fails (the mutant's below) ends its own, and the next spawns
    two again (about a CPU-second)."""
    with Workers(jobs=2, error=CampaignError) as w:
        yield w


NOISES = [
    "floating",
    "uniform",
    "stuck:1500",
    "rail-low",
    "rail-high",
    "hum:50",
    "biased:5,1,1,3",
    "adversarial",
]


@pytest.mark.parametrize("noise", NOISES)
def test_the_default_die_stays_within_3_under_every_noise(noise: str) -> None:
    r = run_campaign(Campaign(400, noise, seed=7))
    t = r.tally
    assert r.model == "fair"
    if noise in ("stuck:1500", "rail-low", "rail-high"):
        # no noise: every press fails the health tests, shows the fault and rolls nothing
        assert r.health_failures == 400 and sum(t.counts) == 0, r.as_json()
        assert r.faces == bytes([FAULT]) * 400
        return
    assert r.health_failures == 0, r.as_json()
    assert t.worst_spread <= 3, r.as_json()
    assert t.longest_absence <= 40, r.as_json()
    if noise != "adversarial":
        assert t.entropy >= 0.80 and t.guess_rate <= 0.40, r.as_json()


def test_the_seed_rule_is_neither_fair_nor_unpredictable_stuck() -> None:
    t = run_campaign(Campaign(300, "stuck:1500", seed=1, variant="seed")).tally
    assert t.worst_spread > 3
    assert t.guess_rate > 0.5


def test_the_result_depends_on_the_seed_not_on_the_sharding(two_jobs: Workers) -> None:
    """The adversarial noise keeps state from press to press (the Dask test below
    shards the floating one in make test, the adversarial one in the slow tier)."""
    c = Campaign(600, "adversarial", seed=3)
    one = run_campaign(c, jobs=1).as_json()
    two = run_campaign(c, workers=two_jobs).as_json()
    assert (one["shards"], two["shards"]) == (SHARDS_PER_JOB, 2 * SHARDS_PER_JOB)
    for key in ("counts", "spread", "worst_spread", "longest_absence", "entropy", "guess_rate"):
        assert one[key] == two[key], key
    other = run_campaign(Campaign(600, "adversarial", seed=4)).as_json()
    assert other["counts"] != one["counts"] or other["guess_rate"] != one["guess_rate"]


def test_a_shard_needs_no_file_of_the_client() -> None:
    """A shard carries its firmware's image: a worker without the file presses
    the same faces (the path its setup names is gone)."""
    from fairdie.subjects.die.lab import _campaign, _shards

    shards: list[Any] = []
    real = _shards.run_shard
    c = Campaign(40, "uniform", seed=2)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_campaign, "run_shard", lambda s: shards.append(s) or real(s))
        here = run_campaign(c)
    s = shards[1]
    assert s.campaign.setup is here.campaign.setup and s.firmware == here.campaign.setup.load()
    gone = replace(s.campaign.setup, firmware=Path("/nonexistent/die.elf"))
    away = pickle.loads(pickle.dumps(replace(s, campaign=replace(s.campaign, setup=gone))))
    r = _shards.run_shard(away)
    assert r.mismatch is None and r.faces == here.faces[s.start : s.start + s.count]


def test_a_chip_that_disagrees_names_the_first_press_whatever_the_jobs(
    two_jobs: Workers,
) -> None:
    """The mutant that ignores its health tests rolls a face where its model
    shows the fault: each shard stops at its first such press, and the
    campaign names the earliest, with the line that replays it."""
    from fairdie.toolchain import build

    elf = str(build("die_t13a", defines={"DIE_MUTANT_NO_HEALTH": 1}).elf)
    c = Campaign(40, "stuck:1500", seed=1, firmware=elf)
    replay = (
        f"replay: fairdie lab campaign --presses 40 --noise stuck:1500 --seed 1 --firmware {elf}"
    )
    for workers in ({"jobs": 1}, {"workers": two_jobs}):
        with pytest.raises(CampaignError) as e:
            run_campaign(c, **workers)
        assert str(e.value).startswith("press 0: the chip showed "), e.value
        assert str(e.value).endswith(f", the model the fault; {replay}"), e.value


def test_bad_noise_is_refused_before_any_work() -> None:
    with pytest.raises(CampaignError, match="noise"):
        run_campaign(Campaign(10, "wobbly"))


Lab = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def lab(capsys: pytest.CaptureFixture[str]) -> Lab:
    """``fairdie lab ARGS`` run in this process (the command's start-up is test_cli.py's)."""

    def _lab(*args: str) -> subprocess.CompletedProcess[str]:
        rc, out, err = run(capsys, "lab", *args)
        return subprocess.CompletedProcess(["fairdie", "lab", *args], rc, out, err)

    return _lab


def test_cli_campaign_json_and_plots(tmp_path: object, lab: Lab) -> None:
    r = lab("campaign", "--presses", "200", "--noise", "uniform", "--json", "--plot", str(tmp_path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in (
        "counts",
        "spread",
        "worst_spread",
        "longest_absence",
        "entropy",
        "guess_rate",
        "chi2_p",
        "presses_per_s",
        "serial_seconds",
        "serial_share",
        "cpu_seconds",
        "reference",
        "plots",
        "replay",
    ):
        assert key in out
    assert set(out["reference"]) == {"dice", "deck", "dynamic_dice"}
    assert 0 <= out["serial_seconds"] <= out["seconds"] and 0 <= out["serial_share"] <= 1
    assert set(out["cpu_seconds"]) == {"parent", "workers"}
    assert sum(out["counts"]) == 200 and len(out["plots"]) == 3
    # each drawn: the faces' bars, the firmware's and the three references' curves
    for path in out["plots"]:
        assert png_colours(Path(path)) >= ({TAB[0]} if path.endswith("faces.png") else set(TAB))


def test_cli_campaign_reports_every_player_and_both_tails(lab: Lab) -> None:
    r = lab("campaign", "--presses", "300", "--noise", "uniform", "--seed", "2", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["model"] == "fair" and out["health_failures"] == 0 and out["notes"] == []
    for key in ("guess_rate", "guess_rate_informed", "guess_rate_informed_in_use"):
        assert 0.2 <= out[key] <= 0.45, (key, out)  # the rule's level, about 0.33
    assert 0.05 <= out["guess_rate_blind"] <= 0.3, out
    # 300 faces within 3 of each other: far too even for independent rolls
    assert out["chi2_p"] == out["chi2_p_uneven"] > 0.9 and out["chi2_p_even"] < 0.05, out
    for name, ref in out["reference"].items():
        assert ref["guess_rate_informed"] is None and 0 <= ref["guess_rate_blind"] <= 1, name
    human = lab("campaign", "--presses", "300", "--noise", "uniform", "--seed", "2")
    assert human.returncode == 0, human.stderr
    assert f"too even?   p = {out['chi2_p_even']:.3g}" in human.stdout
    assert "by design" in human.stdout and "informed" in human.stdout


@pytest.mark.parametrize("noise", ["dead", "weak:2"])
def test_a_campaign_under_a_failing_pin_scores_only_the_faces_shown(noise: str) -> None:
    r = run_campaign(Campaign(60, noise, seed=5))
    out = r.as_json()
    shown = 60 - r.health_failures
    assert sum(out["counts"]) == shown and r.faces.count(7) == r.health_failures
    if shown == 0:  # nothing to guess: no figure, rather than a rate of 0
        assert out["guess_rate_informed"] is None and out["guess_rate_blind"] is None
        assert out["chi2_p_even"] is None
    else:
        assert out["guess_rate_informed"] is not None and out["guess_rate_blind"] is not None


@pytest.mark.parametrize(
    "args",
    [
        ["campaign", "--presses", "0"],
        ["campaign", "--presses", "5", "--noise", "stuck:x"],
        ["campaign", "--presses", "5", "--jobs", "-1"],
        ["campaign", "--presses", "5", "--plot", "/proc/fairdie/plots"],
        ["nothing"],
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str], lab: Lab) -> None:
    r = lab(*args)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "error" in r.stderr and "Traceback" not in r.stderr


def test_a_progress_bar_shows_on_a_terminal_only(lab: Lab) -> None:
    rc, seen = run_on_a_terminal("lab", "campaign", "--presses", "60")
    assert rc == 0
    assert b"0/60" in seen and b"press/s" in seen, seen  # tqdm's bar, on the terminal
    quiet = lab("campaign", "--presses", "60")
    assert quiet.returncode == 0 and quiet.stderr == ""  # not a terminal: no bar


def test_the_shards_carry_the_setup_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import fairdie.subjects.die._cli as die_cli
    import fairdie.subjects.die.lab._campaign as campaign_module

    made = []
    real_setup, real_run = die_cli.die_setup, campaign_module.run_shard
    shards = []

    def counting_setup(*a: object, **kw: object) -> object:
        made.append(a)
        return real_setup(*a, **kw)  # type: ignore[arg-type]

    def run_shard(shard: object) -> object:
        shards.append(shard)
        return real_run(shard)  # type: ignore[arg-type]

    monkeypatch.setattr(die_cli, "die_setup", counting_setup)
    monkeypatch.setattr(campaign_module, "run_shard", run_shard)
    r = run_campaign(Campaign(40, "uniform", seed=2, variant="seed"))
    assert len(made) == 1 and r.campaign.setup is not None
    assert r.campaign.setup.variant == "seed" and r.campaign.setup.seed == 2
    assert len(shards) == SHARDS_PER_JOB
    assert all(s.campaign.setup is r.campaign.setup for s in shards)
    # what a worker process receives: the same setup, board and all
    assert pickle.loads(pickle.dumps(shards[1])).campaign.setup == r.campaign.setup


def test_a_button_die_campaign_follows_its_timing_and_its_seed(
    build_test_firmware: Callable[..., Any], lab: Lab
) -> None:
    """The engine's button die reads no analog input: its chance is in when a
    person presses (human timing, its default), so its faces follow the seed."""
    from fairdie.toolchain import firmware_dir

    board = str(firmware_dir() / "tests" / "button_die" / "board.toml")
    hex_path = str(build_test_firmware("button_die").hex)

    def faces(seed: int, timing: str | None = None) -> bytes:
        c = Campaign(30, None, seed, firmware=hex_path, board=board, timing=timing)
        r = run_campaign(c)
        assert r.model is None and r.shards == 1 and sum(r.tally.counts) == 30
        assert r.timing is not None and r.timing.startswith("human")
        return r.faces

    assert faces(0) == faces(0, "human") != faces(1)
    with pytest.raises(CampaignError, match="no analog input to feed noise 'uniform'"):
        run_campaign(Campaign(5, "uniform", firmware=hex_path, board=board))
    r = lab(
        "campaign", "--presses", "20", "--firmware", hex_path, "--board", board,
        "--timing", "human:interval=0.8,hold=120ms", "--seed", "4", "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["noise"] is None and out["seed_matters"] is True
    assert out["timing"].startswith("human:interval=0.8") and "--timing" in out["replay"]


def test_a_campaign_says_when_its_faces_do_not_depend_on_the_seed(lab: Lab) -> None:
    r = lab("campaign", "--presses", "60", "--noise", "stuck:1500", "--variant", "seed")
    assert r.returncode == 0, r.stderr
    assert "note: these faces do not depend on --seed (seed 1 rolls the same)" in r.stdout
    floating = json.loads(lab("campaign", "--presses", "60", "--json").stdout)
    assert floating["seed_matters"] is True and floating["timing"] is None


def test_the_workers_get_the_long_pieces_first_and_the_short_ones_last(
    monkeypatch: pytest.MonkeyPatch, two_jobs: Workers
) -> None:
    """The reference systems queue behind the noise round (the workers press
    them while the campaign chains); then the longest tally part, the shards,
    and the other tally parts last."""
    sent: list[tuple[str, int]] = []
    real = Workers.map

    def recording(self: Workers, fn: Any, items: Any) -> Any:
        sent.append((fn.__name__, len(items)))
        return real(self, fn, items)

    monkeypatch.setattr(Workers, "map", recording)
    r = run_campaign(Campaign(60, "floating", seed=5), workers=two_jobs, references=True)
    assert r.references is not None and len(r.references) == 3
    assert sent == [
        ("digest_piece", 2 * SHARDS_PER_JOB),
        ("reference_piece", 3),
        ("tally_piece", 1),
        ("run_shard", 2 * SHARDS_PER_JOB),
        ("tally_piece", 3),
    ]
    assert list(two_jobs.map(abs, [-1])) == [1]  # the workers given are left open


def test_the_seed_check_presses_its_faces_without_measuring_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fairdie.subjects.die.lab import _campaign

    c = Campaign(30, "floating", seed=2)
    r = run_campaign(c)
    bare = run_campaign(c, measure=False)
    assert bare.faces == r.faces and sum(bare.tally.counts) == 0
    tallied: list[int] = []
    real = _campaign.tally
    monkeypatch.setattr(
        _campaign,
        "tally",
        lambda faces, *a, **k: tallied.append(len(faces)) or real(faces, *a, **k),
    )
    assert _campaign.seed_matters(r) is True
    assert tallied == [0]  # the other seed's faces pressed, not tallied


@pytest.mark.parametrize("noise", ["floating", "weak:10"])
def test_both_product_builds_show_the_same_faces_for_the_same_noise(noise: str) -> None:
    """The README's table serves both builds: they read the same codes at each
    press, flag the same presses and roll the same faces."""
    direct = run_campaign(Campaign(300, noise, seed=3))
    charlieplex = run_campaign(Campaign(300, noise, seed=3, board="die-charlieplex"))
    assert charlieplex.model == direct.model == "fair"
    assert charlieplex.faces == direct.faces


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Any]:
    """A Dask cluster of 2 worker processes on this machine. Its tests come last in
    the module: the cluster idles on 3 processes until the module's end."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        yield cluster


@pytest.mark.parametrize("noise", ["floating", pytest.param("adversarial", marks=pytest.mark.slow)])
def test_one_job_two_jobs_and_a_dask_cluster_press_the_same_faces(
    noise: str, two_jobs: Workers, dask_cluster: Any
) -> None:
    from fairdie.subjects.die.lab._references import reference_tallies

    # 64 presses: one to each of the cluster's shards, so every shard but the
    # first starts from the image the model chained to it, on 1, 2 and 8 jobs'
    # shards alike (more presses lengthen the shards, not the hand-overs checked here)
    c = Campaign(DASK_WIDTH * SHARDS_PER_JOB, noise, seed=6)
    one = run_campaign(c, jobs=1, references=True)
    two = run_campaign(c, workers=two_jobs, references=True)
    on_dask = run_campaign(c, scheduler=dask_cluster.scheduler_address, references=True)
    assert (one.shards, two.shards, on_dask.shards) == (
        SHARDS_PER_JOB,
        2 * SHARDS_PER_JOB,
        DASK_WIDTH * SHARDS_PER_JOB,
    )
    assert one.faces == two.faces == on_dask.faces
    assert one.tally == two.tally == on_dask.tally
    # the reference systems, pressed by the workers beside the shards
    assert one.references == two.references == on_dask.references == reference_tallies(64, 6)
    assert run_campaign(c).references is None
    # the workers did the pressing, on processes and on Dask
    for r in (two, on_dask):
        assert r.cpu_workers > 0 and 0 <= r.serial_seconds <= r.seconds, r.as_json()


def test_the_cli_starts_its_workers_on_the_modules_of_every_piece(
    two_jobs: Workers, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fairdie.subjects.die.lab._lab_cli import PIECES

    mapped = set()
    real = two_jobs.map

    def seeing(fn: Callable[[Any], Any], items: Any) -> Any:
        mapped.add(fn.__module__)
        return real(fn, items)

    monkeypatch.setattr(two_jobs, "map", seeing)
    run_campaign(Campaign(40, "adversarial"), workers=two_jobs, references=True)
    assert mapped and mapped <= set(PIECES), mapped

    started: list[tuple[str, ...]] = []
    monkeypatch.setattr(Workers, "start", lambda _w, *modules: started.append(modules))
    rc, _out, err = run(capsys, "lab", "campaign", "--presses", "20", "--json")
    assert rc == 0, err
    assert started == [PIECES]
