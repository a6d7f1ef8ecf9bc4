"""The README's verify examples run as they are in a fresh clone ("For hardware
makers: fairdie verify", "5. Verify before you burn"), ``make demo`` runs the
same lines, and the report of the default build names the bytes it checked
and renders in headless Chromium: the banner first and visible, every plot
loaded with a non-zero size.

The suite runs the makers' first two lines (the build and the report, what
``make demo`` runs), the report's with a shallower fairness campaign and no
power cuts (see ``REPORT_ONLY``), and parses every line with its command's
parser; running every line as written is slow (three whole verifies): its
other lines' claims fail cheaper in tests/sim/test_burn_sheet.py (a HEX,
``--programmer``, ``--json``) and tests/sim/test_verify.py (``verify --board
die-direct``, the default build's checks in full)."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairdie import __version__
from fairdie._cmdline import Parser
from fairdie.cli import main
from fairdie.toolchain import add_build_arguments
from fairdie.verify._cli import _parser as verify_parser
from fairdie.verify._run import all_checks, subject_checks

pytestmark = pytest.mark.sim

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LIGHTSOUT = ROOT / "harness/fairdie/firmware/tests/lightsout"
#: Chromium as the task asks: headless, nothing fetched, a fresh profile
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--allow-file-access-from-files",  # the probe page reads the report in its frame
)


def commands(heading: str) -> list[list[str]]:
    """The ``fairdie ...`` lines of the first indented block under ``heading``."""
    section = README.split(heading, 1)[1]
    out: list[list[str]] = []
    for line in section.splitlines()[1:]:
        if line.startswith("    fairdie "):
            out.append(shlex.split(line, comments=True))
        elif out and not line.strip():
            break
    assert out, f"no fairdie lines under {heading!r}"
    return out


MAKERS = commands("## For hardware makers: `fairdie verify`")
OWN = commands("### 5. Verify before you burn: `fairdie verify`")


@contextlib.contextmanager
def cwd(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_lines(lines: list[list[str]], folder: Path) -> list[tuple[int, str, str]]:
    results = []
    with cwd(folder):
        for argv in lines:
            assert argv[0] == "fairdie"
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(argv[1:])
            results.append((rc, out.getvalue(), err.getvalue()))
    return results


#: Added to the report line here: the tests below read its page, not how deep
#: its checks went. The fairness campaign at its fewest presses, under the one
#: noise the report plots (floating), still plots every figure, and the power
#: cuts put nothing on the page; together they are most of the line's time. The
#: line as written runs in test_the_makers_examples_run_as_they_are (slow); both
#: checks fail cheaper, every noise of the campaign too, on this firmware
#: (die_t13a's default build) and board, in
#: tests/sim/test_verify.py::test_the_default_build_passes_every_check.
REPORT_ONLY = [
    "--presses",
    "100",
    "--noise",
    "floating",
    "--only",
    ",".join(c.name for c, _ in all_checks() if c.name != "power-cuts"),
]


@pytest.fixture(scope="module")
def makers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, str, str]]]:
    """The makers' build and report lines (``make demo``'s), run in an empty
    folder (what a fresh clone has of them), the report's with ``REPORT_ONLY``."""
    assert MAKERS[1][:2] == ["fairdie", "verify"] and "--report" in MAKERS[1]
    folder = tmp_path_factory.mktemp("clone")
    results = run_lines([MAKERS[0], [*MAKERS[1], *REPORT_ONLY]], folder)
    for argv, (rc, _, err) in zip(MAKERS[:2], results, strict=True):
        assert rc == 0, (shlex.join(argv), err)
    return folder, results


def _parser(command: str) -> argparse.ArgumentParser:
    if command == "build":
        p = Parser(prog="fairdie build")
        add_build_arguments(p)
        return p
    assert command == "verify", command
    return verify_parser([c.name for c, _ in all_checks()], subject_checks())


def test_every_makers_line_parses_and_names_files_the_lines_before_it_make(makers) -> None:
    folder, _ = makers
    for argv in MAKERS:
        args = _parser(argv[1]).parse_args(argv[2:])  # a bad option raises BadInput
        if argv[1] == "verify" and args.firmware is not None:
            # the build line's --out folder, which the fixture's build line filled
            assert (folder / args.firmware).is_file(), shlex.join(argv)
            assert args.firmware.parent == Path(MAKERS[0][MAKERS[0].index("--out") + 1])


@pytest.mark.slow  # three whole verifies; see the module's docstring for the cheaper tests
def test_the_makers_examples_run_as_they_are(tmp_path: Path) -> None:
    folder, results = tmp_path, run_lines(MAKERS, tmp_path)
    for argv, (rc, _, err) in zip(MAKERS, results, strict=True):
        assert rc == 0, (shlex.join(argv), err)
    assert MAKERS[0][:2] == ["fairdie", "build"] and "--out" in MAKERS[0]
    as_json = [
        json.loads(out)
        for argv, (_, out, _) in zip(MAKERS, results, strict=True)
        if "--json" in argv
    ]
    assert as_json and all(j["passed"] for j in as_json)
    programmer = next(a for a in MAKERS if "--programmer" in a)
    j = as_json[0]
    assert j["burn"]["programmer"] == programmer[programmer.index("--programmer") + 1]
    assert shlex.split(j["burn"]["avrdude"])[1:3] == ["-c", j["burn"]["programmer"]]
    assert (folder / "out" / "verify" / "index.html").is_file()


def test_make_demo_runs_the_readmes_lines() -> None:
    recipe = (ROOT / "Makefile").read_text().split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    lines = [
        shlex.split(line.strip().replace("$(VENV)/bin/fairdie", "fairdie"))
        for line in recipe.splitlines()[1:]
        if "fairdie build" in line or "fairdie verify" in line
    ]
    assert lines == MAKERS[:2]  # build --out, then verify with --report out/verify


