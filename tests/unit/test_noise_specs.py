"""Noise from outside the code: recorded traces (CSV files of millivolts or
codes) and the CLI's noise specs (parse_noise)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from noisesupport import read_press, recording, write_csv

from fairdie.noise import (
    DEFAULT_NOISE,
    NOISE_NAMES,
    Biased,
    Dead,
    Floating,
    Hum,
    SeekableNoise,
    Stuck,
    Trace,
    Uniform,
    Weak,
    code_for_mv,
    parse_noise,
)

# ---- trace -----------------------------------------------------------------------------------


def test_trace_replays_in_order_and_cycles(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "time, MV ,note\n0,10,a\n\n1,20.5,b\n2,3000\n")
    m = Trace(path, 3000)
    assert m.rows == 3
    assert [m(n % 2) for n in range(7)] == [10, 20.5, 3000, 10, 20.5, 3000, 10]


def test_trace_of_codes_reads_those_codes(tmp_path: Path) -> None:
    path = write_csv(tmp_path, "code\n0\n511\n1023\n")
    m = Trace(path, 3300)
    assert [code_for_mv(round(m(0)), 3300) for _ in range(3)] == [0, 511, 1023]


def test_trace_seek_starts_a_press_at_its_row(tmp_path: Path) -> None:
    m = Trace(recording(tmp_path))
    rows = [m(0) for _ in range(37)]
    assert m.per_press == 16
    for k in (0, 1, 2, 5, 100):
        start = k * 16 % 37
        assert read_press(m, k, n=3) == [rows[(start + i) % 37] for i in range(3)]
    m.per_press = 1
    assert read_press(m, 36, n=2) == [rows[36], rows[0]]
    assert read_press(Trace(recording(tmp_path), per_press=5), 2, n=1) == [rows[10]]
    with pytest.raises(ValueError, match="per_press"):
        m.per_press = 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("\n\n", "empty"),
        ("value\n1\n", "row 1: the header must name one column mv or code"),
        ("mv,code\n1,1\n", "row 1: the header must name one column mv or code"),
        ("mv\n", "no readings"),
        ("mv\n1\n2\nabc\n", "row 4: 'abc' is not a number"),
        ("mv,x\n1,2\n,3\n", "row 3: '' is not a number"),
        ("x,mv\n1,2\n3\n", "row 3: '' is not a number"),
        ("mv\n1\n3001\n", "row 3: 3001 mV is outside 0..3000 mV"),
        ("mv\nnan\n", "row 2: nan mV is outside"),
        ("code\n1\n2.5\n", "row 3: '2.5' is not a code 0..1023"),
        ("code\n1024\n", "row 2: code 1024 is outside 0..1023"),
        ('mv\n"1\n2"\n', "row 3: '1\\\\n2' is not a number"),
    ],
)
def test_trace_errors_name_the_file_and_row(tmp_path: Path, text: str, message: str) -> None:
    path = write_csv(tmp_path, text)
    with pytest.raises(ValueError, match=message) as e:
        Trace(path, 3000)
    assert str(e.value).startswith(f"noise trace {path}: ")
    assert "\n" not in str(e.value)


def test_trace_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"noise trace .*nope\.csv: no such recording") as e:
        Trace(tmp_path / "nope.csv")
    assert "\n" not in str(e.value)
    path = write_csv(tmp_path, "")
    path.write_bytes(b"mv\n\xff\xfe\n")
    with pytest.raises(ValueError, match="not a CSV text file"):
        Trace(path)


# ---- parse_noise -------------------------------------------------------------------------


def test_noise_names_list_every_form_parse_noise_builds(tmp_path: Path) -> None:
    """Each form the CLI lists, its placeholders filled, is built by parse_noise,
    but adversarial, which says where it is built instead."""
    trace = write_csv(tmp_path, "mv\n7\n")
    example = {
        "MILLIVOLTS": "1500",
        "RATIO": "3",
        "HZ": "50",
        "P0,P1,...": "1,2",
        "FILE.csv": str(trace),
    }
    assert DEFAULT_NOISE in NOISE_NAMES
    built = set()
    for name in NOISE_NAMES:
        form, _, placeholder = name.partition(":")
        spec = f"{form}:{example[placeholder]}" if placeholder else form
        if form == "adversarial":
            with pytest.raises(ValueError, match="reference model"):
                parse_noise(spec, seed=0, vcc_mv=3000)
            continue
        built.add(type(parse_noise(spec, seed=0, vcc_mv=3000)))
    assert built == {Floating, Uniform, Stuck, Dead, Weak, Hum, Biased, Trace}


def test_parse_noise_names(tmp_path: Path) -> None:
    assert isinstance(parse_noise("floating", seed=3, vcc_mv=3000), Floating)
    assert isinstance(parse_noise("FLOATING", seed=3, vcc_mv=3000), Floating)
    assert isinstance(parse_noise(" Uniform ", seed=3, vcc_mv=3000), Uniform)
    s = parse_noise("stuck:1500", seed=3, vcc_mv=3000)
    assert isinstance(s, Stuck) and s(2) == 1500
    assert parse_noise("stuck:0", seed=0, vcc_mv=3000)(2) == 0
    assert parse_noise("stuck:3000", seed=0, vcc_mv=3000)(2) == 3000
    assert parse_noise("stuck:12.5mV", seed=0, vcc_mv=3000)(2) == 12.5
    assert parse_noise("rail-low", seed=0, vcc_mv=3300)(2) == 0
    assert parse_noise("Rail-High", seed=0, vcc_mv=3300)(2) == 3300
    h = parse_noise("hum:60", seed=0, vcc_mv=3000)
    assert isinstance(h, Hum) and h.hz == 60
    assert isinstance(h := parse_noise("hum: 59.94 Hz", seed=0, vcc_mv=3000), Hum)
    assert h.hz == 59.94
    w = parse_noise("WEAK: 12.5", seed=4, vcc_mv=3000)
    assert isinstance(w, Weak) and w.ratio == 12.5 and w.rest(0) == Weak(12.5, 4).rest(0)
    d = parse_noise("dead", seed=4, vcc_mv=3300)
    assert isinstance(d, Dead) and d(0) == Dead(4, 3300)(0)
    b = parse_noise("biased: 1, 0,2.5", seed=0, vcc_mv=3000)
    assert isinstance(b, Biased) and b.weights == (1, 0, 2.5)
    path = write_csv(tmp_path, "mv\n7\n", name="Pin Recording.CSV")
    t = parse_noise(f"TRACE: {path}", seed=0, vcc_mv=3000)
    assert isinstance(t, Trace) and t.path == path and t(0) == 7


@pytest.mark.parametrize(
    "spec",
    ["floating", "uniform", "hum:50", "biased:1,2,3", "weak:3", "dead", "stuck:5", "rail-high"],
)
def test_parse_noise_uses_seed_and_vcc(spec: str) -> None:
    a = parse_noise(spec, seed=9, vcc_mv=5000)
    b = parse_noise(spec, seed=9, vcc_mv=5000)
    assert read_press(a, 3, n=50) == read_press(b, 3, n=50)
    assert all(0 <= v <= 5000 for v in read_press(a, 4, n=50))
    if spec in ("floating", "uniform", "hum:50", "biased:1,2,3", "weak:3", "dead"):
        c = parse_noise(spec, seed=10, vcc_mv=5000)
        assert read_press(a, 3, n=50) != read_press(c, 3, n=50)
    direct: dict[str, SeekableNoise] = {
        "floating": Floating(9, 5000),
        "uniform": Uniform(9, 5000),
        "hum:50": Hum(50, 9, 5000),
    }
    if spec in direct:
        assert read_press(a, 3, n=50) == read_press(direct[spec], 3, n=50)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("noisy", "unknown noise 'noisy': expected one of floating, uniform, stuck:MILLIVOLTS"),
        ("", "unknown noise ''"),
        ("nope:3", "rail-low, rail-high, dead, weak:RATIO, hum:HZ, biased:P0,P1,..., trace:FILE"),
        ("floating:3", "floating takes no value"),
        ("rail-low:", "rail-low takes no value"),
        ("dead:3", "dead takes no value"),
        ("weak", "expected weak:RATIO"),
        ("weak:", "expected weak:RATIO"),
        ("weak:often", "expected weak:RATIO"),
        ("weak:0.5", "'weak:0.5': the ratio 0.5 is not a finite number >= 1"),
        ("weak:-2", "the ratio -2 is not a finite number >= 1"),
        ("weak:nan", "the ratio nan is not a finite number >= 1"),
        ("weak:inf", "the ratio inf is not a finite number >= 1"),
        ("adversarial", "adversarial noise needs the die's reference model: use `fairdie lab"),
        ("stuck", "expected stuck:MILLIVOLTS"),
        ("stuck:", "expected stuck:MILLIVOLTS"),
        ("stuck:abc", "expected stuck:MILLIVOLTS"),
        ("stuck:-1", "outside 0..3000 mV"),
        ("stuck:3001", "outside 0..3000 mV"),
        ("stuck:nan", "outside 0..3000 mV"),
        ("stuck:inf", "outside 0..3000 mV"),
        ("hum", "expected hum:HZ"),
        ("hum:fifty", "expected hum:HZ"),
        ("hum:0", "0 Hz is outside 1..10000 Hz"),
        ("hum:10001", "outside 1..10000 Hz"),
        ("hum:nan", "outside 1..10000 Hz"),
        ("hum:20000Hz", "'hum:20000Hz': 20000 Hz is outside 1..10000 Hz"),
        ("stuck:5000 mV", "'stuck:5000 mV': 5000 mV is outside 0..3000 mV"),
        ("biased", "expected biased:P0,P1,..."),
        ("biased:1,,2", "expected biased:P0,P1,..."),
        ("biased:1,x", "expected biased:P0,P1,..."),
        ("biased:1,-2", "the weight of code 1, -2, is not a finite number >= 0"),
        ("biased:inf", "the weight of code 0, inf, is not a finite number >= 0"),
        ("biased:0,0", "finite sum above 0"),
        ("biased:1e308,1e308", "finite sum above 0"),
        ("biased:" + ",".join(["1"] * 1025), "1025 weights, at most 1024"),
        ("trace", "expected trace:FILE.csv"),
        ("trace:", "expected trace:FILE.csv"),
        ("trace:/no/such/dir/pin.csv", "noise trace /no/such/dir/pin.csv: no such recording"),
    ],
)
def test_parse_noise_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")) as e:
        parse_noise(spec, seed=0, vcc_mv=3000)
    assert "\n" not in str(e.value)


def test_a_trace_is_a_regular_file_of_bounded_size(tmp_path: Path) -> None:
    """A device or a FIFO is refused before it is read (/dev/zero would be read
    until memory ran out), and so is a file too large to be a recording."""
    from fairdie.noise import _trace

    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        with pytest.raises(ValueError, match="not a regular file"):
            parse_noise(f"trace:{path}", seed=0, vcc_mv=3000)
    big = tmp_path / "big.csv"
    big.write_text("code\n" + "1\n" * (_trace.MAX_TRACE_BYTES // 2))
    with pytest.raises(ValueError, match="more than the"):
        parse_noise(f"trace:{big}", seed=0, vcc_mv=3000)
