"""The checks verify runs, in order, each to a :class:`Check`.

Every check returns pass, fail or skipped with a one-line reason. The
behaviour checks press the firmware on its board through :class:`fairdie.subjects.die.Die`;
those that judge a press against the die's reference model (``fairdie.subjects.die``:
forced faces, tables, the clear, fairness, power cuts) run only when the
firmware follows one, and say so when they are skipped.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdie.errors import BoardError, FairdieError, FirmwareError
from fairdie.noise import Codes
from fairdie.verify._energy import Energy, estimate
from fairdie.verify._subject import Subject, board_copy, identify, models_of, variant_for
from fairdie.verify._timeline import Timeline, record_press

if TYPE_CHECKING:
    from fairdie.subjects.die import Die
    from fairdie.subjects.die.faults import Report
    from fairdie.subjects.die.lab._campaign import CampaignResult

__all__ = [
    "CHECKS",
    "FAIL",
    "PASS",
    "SKIP",
    "STANDARD_NOISES",
    "Check",
    "Context",
    "Options",
    "run_check",
]

PASS, FAIL, SKIP = "pass", "fail", "skipped"

#: the noise models of the fairness campaign (the README's table), adversarial included
STANDARD_NOISES = (
    "floating",
    "uniform",
    "stuck:1500",
    "stuck:1000",
    "rail-low",
    "rail-high",
    "hum:50",
    "biased:5,1,1,3",
    "adversarial",
)
#: the fairness campaign's criteria: the fair rule's guarantees (README, "The fair die")
MAX_SPREAD = 3
MAX_ABSENCE = 39
#: the power-cut campaigns verify runs, in their quick tier
FAULT_CAMPAIGNS = ("G1", "G2", "G3", "G4")
_CLEAR_HOLD_S = 10.05
_NO_CLEAR_HOLD_S = 9.9
_FRESH_HOLD_S = 0.2
_QUICK_HOLD_S = 0.06  # a press long enough to show its face, as the lab's campaigns press
_ROLLS = 60  # rolls of a die with no model: every face must come up
_RECORDED_ROLLS = 6
_STANDBY_TAIL_S = 0.5  # a die that stays powered: watched this long after its face settled

#: (name, what it checks), in the order they run
CHECKS: tuple[tuple[str, str], ...] = (
    ("mcu-and-memory", "built for the board's MCU; fits its flash, SRAM and EEPROM"),
    ("clock", "the clock the build expects (its avr_mcu section) is the board's"),
    ("board-wiring", "the board file is wired as the build drives its LEDs"),
    ("model", "the reference model (fairdie.subjects.die) the firmware's presses follow"),
    ("faces", "every face lights as the board's display shows it"),
    ("press-counts", "a press counts the face shown: the table after is the model's"),
    ("clear-10s", "held 10.05 s: table cleared, all LEDs lit; held 9.9 s: not cleared"),
    ("fresh-chip", "an erased chip rolls a face and stores a valid record"),
    ("stored-before-shown", "each roll is in EEPROM before its face lights"),
    ("fairness", "worst spread <= 3, no face absent 40 presses, under every standard noise"),
    ("power-cuts", "power-cut campaigns G1-G4 (quick tier): no violation"),
    ("energy", "charge per press and presses from a CR2032 (an estimate)"),
)

#: edge tables a model's presses must count right: (table, codes or None for random)
_EDGES: dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...] | None], ...]] = {
    # the rebase at 255: from a 0 (the gap rule) and from a minimum above 0
    "seed": (
        ((0, 255, 255, 255, 255, 255), (0,)),
        ((0, 255, 255, 255, 255, 255), (1,)),
        ((0, 255, 255, 255, 255, 255), (2,)),
        ((254, 255, 255, 255, 255, 255), (1,)),
        ((255, 255, 255, 255, 255, 255), (2,)),
    ),
    # offsets at the window's edge
    "fair": (
        ((0, 1, 2, 3, 3, 3), None),
        ((3, 3, 0, 3, 3, 2), None),
        ((1, 1, 1, 1, 1, 0), None),
    ),
}


@dataclass
class Check:
    """One row of the table."""

    name: str
    status: str  #: "pass", "fail" or "skipped"
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "reason": self.reason,
            "details": self.details,
            "seconds": round(self.seconds, 2),
        }


@dataclass(frozen=True)
class Options:
    """What the run may change: campaign sizes, the press's hold, the seed, processes."""

    presses: int = 2000  #: presses per noise in the fairness campaign
    hold: float = 1.0  #: seconds a press is held (faces, energy)
    seed: int = 0
    jobs: int = 1
    noises: tuple[str, ...] = STANDARD_NOISES


