"""fairdie.toolchain without avr-gcc: target files, size parsing, cache keys, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plumbum import local

from fairdie.errors import ToolchainError
from fairdie.toolchain import (
    CFLAGS,
    LDFLAGS,
    Budget,
    build,
    compile_flags,
    default_cache_dir,
    firmware_dir,
    load_target,
    variants,
)
from fairdie.toolchain.__main__ import main
from fairdie.toolchain._build import first_error
from fairdie.toolchain._cache import cache_key, publish
from fairdie.toolchain._size import parse_avr_size, sizes_from_sections
from fairdie.toolchain._target import parse_target_toml

AVR_SIZE_A = """\
die.elf  :
section                     size      addr
.mmcu                         92   9502720
.text                        576         0
.data                          2   8388704
.bss                           1   8388706
.noinit                        3   8388707
.eeprom                        6   8454144
.comment                      17         0
.debug_info                  732         0
Total                       1429


"""


def test_parse_avr_size_reads_every_section() -> None:
    sections = parse_avr_size(AVR_SIZE_A)
    assert sections[".text"] == 576
    assert sections[".mmcu"] == 92
    assert "Total" not in sections
    assert sizes_from_sections(sections) == (578, 6, 6)


def test_sizes_default_to_zero_for_missing_sections() -> None:
    assert sizes_from_sections({".text": 10}) == (10, 0, 0)


def test_parse_avr_size_rejects_garbage() -> None:
    with pytest.raises(ToolchainError, match="cannot parse avr-size"):
        parse_avr_size("avr-size: 'x.elf': No such file")


def _key(**changes: object) -> str:
    args: dict[str, object] = {
        "files": {"main.c": b"int main(void){}", "pins.h": b"#define A 1"},
        "flags": ["-Os", "-mmcu=attiny13a"],
        "mcu": "attiny13a",
        "f_cpu": 1_200_000,
        "defines": {"DIE_CHARLIEPLEX": 0},
        "compiler_version": "avr-gcc (GCC) 5.4.0",
    }
    args.update(changes)
    return cache_key(**args)  # type: ignore[arg-type]


def test_cache_key_is_stable_and_order_independent() -> None:
    assert _key() == _key()
    assert len(_key()) == 64
    swapped = {"pins.h": b"#define A 1", "main.c": b"int main(void){}"}
    assert _key(files=swapped) == _key()


@pytest.mark.parametrize(
    "change",
    [
        {"files": {"main.c": b"int main(void){ }", "pins.h": b"#define A 1"}},
        {"files": {"main2.c": b"int main(void){}", "pins.h": b"#define A 1"}},
        {"files": {"main.c": b"int main(void){}"}},
        {"flags": ["-Os", "-mmcu=attiny13a", "-g"]},
        {"flags": ["-mmcu=attiny13a", "-Os"]},
        {"mcu": "attiny13"},
        {"f_cpu": 9_600_000},
        {"defines": {"DIE_CHARLIEPLEX": 1}},
        {"defines": {"DIE_CHARLIEPLEX": None}},
        {"defines": {}},
        {"compiler_version": "avr-gcc (GCC) 7.3.0"},
        {"extra": ["output=other"]},
    ],
)
def test_cache_key_changes_with_every_input(change: dict[str, object]) -> None:
    assert _key(**change) != _key()


def test_cache_key_fields_cannot_run_together() -> None:
    assert _key(files={"ab": b"c"}) != _key(files={"a": b"bc"})
    assert _key(defines={"X": ""}) != _key(defines={"X": None})


@given(st.binary(max_size=64), st.binary(max_size=64))
def test_cache_key_distinguishes_contents(a: bytes, b: bytes) -> None:
    assert (_key(files={"main.c": a}) == _key(files={"main.c": b})) == (a == b)


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FAIRDIE_CACHE", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("FAIRDIE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "fairdie" / "build"


def test_publish_keeps_the_first_writer(tmp_path: Path) -> None:
    final = tmp_path / "key"
    for n in range(2):
        tmp = tmp_path / f".tmp-{n}"
        tmp.mkdir()
        (tmp / "who").write_text(str(n))
        publish(tmp, final)
        assert not tmp.exists()
    assert (final / "who").read_text() == "0"


def test_die_target_toml() -> None:
    t = load_target("die_t13a")
    assert t.path == firmware_dir() / "die_t13a"
    assert (t.mcu, t.f_cpu, t.output) == ("attiny13a", 1_200_000, "die")
    assert t.budget == Budget(flash=1024, sram=64, stack=32, eeprom=64)
    assert t.budget.static_sram == 32
    assert t.variants == ("direct", "charlieplex") == variants()
    assert t.default_variant == "direct"
    assert t.defines_for(None) == {"DIE_CHARLIEPLEX": 0}
    assert t.defines_for("charlieplex") == {"DIE_CHARLIEPLEX": 1}
    assert [p.name for p in t.sources()] == ["main.c", "rule.c"]


def test_unknown_variant_names_the_choices() -> None:
    with pytest.raises(ToolchainError, match="choose from direct, charlieplex"):
        load_target().defines_for("dice")


MINIMAL = 'mcu = "attiny85"\nf_cpu = 8000000\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcu = ", "target.toml"),
        ('mcu = "attiny 85"', "mcu must be"),
        ('mcu = "t85"\nf_cpu = -1', "f_cpu must be"),
        ('mcu = "t85"\nf_cpu = true', "f_cpu must be"),
        (MINIMAL + "[budget]\nflash = 8192\n", "needs flash and sram"),
        (MINIMAL + "[budget]\nflash = 1\nsram = 8\nstack = 9\n", "exceeds budget.sram"),
        (MINIMAL + "[variants.a]\ndefines = { 9X = 1 }\n", "bad define name"),
        (MINIMAL + "[variants.a]\ndefines = { F_CPU = 1 }\n", "set by the toolchain"),
        (MINIMAL + "[variants.a]\ndefines = { X = 1.5 }\n", "must be str, int or None"),
        (MINIMAL + 'default_variant = "b"\n[variants.a]\n', "not a variant"),
    ],
)
def test_bad_target_toml(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ToolchainError, match=message) as info:
        parse_target_toml(text, tmp_path)
    assert "\n" not in str(info.value)


def test_minimal_target_toml_defaults(tmp_path: Path) -> None:
    t = parse_target_toml(MINIMAL, tmp_path)
    assert (t.name, t.output, t.budget, t.variants) == (tmp_path.name, tmp_path.name, None, ())
    assert t.defines_for(None) == {}


def test_folder_without_target_toml(tmp_path: Path) -> None:
    (tmp_path / "x.c").write_text("int main(void) { return 0; }\n")
    t = load_target(tmp_path)
    assert (t.mcu, t.budget, [p.name for p in t.sources()]) == (None, None, ["x.c"])
    with pytest.raises(ToolchainError, match="pass mcu= and f_cpu="):
        build(tmp_path, cache_dir=tmp_path / "cache")


def test_target_names_resolve_under_firmware_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "blink").mkdir()
    (tmp_path / "blink" / "target.toml").write_text(MINIMAL)
    monkeypatch.setenv("FAIRDIE_FIRMWARE_DIR", str(tmp_path))
    assert load_target("blink").mcu == "attiny85"
    with pytest.raises(ToolchainError, match="firmware target not found"):
        load_target("nothing-here")


def test_compile_flags_are_complete() -> None:
    flags = compile_flags("attiny13a", 1_200_000, {"B": None, "A": "x y", "C": 3})
    for flag in ("-mmcu=attiny13a", "-DF_CPU=1200000UL", "-Os", "-std=gnu11", "-Werror"):
        assert flag in flags
    assert set(CFLAGS) | set(LDFLAGS) <= set(flags)
    assert "-Wl,--gc-sections" in flags
    assert flags[-3:] == ["-DA=x y", "-DB", "-DC=3"]
    assert "-isystem" not in flags
    assert compile_flags("m", 1, simavr_include=Path("/inc"))[-2:] == ["-isystem", "/inc"]


def test_missing_avr_gcc_is_one_line(tmp_path: Path) -> None:
    with local.env(PATH=str(tmp_path)), pytest.raises(ToolchainError) as info:
        build(cache_dir=tmp_path / "cache")
    message = str(info.value)
    assert message.startswith("avr-gcc not found: install gcc-avr avr-libc binutils-avr")
    assert "\n" not in message
    assert not (tmp_path / "cache").exists()


def test_first_error_picks_the_compiler_error() -> None:
    log = (
        "/src/die/main.c: In function 'main':\n"
        "/src/die/main.c:3:5: error: unused variable 'x' [-Werror=unused-variable]\n"
        "/src/die/main.c:4:1: error: expected ';'\n"
        "cc1: all warnings being treated as errors\n"
        "collect2: error: ld returned 1 exit status\n"
    )
    assert first_error(log, "/src/die/") == (
        "main.c:3:5: error: unused variable 'x' [-Werror=unused-variable]"
    )
    linker = "ld: die.elf section `.text' will not fit in region `text'\nregion overflowed\n"
    assert first_error(linker).startswith("ld: die.elf section")
    assert first_error("") == "no compiler output"
    assert len(first_error("error: " + "x" * 500)) == 200


def test_cli_rejects_an_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--variant", "dice"])
    assert info.value.code == 2
    assert "direct, charlieplex" in capsys.readouterr().err


def test_cli_reports_errors_as_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with local.env(PATH=str(tmp_path)):
        assert main(["--cache-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fairdie: error: avr-gcc not found")
    assert err.count("\n") == 1
