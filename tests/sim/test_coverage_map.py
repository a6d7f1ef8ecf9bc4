"""Coverage mapped onto source from real avr-gcc builds (fairdie.coverage):
lines, functions and branches of C, C++ and assembler from the DWARF line
table and the symbols, code without debug information by symbol, and the
LCOV, Cobertura and HTML outputs read by their consumers (genhtml, the DTD).

The coverage records here are built by hand from the ELF's symbols, so the
mapping is checked apart from the engine's recording (test_coverage_map_run.py
checks the two together)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdie._files import MARKER
from fairdie.coverage import (
    Coverage,
    CoverageError,
    CoverageSet,
    Report,
    analyse,
    write_cobertura,
    write_html,
    write_lcov,
)
from fairdie.coverage._cli import cov_main
from fairdie.sim import load_firmware
from fairdie.toolchain import firmware_dir

pytestmark = pytest.mark.sim

TEST_FIRMWARE = firmware_dir() / "tests"


def coverage_of(b: Any, hits: dict[int, int], branches: dict[int, tuple[int, int]]) -> Coverage:
    fw = load_firmware(b.elf)
    return Coverage(hashlib.sha256(fw.flash).hexdigest(), b.mcu, str(b.elf), hits, branches)


def span(b: Any, name: str) -> range:
    """The byte addresses of a function, from the ELF's symbol table."""
    s = load_firmware(b.elf).symbol(name)
    return range(s.address, s.address + s.size, 2)


def file_named(report: Report, name: str) -> Any:
    (fr,) = [f for f in report.files if f.name == name]
    return fr


def line_of(path: Path, text: str) -> int:
    (n,) = [i for i, ln in enumerate(path.read_text().splitlines(), 1) if text in ln]
    return n


@pytest.fixture(scope="module")
def cov_c(build_test_firmware: Callable[..., Any]) -> Any:
    return build_test_firmware("cov_c")


def test_c_lines_functions_and_branches(cov_c: Any) -> None:
    """main() ran, decide's first instruction 3 times (a line counts its most
    executed instruction), decide's `if` always skipped; nothing else ran."""
    ran = {**dict.fromkeys(span(cov_c, "main"), 1), span(cov_c, "decide")[0]: 3}
    cpse = next(a for a in span(cov_c, "decide") if analyse_branch(cov_c, a))
    rep = analyse(CoverageSet([coverage_of(cov_c, ran, {cpse: (3, 0)})]))
    main = file_named(rep, "cov_c/main.c")
    src = TEST_FIRMWARE / "cov_c" / "main.c"
    assert main.source == src.resolve()
    assert main.functions["never_called"].hits == 0
    assert main.functions["decide"].hits == 3
    assert main.functions["__vector_1"].hits == 0
    body = line_of(src, "out = 0xAA;")
    assert main.lines[body] == 0 and main.lines[body + 1] == 0  # never_called's lines
    cond = line_of(src, "if (mode == 0)")
    assert main.lines[cond] == 3
    (b,) = main.branches[cond]
    assert (b.taken, b.not_taken, b.ran) == (3, 0, True)
    # the loop's branch (loop.c) is found though it never ran
    loop = file_named(rep, "cov_c/loop.c")
    ((line, (lb,)),) = loop.branches.items()
    assert line == line_of(TEST_FIRMWARE / "cov_c" / "loop.c", "while (--i)")
    assert not lb.ran
    # the inlined header function maps to the header
    header = file_named(rep, "cov_c/cov.h")
    assert header.functions["twice"].line == line_of(TEST_FIRMWARE / "cov_c" / "cov.h", "twice(")


def analyse_branch(b: Any, address: int) -> bool:
    from fairdie.coverage._elfmap import read_elf

    return address in read_elf(b.elf).branches


def test_code_without_debug_info_is_listed_by_symbol(cov_c: Any) -> None:
    rep = analyse(CoverageSet([coverage_of(cov_c, {}, {})]))
    regions = {r.name: r for r in rep.unmapped}
    # avr-libc's start-up code: no line information, its loop branch still found
    assert regions["__do_clear_bss"].branches == 2
    assert regions["__do_clear_bss"].firmware == "cov_c.elf"
    assert all(r.executed == 0 for r in rep.unmapped)
    # no mapped source line claims it
    assert not any("crt" in f.name or "libgcc" in f.name for f in rep.files)


def test_assembler_lines_and_functions(build_test_firmware: Callable[..., Any]) -> None:
    b = build_test_firmware("cov_asm")
    src = TEST_FIRMWARE / "cov_asm" / "main.S"
    loop = next(a for a in span(b, "count_to") if analyse_branch(b, a))
    cov = coverage_of(b, dict.fromkeys(span(b, "count_to"), 2), {loop: (8, 2)})
    rep = analyse(CoverageSet([cov]))
    (fr,) = rep.files
    assert fr.name == "cov_asm/main.S" and fr.source == src.resolve()
    # functions are the code symbols (assembler has no subprograms); a local label is none
    assert set(fr.functions) == {
        "main", "decide", "count_to", "after_restore", "never_called", "__vector_1"
    }  # fmt: skip
    assert fr.functions["count_to"].hits == 2 and fr.functions["never_called"].hits == 0
    assert fr.functions["never_called"].line == line_of(src, "never_called:") + 1
    brne = line_of(src, "brne 1b")
    assert fr.branches[brne][0].taken == 8 and fr.branches[brne][0].not_taken == 2
    assert fr.lines[brne] == 2 and fr.lines[line_of(src, "inc r4")] == 0


