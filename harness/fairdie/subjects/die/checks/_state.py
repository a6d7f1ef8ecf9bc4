"""What the die's checks share in one verify run: the model found, the dice,
the recorded presses, the campaigns' results."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from fairdie.noise import Codes
from fairdie.subjects.die._board import die_spec
from fairdie.subjects.die._fresh import FreshDice
from fairdie.subjects.die.checks._options import die_options
from fairdie.subjects.die.checks._press import record_press
from fairdie.verify import Context, Timeline

if TYPE_CHECKING:
    from fairdie.device import Setup
    from fairdie.sim import Chip
    from fairdie.subjects.die import Die
    from fairdie.subjects.die._models import DieModel
    from fairdie.subjects.die.faults import Report
    from fairdie.subjects.die.lab._campaign import CampaignResult

__all__ = ["DieState"]

_ROLLS_RECORDED = 6
_STANDBY_TAIL_S = 0.5  # a die that stays powered: watched this long after its face settled


class DieState:
    """The die's part of a verify :class:`~fairdie.verify.Context`."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.model: DieModel | None = None
        #: what the campaigns press (board, variant, firmware): an identified build
        #: by its variant (replay ids then name the build), else the file on the
        #: board, or on a copy of it naming a build of the model found
        self.campaign: tuple[str, str | None, str | None] = (
            ctx.c.board_arg,
            None,
            str(ctx.c.path),
        )
        self._dice: dict[str | None, FreshDice] = {}
        self._faces: dict[int, Timeline] | None = None
        self.images: dict[int, tuple[bytes, tuple[int, ...]]] = {}
        self._rolls: list[Timeline] | None = None
        self.roll_faces: list[int] = []  #: faces rolled (a die with no model)
        self.fresh: Timeline | None = None
        self.campaigns: dict[str, CampaignResult] = {}
        self.faults: Report | None = None
        self._campaign_setup: Setup | None = None

    def campaign_setup(self) -> Setup:
        """The recipe every campaign of this verify presses (:attr:`campaign`),
        made once: board, build and firmware loaded once for all of them."""
        if self._campaign_setup is None:
            from fairdie.subjects.die._cli import die_setup

            board, variant, firmware = self.campaign
            c = self.ctx.c
            if (board, variant, firmware) == (c.board_arg, None, str(c.path)):
                self._campaign_setup = c.setup  # the file on its board, as verify loaded it
            else:  # a build named by its variant, or a copy of the board naming one
                self._campaign_setup = die_setup(
                    c.board if board == c.board_arg else board,
                    variant=variant,
                    firmware=firmware,
                    seed=self.ctx.o.seed,
                )
        return self._campaign_setup

    @classmethod
    def of(cls, ctx: Context) -> DieState:
        state = ctx.state.get("die")
        if not isinstance(state, DieState):
            state = ctx.state["die"] = cls(ctx)
        return state

    def die(self, *, eeprom: bytes | None = None, codes: Sequence[int] | None = None) -> Die:
        """A fresh die: this firmware on this board at the board's clock, its
        EEPROM erased plus the file's own image unless ``eeprom`` replaces it,
        fed ``codes`` (else the default noise). It is valid until the next call."""
        key = self.model.name if self.model is not None else None
        dice = self._dice.get(key)
        if dice is None:
            dice = self._dice[key] = FreshDice(self._make)
        die = dice.get(eeprom)
        self.ctx.track(die.chip)
        if codes is not None:
            die.set_noise(Codes(codes, die.chip.vcc_mv))
        return die

    def _make(self) -> Die:
        from fairdie.subjects.die import Die

        setup = self.ctx.c.setup
        return Die(
            board=self.ctx.c.board,
            firmware=setup.load(),
            f_cpu=setup.f_cpu,
            model=self.model,
            seed=self.ctx.o.seed,
        )

    @property
    def by_power(self) -> bool:
        """The die rolls by its power switch (else by a button and stays powered)."""
        return self.die().rolls_by_power

    def table(self, image: bytes) -> tuple[int, ...] | None:
        """The die's table in an image: its model's reading, else its [die] counters."""
        if self.model is not None:
            return self.model.table(image)
        spec = die_spec(self.ctx.c.board)
        if spec is not None and spec.counters is not None:
            return tuple(image[spec.counters : spec.counters + 6])
        return None

    def face_presses(self) -> dict[int, Timeline]:
        """Each face forced through the model's image and codes, pressed ``hold`` s."""
        if self._faces is None:
            model = self.model
            assert model is not None
            self._faces = {}
            for face in range(1, 7):
                image, codes = model.forcing(face)
                self.images[face] = (image, codes)
                die = self.die(eeprom=image, codes=codes)
                self._faces[face] = record_press(
                    die,
                    die_options(self.ctx).hold,
                    tail=self._tail(die),
                    keep=self.keeper(
                        f"face-{face}.vcd", f"face {face} forced through the model's table"
                    ),
                )
            self.publish()
        self._link(f"face-{f}.vcd" for f in self._faces)
        return self._faces

    def keeper(self, name: str, comment: str = "") -> Callable[[Chip], object]:
        """A ``record_press`` ``keep``: the press as a VCD, linked to the running check."""

        def keep(chip: Chip) -> None:
            self.ctx.add_vcd(chip, name, comment)
            self._link([name])

        return keep

    def _link(self, vcds: Iterable[str]) -> None:
        """Link the check that asks for recorded presses to their VCDs (once)."""
        for name in vcds:
            self.ctx.link_file(name, f"VCD of the press ({name})")

    def recorded_rolls(self) -> list[Timeline]:
        """A die with no model: a few presses of ``hold`` s with its own noise."""
        if self._rolls is None:
            die = self.die()
            tail = self._tail(die)
            hold = die_options(self.ctx).hold
            self._rolls = [
                record_press(
                    die,
                    hold,
                    tail=tail,
                    keep=self.keeper(f"roll-{i + 1}.vcd"),
                )
                for i in range(_ROLLS_RECORDED)
            ]
            self.publish()
        self._link(f"roll-{i + 1}.vcd" for i in range(len(self._rolls)))
        return self._rolls

    @staticmethod
    def _tail(die: Die) -> float:
        return 0.0 if die.rolls_by_power else _STANDBY_TAIL_S

    def any_press(self) -> Timeline | None:
        """A recorded press for the timing diagram: the fresh chip's, else another."""
        if self.fresh is not None:
            return self.fresh
        if self._faces:
            return next(iter(self._faces.values()))
        return self._rolls[0] if self._rolls else None

    def publish(self) -> None:
        """Show :meth:`any_press` in the report's timing diagram."""
        self.ctx.timeline = self.any_press()

    def presses_for_energy(self) -> list[Timeline]:
        if self.model is not None:
            return list(self.face_presses().values())
        return self.recorded_rolls()
