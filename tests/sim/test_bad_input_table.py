"""Every command that takes a file or a number, given one of each kind of bad
input: exit 2, one line on stderr naming the problem, no traceback, and no
file changed in the folder it runs in (the named outputs included: a refused
run writes nothing).

The rows are made, not listed: each kind of input file (firmware, EEPROM
image, board, scenario, noise recording, build target, coverage file) goes
through every option of every command that reads it, as missing, empty,
truncated, binary garbage, for another MCU, huge, a FIFO and a device; each
output (a VCD, a coverage file, LCOV or XML, a report, plot or HTML folder,
the build cache) goes to a path that holds the user's own file, a folder of
the user's, or that cannot be one; each command's numbers go out of their
range. The CLI runs in this process
(``fairdie.cli.main``): a Python error would fail a row with its traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from refusals import die
from simsupport import run

from fairdie.cli import main
from fairdie.toolchain import Build, build

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "harness" / "fairdie" / "subjects" / "die" / "boards"
M328P = ROOT / "harness" / "fairdie" / "firmware" / "tests" / "m328p"
SCENARIO = ROOT / "examples" / "scenarios" / "test_eeprom.toml"
MIB = 1 << 20
FAIRDIE = Path(sys.executable).with_name("fairdie")


@cache
def m328p() -> Build:
    return build(M328P)


@cache
def coverage() -> bytes:
    """A coverage file as ``fairdie press --count 1 --cov`` writes it."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err = Path(tmp, "one.json"), io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            rc = main(["press", "--count", "1", "--cov", str(out)])
        assert rc == 0, err.getvalue()
        return out.read_bytes()


# ---- what an input file is when it is good, and when it is for another MCU ---------


@dataclass(frozen=True)
class Role:
    """A kind of input file: its name in a row, a good one's bytes, one for
    another MCU (None: no such thing), the size past which it is refused,
    and what the line says of one for another MCU."""

    name: str
    good: Callable[[], bytes]
    wrong_mcu: Callable[[], bytes] | None
    limit: int
    wrong_says: str = ""
    #: where a truncated one ends: half way, or in the middle of its first
    #: string past half way (half a TOML or CSV file may still be one)
    cut: Callable[[bytes], int] = lambda b: len(b) // 2
    #: what its line says where it is not what KINDS has
    says: dict[str, str] = field(default_factory=dict)


