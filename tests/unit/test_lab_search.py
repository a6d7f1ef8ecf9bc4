"""The lab's parameter search (lab._search) and ``fairdie lab search`` (_lab_cli).

The spec's candidate order and tie rule on small cases, the rule itself
checked against every candidate's exact measures, and the search for n = 6,
T = 25, entropy 0.9 pinned through the command's JSON.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from fairdie.subjects.die.lab import (
    D_VALUES,
    SR_VALUES,
    DynamicDice,
    GeneralizedDeck,
    Measures,
    WeightedWindow,
    exact,
    search,
    search_main,
)


def test_candidates_in_the_spec_order() -> None:
    assert D_VALUES[:3] == (0.005, 0.015, 0.025)
    assert D_VALUES[-1] == 0.995
    assert len(D_VALUES) == 100
    assert SR_VALUES[:3] == ((1, 1), (1, 2), (1, 3))
    assert SR_VALUES[10] == (2, 1)
    assert SR_VALUES[-1] == (10, 10)
    assert len(SR_VALUES) == 100


def test_on_a_tie_the_candidate_tried_last_wins() -> None:
    # one sample of two values: every candidate draws uniformly, variance 1/4
    r = search(2, 1, 1.0)
    assert r["generalized_deck"] == {"s": 10, "r": 10, "entropy": 1.0, "variance": 0.25}
    assert r["dynamic_dice"] == {"d": 0.995, "entropy": 1.0, "variance": 0.25}


def test_ties_are_equal_up_to_float_rounding() -> None:
    # n = 3, T = 5: decks (1,1), (1,2), (2,1), (2,2) always end at counts 2,2,1
    # (variance 2/9), but (1,2)'s float comes out one ulp lower; it is a tie, and
    # (2,2) was tried last.
    v = {(s, r): exact(GeneralizedDeck(3, s, r), 5).variance for s, r in [(1, 2), (2, 2)]}
    assert v[(1, 2)] < v[(2, 2)]
    assert v[(1, 2)] == pytest.approx(2 / 9, rel=1e-12)
    assert v[(2, 2)] == pytest.approx(2 / 9, rel=1e-12)
    r = search(3, 5, 0.65)
    assert (r["generalized_deck"]["s"], r["generalized_deck"]["r"]) == (2, 2)


def test_the_threshold_excludes_candidates() -> None:
    # n = 3, T = 5, entropy >= 0.85: the variance-2/9 decks reach at most 0.82;
    # the best left is (1,3), entropy 0.9065, variance 0.4356 (= 98/225)
    deck = search(3, 5, 0.85)["generalized_deck"]
    assert (deck["s"], deck["r"]) == (1, 3)
    assert deck["entropy"] == pytest.approx(0.906468, abs=5e-7)
    assert deck["variance"] == pytest.approx(98 / 225, rel=1e-12)


def test_no_candidate_reaches_the_threshold() -> None:
    r = search(2, 2, 1.0)
    assert r["generalized_deck"] is None
    assert r["dynamic_dice"] is None
    assert r["dice"]["entropy"] == pytest.approx(1.0)


def _check_choice(
    chosen: dict[str, Any], tried: list[tuple[Any, Measures]], threshold: float
) -> None:
    """``chosen`` is the last of the lowest-variance ``tried`` candidates at the threshold."""
    ok = [(p, m) for p, m in tried if m.entropy >= threshold]
    at = [p for p, _ in ok].index(chosen["params"])
    best = ok[at][1]
    assert (chosen["entropy"], chosen["variance"]) == (best.entropy, best.variance)
    for i, (_, m) in enumerate(ok):
        assert m.variance >= best.variance * (1 - 1e-9)
        if i > at:
            assert m.variance > best.variance * (1 + 1e-9)


@pytest.mark.parametrize("threshold", [0.0, 0.7, 0.9, 0.97])
def test_the_choice_obeys_the_rule(threshold: float) -> None:
    """Against every candidate's exact measures."""
    n, t = 3, 8
    r = search(n, t, threshold)
    gd, dd = r["generalized_deck"], r["dynamic_dice"]
    decks = [((s, rr), exact(GeneralizedDeck(n, s, rr), t)) for s, rr in SR_VALUES]
    _check_choice({**gd, "params": (gd["s"], gd["r"])}, decks, threshold)
    dice = [(d, exact(DynamicDice(n, d), t)) for d in D_VALUES]
    _check_choice({**dd, "params": dd["d"]}, dice, threshold)


def test_simulated_search_reports_standard_errors_and_is_reproducible() -> None:
    r = search(2, 3, 0.5, simulate_matches=40, seed=4)
    assert r == search(2, 3, 0.5, simulate_matches=40, seed=4)
    assert (r["method"], r["matches"], r["seed"]) == ("simulated", 40, 4)
    for key in ("dice", "deck", "generalized_deck", "dynamic_dice"):
        assert set(r[key]) >= {"entropy", "variance", "entropy_se", "variance_se"}