class Context:
    """What the checks share: the subject, the options and what earlier checks found."""

    def __init__(
        self,
        subject: Subject,
        options: Options,
        folder: Path,
        tick: Callable[[float], None],
    ) -> None:
        self.s = subject
        self.o = options
        self.folder = folder
        self.tick = tick
        self.runs = False  #: the firmware loads on the board's MCU
        self.by_power = True
        self._identified = False
        self._faces: dict[int, Timeline] | None = None
        self._images: dict[int, tuple[bytes, tuple[int, ...]]] = {}
        self._rolls: list[Timeline] | None = None
        self.roll_faces: list[int] = []
        self.fresh: Timeline | None = None
        self.campaigns: dict[str, CampaignResult] = {}
        self.faults: Report | None = None
        self.energy: Energy | None = None

    # ---- dice -----------------------------------------------------------------

    def die(self, *, eeprom: bytes | None = None, codes: Sequence[int] | None = None) -> Die:
        """A fresh die: this firmware on this board, the board's clock, erased
        EEPROM plus the file's own image unless ``eeprom`` replaces it, fed
        ``codes`` (else the default noise)."""
        from fairdie.subjects.die import Die

        s = self.s
        die = Die(
            board=s.board,
            firmware=s.firmware,
            f_cpu=s.f_cpu,
            model=s.model,
            seed=self.o.seed,
            eeprom=eeprom,
        )
        if codes is not None:
            die.set_noise(Codes(codes, die.chip.vcc_mv))
        return die

    def identify(self) -> None:
        """Which build of the board's target the file is, byte for byte (once)."""
        s = self.s
        if self._identified or s.board.firmware is None:
            return
        self._identified = True
        s.identified, s.identify_note = identify(
            s.firmware, s.board.firmware, mcu=s.board.mcu, f_cpu=s.file_f_cpu or s.f_cpu
        )

    def table(self, image: bytes) -> tuple[int, ...] | None:
        """The die's table in an image: its model's reading, else its [die] counters."""
        if self.s.model is not None:
            return self.s.model.table(image)
        spec = self.s.board.die
        if spec is not None and spec.counters is not None:
            return tuple(image[spec.counters : spec.counters + 6])
        return None

    def face_presses(self) -> dict[int, Timeline]:
        """Each face forced through the model's image and codes, pressed ``hold`` s."""
        if self._faces is None:
            model = self.s.model
            assert model is not None
            self._faces = {}
            for face in range(1, 7):
                image, codes = model.forcing(face)
                self._images[face] = (image, codes)
                self._faces[face] = record_press(
                    self.die(eeprom=image, codes=codes), self.o.hold, tail=self._tail
                )
        return self._faces

    def recorded_rolls(self) -> list[Timeline]:
        """A die with no model: a few presses of ``hold`` s with its own noise."""
        if self._rolls is None:
            die = self.die()
            self._rolls = [
                record_press(die, self.o.hold, tail=self._tail) for _ in range(_RECORDED_ROLLS)
            ]
        return self._rolls

    @property
    def _tail(self) -> float:
        return 0.0 if self.by_power else _STANDBY_TAIL_S

    def any_press(self) -> Timeline | None:
        """A recorded press for the timing diagram: the fresh chip's, else another."""
        if self.fresh is not None:
            return self.fresh
        if self._faces:
            return next(iter(self._faces.values()))
        return self._rolls[0] if self._rolls else None

    def presses_for_energy(self) -> list[Timeline]:
        if self.s.model is not None:
            return list(self.face_presses().values())
        return self.recorded_rolls()


def run_check(name: str, ctx: Context) -> Check:
    """Run one check by name."""
    t0 = time.perf_counter()
    status, reason, details = _RUNNERS[name](ctx)
    return Check(name, status, reason, details, time.perf_counter() - t0)


Result = tuple[str, str, dict[str, Any]]


def _ok(reason: str, **details: Any) -> Result:
    return PASS, reason, details


def _fail(reason: str, **details: Any) -> Result:
    return FAIL, reason, details


def _skip(reason: str, **details: Any) -> Result:
    return SKIP, reason, details


# ---- build and board ------------------------------------------------------------