def test_cxx_functions_have_qualified_names(build_test_firmware: Callable[..., Any]) -> None:
    b = build_test_firmware("cxx")
    rep = analyse(CoverageSet([coverage_of(b, dict.fromkeys(span(b, "main"), 1), {})]))
    names = {f.name for f in rep.files}
    assert {"cxx/main.cpp", "cxx/sum.c"} <= names
    fns = file_named(rep, "cxx/main.cpp").functions
    # two instantiations of one template member are two functions
    assert {"(anonymous namespace)::OutputPin<0u>::enable", "main"} <= set(fns)
    assert "(anonymous namespace)::OutputPin<1u>::enable" in fns
    assert fns["main"].hits == 1


def test_a_firmware_without_elf_or_with_another_elf(cov_c: Any, tmp_path: Path) -> None:
    good = coverage_of(cov_c, {0: 1}, {})
    rep = analyse(CoverageSet([Coverage(good.flash_sha256, "attiny13a", None, {0: 1, 2: 1})]))
    assert rep.files == [] and rep.no_elf == [("attiny13a", good.flash_sha256, 2)]
    other = Coverage("0" * 64, "attiny13a", str(cov_c.elf), {0: 1})
    with pytest.raises(CoverageError, match="not the firmware that ran"):
        analyse(CoverageSet([other]))
    gone = Coverage(good.flash_sha256, "attiny13a", str(tmp_path / "gone.elf"), {0: 1})
    with pytest.raises(CoverageError, match="cannot read the ELF"):
        analyse(CoverageSet([gone]))


@pytest.mark.parametrize("link_debug", [True, False])
def test_an_lto_build_maps_when_linked_with_debug_info(tmp_path: Path, link_debug: bool) -> None:
    """With -flto the code is compiled at link time: -g must be given there too.
    Then it maps as any build (by absolute paths: the folder is not renamed at
    link time); without it, its code is listed by symbol, without lines."""
    from fairdie.toolchain import build

    folder = tmp_path / "cov_lto"
    shutil.copytree(TEST_FIRMWARE / "cov_c", folder)
    ld = '["-flto", "-Os", "-gdwarf-4"]' if link_debug else '["-flto", "-Os"]'
    toml = folder / "target.toml"
    toml.write_text(
        toml.read_text().replace(
            "werror = true", f'werror = true\ncflags = ["-flto"]\nldflags = {ld}'
        )
    )
    b = build(folder, cache_dir=tmp_path / "cache")
    rep = analyse(CoverageSet([coverage_of(b, dict.fromkeys(span(b, "decide"), 1), {})]))
    regions = {r.name: r for r in rep.unmapped}
    if link_debug:
        main = file_named(rep, str((folder / "main.c").resolve()))
        assert main.source == (folder / "main.c").resolve()
        assert main.functions["decide"].hits == 1 and main.functions["never_called"].hits == 0
        assert "never_called" not in regions
    else:
        assert rep.files == []
        assert regions["decide"].entered == 1 and regions["decide"].executed > 0
        assert regions["never_called"].executed == 0


@pytest.fixture(scope="module")
def both(build_test_firmware: Callable[..., Any]) -> CoverageSet:
    """cov_c with main and decide run, cov_asm with its loop run."""
    c = build_test_firmware("cov_c")
    a = build_test_firmware("cov_asm")
    return CoverageSet(
        [
            coverage_of(c, dict.fromkeys([*span(c, "main"), *span(c, "decide")], 1), {}),
            coverage_of(a, dict.fromkeys(span(a, "count_to"), 1), {}),
        ]
    )


