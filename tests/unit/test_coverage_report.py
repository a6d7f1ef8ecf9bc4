"""The coverage writers on reports built by hand (fairdie.coverage): the
instruction walk, the LCOV records, the Cobertura figures, the HTML view and
the summary table. The same writers on real builds: tests/sim/test_coverage_map.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fairdie._files import MARKER
from fairdie.coverage import (
    Branch,
    FileReport,
    FunctionReport,
    RegionReport,
    Report,
    format_summary,
    summarise,
    write_cobertura,
    write_html,
    write_lcov,
)
from fairdie.coverage._decode import instructions, is_conditional


def words(*ws: int) -> bytes:
    return b"".join(w.to_bytes(2, "little") for w in ws)


def test_the_walk_steps_over_two_word_instructions() -> None:
    code = words(
        0x9180, 0x0060,  # lds r24, 0x0060
        0x1181,  # cpse r24, r1
        0x940E, 0x0010,  # call 0x20
        0xF7E1,  # brne .-8
        0x9200, 0x0061,  # sts 0x0061, r0
        0x99B3,  # sbic 0x16, 3
        0xFD87,  # sbrc r24, 7
        0x0000,  # nop
    )  # fmt: skip
    got = [(a, is_conditional(op)) for a, op in instructions(code, 0, len(code))]
    assert got == [
        (0, False), (4, True), (6, False), (10, True), (12, False), (16, True), (18, True),
        (20, False),
    ]  # fmt: skip
    # an instruction that would run past the end of the stretch ends the walk
    assert [a for a, _ in instructions(code, 0, 2)] == []
    assert [a for a, _ in instructions(code, 12, 18, base=0)] == [12, 16]


def sample() -> Report:
    main = FileReport("fw/main.c", None)
    main.lines = {3: 5, 4: 0, 7: 2}
    main.branches = {3: [Branch(0x10, 5, 0, True), Branch(0x14, 0, 0, False)]}
    main.functions = {
        "main": FunctionReport("main", "main", 2, 1),
        "idle": FunctionReport("idle", "idle", 6, 0),
    }
    other = FileReport("fw/x.S", None)
    other.lines = {1: 1}
    region = RegionReport("fw.elf", "__do_clear_bss", 0x1C, 0x30, 10, 4, 2, 1, 1)
    return Report([main, other], [region], [])


def test_lcov_records(tmp_path: Path) -> None:
    p = tmp_path / "c.info"
    write_lcov(sample(), p)
    first = p.read_text().split("end_of_record\n")[0].splitlines()
    assert first == [
        "TN:",
        "SF:fw/main.c",
        "FN:2,main",
        "FN:6,idle",
        "FNDA:1,main",
        "FNDA:0,idle",
        "FNF:2",
        "FNH:1",
        "BRDA:3,0,0,5",
        "BRDA:3,0,1,0",
        "BRDA:3,1,0,-",  # never ran
        "BRDA:3,1,1,-",
        "BRF:4",
        "BRH:1",
        "DA:3,5",
        "DA:4,0",
        "DA:7,2",
        "LF:3",
        "LH:2",
    ]


def test_summary_counts_and_table() -> None:
    s = summarise(sample())
    assert [(x.file, x.lines_found, x.lines_hit, x.branches_found, x.branches_hit) for x in s] == [
        ("fw/main.c", 3, 2, 4, 1),
        ("fw/x.S", 1, 1, 0, 0),
    ]
    table = format_summary(s).splitlines()
    assert table[0].split() == ["firmware", "coverage", "lines", "branches", "functions"]
    assert table[1].split() == ["fw/main.c", "2/3", "66.7%", "1/4", "25.0%", "1/2"]
    assert table[-1].split() == ["total", "3/4", "75.0%", "1/4", "25.0%", "1/2"]


def test_cobertura_figures(tmp_path: Path) -> None:
    p = tmp_path / "c.xml"
    write_cobertura(sample(), p)
    assert "coverage-04.dtd" in p.read_text()
    top = ET.parse(p).getroot()
    assert (top.get("lines-valid"), top.get("lines-covered")) == ("4", "3")
    assert (top.get("branches-valid"), top.get("branches-covered")) == ("4", "1")
    assert top.get("line-rate") == "0.75" and top.get("branch-rate") == "0.25"
    (line3,) = [ln for ln in top.iter("line") if ln.get("number") == "3" and ln.get("branch")]
    assert line3.get("condition-coverage") == "25% (1/4)"
    assert [c.get("coverage") for c in line3.iter("condition")] == ["50%", "0%"]


def test_html_without_the_source_lists_lines_by_number(tmp_path: Path) -> None:
    write_html(sample(), tmp_path / "v")
    pages = sorted(p.name for p in (tmp_path / "v").iterdir())
    assert pages == [MARKER, "f000-main.c.html", "f001-x.S.html", "index.html"]
    main = (tmp_path / "v" / "f000-main.c.html").read_text()
    assert "not found" in main
    assert "0x0010: never fell through" in main and "0x0014: never ran" in main
    index = (tmp_path / "v" / "index.html").read_text()
    assert "__do_clear_bss" in index and "0x001c-0x002f" in index


def test_each_output_is_told_from_the_others_and_the_users_by_its_first_bytes(
    tmp_path: Path,
) -> None:
    from fairdie.coverage import CoverageSet, check_output
    from fairdie.errors import FairdieError

    written = {"lcov": tmp_path / "c.info", "xml": tmp_path / "c.xml", "json": tmp_path / "c.j"}
    write_lcov(sample(), written["lcov"])
    write_cobertura(sample(), written["xml"])
    CoverageSet().save(written["json"])
    theirs = tmp_path / "theirs"
    for kind, path in written.items():
        check_output(kind, path, "--x")  # fairdie's own: may be written again
        for other in set(written) - {kind}:
            theirs.write_bytes(path.read_bytes())  # fairdie's, but another format
            with pytest.raises(FairdieError, match="fairdie did not write"):
                check_output(other, theirs, "--x")
    # what other tools write in the same formats is the user's
    for kind, text in (
        ("lcov", "TN:\nSF:a.c\nDA:1,1\nend_of_record\n"),
        ("xml", '<?xml version="1.0" ?>\n<coverage version="7.4" line-rate="1">'),
        ("json", '{"meta": {"format": 2}, "files": {}}'),
    ):
        theirs.write_text(text)
        with pytest.raises(FairdieError, match="fairdie did not write"):
            check_output(kind, theirs, "--x")
