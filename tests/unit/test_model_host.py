"""The die's models in C for the host (fairdie.subjects.die._model_host) against
their Python models: every press, chain and adversary's choice the same."""

from __future__ import annotations

import fnmatch
import tomllib
from array import array
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdie.plugin import examples
from fairdie.subjects.die import _ring
from fairdie.subjects.die._model_host import HostModel, host_model
from fairdie.subjects.die._models import MODELS, DieModel, FairModel
from fairdie.subjects.die.lab._adversary import Adversary, menu_key

ERASED = b"\xff" * 64


@pytest.fixture(scope="module", params=["fair", "seed"])
def models(request: pytest.FixtureRequest, host_cc: str) -> tuple[DieModel, HostModel]:
    model = MODELS[request.param]
    host = host_model(model, cc=host_cc)
    assert host is not None
    return model, host


def _images() -> st.SearchStrategy[bytes]:
    """Erased, any bytes, and rings a few saves deep with a slot or two broken."""
    fair = st.builds(_ring.save, st.just(ERASED), st.binary(min_size=3, max_size=3))
    ring = st.tuples(fair, st.integers(0, 63), st.integers(0, 255)).map(
        lambda t: t[0][: t[1]] + bytes([t[2]]) + t[0][t[1] + 1 :]
    )
    return st.one_of(st.just(ERASED), st.binary(min_size=64, max_size=64), fair, ring)


def _codes(size: int, code: Callable[[bytes, int], int]) -> st.SearchStrategy[list[int]]:
    """256 codes from one draw of ``size`` bytes each (one draw, not 256:
    Hypothesis spends most of this test's time on drawing list elements)."""
    return st.binary(min_size=256 * size, max_size=256 * size).map(
        lambda b: [code(b, i * size) for i in range(256)]
    )


# codes as a floating pin, a weak one, a stuck one and a uniform one give them
_CODES = st.one_of(
    _codes(2, lambda b, i: int.from_bytes(b[i : i + 2], "little") % 1024),
    _codes(1, lambda b, i: 500 + b[i] % 3),
    _codes(1, lambda b, i: 700 + b[i] % 2),
    _codes(1, lambda b, i: 300 + b[i] % 4),
    st.just([512] * 256),
)


@settings(max_examples=examples(300), deadline=None)
@given(image=_images(), codes=_CODES)
def test_a_press_is_the_models(
    models: tuple[DieModel, HostModel], image: bytes, codes: list[int]
) -> None:
    model, host = models
    assert host.press(image, codes) == model.press(image, tuple(codes))
    assert host.digest(array("H", codes))[1] == model.conversions(tuple(codes))
    assert host.table(image) == model.table(image)


def test_codes_that_end_before_the_press_are_refused(models: tuple[DieModel, HostModel]) -> None:
    _model, host = models
    with pytest.raises(ValueError, match="converts more than these 0 codes"):
        host.digest(array("H"))
    if host.name == "fair":  # 63 live codes: the proportion test's window is 64
        with pytest.raises(ValueError, match="63 codes"):
            host.press(ERASED, [i % 1024 for i in range(0, 63 * 389, 389)])


def test_a_chain_of_digests_is_the_presses_in_turn(models: tuple[DieModel, HostModel]) -> None:
    model, host = models
    rng = np.random.default_rng(4)
    # each code any code, 600 or 601 alike (drawn at once: drawn code by code
    # with random.choice they took half this test's time); a tenth stuck pins
    picks = rng.integers(0, 3, (3000, 256))
    codes_of = np.where(picks == 0, rng.integers(0, 1024, (3000, 256)), 599 + picks)
    codes_of[rng.random(3000) < 0.1] = 600
    image, digests, faces = ERASED, array("i"), bytearray()
    for codes in codes_of.tolist():
        digests.append(host.digest(array("H", codes))[0])
        face, image = model.press(image, tuple(codes))
        faces.append(face or 0)
    assert host.chain(ERASED, digests) == (bytes(faces), image)
    # every face, and the fair rule's health failures (the seed's rule has no tests)
    assert set(faces) == set(range(0 if model.name == "fair" else 1, 7))


@settings(max_examples=examples(60), deadline=None)
@given(image=_images(), seed=st.integers(0, 2**32), press=st.integers(0, 10**6))
def test_the_adversary_chooses_as_its_reference(
    models: tuple[DieModel, HostModel], image: bytes, seed: int, press: int
) -> None:
    model, host = models
    adversary = Adversary(model, seed, 3000)
    adversary.seek(press)
    assert tuple(
        host.adversary(image, menu_key(seed, press), adversary.tries)
    ) == adversary.prepare(image)


def test_an_adversarial_chain_is_its_presses_in_turn(models: tuple[DieModel, HostModel]) -> None:
    model, host = models
    adversary = Adversary(model, 9, 3000)
    image, digests, faces = ERASED, array("i"), bytearray()
    for k in range(300):
        digests.extend(host.menu_digests(menu_key(9, k), adversary.tries))
        adversary.seek(k)
        face, image = model.press(image, adversary.prepare(image))
        faces.append(face or 0)
    items = len(digests) // 300
    assert host.adversary_chain(ERASED, digests, items) == (bytes(faces), image)


def test_only_the_models_it_ports_have_a_port(host_cc: str) -> None:
    class Other(FairModel):
        pass

    assert host_model(Other(), cc=host_cc) is None


def test_the_c_ships_with_the_package() -> None:
    """Workers build the C from their own installed package: it must ship."""
    root = Path(__file__).resolve().parents[2]
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["fairdie"]
    for name in ("models.c", "models.h"):
        assert (root / "harness/fairdie/subjects/die/host" / name).is_file()
        assert any(fnmatch.fnmatch(f"subjects/die/host/{name}", p) for p in shipped), name
