"""The invariants, judged on what a cut left (fairdie.subjects.die.faults: I1..I4).

A press goes from state S0 (what the image before it holds) to S1 (the rule
applied to the noise it read) and, held 10 s, to S2 (S1 cleared). A cut
before the face lit may leave S0 or S1 (I1, atomic); a cut after it lit, S1
or S2 (I2, durable once shown). States are the model's canonical reading of
an image (``DieModel.state``), so two images that roll alike are the same.
Chained presses each judged this way lose or add at most the roll in flight
(I3). A booted image must light a face within the limit and store what the
model says the firmware stores from it (I4).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from fairdie.subjects.die import _fair
from fairdie.subjects.die._models import DieModel, conversion_mismatch
from fairdie.subjects.die.faults._target import BOOT_LIMIT_S

if TYPE_CHECKING:
    from fairdie.subjects.die._model_host import HostModel
    from fairdie.subjects.die.faults._rig import Boot

__all__ = ["Expect", "Violation", "judge_boot", "judge_model", "rolls_from_digest", "rule_step"]


@dataclass(frozen=True)
class Violation:
    """One broken invariant and the id that replays it."""

    invariant: str  #: "I1".."I4", or "model" (the chip did not do what its model does)
    replay: str
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"invariant": self.invariant, "replay": self.replay, "detail": self.detail}


def rolls_from_digest(model: DieModel, digest: int | None) -> bool:
    """Whether :func:`rule_step` rolls from ``digest`` (the fair rule, given
    one) instead of stepping the model on the codes."""
    return digest is not None and model.name == "fair"


def rule_step(
    model: DieModel, state: bytes, codes: Sequence[int], digest: int | None = None
) -> tuple[int | None, bytes]:
    """``model.step(state, codes)``. Given ``digest``, what the model in C
    takes of the codes (``HostModel.digest``: the fair rule's fresh bits, -1
    when the health tests fail), the fair rule rolls from it in Python
    rather than sampling the codes again (then the codes are not read)."""
    if digest is None or not rolls_from_digest(model, digest):
        return model.step(state, codes)
    if digest < 0:
        return None, _fair.canonical(state)
    face, after = _fair.roll(state, digest)
    return face, _fair.canonical(after)


class Expect:
    """The states a press from ``before`` reading ``codes`` may leave. With
    ``host`` (the model in C, fairdie.subjects.die._model_host) the codes are
    sampled (unless ``digest`` is given: theirs) and the image stored in C,
    the rule and the states read in Python."""

    def __init__(
        self,
        model: DieModel,
        before: bytes,
        codes: Sequence[int],
        host: HostModel | None = None,
        digest: int | None = None,
    ) -> None:
        self.model = model
        self.s0 = model.state(before)
        if digest is None and host is not None:
            digest = host.digest(array("H", codes))[0]
        self._digest = digest
        self.face, self.s1 = rule_step(model, self.s0, codes, self._digest)
        self._before, self._codes, self._host = before, codes, host
        #: image -> its state: G2 judges tens of thousands of cuts that leave a few images
        self._states: dict[bytes, bytes] = {}

    @cached_property
    def image(self) -> bytes:
        """The image the press stores."""
        if self._host is None or self._digest is None:
            return self.model.press(self._before, self._codes)[1]
        return self._host.chain(self._before, array("i", (self._digest,)))[1]

    @cached_property
    def s2(self) -> bytes:
        """The state once the press is held past the clear."""
        return self.model.state(self.model.cleared(self.image))

    def judge(self, image: bytes, *, lit: bool) -> tuple[str, str] | None:
        """``(invariant, detail)`` if ``image``, left by a cut before the face
        lit (``lit`` False) or after, breaks I1 or I2."""
        s = self._states.get(image)
        if s is None:
            s = self._states[image] = self.model.state(image)
        if lit:
            if s in (self.s1, self.s2):
                return None
            if s == self.s0:
                return "I2", "the face had lit, but the cut lost its roll"
            return "I2", f"after the face lit, the cut left a third state {s.hex()}"
        if s in (self.s0, self.s1):
            return None
        return "I1", (
            f"the cut left state {s.hex()}: neither the state before ({self.s0.hex()})"
            f" nor after ({self.s1.hex()})"
        )


def judge_model(
    model: DieModel,
    before: bytes,
    codes: Sequence[int],
    face: int | None,
    after: bytes,
    host: HostModel | None = None,
) -> tuple[str, str] | None:
    """Whether a whole press from ``before`` showed and stored what the model
    does (pressed in C by ``host``, the model's port, where given)."""
    wrong = conversion_mismatch(model, codes)
    if wrong is not None:
        return "model", wrong
    want_face, want = (model if host is None else host).press(before, codes)
    if (face, after) != (want_face, want):
        return "model", (
            f"the chip showed {face} and stored {after.hex()}; its model {want_face}"
            f" and {want.hex()}"
        )
    return None


def judge_press(
    model: DieModel, before: bytes, codes: Sequence[int], shown: str, after: bytes
) -> tuple[str, str] | None:
    """A whole press from ``before`` that converted ``codes``, showed ``shown``
    and left ``after``: a face 1..6, or the fault pattern where the model's
    health tests fail the noise, each exactly as the model has it."""
    face = int(shown) if shown.isdigit() else None
    if face is None and shown != "fault":
        return "I4", f"neither a face nor the fault pattern lit: the display showed {shown}"
    if face is not None and not 1 <= face <= 6:
        return "G6", f"the die showed face {face}"
    return judge_model(model, before, codes, face, after)


def judge_boot(
    model: DieModel, image: bytes, boot: Boot, host: HostModel | None = None
) -> tuple[str, str] | None:
    """I4 for one booted image (``host``: as :func:`judge_model`)."""
    if boot.face is None or not 1 <= boot.face <= 6:
        return "I4", f"no face lit within {BOOT_LIMIT_S} s of power-on"
    return judge_model(model, image, boot.codes, boot.face, boot.after, host)