def _mid_string(b: bytes) -> int:
    return b.index(b'"', len(b) // 2) + 2


def _board(mcu: str) -> bytes:
    text = (BOARDS / "die-direct.toml").read_text()
    return text.replace('mcu = "attiny13a"', f'mcu = "{mcu}"').encode()


def _eep_of(n: int) -> bytes:
    body = bytes([16, 0, 0, 0]) + bytes(16)
    lines = []
    for a in range(0, n, 16):
        rec = bytes([16, a >> 8, a & 0xFF, 0]) + bytes(16)
        lines.append(":" + (rec + bytes([-sum(rec) & 0xFF])).hex().upper())
    assert body
    return ("\n".join([*lines, ":00000001FF"]) + "\n").encode()


ROLES = {
    r.name: r
    for r in (
        Role(
            "firmware",
            lambda: die().elf.read_bytes(),
            lambda: m328p().elf.read_bytes(),
            64 * MIB,
            "built for atmega328p",
        ),
        Role(
            "eeprom",
            lambda: die().eep.read_bytes(),
            lambda: _eep_of(128),  # the ATtiny13A has 64 bytes
            64 * MIB,
            "the attiny13a has 64",
        ),
        Role(
            "board",
            lambda: _board("attiny13a"),
            lambda: _board("attiny9999"),
            MIB,
            "no such MCU",
            _mid_string,
        ),
        Role("scenario", lambda: SCENARIO.read_bytes(), None, MIB, cut=_mid_string),
        Role("coverage", coverage, None, 256 * MIB),
        Role("recording", lambda: b"mv\n1200\n1300\n", None, 16 * MIB, cut=lambda b: 1),
        Role(
            "target",
            lambda: b'mcu = "attiny13a"\nf_cpu = 1200000\n',
            lambda: b'mcu = "attiny9999"\nf_cpu = 1200000\n',
            MIB,
            "knows no MCU 'attiny9999'",
            lambda b: 8,  # mcu = "a
            {"missing": "no target.toml: give the MCU and clock"},
        ),
    )
}

#: each kind of bad input file, and what its line must say ("" : the name of the file)
KINDS = {
    "missing": "no such",
    "empty": "",
    "truncated": "",
    "garbage": "",
    "wrong-mcu": "",
    "huge": "more than the",
    "fifo": "not a regular file (a FIFO)",
    "device": "not a regular file (a character device)",
}


def _place(role: Role, kind: str, path: Path) -> Path:
    """Put a bad ``role`` file of ``kind`` at ``path``; the path to name."""
    if kind == "device":
        return Path("/dev/zero")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "huge":
        with path.open("wb") as f:
            f.truncate(role.limit + 1)  # sparse: refused by its size, never read
    elif kind != "missing":
        good = role.good()
        data = {
            "empty": b"",
            "truncated": good[: role.cut(good)],
            "garbage": bytes(range(256))[::-1] * 8,
            "wrong-mcu": role.wrong_mcu() if role.wrong_mcu else b"",
        }[kind]
        path.write_bytes(data)
    return path


# ---- where each command reads each kind of file ------------------------------------

HEX = "{tmp}/good.hex"  # the die's HEX, beside an --eep under test
POSITION = ["--position", "12,9,6,3,1"]
#: (role, command, argv with {f} the bad file and {tmp} the folder)
USES: list[tuple[str, str, list[str]]] = [
    ("firmware", "run", ["run", "{f}", "--board", "die-direct", "--for", "1ms"]),
    ("firmware", "trace", ["trace", "{f}", "--board", "die-direct", "--vcd", "{tmp}/o.vcd"]),
    ("firmware", "verify", ["verify", "{f}", "--board", "die-direct"]),
    ("firmware", "debug", ["debug", "{f}", "--board", "die-direct", "--port", "0"]),
    ("firmware", "press", ["press", "--firmware", "{f}"]),
    ("firmware", "roll", ["roll", "--firmware", "{f}"]),
    ("firmware", "lab campaign", ["lab", "campaign", "--presses", "3", "--firmware", "{f}"]),
    ("firmware", "faults", ["faults", "--quick", "--firmware", "{f}"]),
    ("firmware", "silver-dollar starts", ["silver-dollar", "starts", "--firmware", "{f}"]),
    ("firmware", "silver-dollar play", ["silver-dollar", "play", "--firmware", "{f}"]),
    ("eeprom", "verify", ["verify", HEX, "--board", "die-direct", "--eep", "{f}"]),
    ("eeprom", "debug", ["debug", HEX, "--board", "die-direct", "--eep", "{f}", "--port", "0"]),
    ("eeprom", "press", ["press", "--firmware", HEX, "--eep", "{f}"]),
    ("eeprom", "roll", ["roll", "--firmware", HEX, "--eep", "{f}"]),
    ("board", "run", ["run", "die_t13a", "--board", "{f}", "--for", "1ms"]),
    ("board", "trace", ["trace", "die_t13a", "--board", "{f}", "--vcd", "{tmp}/o.vcd"]),
    ("board", "verify", ["verify", "--board", "{f}"]),
    ("board", "debug", ["debug", "--board", "{f}", "--port", "0"]),
    ("board", "press", ["press", "--board", "{f}"]),
    ("board", "roll", ["roll", "--board", "{f}"]),
    ("board", "lab campaign", ["lab", "campaign", "--presses", "3", "--board", "{f}"]),
    ("board", "faults", ["faults", "--quick", "--board", "{f}"]),
    ("board", "silver-dollar starts", ["silver-dollar", "starts", "--board", "{f}"]),
    ("board", "silver-dollar reply", ["silver-dollar", "reply", *POSITION, "--board", "{f}"]),
    ("scenario", "run", ["run", "--scenario", "{f}"]),
    ("scenario", "trace", ["trace", "--scenario", "{f}", "--vcd", "{tmp}/o.vcd"]),
    ("recording", "press", ["press", "--noise", "trace:{f}"]),
    ("recording", "roll", ["roll", "--noise", "trace:{f}"]),
    ("recording", "debug", ["debug", "--board", "die-direct", "--noise", "trace:{f}"]),
    ("recording", "lab campaign", ["lab", "campaign", "--presses", "3", "--noise", "trace:{f}"]),
    ("recording", "verify", ["verify", "--board", "die-direct", "--noise", "trace:{f}"]),
    ("target", "build", ["build", "--target", "{tmp}/fw", "--cache-dir", "{tmp}/cache"]),
    ("coverage", "cov report", ["cov", "report", "{f}"]),
    ("coverage", "cov merge", ["cov", "merge", "-o", "{tmp}/merged.json", "{f}"]),
]


def _input_rows() -> list[tuple[str, str, str]]:
    return [
        (role, command, kind)
        for role, command, _ in USES
        for kind in KINDS
        if kind != "wrong-mcu" or ROLES[role].wrong_mcu is not None
    ]


def _argv(role: str, command: str) -> list[str]:
    return next(argv for r, c, argv in USES if (r, c) == (role, command))


# ---- the check every row makes --------------------------------------------------------


def _snapshot(root: Path) -> dict[str, tuple[int, int, int, bytes]]:
    """Every entry below ``root``: its type, size, mtime, and a regular
    file's first bytes (a sparse or special file is not read through)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            p = Path(dirpath, name)
            st = p.lstat()
            head = b""
            if stat.S_ISREG(st.st_mode) and st.st_size <= MIB:
                head = p.read_bytes()
            out[str(p.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns, head)
    return out


def refused(
    capsys: pytest.CaptureFixture[str], root: Path, argv: list[str], outputs: tuple[str, ...] = ()
) -> str:
    """Run ``fairdie argv`` in ``root``: exit 2, one line on stderr and none
    on stdout, and nothing below ``root`` changed but the ``outputs`` named
    (a build's cache folder). The line."""

    def files() -> dict[str, tuple[int, int, int, bytes]]:
        return {k: v for k, v in _snapshot(root).items() if k.split("/")[0] not in outputs}

    before = files()
    rc, out, err = run(capsys, *argv)
    assert "Traceback" not in err, err
    assert (rc, out, err.count("\n")) == (2, "", 1), (rc, out, err)
    assert err.startswith("fairdie") and ": error: " in err, err
    assert files() == before
    return err.rstrip("\n")


def _hung(_signum: int, _frame: object) -> None:
    raise TimeoutError("the command ran on: the bad input was taken for a good one")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder to run in, holding the die's HEX (the firmware beside an
    --eep); a row that runs on (a debug server given a good board) fails."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.hex").write_bytes(die().hex.read_bytes())
    old = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(60)
    try:
        yield tmp_path
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize(("role", "command", "kind"), _input_rows())
def test_a_bad_input_file(capsys, here: Path, role: str, command: str, kind: str) -> None:
    r = ROLES[role]
    if role == "target":  # the folder's target.toml is the file
        (here / "fw").mkdir()
        (here / "fw" / "main.c").write_text("int main(void) { for (;;) {} }\n")
        path = _place(r, kind, here / "fw" / "target.toml")
        if kind == "device":
            (here / "fw" / "target.toml").symlink_to("/dev/zero")
            path = here / "fw" / "target.toml"
    else:
        path = _place(r, kind, here / f"bad.{role}")
    argv = [a.format(f=path, tmp=here) for a in _argv(role, command)]
    if command == "verify" and kind == "wrong-mcu" and role in ("firmware", "eeprom"):
        # what verify is for: a firmware that does not fit the board fails its check
        rc, out, err = run(capsys, *argv)
        assert (rc, err) == (1, "") and re.search(r"\nmcu-and-memory +fail ", out), out
        assert r.wrong_says in out
        return
    line = refused(capsys, here, argv, outputs=("cache",))
    said = r.says.get(kind, KINDS[kind]) or (r.wrong_says if kind == "wrong-mcu" else "")
    assert said in line
    assert path.name in line or f"{path.parent.name}:" in line, line  # the file, or its target


