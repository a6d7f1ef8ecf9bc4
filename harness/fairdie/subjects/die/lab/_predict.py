"""Measures of a sequence of faces: tallies, spread, absences, and what a
player who watches the faces can predict.

The player (:class:`Predictor`) knows the rule and the starting table and
follows the table from the faces it sees, but not any hidden state (the
chip's pool, the noise). Before each press it reckons the rule's chance of
each face for ideal noise, then corrects it by what it has learnt: for each
place in the table's order (faces sorted by count, then face number) how
often the die picked that place against how often the rule said it would.
A die whose noise is biased (the seed's rule under a floating pin picks its
first candidate too often) is caught out that way; one whose choice truly
follows the rule is not. Its ``entropy`` is that of its reckoning (divided
by log 6, so a fair die scores 1.0) and ``guess_rate`` how often its most
likely face (the lowest on a tie) came up.

:func:`tally` also scores two more players on the same faces: the
firmware-aware one (:mod:`._informed`: it knows the rule bit for bit and the
erased start, and tracks the hidden pool; ``guess_rate_informed``, and
``guess_rate_informed_in_use`` for one who meets the die in use, its table
drawn from the rule's steady state), and one who knows nothing of the
firmware (:mod:`._blind`, context models; ``guess_rate_blind``). And it
tests the counts by chi-square both ways: ``chi2_p_uneven`` = P(X >= x),
small when the counts are too uneven for a fair die (a bias), and
``chi2_p_even`` = P(X <= x), small when they are too even for independent
rolls (a rule that evens its counts on purpose, as the fair rule does by
design: it remembers the past, so it is not a pass).

Cost, measured for 100 000 faces of the fair rule: the table tracker 4.7 s,
the firmware-aware player 3.4 s from an erased chip and 4.2 s in use (and
0.5 s once per process for the chain and its steady state), the blind
player 0.6 s: 12.4 s for the whole tally.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairdie.subjects.die.lab._blind import blind_hits
from fairdie.subjects.die.lab._informed import guess_hits, informed_player
from fairdie.subjects.die.lab._systems import System

if TYPE_CHECKING:
    from fairdie.subjects.die._models import DieModel

__all__ = [
    "CURVE_STEP",
    "TALLY_PARTS",
    "Predictor",
    "Tally",
    "chi2_cdf",
    "chi2_sf",
    "tally",
    "tally_of",
    "tally_part",
]

#: a tally keeps a point of its curves every this many presses
CURVE_STEP = 100


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom.

    That is Q(df/2, x/2), the regularised upper incomplete gamma, which for
    the half-integer and integer orders a chi-square needs follows exactly
    from Q(1/2, h) = erfc(sqrt h) or Q(1, h) = exp(-h) by
    Q(a + 1, h) = Q(a, h) + h^a exp(-h) / Gamma(a + 1). (The standard library
    has no incomplete gamma, and this is all the lab needs of one.)
    """
    if df < 1:
        raise ValueError("df must be >= 1")
    if x <= 0:
        return 1.0
    h = x / 2
    a, q = (0.5, math.erfc(math.sqrt(h))) if df % 2 else (1.0, math.exp(-h))
    while a < df / 2:
        q += math.exp(a * math.log(h) - h - math.lgamma(a + 1))
        a += 1
    return min(1.0, max(0.0, q))


def chi2_cdf(x: float, df: int) -> float:
    """P(X <= x) for a chi-square variable with ``df`` degrees of freedom.

    That is P(df/2, x/2), the regularised lower incomplete gamma. Below its
    mean it is summed as a series, h^a e^-h / Gamma(a + 1) * (1 + h/(a+1) +
    h^2/((a+1)(a+2)) + ...), accurate however small it is (``1 - chi2_sf``
    would round a tiny P to 0); above, it is ``1 - chi2_sf(x, df)``.
    """
    if df < 1:
        raise ValueError("df must be >= 1")
    if x <= 0:
        return 0.0
    a, h = df / 2, x / 2
    if h >= a + 1:
        return 1.0 - chi2_sf(x, df)
    term = total = 1.0
    n = 1
    while term > 1e-17 * total:
        term *= h / (a + n)
        total += term
        n += 1
    p = math.exp(a * math.log(h) - h - math.lgamma(a + 1)) * total
    return min(1.0, max(0.0, p))


class Predictor:
    """A player who follows the table from the faces (see the module)."""

    def __init__(self, start: System) -> None:
        self.state = start
        n = len(start.probs())
        self._hits = [0.0] * n
        self._expected = [0.0] * n

    def step(self, face: int) -> tuple[float, bool]:
        """Reckon, then see ``face`` (0-based): ``(entropy / log n, guessed it)``."""
        nominal = self.state.probs()
        n = len(nominal)
        counts = self.state.counts
        order = sorted(range(n), key=lambda f: (counts[f], f))
        place = [0] * n
        for i, f in enumerate(order):
            place[f] = i
        w = [
            nominal[f] * (self._hits[place[f]] + 1) / (self._expected[place[f]] + 1)
            for f in range(n)
        ]
        total = sum(w)
        p = [x / total for x in w]
        entropy = -sum(x * math.log(x) for x in p if x > 0) / math.log(n)
        best = max(range(n), key=lambda f: (p[f], -f))
        for f in range(n):
            self._expected[place[f]] += nominal[f]
        self._hits[place[face]] += 1
        self.state = self.state.after(face)
        return entropy, best == face


