"""Building the die's rule.c for the host (fairdie.subjects.die._rule_host).

Each test builds into its own cache folder; sources are copies of the die's
rule.c and rule.h, edited where a test needs a broken or hostile rule.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from fairdie.errors import ToolchainError
from fairdie.subjects.die._rule_host import HostRule, _open, host_rule, rule_dir

DIE_ROLL = "uint8_t die_roll(uint8_t counts[DIE_FACES], uint16_t code);"


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    """A copy of the die's rule.c and rule.h."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("rule.c", "rule.h"):
        (src / name).write_bytes((rule_dir() / name).read_bytes())
    return src


@pytest.fixture
def build(host_cc: str, tmp_path: Path) -> Callable[[Path], HostRule]:
    """Build rule.c from a folder into this test's own cache."""

    def _build(src: Path) -> HostRule:
        return host_rule(cc=host_cc, cache_dir=tmp_path / "cache", source_dir=src)

    return _build


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}: update this test"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_rule_c_is_the_firmwares() -> None:
    assert rule_dir().name == "die_t13a"
    assert (rule_dir() / "rule.c").is_file()
    assert DIE_ROLL in (rule_dir() / "rule.h").read_text(encoding="utf-8")


def test_builds_once_then_comes_from_the_cache(
    build: Callable[[Path], HostRule], sources: Path, tmp_path: Path
) -> None:
    first = build(sources)
    assert first.library.parent.parent == tmp_path / "cache"
    assert first.library.parent.name == first.key
    stamp = first.library.stat().st_mtime_ns
    _open.cache_clear()  # as a new process would
    again = build(sources)
    assert again.key == first.key
    assert again.library.stat().st_mtime_ns == stamp  # not rebuilt
    assert again.press((0,) * 6, 2) == (5, (0, 0, 0, 0, 1, 0))
    leftovers = [p.name for p in (tmp_path / "cache").iterdir() if p.name != first.key]
    assert leftovers == []


def test_the_key_follows_the_sources(
    build: Callable[[Path], HostRule], c_rule: HostRule, host_cc: str, sources: Path
) -> None:
    # a copy of the sources elsewhere is the same build: the session's rule.c,
    # taken from its cache (a compile fewer than building the copy anew)
    assert host_rule(cc=host_cc, source_dir=sources).key == c_rule.key
    _edit(sources / "rule.h", "#define DIE_FACES 6", "#define DIE_FACES 6 /* edited */")
    assert build(sources).key != c_rule.key


def _build_in(cc: str, cache: Path, src: Path) -> tuple[str, int]:
    rule = host_rule(cc=cc, cache_dir=cache, source_dir=src)
    return rule.key, rule.press((0,) * 6, 1)[0]


def test_processes_building_at_once_share_one_build(
    host_cc: str, sources: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    _open.cache_clear()  # forked workers must not inherit a loaded build
    with ProcessPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_build_in, *zip(*[(host_cc, cache, sources)] * 4, strict=True)))
    assert len(set(results)) == 1
    assert results[0][1] == 3
    assert [p.name for p in cache.iterdir()] == [results[0][0]]  # no temporary folders left


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("uint16_t code)", "uint8_t code)"),  # the code narrowed
        ("uint8_t die_roll(", "uint16_t die_roll("),  # another return type
    ],
)
def test_a_changed_signature_fails_the_build(
    build: Callable[[Path], HostRule], sources: Path, old: str, new: str
) -> None:
    _edit(sources / "rule.h", old, new)
    _edit(sources / "rule.c", old, new)
    with pytest.raises(ToolchainError, match=r"check\.c.*incompatible.*no longer matches"):
        build(sources)


def test_another_number_of_faces_fails_the_build(
    build: Callable[[Path], HostRule], sources: Path
) -> None:
    _edit(sources / "rule.h", "#define DIE_FACES 6", "#define DIE_FACES 8")
    with pytest.raises(ToolchainError, match="DIE_FACES differs"):
        build(sources)


def test_a_compile_error_names_the_log(build: Callable[[Path], HostRule], sources: Path) -> None:
    _edit(sources / "rule.c", "return face;", "return face")
    with pytest.raises(ToolchainError, match=r"error: .*\(full log: .*build\.log\)") as info:
        build(sources)
    log = Path(str(info.value).rsplit("full log: ", 1)[1].rstrip(")"))
    assert "rule.c" in log.read_text(encoding="utf-8")


def test_a_write_outside_the_counters_is_caught(
    build: Callable[[Path], HostRule], sources: Path
) -> None:
    # A volatile index hides the overrun from the compiler: the guard bytes see it.
    stray = "    volatile uint8_t past = DIE_FACES;\n    c[past] = 0;\n"
    _edit(sources / "rule.c", "    c[face]++;\n", "    c[face]++;\n" + stray)
    rule = build(sources)
    with pytest.raises(RuntimeError, match="outside counts"):
        rule.die_roll((0,) * 6, 0)


def test_a_missing_compiler_says_so(sources: Path, tmp_path: Path) -> None:
    with pytest.raises(ToolchainError, match="host C compiler 'no-such-cc' not found"):
        host_rule(cc="no-such-cc", cache_dir=tmp_path, source_dir=sources)


def test_missing_sources_say_so(host_cc: str, tmp_path: Path) -> None:
    with pytest.raises(ToolchainError, match="rule sources not readable"):
        host_rule(cc=host_cc, cache_dir=tmp_path, source_dir=tmp_path)


@pytest.mark.parametrize(
    ("counts", "code", "match"),
    [
        ((0,) * 5, 0, "counts"),
        ((0, 0, 0, 0, 0, 256), 0, "counts"),
        ((0, 0, 0, 0, 0, True), 0, "counts"),
        ("abcdef", 0, "counts"),
        ((0,) * 6, -1, "code"),
        ((0,) * 6, 0x10000, "code"),
        ((0,) * 6, 1.0, "code"),
    ],
)
def test_bad_inputs_raise(c_rule: HostRule, counts: tuple[int, ...], code: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        c_rule.die_roll(counts, code)


def test_codes_beyond_the_adc_reach_the_c(c_rule: HostRule) -> None:
    # die_roll takes a uint16_t: 65535 % 3 == 0 picks the least-counted face.
    assert c_rule.die_roll((3, 2, 1, 0, 4, 5), 0xFFFF) == (3, (3, 2, 1, 1, 4, 5))
    assert os.fspath(c_rule.library).endswith(".so")
