"""The game's exhaustive campaign at a small size: it judges every reply by
the solver and the starts against the solver's valid ones, its numbers
depend only on the seed (not on the job count), and a build that always
takes the first winning reply fails it."""

from __future__ import annotations

import json

import pytest

from fairdie.subjects.silver_dollar._sweep import Sizes, _text, sweep, sweep_main

SMALL = Sizes(trials=15, games=8, players=1, positions=8)


def numbers(out: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in out.items() if k != "seconds"}


def test_the_numbers_depend_on_the_seed_not_the_jobs() -> None:
    one = sweep(SMALL, seed=3)
    assert one["passed"]
    r, s = one["replies"], one["starts"]
    assert r["positions"] == 8 and r["wrong"] == 0
    assert s["games"] == 8 and s["invalid"] == 0 and s["valid_starts"] == 444
    assert one["players"]["perfect"] == {"games": 1, "wins": 1, "rate": 1.0}
    assert numbers(sweep(SMALL, seed=3, jobs=2)) == numbers(one)
    # another seed samples other positions and draws other chances: the
    # replies' numbers differ (its starts and games would add nothing to show
    # it: the sweep plays none)
    other = sweep(Sizes(trials=15, games=0, players=0, positions=8), seed=4)
    assert other["starts"]["games"] == 0 and other["players"]["perfect"]["games"] == 0
    assert other["replies"] != r


def test_a_device_that_always_takes_the_first_win_fails_the_sweep(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the replies alone (no games: the mutant's fault is in its choice of
    # reply): seed 0's sample of 8 positions has one with a choice (its sample
    # of 16 had one too), where the device's single reply fails its uniformity test
    argv = ["--variant", "mutant-first-win", "--trials", "15", "--games", "0", "--players", "0"]
    rc = sweep_main([*argv, "--positions", "8", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1 and not out["passed"]
    assert out["replies"]["wrong"] == 0 and out["replies"]["not_uniform"] >= 1
    assert out["replies"]["positions"] == 8
    assert "not uniform" in out["replies"]["first_not_uniform"][0]
    assert out["starts"]["games"] == 0 and out["players"]["perfect"]["games"] == 0
    # and the text says so, rather than "0 games" and a rate of 0/0
    text = _text(out)
    assert "starts: none read (--games 0)" in text and "players: none played" in text


def test_bad_sizes_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert sweep_main(["--trials", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "3 is out of range" in err


def test_the_sweep_is_a_silver_dollar_command(capsys: pytest.CaptureFixture[str]) -> None:
    from fairdie.cli import main

    assert main(["silver-dollar", "sweep", "--help"]) == 0
    assert "fairdie silver-dollar sweep" in capsys.readouterr().out
    assert main(["silver-dollar", "sweep", "--trials", "3"]) == 2
    assert "3 is out of range" in capsys.readouterr().err
    assert main(["silver-dollar", "--help"]) == 0
    assert "silver-dollar sweep" in capsys.readouterr().out
