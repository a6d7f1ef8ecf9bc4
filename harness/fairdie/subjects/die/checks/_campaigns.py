"""The die's campaigns and its energy: fairness under the standard noise
models, adversarial included (fairdie.subjects.die.lab), the quick power-cut
campaigns G1-G4 (fairdie.subjects.die.faults), and the charge per press.

The energy estimate needs the die's press (the faces forced through its
model, else its own rolls), so it is the die's check; the estimate itself
(:func:`fairdie.verify.estimate`) knows no die.
"""

from __future__ import annotations

import math
from typing import Any

from fairdie.subjects.die.checks._options import die_options
from fairdie.subjects.die.checks._report import FairnessReport
from fairdie.subjects.die.checks._state import DieState
from fairdie.verify import Context, Result, estimate, fail, ok, skip

__all__ = [
    "FAULT_CAMPAIGNS",
    "MAX_ABSENCE",
    "MAX_BLIND",
    "MAX_INFORMED",
    "MAX_SPREAD",
    "STANDARD_NOISES",
    "energy",
    "fairness",
    "power_cuts",
]

#: the noise models of the fairness campaign (the README's table), adversarial included
STANDARD_NOISES = (
    "floating",
    "uniform",
    "stuck:1500",
    "stuck:1000",
    "rail-low",
    "rail-high",
    "dead",
    "weak:10",
    "weak:50",
    "hum:50",
    "biased:5,1,1,3",
    "adversarial",
)
#: the fairness campaign's criteria: the fair rule's guarantees (README, "The fair die")
MAX_SPREAD = 3
MAX_ABSENCE = 39
#: the most a player may guess of the faces a die shows (not of the presses its
#: health tests flag), under every noise but the adversary's, which knows the
#: pool: one who knows the firmware and the erased start (the rule's own weights
#: allow about 0.33), and one who knows nothing of it (a fair die: 1/6)
MAX_INFORMED = 0.36
MAX_BLIND = 0.25
#: a guess rate fails only when its lower confidence bound (one-sided, z = 3.09:
#: 1 in 1000 for a die that truly sits at the limit) is above the limit
_Z = 3.09
#: the power-cut campaigns verify runs, in their quick tier
FAULT_CAMPAIGNS = ("G1", "G2", "G3", "G4")


def fairness(ctx: Context) -> Result:
    from fairdie.subjects.die.lab._campaign import Campaign, CampaignError, run_campaign

    c, st, o = ctx.c, DieState.of(ctx), die_options(ctx)
    if st.model is None:
        return skip("no reference model: the fairness campaign judges every press against one")
    if not c.board.analog:
        return skip(f"board {c.board.name} has no analog input to feed noise to")
    rows: dict[str, dict[str, Any]] = {}
    standard = o.noises or STANDARD_NOISES
    per = 1.0 / len(standard)
    for noise in standard:
        board, variant, firmware = st.campaign
        campaign = Campaign(
            o.presses,
            noise,
            ctx.o.seed,
            variant=variant,
            firmware=firmware,
            board=board,
            setup=st.campaign_setup(),
        )
        try:
            r = run_campaign(
                campaign,
                jobs=ctx.o.jobs,
                scheduler=ctx.o.scheduler,
                progress=lambda n: ctx.tick(per * n / o.presses),
            )
        except CampaignError as e:
            return fail(f"{noise}: {e}", campaigns=rows)
        st.campaigns[noise] = r
        rows[noise] = r.as_json()
    ctx.report.append(FairnessReport(st.campaigns))
    spread = {n: r["worst_spread"] for n, r in rows.items()}
    absent = {n: r["longest_absence"] for n, r in rows.items()}
    over = {n: v for n, v in spread.items() if v > MAX_SPREAD}
    long = {n: v for n, v in absent.items() if v > MAX_ABSENCE}
    noises, presses = len(rows), o.presses
    guessed = _predictable(st.campaigns)
    if over or long or guessed:
        parts = []
        if over:
            worst = max(over, key=lambda n: over[n])
            parts.append(
                f"worst spread > {MAX_SPREAD} under {len(over)} of {noises} noises"
                f" ({worst}: {over[worst]})"
            )
        if long:
            worst = max(long, key=lambda n: long[n])
            parts.append(
                f"a face absent > {MAX_ABSENCE} presses under {len(long)} ({worst}: {long[worst]})"
            )
        if guessed:
            parts.append(guessed)
        return fail(f"{presses} presses per noise: " + "; ".join(parts), campaigns=rows)
    rates = [
        (r["guess_rate_informed"], r["guess_rate_blind"])
        for n, r in rows.items()
        if n != "adversarial" and r["guess_rate_informed"] is not None
    ]
    flagged = {n: r["health_failures"] for n, r in rows.items() if r["health_failures"]}
    guesses = (
        f"; guessed at most {max(i for i, _ in rates):.3f} knowing the firmware,"
        f" {max(b for _, b in rates):.3f} from the faces alone"
        if rates
        else ""
    )
    return ok(
        f"{noises} noises x {presses} presses: worst spread {max(spread.values())}"
        f" (<= {MAX_SPREAD}), longest absence {max(absent.values())} (< {MAX_ABSENCE + 1})"
        f"{guesses}; {sum(flagged.values())} presses under {len(flagged)} noises flagged"
        " by the health tests",
        campaigns=rows,
    )