def test_bad_search_arguments_raise() -> None:
    with pytest.raises(ValueError, match="values"):
        search(1, 5, 0.5)
    with pytest.raises(ValueError, match="entropy"):
        search(3, 5, 1.5)
    with pytest.raises(ValueError, match="samples"):
        search(3, 0, 0.5)


# ---- the command ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def six_25_09() -> dict[str, Any]:
    """``fairdie lab search --values 6 --samples 25 --entropy 0.9 --json``, run once."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = search_main(["--values", "6", "--samples", "25", "--entropy", "0.9", "--json"])
    assert code == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


@pytest.mark.slow  # the spec's whole search, exact: the tier re-run leaves it out
def test_json_keys(six_25_09: dict[str, Any]) -> None:
    assert set(six_25_09) == {
        "values",
        "samples",
        "entropy_threshold",
        "method",
        "matches",
        "seed",
        "dice",
        "deck",
        "generalized_deck",
        "dynamic_dice",
    }
    assert (six_25_09["values"], six_25_09["samples"], six_25_09["method"]) == (6, 25, "exact")
    assert set(six_25_09["dice"]) == {"entropy", "variance"}
    assert set(six_25_09["generalized_deck"]) == {"s", "r", "entropy", "variance"}
    assert set(six_25_09["dynamic_dice"]) == {"d", "entropy", "variance"}


@pytest.mark.slow  # the spec's whole search, exact: the tier re-run leaves it out
def test_search_6_25_09(six_25_09: dict[str, Any]) -> None:
    """The result quoted in the report."""
    r = six_25_09
    assert r["dice"]["entropy"] == pytest.approx(1.0, rel=1e-12)
    assert r["dice"]["variance"] == pytest.approx(125 / 36, rel=1e-12)
    assert r["deck"]["entropy"] == pytest.approx(0.627512, abs=5e-7)
    assert r["deck"]["variance"] == pytest.approx(5 / 36, rel=1e-12)
    gd, dd = r["generalized_deck"], r["dynamic_dice"]
    assert (gd["s"], gd["r"]) == (1, 6)
    assert gd["entropy"] == pytest.approx(0.902009, abs=5e-7)
    assert gd["variance"] == pytest.approx(0.508855, abs=5e-7)
    assert dd["d"] == 0.355
    assert dd["entropy"] == pytest.approx(0.901998, abs=5e-7)
    assert dd["variance"] == pytest.approx(0.458978, abs=5e-7)


@pytest.mark.slow  # the spec's whole search, exact: the tier re-run leaves it out
def test_the_rule_beats_the_best_dynamic_dice_at_T25(six_25_09: dict[str, Any]) -> None:
    """The fair rule's weights against the search's best dynamic dice (the same
    search as the command's, run once for this module)."""
    best = six_25_09["dynamic_dice"]
    rule = exact(WeightedWindow(6, (8, 3, 1)), 25)
    assert rule.entropy >= 0.90
    assert rule.variance < best["variance"]
    assert exact(DynamicDice(6, best["d"]), 25).variance == best["variance"]


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert search_main(["--values", "2", "--samples", "1", "--entropy", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "s=10 r=10" in out
    assert "d=0.995" in out
    assert search_main(["--values", "2", "--samples", "2", "--entropy", "1"]) == 0
    assert capsys.readouterr().out.count("no candidate reaches the threshold") == 2


def test_simulate_option(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--values", "2", "--samples", "2", "--entropy", "0.5", "--json"]
    assert search_main([*argv, "--simulate", "30", "--seed", "3"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert (r["method"], r["matches"], r["seed"]) == ("simulated", 30, 3)
    assert "variance_se" in r["dynamic_dice"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--values", "1", "--samples", "5", "--entropy", "0.5"], "1 is out of range (2.."),
        (["--values", "x", "--samples", "5", "--entropy", "0.5"], "not a whole number"),
        (["--values", "3", "--samples", "0", "--entropy", "0.5"], "0 is out of range (1.."),
        (["--values", "3", "--samples", "2.5", "--entropy", "0.5"], "not a whole number"),
        (["--values", "3", "--samples", "5", "--entropy", "1.5"], "outside 0..1"),
        (["--values", "3", "--samples", "5", "--entropy", "-0.1"], "outside 0..1"),
        (["--values", "3", "--samples", "5", "--entropy", "nan"], "outside 0..1"),
        (["--values", "3", "--samples", "5", "--entropy", "high"], "not a number"),
        (
            ["--values", "3", "--samples", "5", "--entropy", "0.5", "--simulate", "1"],
            "1 is out of range (2..",
        ),
        (
            ["--values", "3", "--samples", "5", "--entropy", "0.5", "--seed", "s"],
            "not a whole number",
        ),
        (["--values", "3", "--samples", "5"], "--entropy"),
        (["--values", "3", "--samples", "5", "--entropy", "0.5", "--bogus"], "unrecognized"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert search_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("fairdie lab search: error: ")
    assert message in lines[0]


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert search_main(["--help"]) == 0
    assert "--entropy" in capsys.readouterr().out