# ---- outputs: a path holding what fairdie did not write --------------------------------

COV = "{here}/good.json"  # a good coverage file to report or merge
#: (command, the option's kind of output, argv with {o} the output)
OUTPUTS: list[tuple[str, str, list[str]]] = [
    (
        "trace",
        "file",
        ["trace", "die_t13a", "--board", "die-direct", "--for", "1ms", "--vcd", "{o}"],
    ),
    ("press", "file", ["press", "--vcd", "{o}"]),
    ("verify", "folder", ["verify", "--board", "die-direct", "--report", "{o}"]),
    ("lab campaign", "folder", ["lab", "campaign", "--presses", "3", "--plot", "{o}"]),
    ("build", "folder", ["build", "--target", "die_t13a", "--cache-dir", "{o}"]),
    ("press --cov", "file", ["press", "--count", "1000000", "--cov", "{o}"]),
    (  # refused before the report's folder is made
        "verify --cov",
        "file",
        ["verify", "--board", "die-direct", "--report", "{here}/view", "--cov", "{o}"],
    ),
    ("cov merge", "file", ["cov", "merge", "-o", "{o}", COV]),
    ("cov report --lcov", "file", ["cov", "report", COV, "--lcov", "{o}"]),
    ("cov report --xml", "file", ["cov", "report", COV, "--xml", "{o}"]),
    ("cov report --html", "folder", ["cov", "report", COV, "--html", "{o}"]),
]
#: each kind of bad output path, and what its line must say
PLACES = {
    "theirs": "fairdie did not write",  # a HEX where a VCD goes; their index.html in a folder
    "under-a-file": "",
    "no-folder": "",
    "a-fifo": "",
}