def test_genhtml_accepts_the_lcov_tracefile(both: CoverageSet, tmp_path: Path) -> None:
    genhtml = shutil.which("genhtml")
    assert genhtml, "genhtml is missing: install the lcov package (make setup)"
    info = tmp_path / "cov.info"
    write_lcov(both, info)
    out = tmp_path / "html"
    r = subprocess.run(
        [genhtml, "--branch-coverage", "--quiet", "-o", str(out), str(info)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert (out / "index.html").is_file()
    text = info.read_text()
    assert text.count("end_of_record") == 4  # cov.h, loop.c, main.c, main.S
    assert "FNDA:0,never_called" in text and "FNDA:1,main" in text


COBERTURA_DTD = """
<!ELEMENT coverage (sources?,packages)>
<!ATTLIST coverage line-rate CDATA #REQUIRED branch-rate CDATA #REQUIRED
  lines-covered CDATA #REQUIRED lines-valid CDATA #REQUIRED
  branches-covered CDATA #REQUIRED branches-valid CDATA #REQUIRED
  complexity CDATA #REQUIRED version CDATA #REQUIRED timestamp CDATA #REQUIRED>
<!ELEMENT sources (source)*>
<!ELEMENT source (#PCDATA)>
<!ELEMENT packages (package)*>
<!ELEMENT package (classes)>
<!ATTLIST package name CDATA #REQUIRED line-rate CDATA #REQUIRED
  branch-rate CDATA #REQUIRED complexity CDATA #REQUIRED>
<!ELEMENT classes (class)*>
<!ELEMENT class (methods,lines)>
<!ATTLIST class name CDATA #REQUIRED filename CDATA #REQUIRED line-rate CDATA #REQUIRED
  branch-rate CDATA #REQUIRED complexity CDATA #REQUIRED>
<!ELEMENT methods (method)*>
<!ELEMENT method (lines)>
<!ATTLIST method name CDATA #REQUIRED signature CDATA #REQUIRED line-rate CDATA #REQUIRED
  branch-rate CDATA #REQUIRED complexity CDATA #REQUIRED>
<!ELEMENT lines (line)*>
<!ELEMENT line (conditions)*>
<!ATTLIST line number CDATA #REQUIRED hits CDATA #REQUIRED branch CDATA "false"
  condition-coverage CDATA "100%">
<!ELEMENT conditions (condition)*>
<!ELEMENT condition EMPTY>
<!ATTLIST condition number CDATA #REQUIRED type CDATA #REQUIRED coverage CDATA #REQUIRED>
"""


def test_cobertura_validates_against_its_dtd(both: CoverageSet, tmp_path: Path) -> None:
    from io import StringIO

    from lxml import etree

    xml = tmp_path / "cov.xml"
    write_cobertura(both, xml)
    doc = etree.parse(str(xml))
    dtd = etree.DTD(StringIO(COBERTURA_DTD))
    assert dtd.validate(doc), dtd.error_log.filter_from_errors()
    top = doc.getroot()
    lines = top.xpath("//class/lines/line")
    assert int(top.get("lines-valid")) == len(lines)
    assert int(top.get("lines-covered")) == sum(1 for ln in lines if int(ln.get("hits")) > 0)
    assert {p.get("name") for p in top.xpath("//package")} == {"cov_c", "cov_asm"}


def test_html_view_marks_counts_and_untaken_branches(cov_c: Any, tmp_path: Path) -> None:
    cpse = next(a for a in span(cov_c, "decide") if analyse_branch(cov_c, a))
    cov = coverage_of(cov_c, dict.fromkeys(span(cov_c, "decide"), 3), {cpse: (3, 0)})
    out = tmp_path / "view"
    write_html(CoverageSet([cov]), out)
    pages = {p.name: p.read_text() for p in out.iterdir() if p.suffix == ".html"}
    assert "index.html" in pages and len(pages) == 4  # index + 3 source files
    assert (out / MARKER).is_file()  # fairdie's folder: written again, not refused
    (main,) = [t for n, t in pages.items() if n.endswith("main.c.html")]
    cond = line_of(TEST_FIRMWARE / "cov_c" / "main.c", "if (mode == 0)")
    row = main.split(f'id="L{cond}"')[1].split("</tr>")[0]
    assert ">3<" in row and "1/2" in row and "never fell through" in row
    assert "mode == 0" in row  # the source text itself
    for text in pages.values():  # self-contained: nothing fetched from elsewhere
        assert "<script" not in text and "<link" not in text and "src=" not in text
        assert "http" not in text
    assert "__do_clear_bss" in pages["index.html"]


def test_cli_merges_and_reports_only_what_is_named(both: CoverageSet, tmp_path: Path) -> None:
    one, two = list(both)
    a, b, m = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "m.json"
    CoverageSet([one]).save(a)
    CoverageSet([two, one]).save(b)
    assert cov_main(["merge", "-o", str(m), str(a), str(b)]) == 0
    merged = CoverageSet.load(m)
    assert merged == CoverageSet([one, one, two])
    before = set(tmp_path.iterdir())
    assert cov_main(["report", str(m), "--lcov", str(tmp_path / "x.info")]) == 0
    assert set(tmp_path.iterdir()) - before == {tmp_path / "x.info"}


def test_cli_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert cov_main(["report", str(bad), "--lcov", str(tmp_path / "x.info")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a fairdie coverage file" in err
    assert not (tmp_path / "x.info").exists()


def test_cli_unwritable_output_is_one_line(
    both: CoverageSet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "c.json"
    both.save(saved)
    (tmp_path / "file").write_text("")
    for option, target in (("--lcov", "no/such/dir/x.info"), ("--html", "file")):
        assert cov_main(["report", str(saved), option, str(tmp_path / target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"fairdie: error: {option} ")