def _mcu(ctx: Context) -> Result:
    from fairdie.sim import Chip

    s = ctx.s
    fw, bd = s.firmware, s.board
    try:
        chip = Chip(fw, mcu=bd.mcu, f_cpu=bd.f_cpu, vcc_mv=bd.vcc_mv, trace=False)
    except FirmwareError as e:
        return _fail(f"{e} (board {bd.name}: {bd.mcu})")
    ctx.runs = True
    sec = fw.sections.get
    flash = sec(".text", 0) + sec(".data", 0) if fw.sections else len(fw.flash)
    ram = chip.ramend + 1 - chip.sram_start
    eeprom = sec(".eeprom", 0) if fw.sections else len(fw.eeprom or b"")
    parts = [f"flash {flash}/{chip.flash_size} B"]
    if fw.sections:
        parts.append(f"static SRAM {sec('.data', 0) + sec('.bss', 0) + sec('.noinit', 0)}/{ram} B")
    parts.append(f"EEPROM {eeprom}/{chip.eeprom_size} B")
    named = fw.device.name if fw.device else fw.mcu
    head = f"built for the {named}" if named else f"a HEX: taken as the board's {bd.mcu}"
    return _ok(
        f"{head}; {', '.join(parts)}",
        flash=flash,
        flash_size=chip.flash_size,
        eeprom=eeprom,
        eeprom_size=chip.eeprom_size,
    )


def _clock(ctx: Context) -> Result:
    s = ctx.s
    f, board_f = s.file_f_cpu, s.board.f_cpu
    where = f"board {s.board.name}: {board_f} Hz"
    if f is None:
        what = (
            "a HEX names no clock" if not s.firmware.sections else "the ELF has no avr_mcu section"
        )
        return _skip(f"{what}: it runs at the board's clock ({where})", board_f_cpu=board_f)
    if f != board_f:
        return _fail(
            f"the ELF's avr_mcu section says {f} Hz, the board runs at {board_f} Hz: its"
            f" timing (ADC instants, the 10 s clear) would be off by x{board_f / f:.3g}",
            f_cpu=f,
            board_f_cpu=board_f,
        )
    return _ok(f"{f} Hz in the ELF's avr_mcu section, as the board ({where})", f_cpu=f)


def _wiring(ctx: Context) -> Result:
    from fairdie.board import check_build

    s = ctx.s
    bd = s.board
    if bd.firmware is None:
        return _skip(
            f"board {bd.name} names no firmware target, so no build to pair with:"
            " its wiring is judged by the faces check"
        )
    ctx.identify()
    try:
        check_build(bd, s.identified)
    except BoardError as e:
        return _fail(str(e).removeprefix(f"{bd.source}: "), build=s.identified)
    wired = {"direct": "direct drive", "charlieplex": "charlieplexing", "mixed": "mixed drive"}
    how = wired.get(bd.led_drive or "", "its LEDs")
    if s.identified is None:
        return _skip(
            f"{s.identify_note}: no build to pair with; the board's own build"
            f" ({bd.variant or 'default'}) fits its {how}, the file's LED drive is judged"
            " by the faces check"
        )
    return _ok(f"{s.identify_note}, made for {how}; board {bd.name} is wired for it")


def _model(ctx: Context) -> Result:
    s = ctx.s
    bd = s.board
    if bd.firmware is None:
        return _skip(f"board {bd.name} names no firmware target, so no reference model")
    from fairdie.subjects.die._models import model_named
    from fairdie.toolchain import load_target

    ctx.identify()
    names = models_of(bd)
    found: str | None = None
    if s.identified is not None:
        found = load_target(bd.firmware).model_for(s.identified)
        how = f"build {s.identified} names model {found!r} (target.toml)"
    else:
        found = next((n for n in names if _reproduces(ctx, n)), None)
        how = (
            f"not a known build; its presses from the {found!r} model's images store"
            f" what that model stores"
        )
    if found is None:
        return _fail(
            f"its presses follow none of {bd.firmware}'s models ({', '.join(names)}):"
            " the checks that need a model cannot judge it"
        )
    s.model = model_named(found)
    if s.identified is not None and s.file_f_cpu in (None, s.f_cpu):
        # byte for byte that build: the campaigns press it by name (their replay ids work)
        s.campaign = (s.board_arg, s.identified, None)
    elif names and found != names[0]:  # the file, on a board naming a build of its model
        variant = s.identified or variant_for(bd, found)
        if variant is None:
            return _fail(f"{how}, but no build of {bd.firmware} with it fits board {bd.name}")
        s.campaign = (board_copy(bd, variant, ctx.folder), None, str(s.path))
    return _ok(how, model=found)


