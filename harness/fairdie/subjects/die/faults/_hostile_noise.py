"""Campaign G6: hostile ADC noise (G5, hostile images: _hostile).

Noise at the rails, out of range (above vcc the ADC clips; below 0 the
noise models and the chip refuse it, cleanly), 0 and 1023 in alternation,
the lab's adversary, and code sequences that Hypothesis searches for a
press that breaks a rule. Every press, from an erased chip and from the
images at the edges of the rule, must light a face 1..6 within
BOOT_LIMIT_S, or the fault pattern where the model's health tests fail the
noise (then storing nothing), do exactly what the model does, and leave the
table it had with the shown face's entry one up and, at most, all entries
shifted down alike (the seed's rule may instead close a gap: its rebase).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairdie.errors import FairdieError
from fairdie.noise import ADC_MAX, Codes, NoiseModel, Stuck, parse_noise
from fairdie.subjects.die import _rule
from fairdie.subjects.die._models import DieModel, conversion_mismatch
from fairdie.subjects.die.faults._hostile import press_as_modelled
from fairdie.subjects.die.faults._ids import press_step, step
from fairdie.subjects.die.faults._images import ERASED, edge_images
from fairdie.subjects.die.faults._rig import BOOT_LIMIT_S, Rig, Target
from fairdie.subjects.die.faults._verdict import judge_press
from fairdie.subjects.die.faults._work import Unit, Work
from fairdie.subjects.die.lab._adversary import Adversary

__all__ = ["G6_NOISES", "plan_g6", "run_g6"]

_OVER_MV = 5000.0  #: above any supply: simavr clips the code to 1023
_UNDER_MV = -500.0  #: below ground: the noise models and the chip refuse it
_HOLD_S = BOOT_LIMIT_S  #: a G6 press: as long as a face may take to light
_QUICK_PRESSES = 50
_FULL_PRESSES = 5_000
_SEARCH_PRESSES = 2  #: presses per searched sequence (one stream of codes across them)
_SEARCH_UNITS = 5  #: the full tier's search, in parts
#: CPU seconds a press of each noise takes, roughly (the rest: 0.0001)
_COST = {"adversarial": 0.002, "search": 0.0033, "over-range": 0.0005, "alternating": 0.0004}


#: name -> noise for a model, a supply and a seed ("under-range" and
#: "search" are run apart: the first must be refused, the second is searched)
G6_NOISES: dict[str, Callable[[DieModel, float, int], NoiseModel] | None] = {
    "rail-low": lambda model, vcc, seed: Stuck(0.0),
    "rail-high": lambda model, vcc, seed: Stuck(vcc),
    "over-range": lambda model, vcc, seed: Stuck(_OVER_MV),
    "alternating": lambda model, vcc, seed: Codes([0, ADC_MAX], vcc),
    "adversarial": lambda model, vcc, seed: Adversary(model, seed, vcc),
    "under-range": None,
    "search": None,
}


def _starts(model: DieModel, seed: int) -> list[tuple[str, bytes]]:
    """An erased chip, all zeros and the images at the edges of the rule."""
    return edge_images(model, seed=seed)


def plan_g6(target: Target, quick: bool, seed: int) -> list[Unit]:
    presses = _QUICK_PRESSES if quick else _FULL_PRESSES
    units = []
    for noise in G6_NOISES:
        if noise == "search" and not quick:
            share = presses // _SEARCH_UNITS
            units += [
                Unit("G6", target, (noise, part, share, seed), cost=_COST[noise] * share)
                for part in range(_SEARCH_UNITS)
            ]
        else:
            units.append(
                Unit(
                    "G6", target, (noise, 0, presses, seed), cost=_COST.get(noise, 0.0001) * presses
                )
            )
    return units


@dataclass(frozen=True)
class _Pressed:
    face: int | None  #: the face shown when the press ended (None: none)
    shown: str  #: what the display showed then: a face, "fault", "off", ...
    lit: int | None  #: cycles from power-on to the first LED lit
    codes: tuple[int, ...]
    after: bytes
    cycles: int  #: the press's length in cycles


def _press(rig: Rig, image: bytes, noise: NoiseModel, k: int) -> _Pressed:
    """Press ``image`` for _HOLD_S reading ``noise`` (press ``k`` of it)."""
    chip, die = rig.chip, rig.die
    if chip.powered:
        chip.power_off()
    chip.write_eeprom(0, image)
    seek = getattr(noise, "seek", None)
    if seek is not None:
        seek(k)
    prepare = getattr(noise, "prepare", None)
    if prepare is not None:  # the adversary: it reads the table it plays against
        prepare(image)
    die.set_noise(noise)
    die.power_on()
    start = chip.cycle
    chip.run(seconds=_HOLD_S)
    lit = die.first_lit()
    shown = die.display() if lit is not None and chip.cycle - lit >= die.window else "off"
    pressed = _Pressed(
        int(shown) if shown.isdigit() else None,
        shown,
        None if lit is None else lit - start,
        tuple(chip.adc_codes()),
        chip.eeprom,
        chip.cycle - start,
    )
    chip.power_off()
    return pressed


_REBASES: dict[str, Callable[[Sequence[int]], tuple[int, ...]]] = {"seed": _rule.rebase}


def _table_step(model: DieModel, before: bytes, after: bytes, face: int) -> str:
    """How the table went from ``before`` to ``after`` as ``face`` showed:
    "up" (that entry one up), "shift" (and then all shifted down alike) or
    "rebase" (the rule's own); the empty string for anything else."""
    t0, t1 = model.table(before), model.table(after)
    up = [t + (f == face) for f, t in enumerate(t0, 1)]
    shifts = {u - t for u, t in zip(up, t1, strict=True)}
    if len(shifts) == 1 and min(shifts) >= 0:
        return "shift" if min(shifts) else "up"
    rebase = _REBASES.get(model.name)
    if rebase is not None and [t + (f == face) for f, t in enumerate(rebase(t0), 1)] == list(t1):
        return "rebase"
    return ""


def _judge(model: DieModel, before: bytes, p: _Pressed) -> tuple[str, str] | None:
    # the fault pattern is right only where the model's health tests fail too
    found = judge_press(model, before, p.codes, p.shown, p.after)
    if found is not None or p.face is None:
        return found
    if not _table_step(model, before, p.after, p.face):
        t0, t1 = model.table(before), model.table(p.after)
        return "G6", (
            f"the table went from {list(t0)} to {list(t1)} showing face {p.face}: not that"
            " face one up, then all shifted down alike or rebased (a count wrapped or fell)"
        )
    return None


def _chain(
    work: Work, name: str, image: bytes, noise: NoiseModel, presses: int, first: int
) -> tuple[str, str] | None:
    """Press ``presses`` times from ``image``, each from what the last left,
    judging each; the first broken check (also recorded as a violation)."""
    rig, model, out = work.rig, work.model, work.out
    found_first = None
    for k in range(first, first + presses):
        p = _press(rig, image, noise, k)
        out.presses += 1
        out.figure(f"{name}_presses", 1)
        if p.lit is not None:
            out.figure("lit_ms_max", 1000 * p.lit / rig.chip.frequency)
        if name == "over-range" and any(c != ADC_MAX for c in p.codes):
            found: tuple[str, str] | None = (
                "G6",
                f"{_OVER_MV:g} mV read as {sorted(set(p.codes))}, not clipped to {ADC_MAX}",
            )
        else:
            found = _judge(model, image, p)
        if found is not None:
            # a press that read as many codes as the model replays as itself; any
            # other (the firmware is not the model's) replays as a boot, judged so
            as_modelled = conversion_mismatch(model, p.codes) is None
            steps = [press_step(p.cycles)] if as_modelled else ["boot"]
            codes = p.codes if as_modelled else ()
            work.violate(found, work.replay(image, codes, steps))
            found_first = found_first or found
        elif p.face is not None:
            out.figure(f"tables_{_table_step(model, image, p.after, p.face)}", 1)
        image = p.after
    return found_first


def _refused(work: Work, starts: Sequence[tuple[str, bytes]], presses: int) -> None:
    """Below ground: the noise models refuse it, and so does the chip, cleanly
    (nothing stored, the next press as the model's)."""
    rig, model = work.rig, work.model
    vcc = rig.chip.vcc_mv
    models: dict[str, Callable[[], NoiseModel]] = {
        "Stuck": lambda: Stuck(_UNDER_MV),
        "parse_noise": lambda: parse_noise(f"stuck:{_UNDER_MV:g}", seed=0, vcc_mv=vcc),
    }
    for what, make in models.items():
        try:
            make()
        except ValueError:
            work.out.figure("under-range_refused", 1)
        else:
            work.violate(("G6", f"{what} took {_UNDER_MV:g} mV"), work.replay(ERASED, (), ["boot"]))
    rng = random.Random("G6/under-range")
    for n in range(presses):
        image = starts[n % len(starts)][1]
        try:
            p = _press(rig, image, lambda channel: _UNDER_MV, n)
        except FairdieError:
            work.out.figure("under-range_refused", 1)
            rig.chip.power_off()
            left = rig.chip.eeprom
            if model.state(left) != model.state(image):
                work.violate(
                    ("G6", f"a press refused at {_UNDER_MV:g} mV left state {left.hex()}"),
                    work.replay(image, (), ["boot"]),
                )
        else:
            work.violate(
                ("G6", f"the chip took {_UNDER_MV:g} mV and read {sorted(set(p.codes))}"),
                work.replay(image, p.codes, [step(p.cycles, None)]),
            )
        work.out.presses += 1
        press_as_modelled(work, image, rng)  # the next press is the model's


def _search(
    work: Work, starts: Sequence[tuple[str, bytes]], examples: int, seed: int, part: int
) -> None:
    """Hypothesis looks for a code sequence that, pressed from one of
    ``starts`` _SEARCH_PRESSES times as one stream, breaks a check."""
    # imported here: Hypothesis takes half a second to load, and only G6 needs it
    from hypothesis import HealthCheck, Phase, Verbosity, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    from fairdie.noise.strategies import noise_sequences

    vcc = work.rig.chip.vcc_mv
    reads = work.model.reads
    strategy = st.tuples(
        st.integers(0, len(starts) - 1),
        noise_sequences(min_size=1, max_size=_SEARCH_PRESSES * reads),
    )
    tried = [0]

    def breaks(example: tuple[int, list[int]]) -> bool:
        tried[0] += 1
        i, codes = example
        probe = Work(work.unit)  # judged apart: only the shrunk example is recorded
        noise = Codes(codes, vcc)
        return _chain(probe, "search", starts[i][1], noise, _SEARCH_PRESSES, 0) is not None

    try:
        i, codes = find(
            strategy,
            breaks,
            settings=settings(
                max_examples=examples,
                database=None,
                deadline=None,
                derandomize=False,
                # shrunk, the example is what is recorded; Hypothesis' explain
                # phase would only vary it for a report nobody reads
                phases=[p for p in Phase if p is not Phase.explain],
                verbosity=Verbosity.quiet,
                suppress_health_check=list(HealthCheck),
            ),
            random=random.Random(f"G6/{seed}/search/{part}"),
        )
    except NoSuchExample:
        pass
    else:
        _chain(work, "search", starts[i][1], Codes(codes, vcc), _SEARCH_PRESSES, 0)
    work.out.figure("search_examples", tried[0])
    work.out.presses += tried[0] * _SEARCH_PRESSES


def run_g6(work: Work) -> None:
    name, part, presses, seed = work.unit.args
    starts = _starts(work.model, seed)
    if name == "under-range":
        _refused(work, starts, max(1, presses // 10))
        return
    if name == "search":
        _search(work, starts, max(1, presses // _SEARCH_PRESSES), seed, part)
        return
    build = G6_NOISES[name]
    assert build is not None
    noise = build(work.model, work.rig.chip.vcc_mv, seed)
    per = -(-presses // len(starts))
    done = 0
    for _, image in starts:
        n = min(per, presses - done)
        if n <= 0:
            break
        _chain(work, name, image, noise, n, done)
        done += n