def test_the_default_builds_report_names_the_bytes_it_checked(makers) -> None:
    folder, _ = makers
    report, hex_file = folder / "out" / "verify", folder / "out" / "build" / "die.hex"
    page = (report / "index.html").read_text()
    body = page.split("<body>", 1)[1]
    # the banner first: green, PASS
    assert body.startswith("\n<div id='verdict' class='pass' style='background:#1a7f37'>PASS")
    digest = hashlib.sha256(hex_file.read_bytes()).hexdigest()
    assert f"<code>{digest}</code>" in page
    assert "<code>lfuse 0x6A hfuse 0xFD (brown-out detector 1.8 V)</code>" in page
    assert f"<code>{__version__}</code>" in page
    assert re.search(r"<th>date \(UTC\)</th><td><code>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<", page)
    line = "avrdude -c usbasp -p t13 -U flash:w:out/build/die.hex:i"
    line += " -U lfuse:w:0x6A:m -U hfuse:w:0xFD:m"
    assert f"<pre id='avrdude'>{line}</pre>" in page
    # the battery figure says what it rests on, and has its plot
    assert "rests on: LEDs at 2 mA each, a press held 1 s, a CR2032 of 225 mAh" in page
    assert (report / "battery.png").read_bytes()[:4] == b"\x89PNG"
    # every check's evidence is in the folder, the VCDs verify recorded among it
    links = re.findall(r"<a href='([^']+)'>", page)
    assert {f"face-{n}.vcd" for n in range(1, 7)} <= set(links)
    assert {"fresh-chip.vcd", "clear-held-10.05s.vcd", "face-1.svg"} <= set(links)
    for name in links:
        assert (report / name).is_file() and (report / name).stat().st_size > 0, name
    # face 1's replay, run where the report's commands run, shows face 1
    replay = re.search(r"face 1: a press from the same table: <code>([^<]+)</code>", page)
    assert replay is not None
    argv = shlex.split(replay.group(1).replace("&#x27;", "'"))
    ((rc, out, err),) = run_lines([[*argv, "--json"]], folder)
    assert rc == 0, err
    assert json.loads(out)["displays"] == ["1"]
    assert (folder / "face-1-replay.vcd").stat().st_size > 0
    # the erased chip's replay shows what verify's erased chip showed
    fresh = re.search(r"an erased chip showed (\d)", page)
    replay = re.search(r"a press of an erased chip: <code>([^<]+)</code>", page)
    assert fresh is not None and replay is not None
    ((rc, out, err),) = run_lines([[*shlex.split(replay.group(1)), "--json"]], folder)
    assert rc == 0, err
    assert json.loads(out)["displays"] == [fresh.group(1)]


def test_the_report_renders_in_headless_chromium(makers, tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("no chromium: ci/install-system-packages.sh installs it (make test runs it)")
    folder, _ = makers
    index = folder / "out" / "verify" / "index.html"
    probe = tmp_path / "probe.html"
    probe.write_text(PROBE.replace("REPORT", index.as_uri()), encoding="utf-8")
    cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    done = subprocess.run(
        [*cmd, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120
    )
    found = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    assert found is not None, done.stderr[-2000:]
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    banner = result["banner"]
    assert banner["first"] and banner["visibility"] == "visible"
    assert banner["width"] > 0 and banner["height"] > 20 and 0 <= banner["top"] < 200
    assert banner["background"] == "rgb(26, 127, 55)" and banner["text"].startswith("PASS")
    images = result["images"]
    assert len(images) == index.read_text().count("<img ") == 6
    for img in images:
        assert img["complete"] and img["naturalWidth"] > 0 and img["naturalHeight"] > 0, img
        assert img["width"] > 0 and img["height"] > 0, img


#: a page that frames the report and writes what it sees into its own DOM
PROBE = """<!doctype html><html><head><meta charset="utf-8"></head><body>
<iframe id="report" src="REPORT" width="1280" height="900"></iframe>
<script>
window.addEventListener("load", () => {
  const d = document.getElementById("report").contentDocument;
  const out = {};
  const b = d && d.getElementById("verdict");
  if (b) {
    const r = b.getBoundingClientRect(), s = getComputedStyle(b);
    out.banner = {text: b.textContent, first: d.body.firstElementChild === b,
                  width: r.width, height: r.height, top: r.top,
                  visibility: s.visibility, background: s.backgroundColor};
  }
  out.images = d ? Array.from(d.images).map(i => {
    const r = i.getBoundingClientRect();
    return {alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth,
            naturalHeight: i.naturalHeight, width: r.width, height: r.height};
  }) : [];
  const pre = document.createElement("pre");
  pre.id = "result";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script></body></html>
"""


def test_a_users_own_firmware_is_built_and_verified_as_section_5_says(tmp_path: Path) -> None:
    folder = tmp_path / "lightsout"
    shutil.copytree(LIGHTSOUT, folder)
    results = run_lines(OWN, folder)
    for argv, (rc, _, err) in zip(OWN, results, strict=True):
        assert rc == 0, (shlex.join(argv), err)
    out = results[-1][1]
    hex_file = folder / "build" / "lightsout.hex"
    digest = hashlib.sha256(hex_file.read_bytes()).hexdigest()
    assert "hex    build/lightsout.hex: " in out and digest in out
    assert "avrdude -c usbasp -p t85 -U flash:w:build/lightsout.hex:i" in out
    assert (folder / "out" / "verify" / "index.html").is_file()
