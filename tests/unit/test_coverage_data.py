"""The coverage record (fairdie.coverage): merging sums counts, a set keeps one
record per firmware, and a saved set loads back equal or fails in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdie.coverage import Coverage, CoverageError, CoverageSet

A = "a" * 64
B = "b" * 64


def cov(sha: str = A, hits: dict[int, int] | None = None, branches=None, elf=None) -> Coverage:
    return Coverage(sha, "attiny13a", elf, hits or {}, branches or {})


def test_merge_sums_hits_and_branch_outcomes() -> None:
    one = cov(hits={0: 1, 2: 3}, branches={4: (1, 0)})
    two = cov(hits={2: 4, 6: 1}, branches={4: (0, 2), 8: (5, 0)}, elf="fw.elf")
    m = one.merged(two)
    assert dict(m.hits) == {0: 1, 2: 7, 6: 1}
    assert dict(m.branches) == {4: (1, 2), 8: (5, 0)}
    assert m.elf == "fw.elf"
    assert m == two.merged(one).__class__(A, "attiny13a", "fw.elf", m.hits, m.branches)


def test_merge_refuses_another_firmware() -> None:
    with pytest.raises(ValueError, match="two firmwares"):
        cov(A).merged(cov(B))


def test_zero_counts_are_not_stored_and_records_are_read_only() -> None:
    c = cov(hits={0: 0, 2: 1}, branches={4: (0, 0)})
    assert dict(c.hits) == {2: 1}
    assert dict(c.branches) == {}
    with pytest.raises(TypeError):
        c.hits[8] = 1  # type: ignore[index]


@pytest.mark.parametrize(
    "bad",
    [
        dict(hits={1: 1}),  # odd byte address
        dict(hits={0: -1}),
        dict(branches={2: (1,)}),
        dict(branches={2: (1, -1)}),
        dict(sha="xyz"),
    ],
)
def test_bad_records_are_refused(bad: dict) -> None:
    with pytest.raises(CoverageError):
        cov(**bad)


def test_set_merges_by_firmware_and_iterates_in_a_stable_order() -> None:
    s = CoverageSet()
    s.add(cov(B, hits={0: 1}))
    s.add(cov(A, hits={0: 1}))
    s.add(cov(B, hits={0: 2}))
    assert [c.flash_sha256 for c in s] == [A, B]
    assert dict(s.get(B).hits) == {0: 3}  # type: ignore[union-attr]
    t = CoverageSet([cov(A, hits={2: 1})])
    m = s.merged(t)
    assert dict(m.get(A).hits) == {0: 1, 2: 1}  # type: ignore[union-attr]
    assert dict(s.get(A).hits) == {0: 1}  # type: ignore[union-attr]  # unchanged


def test_save_load_round_trip_and_stable_bytes(tmp_path: Path) -> None:
    s = CoverageSet([cov(B, hits={4: 2, 0: 1}, branches={4: (1, 1)}), cov(A, elf="x.elf")])
    p, q = tmp_path / "a.json", tmp_path / "b.json"
    s.save(p)
    assert CoverageSet.load(p) == s
    # the same set built in another order writes the same bytes
    CoverageSet(reversed(list(s))).save(q)
    assert p.read_bytes() == q.read_bytes()
    assert json.loads(p.read_text())["fairdie-coverage"] == 1


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json", "not JSON"),
        ("[]", "not a fairdie coverage file"),
        ('{"fairdie-coverage": 2, "firmwares": []}', "format 2"),
        ('{"fairdie-coverage": 1, "firmwares": {}}', "only a list"),
        ('{"fairdie-coverage": 1, "firmwares": [1]}', "not an object"),
        (
            '{"fairdie-coverage": 1, "firmwares": [{"flash_sha256": "' + A + '", "mcu": "m",'
            ' "elf": null, "hits": [[[0], 1]], "branches": []}]}',
            "whole number",
        ),
        (
            '{"fairdie-coverage": 1, "firmwares": [{"flash_sha256": "' + A + '", "mcu": "m",'
            ' "elf": null, "hits": [[0, 1], [0, 2]], "branches": []}]}',
            "twice",
        ),
        (
            '{"fairdie-coverage": 1, "firmwares": [{"flash_sha256": "' + A + '", "mcu": "m",'
            ' "elf": null, "hits": [], "branches": [[3, 1, 1]]}]}',
            "branch 3",
        ),
    ],
)
def test_bad_files_fail_in_one_line(tmp_path: Path, text: str, says: str) -> None:
    p = tmp_path / "c.json"
    p.write_text(text)
    with pytest.raises(CoverageError, match=says) as e:
        CoverageSet.load(p)
    assert "\n" not in str(e.value) and str(p) in str(e.value)


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CoverageError, match="no such coverage file"):
        CoverageSet.load(tmp_path / "none.json")