def _output_rows() -> list[tuple[str, str]]:
    return [
        (command, place)
        for command, what, _ in OUTPUTS
        for place in PLACES
        if not (command == "build" and place in ("theirs", "no-folder"))  # a cache holds anything
        and not (what == "folder" and place == "no-folder")  # a folder is made with its parents
    ]


@pytest.mark.parametrize(("command", "place"), _output_rows())
def test_a_bad_output_path(capsys, here: Path, command: str, place: str) -> None:
    what, argv = next((w, a) for c, w, a in OUTPUTS if c == command)
    blocker = here / "notes.txt"
    blocker.write_text("the user's own\n")
    if place == "theirs":
        if what == "file":
            out = here / "good.hex"
        else:
            out = here / "report"
            out.mkdir()
            (out / "index.html").write_text("<p>the user's own page</p>\n")
    elif place == "under-a-file":
        out = blocker / ("x.vcd" if what == "file" else "report")
    elif place == "no-folder":
        out = here / "no" / "such" / "x.vcd"
    else:
        out = here / "pipe"
        os.mkfifo(out)
    if COV in argv:
        (here / "good.json").write_bytes(coverage())
    line = refused(capsys, here, [a.format(o=out, here=here) for a in argv])
    assert PLACES[place] in line and (out.name in line or str(out.parent) in line), line


def test_force_writes_over_what_fairdie_did_not_write(capsys, here: Path) -> None:
    """--force is what lets an output replace the user's file."""
    theirs = here / "theirs.vcd"
    theirs.write_text("$version other $end\n")
    rc, _out, err = run(capsys, "press", "--vcd", str(theirs), "--force", "--json")
    assert rc == 0, err
    assert "$version fairdie" in theirs.read_text()
    rc, _out, err = run(capsys, "press", "--vcd", str(theirs), "--json")  # fairdie's now
    assert rc == 0, err


def test_a_folder_fairdie_wrote_is_written_again(capsys, here: Path) -> None:
    """The marker file tells fairdie's folder from the user's; only the
    files named are written there. Every folder output is claimed by one
    function (fairdie._files.claim_folder); the cheapest command writes here
    (an HTML coverage report), and the rows above show each command claims
    its folder (a folder of the user's is refused)."""
    (here / "good.json").write_bytes(coverage())
    html = here / "html"
    for _ in range(2):
        rc, _out, err = run(capsys, "cov", "report", str(here / "good.json"), "--html", str(html))
        assert rc == 0, err
    assert (html / ".fairdie-output").is_file() and (html / "index.html").is_file()
    assert sorted(p.name for p in here.iterdir()) == ["good.hex", "good.json", "html"]