@dataclass(frozen=True, slots=True)
class Tally:
    counts: tuple[int, ...]
    spread: int
    worst_spread: int
    longest_absence: int
    entropy: float
    guess_rate: float
    #: P(X >= chi-square): small when the counts are too uneven (``chi2_p_uneven``)
    chi2_p: float
    #: spread and the guess rate so far, every CURVE_STEP presses (for plots)
    spread_curve: tuple[int, ...]
    guess_curve: tuple[float, ...]
    chi2: float = 0.0  #: the statistic, sum of (count - expected)^2 / expected
    #: P(X <= chi-square): small when the counts are too even for independent
    #: rolls (None: no faces)
    chi2_p_even: float | None = None
    #: the firmware-aware player's guess rate from the erased start, and for a
    #: die met in use (None: no faces, or no such player for this rule: ``notes``
    #: says which)
    guess_rate_informed: float | None = None
    guess_rate_informed_in_use: float | None = None
    #: the player who knows nothing of the firmware (None: no faces)
    guess_rate_blind: float | None = None
    notes: tuple[str, ...] = ()  #: why a figure is missing

    @property
    def chi2_p_uneven(self) -> float:
        """P(X >= chi-square) (``chi2_p``)."""
        return self.chi2_p

    def as_json(self) -> dict[str, object]:
        """The measures (not the tally and curves), as the campaign prints them."""

        def rate(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "spread": self.spread,
            "worst_spread": self.worst_spread,
            "longest_absence": self.longest_absence,
            "entropy": round(self.entropy, 4),
            "guess_rate": round(self.guess_rate, 4),
            "guess_rate_informed": rate(self.guess_rate_informed),
            "guess_rate_informed_in_use": rate(self.guess_rate_informed_in_use),
            "guess_rate_blind": rate(self.guess_rate_blind),
            "chi2": round(self.chi2, 6),
            "chi2_p_uneven": self.chi2_p,
            "chi2_p_even": self.chi2_p_even,
        }


def _informed_rate(
    faces: Sequence[int], model: DieModel | str | None, in_use: bool, notes: list[str]
) -> float | None:
    if model is None or not faces:
        return None
    try:
        player = informed_player(model, in_use=in_use)
    except ValueError as e:
        notes.append(f"{'in use' if in_use else 'informed'}: {e}")
        return None
    hits = guess_hits(player, faces)
    return sum(hits) / len(hits)


#: the parts of a tally, each a pass over the faces of its own, so they may run
#: apart (a campaign's workers take them): the longest first (on 100,000
#: adversarial presses about 6, 1.2, 0.9 and 0.2 CPU-s; floating 1.2, 1.2, 1.1, 0.2)
TALLY_PARTS = ("informed_in_use", "table", "informed", "blind")


def tally_part(
    part: str, faces: Sequence[int], start: System, model: DieModel | str | None = None
) -> Any:
    """One of :data:`TALLY_PARTS` of :func:`tally`'s work; :func:`tally_of`
    puts them together."""
    if part == "table":
        return _table(faces, start)
    if part == "blind":
        return float(blind_hits(faces, len(start.probs())).mean()) if faces else None
    if part in ("informed", "informed_in_use"):
        notes: list[str] = []
        return _informed_rate(faces, model, part == "informed_in_use", notes), notes
    raise ValueError(f"no tally part {part!r} (parts: {', '.join(TALLY_PARTS)})")


def tally_of(parts: Mapping[str, Any]) -> Tally:
    """The tally of its parts (see :func:`tally_part`)."""
    informed, notes = parts["informed"]
    in_use, more = parts["informed_in_use"]
    return Tally(
        **parts["table"],
        guess_rate_informed=informed,
        guess_rate_informed_in_use=in_use,
        guess_rate_blind=parts["blind"],
        notes=(*notes, *more),
    )


def tally(faces: Sequence[int], start: System, *, model: DieModel | str | None = None) -> Tally:
    """Measure faces (0-based) shown from ``start`` (the rule's public state);
    ``model`` (the die's reference model, or its name) for the
    firmware-aware player's figures, which are None without one."""
    return tally_of({p: tally_part(p, faces, start, model) for p in TALLY_PARTS})


def _table(faces: Sequence[int], start: System) -> dict[str, Any]:
    """The table tracker's figures, the counts and their spread."""
    n = len(start.probs())
    counts = [0] * n
    last = [-1] * n
    worst = longest = 0
    ent = hits = 0.0
    spread_curve: list[int] = []
    guess_curve: list[float] = []
    player = Predictor(start)
    for i, f in enumerate(faces):
        e, hit = player.step(f)
        ent += e
        hits += hit
        counts[f] += 1
        longest = max(longest, i - last[f])
        last[f] = i
        spread = max(counts) - min(counts)
        worst = max(worst, spread)
        if (i + 1) % CURVE_STEP == 0:
            spread_curve.append(spread)
            guess_curve.append(hits / (i + 1))
    total = len(faces)
    longest = max([longest, *(total - 1 - x for x in last)]) if total else 0
    expected = total / n
    chi2 = sum((c - expected) ** 2 / expected for c in counts) if total else 0.0
    return {
        "counts": tuple(counts),
        "spread": max(counts) - min(counts),
        "worst_spread": worst,
        "longest_absence": longest,
        "entropy": ent / total if total else 0.0,
        "guess_rate": hits / total if total else 0.0,
        "chi2_p": chi2_sf(chi2, n - 1),
        "spread_curve": tuple(spread_curve),
        "guess_curve": tuple(guess_curve),
        "chi2": chi2,
        "chi2_p_even": chi2_cdf(chi2, n - 1) if total else None,
    }