def _reproduces(ctx: Context, name: str) -> bool:
    """Does the firmware store what model ``name`` stores, from that model's images?"""
    from fairdie.subjects.die._models import model_named

    model = model_named(name)
    for face in (1, 6):
        image, codes = model.forcing(face)
        try:
            die = ctx.die(eeprom=image, codes=codes)
            press = die.roll(_QUICK_HOLD_S)
        except FairdieError:
            return False
        after = model.press(image, codes)[1]
        if len(press.adc_codes) != model.reads or die.chip.eeprom[: len(after)] != after:
            return False
    return True


# ---- behaviour --------------------------------------------------------------------


def _lit_names(lit: frozenset[str]) -> str:
    return ", ".join(sorted(lit)) or "nothing"


def _faces(ctx: Context) -> Result:
    s = ctx.s
    if s.model is None:
        return _faces_by_rolling(ctx)
    presses = ctx.face_presses()
    display = ctx.die().faces
    wrong = []
    for face, tl in presses.items():
        if tl.shown != str(face):
            want = _lit_names(display.lit_for(str(face)))
            wrong.append(f"face {face} lit {_lit_names(tl.lit)} ({tl.shown}), not {want}")
    if wrong:
        more = f" (+{len(wrong) - 2} more)" if len(wrong) > 2 else ""
        return _fail("; ".join(wrong[:2]) + more, wrong=len(wrong))
    return _ok(
        f"faces 1..6, each forced through the {s.model.name} model's table, lit as board"
        f" {s.board.name}'s display shows them",
        faces={f: tl.shown for f, tl in presses.items()},
    )


def _faces_by_rolling(ctx: Context) -> Result:
    die = ctx.die()
    hold = max(_QUICK_HOLD_S, die.settle_s + 0.01) if die.rolls_by_power else 0.1
    shown: list[str] = []
    for _ in range(_ROLLS):
        p = die.roll(hold)
        shown.append(str(p.face) if p.face else p.display)
    faces = [int(x) for x in shown if x.isdigit() and 1 <= int(x) <= 6]
    ctx.roll_faces = faces
    bad = [(i, x) for i, x in enumerate(shown) if not (x.isdigit() and 1 <= int(x) <= 6)]
    if bad:
        i, x = bad[0]
        return _fail(f"roll {i + 1} of {_ROLLS} showed {x} ({len(bad)} rolls showed no face)")
    missing = sorted(set(range(1, 7)) - set(faces))
    if missing:
        return _fail(
            f"{_ROLLS} rolls never showed face {', '.join(map(str, missing))}",
            counts=[faces.count(f) for f in range(1, 7)],
        )
    return _ok(
        f"no model to force faces: {_ROLLS} rolls each showed a face, all six came up",
        counts=[faces.count(f) for f in range(1, 7)],
    )


def _fmt(table: Sequence[int] | None) -> str:
    return "?" if table is None else "[" + ", ".join(map(str, table)) + "]"


def _press_counts(ctx: Context) -> Result:
    s = ctx.s
    model = s.model
    if model is None:
        return _counters_count(ctx)
    wrong: list[str] = []
    n = 0
    for face, tl in ctx.face_presses().items():
        image, codes = ctx._images[face]
        want_face, want = model.press(image, codes)
        n += 1
        if len(tl.codes) != model.reads:
            wrong.append(
                f"face {face}: the firmware converted {len(tl.codes)} times, its model"
                f" {model.reads}"
            )
        elif tl.after[: len(want)] != want:
            wrong.append(
                f"from {_fmt(model.table(image))} showing {face} it stored"
                f" {_fmt(model.table(tl.after))}, the model {_fmt(model.table(want))}"
            )
    rng = random.Random(f"verify:{ctx.o.seed}")
    die = ctx.die()
    for table, fixed in _EDGES.get(model.name, ()):
        image = model.with_table(table)
        codes = fixed or tuple(rng.randrange(1024) for _ in range(model.reads))
        die.chip.write_eeprom(0, image)
        die.set_noise(Codes(codes, die.chip.vcc_mv))
        press = die.roll(_QUICK_HOLD_S)
        want_face, want = model.press(image, codes)
        n += 1
        got = die.chip.eeprom
        if press.face != want_face or got[: len(want)] != want:
            code = f" with code {codes[0]}" if len(codes) == 1 else ""
            wrong.append(
                f"from {_fmt(table)}{code} it showed {press.face or press.display} and stored"
                f" {_fmt(model.table(got))}; the {model.name} model shows {want_face}, stores"
                f" {_fmt(model.table(want))}"
            )
    if wrong:
        more = f" (+{len(wrong) - 2} more)" if len(wrong) > 2 else ""
        return _fail("; ".join(wrong[:2]) + more, wrong=len(wrong))
    return _ok(
        f"{n} presses (each face forced, and {n - 6} edge tables): every table after is the"
        f" {model.name} model's, byte for byte",
        presses=n,
    )


