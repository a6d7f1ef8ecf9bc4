"""The Silver Dollar Game's board file: its strip shows every position of five
dollars on twelve cells, named by its cells, and nothing else; its LEDs are
the 12 ordered pairs of PA0..PA3, one per cell; it names the firmware's pins."""

from __future__ import annotations

from itertools import combinations, permutations

from fairdie.board import check_build, load_board


def test_the_strip_has_a_symbol_for_each_position_and_lights_its_cells() -> None:
    board = load_board("silver-dollar")
    (strip,) = board.displays
    assert strip.name == "strip"
    positions = list(combinations(range(12, 0, -1), 5))
    assert len(positions) == len(strip.symbols) == 792
    for p in positions:
        name = ",".join(map(str, p))
        assert strip.lit_for(name) == {f"c{c}" for c in p}
    assert strip.decode(frozenset({"c12"})) == "invalid"  # the idle light: no position


def test_the_leds_are_the_twelve_pin_pairs_and_the_pins_are_the_firmwares() -> None:
    board = load_board("silver-dollar")
    assert board.led_names == tuple(f"c{c}" for c in range(12, 0, -1))
    pairs = {(led.anode, led.cathode) for led in board.leds}
    assert pairs == set(permutations(("PA0", "PA1", "PA2", "PA3"), 2))
    assert [(b.name, b.pin) for b in board.buttons] == [
        ("1", "PA4"),
        ("2", "PA6"),
        ("3", "PA7"),
        ("4", "PB0"),
        ("5", "PB1"),
        ("go", "PB2"),
    ]
    assert all(b.bounce.count > 0 and b.active == "low" for b in board.buttons)
    assert board.speaker == "PA5"
    assert (board.mcu, board.f_cpu, board.firmware, board.led_drive) == (
        "attiny84a",
        8_000_000,
        "sdg_t84a",
        "charlieplex",
    )
    check_build(board)  # the build drives its LEDs as the board is wired
