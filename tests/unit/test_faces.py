"""Die faces: decoding lit positions and drawing them (fairdie.subjects.die._faces)."""

from __future__ import annotations

import pytest

from fairdie.board import load_board
from fairdie.subjects.die._faces import (
    DISPLAYS,
    FACE_POSITIONS,
    GROUPS,
    POSITIONS,
    decode_face,
    render_face,
    render_positions,
)

ga, gb, gc, gd = (GROUPS[g] for g in "ABCD")


def test_groups_follow_the_seed_layout() -> None:
    assert ga == {"centre"}
    assert gb == {"top-right", "bottom-left"}
    assert gc == {"top-left", "bottom-right"}
    assert gd == {"middle-left", "middle-right"}
    assert ga | gb | gc | gd == set(POSITIONS)
    assert len(POSITIONS) == 7


@pytest.mark.parametrize(
    ("display", "lit"),
    [
        ("1", ga),
        ("2", gb),
        ("3", ga | gb),
        ("4", gb | gc),
        ("5", ga | gb | gc),
        ("6", gb | gc | gd),
        ("all", ga | gb | gc | gd),
        ("off", frozenset()),
    ],
)
def test_faces_by_groups(display: str, lit: frozenset[str]) -> None:
    assert FACE_POSITIONS[display] == lit
    assert decode_face(lit) == display


def test_face_n_has_n_pips() -> None:
    for n in range(1, 7):
        assert len(FACE_POSITIONS[str(n)]) == n
    assert set(DISPLAYS) == {"1", "2", "3", "4", "5", "6", "all", "off", "invalid"}


@pytest.mark.parametrize(
    "lit",
    [
        frozenset({"top-left"}),  # half of group gc
        gd,  # gd alone is no face
        ga | gd,
        ga | gc,
        gb | gc | gd - {"middle-left"},
        ga | gb | gc | {"middle-left"},
    ],
)
def test_other_sets_are_invalid(lit: frozenset[str]) -> None:
    assert decode_face(lit) == "invalid"


def test_every_subset_decodes_to_exactly_one_display() -> None:
    seen: dict[str, int] = {}
    for mask in range(1 << 7):
        lit = frozenset(p for i, p in enumerate(POSITIONS) if mask >> i & 1)
        d = decode_face(lit)
        seen[d] = seen.get(d, 0) + 1
    assert seen.pop("invalid") == 128 - 8
    assert seen == dict.fromkeys(FACE_POSITIONS, 1)


def test_unknown_position_raises() -> None:
    with pytest.raises(ValueError, match="'top'"):
        decode_face(frozenset({"top"}))
    with pytest.raises(ValueError, match="'power'"):
        render_positions(frozenset({"centre", "power"}))


# ---- rendering -------------------------------------------------------------------------


def test_render_exact_faces() -> None:
    assert render_face("1") == [
        "┌───────┐",
        "│       │",
        "│   ●   │",
        "│       │",
        "└───────┘",
    ]
    assert render_face("5") == [
        "┌───────┐",
        "│ ●   ● │",
        "│   ●   │",
        "│ ●   ● │",
        "└───────┘",
    ]
    assert render_face("6") == [
        "┌───────┐",
        "│ ●   ● │",
        "│ ●   ● │",
        "│ ●   ● │",
        "└───────┘",
    ]
    assert render_face("invalid") == [
        "┌───────┐",
        "│       │",
        "│   ?   │",
        "│       │",
        "└───────┘",
    ]


def test_render_two_is_the_b_diagonal() -> None:
    lines = render_face("2")
    assert lines[1] == "│     ● │"  # top-right
    assert lines[3] == "│ ●     │"  # bottom-left
    assert lines[2] == "│       │"


def test_render_all_and_off() -> None:
    assert "".join(render_face("all")).count("●") == 7
    assert render_face("all")[2] == "│ ● ● ● │"
    off = render_face("off")
    assert "●" not in "".join(off) and "?" not in "".join(off)
    assert off[1:4] == ["│       │"] * 3


@pytest.mark.parametrize("display", DISPLAYS)
def test_render_shape_and_pip_count(display: str) -> None:
    lines = render_face(display)
    assert 3 <= len(lines) <= 5
    assert len({len(line) for line in lines}) == 1
    pips = "".join(lines).count("●")
    assert pips == (0 if display == "invalid" else len(FACE_POSITIONS[display]))
    assert ("?" in "".join(lines)) == (display == "invalid")


@pytest.mark.parametrize("position", POSITIONS)
def test_each_position_is_drawn_where_the_board_places_it(position: str) -> None:
    for board in ("die-direct", "die-charlieplex"):
        led = load_board(board).led(position)
        assert led.x is not None and led.y is not None
        lines = render_positions(frozenset({position}))
        row = lines[1 + led.y]
        assert row.index("●") == 2 + 2 * led.x


def test_unknown_display_raises() -> None:
    with pytest.raises(ValueError, match="unknown display '7'"):
        render_face("7")