def _counters_count(ctx: Context) -> Result:
    spec = ctx.s.board.die
    if spec is None or spec.counters is None:
        return _skip("no reference model and no [die] counters: the die keeps no table")
    die = ctx.die()
    wrong = 0
    for _ in range(12):
        before = ctx.table(die.chip.eeprom)
        p = die.roll(0.1)
        after = ctx.table(die.chip.eeprom)
        assert before is not None and after is not None
        if p.face is None:
            continue
        want = list(before)
        want[p.face - 1] += 1
        if list(after) != want:
            wrong += 1
    if wrong:
        return _fail(f"{wrong} of 12 presses did not add one to the counter of the face shown")
    return _ok("12 presses each added one to the counter of the face shown ([die] counters)")


def _clear(ctx: Context) -> Result:
    model = ctx.s.model
    if model is None:
        return _skip("no reference model: the 10 s clear is the model's rule, not judged")
    image, codes = model.forcing(1)
    pressed = model.press(image, codes)[1]
    cleared = model.state(model.cleared(pressed))
    before = model.state(pressed)
    state = model.state

    def hold(seconds: float) -> Timeline:
        return record_press(ctx.die(eeprom=image, codes=codes), seconds)

    long, short = hold(_CLEAR_HOLD_S), hold(_NO_CLEAR_HOLD_S)
    every = frozenset(ctx.die().faces.leds)
    problems = []
    if state(long.after) != cleared:
        problems.append(f"held {_CLEAR_HOLD_S} s: the table was not cleared")
    if long.end_lit != every:
        problems.append(f"held {_CLEAR_HOLD_S} s: lit {_lit_names(long.end_lit)}, not every LED")
    if state(short.after) != before:
        why = "it was cleared already" if state(short.after) == cleared else "it changed"
        problems.append(f"held {_NO_CLEAR_HOLD_S} s: {why} (a clear at the wrong time)")
    elif short.end_display != "1":
        problems.append(f"held {_NO_CLEAR_HOLD_S} s: it showed {short.end_display}, not face 1")
    if problems:
        return _fail("; ".join(problems))
    return _ok(
        f"held {_CLEAR_HOLD_S} s: table cleared, all {len(every)} LEDs lit;"
        f" held {_NO_CLEAR_HOLD_S} s: table kept, face {short.end_display} still shown"
    )


def _fresh(ctx: Context) -> Result:
    s = ctx.s
    die = ctx.die()
    tl = record_press(die, _FRESH_HOLD_S)
    ctx.fresh = tl
    start = "an erased chip" + (" (with the file's EEPROM image)" if s.firmware.eeprom else "")
    if not (tl.shown.isdigit() and 1 <= int(tl.shown) <= 6):
        return _fail(f"{start} showed {tl.shown}, no face")
    written = [i for i, (a, b) in enumerate(zip(tl.before, tl.after, strict=True)) if a != b]
    where = f"EEPROM {written[0]}..{written[-1]}" if written else "nothing"
    if s.model is None:
        note = "no model to judge what it stored" + (f" (it wrote {where})" if written else "")
        return _ok(f"{start} showed {tl.shown}; {note}")
    face, want = s.model.press(tl.before, tl.codes)
    if len(tl.codes) != s.model.reads:
        return _fail(f"{start} converted {len(tl.codes)} times, its model {s.model.reads}")
    if str(face) != tl.shown or tl.after[: len(want)] != want:
        return _fail(
            f"{start} showed {tl.shown} and stored {_fmt(s.model.table(tl.after))};"
            f" the {s.model.name} model shows {face}, stores {_fmt(s.model.table(want))}"
        )
    if not written:
        return _fail(f"{start} showed {tl.shown} but stored nothing")
    return _ok(
        f"{start} showed {tl.shown} and wrote {where}: the {s.model.name} model's record,"
        f" table {_fmt(s.model.table(tl.after))}"
    )