def _predictable(campaigns: dict[str, Any]) -> str:
    """Why a player can predict the faces (the empty string: no player can, as
    far as the campaigns tell), under the noises whose faces were not flagged
    by the firmware's health tests."""
    worst: list[tuple[float, str]] = []
    for noise, r in campaigns.items():
        if noise == "adversarial":
            continue
        shown = sum(r.tally.counts)
        for who, rate, limit in (
            ("a player who knows the firmware", r.tally.guess_rate_informed, MAX_INFORMED),
            ("a player who sees only the faces", r.tally.guess_rate_blind, MAX_BLIND),
        ):
            if rate is None or not shown:
                continue
            low = rate - _Z * math.sqrt(rate * (1 - rate) / shown)
            if low > limit:
                worst.append(
                    (
                        low - limit,
                        f"{who} guesses {rate:.3f} of the {shown} faces shown under {noise}"
                        f" (limit {limit}; flagged by the health tests: {r.health_failures})",
                    )
                )
    return max(worst)[1] if worst else ""


def power_cuts(ctx: Context) -> Result:
    from fairdie.subjects.die.faults import Target, run_faults

    st = DieState.of(ctx)
    if st.model is None:
        return skip("no reference model of what the firmware stores: no state to judge a cut by")
    board, variant, firmware = st.campaign
    target = Target(board=board, variant=variant, firmware=firmware, setup=st.campaign_setup())
    seen = [0.0]

    def progress(done: int, total: int) -> None:
        ctx.tick(done / total - seen[0])
        seen[0] = done / total

    report = run_faults(
        list(FAULT_CAMPAIGNS),
        target=target,
        quick=True,
        seed=ctx.o.seed,
        jobs=ctx.o.jobs,
        scheduler=ctx.o.scheduler,
        progress=progress,
    )
    st.faults = report
    out = report.as_json()
    keys = ("cuts", "cycles_covered", "images", "torn_values", "presses", "violations", "seconds")
    details = {k: out[k] for k in keys}
    if report.violations:
        kinds: dict[str, int] = {}
        first = None
        for o in report.outcomes.values():
            for v in o.violations:
                kinds[v.invariant] = kinds.get(v.invariant, 0) + 1
                first = first or v
        assert first is not None
        by = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        kept = sum(kinds.values())
        detail = first.detail if len(first.detail) <= 100 else first.detail[:97] + "..."
        return fail(
            f"{report.violations} violations ({by} of the {kept} kept); the first:"
            f" {first.invariant} {detail}; replay: fairdie faults --replay {first.replay}",
            replay=first.replay,
            **details,
        )
    return ok(
        f"{', '.join(FAULT_CAMPAIGNS)} quick tier: {out['cuts']:,} cuts"
        f" ({report.torn_per_write()}), {out['cycles_covered']:,} cycles covered,"
        f" {out['images']:,} images booted, 0 violations",
        **details,
    )


def energy(ctx: Context) -> Result:
    st = DieState.of(ctx)
    timelines = st.presses_for_energy()
    hold = die_options(ctx).hold
    e = estimate(timelines, ctx.c.board, hold=hold, by_power=st.by_power)
    st.publish()
    if e.led_s <= 0:
        return skip(
            f"none of the {len(timelines)} recorded presses lit an LED: no charge per press"
            " to give (a die that shows nothing is judged by faces)"
        )
    ctx.energy = e
    return ok(e.summary(), **e.as_json())