# ---- numbers out of range, one per option of every command ----------------------------

HUGE = str(2**64)
NUMBERS: list[list[str]] = [
    ["build", "--target", "die_t13a", "--f-cpu", "0"],
    ["run", "die_t13a", "--board", "die-direct", "--seed", "-1"],
    ["run", "die_t13a", "--mcu", "attiny13a", "--f-cpu", "0"],
    ["run", "die_t13a", "--board", "die-direct", "--for=-1s"],
    ["trace", "die_t13a", "--board", "die-direct", "--vcd", "o.vcd", "--seed", HUGE],
    ["verify", "--board", "die-direct", "--seed", HUGE],
    ["verify", "--board", "die-direct", "--jobs", "0"],
    ["verify", "--board", "die-direct", "--presses", "0"],
    ["verify", "--board", "die-direct", "--hold", "99"],
    ["verify", "--board", "silver-dollar", "--games", "0"],
    ["verify", "--board", "silver-dollar", "--positions", "0"],
    ["verify", "--board", "silver-dollar", "--trials", "1"],
    ["debug", "--board", "die-direct", "--port", "70000"],
    ["debug", "--board", "die-direct", "--f-cpu", "0"],
    ["debug", "--board", "die-direct", "--seed", "-1"],
    ["press", "--count", "0"],
    ["press", "--seed", HUGE],
    ["roll", "--seed", "-1"],
    ["roll", "--f-cpu", "0"],
    ["demo", "--count", "0"],
    ["demo", "--seed", HUGE],
    ["lab", "search", "--samples", "2", "--entropy", "0.5", "--values", "0"],
    ["lab", "rule", "--values", "0"],
    ["lab", "rule", "--samples", "0"],
    ["lab", "rule", "--weights=-1,2"],
    ["lab", "campaign", "--presses", "0"],
    ["lab", "campaign", "--presses", "3", "--seed", HUGE],
    ["faults", "--seed", HUGE],
    ["faults", "--jobs", "0"],
    ["bench", "--cycles", "0"],
    ["bench", "--rounds", "0"],
    ["silver-dollar", "starts", "--games", "0"],
    ["silver-dollar", "starts", "--seed", "-1"],
    ["silver-dollar", "reply", *POSITION, "--trials", "0"],
    ["silver-dollar", "sweep", "--trials", "0"],
    ["silver-dollar", "sweep", "--seed", HUGE],
]


@pytest.mark.parametrize("argv", NUMBERS, ids=lambda a: " ".join(a))
def test_a_number_out_of_range(capsys, here: Path, argv: list[str]) -> None:
    option = next(a for a in reversed(argv) if a.startswith("--")).split("=")[0]
    assert f"argument {option}: " in refused(capsys, here, argv)


def test_every_command_is_in_the_table() -> None:
    """A command added to ``fairdie --help`` needs its rows here."""
    from fairdie.cli import CORE
    from fairdie.subjects import commands

    covered = {argv[0] for argv in NUMBERS} | {c.split()[0] for _, c, _ in USES}
    assert covered >= {*CORE, *commands()}


def test_a_run_writes_nothing_where_it_runs(tmp_path: Path, _build_cache: Path) -> None:
    """The power-cut search (Hypothesis) keeps its files in fairdie's cache
    folder, not in .hypothesis/ of the folder it runs in (a process of its
    own: in this one the pytest plugin has chosen Hypothesis' folder)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    # a cache folder of its own, holding this session's builds (linked): the
    # run builds nothing again (the firmware, the C model), and what it adds
    # (the Hypothesis folder) is its own
    for entry in _build_cache.iterdir() if _build_cache.is_dir() else ():
        if entry.is_dir() and entry.name != "hypothesis":
            (cache / entry.name).symlink_to(entry)
    env = {**os.environ, "FAIRDIE_CACHE": str(cache)}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run(
        [str(FAIRDIE), "faults", "--campaign", "G6", "--quick", "--json"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert list(work.iterdir()) == []
    assert (cache / "hypothesis").is_dir() and not (cache / "hypothesis").is_symlink()