def _stored_first(ctx: Context) -> Result:
    timelines = list(ctx.presses_for_energy())
    if ctx.fresh is not None:
        timelines.append(ctx.fresh)
    writing = [tl for tl in timelines if tl.eeprom and tl.first_lit is not None]
    if not writing:
        return _skip(f"none of {len(timelines)} presses wrote EEPROM: nothing to store first")
    worst = min(writing, key=lambda tl: (tl.first_lit or 0) - (tl.eeprom_done or 0))
    done, lit = worst.eeprom_done or 0, worst.first_lit or 0
    margin = (lit - done) * 1000 / worst.frequency
    if margin < 0:
        return _fail(
            f"the face lit {-margin:.1f} ms before its roll was stored (first LED at"
            f" {worst.ms(lit):.1f} ms, last EEPROM write done at {worst.ms(done):.1f} ms):"
            " a power cut in between loses a roll already shown",
            margin_ms=round(margin, 3),
        )
    return _ok(
        f"in {len(writing)} presses the last EEPROM write ended before the first LED lit"
        f" (closest: {margin:.3f} ms before, at {worst.ms(lit):.1f} ms)",
        margin_ms=round(margin, 3),
    )


# ---- campaigns --------------------------------------------------------------------


def _fairness(ctx: Context) -> Result:
    from fairdie.subjects.die.lab._campaign import Campaign, CampaignError, run_campaign

    s = ctx.s
    if s.model is None:
        return _skip("no reference model: the fairness campaign judges every press against one")
    if not s.board.analog:
        return _skip(f"board {s.board.name} has no analog input to feed noise to")
    rows: dict[str, dict[str, Any]] = {}
    per = 1.0 / len(ctx.o.noises)
    for noise in ctx.o.noises:
        board, variant, firmware = s.campaign
        c = Campaign(
            ctx.o.presses, noise, ctx.o.seed, variant=variant, firmware=firmware, board=board
        )
        try:
            r = run_campaign(
                c,
                jobs=ctx.o.jobs,
                progress=lambda n: ctx.tick(per * n / ctx.o.presses),
            )
        except CampaignError as e:
            return _fail(f"{noise}: {e}", campaigns=rows)
        ctx.campaigns[noise] = r
        rows[noise] = r.as_json()
    spread = {n: r["worst_spread"] for n, r in rows.items()}
    absent = {n: r["longest_absence"] for n, r in rows.items()}
    over = {n: v for n, v in spread.items() if v > MAX_SPREAD}
    long = {n: v for n, v in absent.items() if v > MAX_ABSENCE}
    noises, presses = len(rows), ctx.o.presses
    if over or long:
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
        return _fail(f"{presses} presses per noise: " + "; ".join(parts), campaigns=rows)
    return _ok(
        f"{noises} noises x {presses} presses: worst spread {max(spread.values())}"
        f" (<= {MAX_SPREAD}), longest absence {max(absent.values())} (< {MAX_ABSENCE + 1})",
        campaigns=rows,
    )


def _power_cuts(ctx: Context) -> Result:
    from fairdie.subjects.die.faults import Target, run_faults

    s = ctx.s
    if s.model is None:
        return _skip("no reference model of what the firmware stores: no state to judge a cut by")
    board, variant, firmware = s.campaign
    target = Target(board=board, variant=variant, firmware=firmware)
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
        progress=progress,
    )
    ctx.faults = report
    out = report.as_json()
    details = {k: out[k] for k in ("cuts", "images", "presses", "violations", "seconds")}
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
        return _fail(
            f"{report.violations} violations ({by} of the {kept} kept); the first:"
            f" {first.invariant} {detail}; replay: fairdie faults --replay {first.replay}",
            replay=first.replay,
            **details,
        )
    return _ok(
        f"{', '.join(FAULT_CAMPAIGNS)} quick tier: {out['cuts']:,} cuts, {out['images']}"
        f" images booted, 0 violations",
        **details,
    )


def _energy(ctx: Context) -> Result:
    timelines = ctx.presses_for_energy()
    ctx.energy = e = estimate(timelines, ctx.s.board, hold=ctx.o.hold, by_power=ctx.by_power)
    return _ok(e.summary(), **e.as_json())


_RUNNERS: dict[str, Callable[[Context], Result]] = {
    "mcu-and-memory": _mcu,
    "clock": _clock,
    "board-wiring": _wiring,
    "model": _model,
    "faces": _faces,
    "press-counts": _press_counts,
    "clear-10s": _clear,
    "fresh-chip": _fresh,
    "stored-before-shown": _stored_first,
    "fairness": _fairness,
    "power-cuts": _power_cuts,
    "energy": _energy,
}
assert tuple(_RUNNERS) == tuple(n for n, _ in CHECKS)
