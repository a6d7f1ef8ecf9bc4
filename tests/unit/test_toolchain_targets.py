"""fairdie.toolchain's target files without avr-gcc: target.toml and its [build]
table, parsed and refused, and where a target name or folder is found (the
shipped firmware, the working directory, FAIRDIE_FIRMWARE_DIR)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairdie.errors import ToolchainError
from fairdie.toolchain import (
    Budget,
    BuildOptions,
    build,
    firmware_dir,
    load_target,
    resolve_target,
    variants,
)
from fairdie.toolchain._target import parse_target_toml

DIE_FIRMWARE = (
    Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "subjects" / "die" / "firmware"
)


def test_die_target_toml() -> None:
    t = load_target("die_t13a")
    assert t.path == DIE_FIRMWARE / "die_t13a"
    assert (t.mcu, t.f_cpu, t.output) == ("attiny13a", 1_200_000, "die")
    assert t.budget == Budget(flash=1024, sram=64, stack=32, eeprom=64)
    assert t.budget.static_sram == 32
    assert t.variants == ("direct", "charlieplex", "seed") == variants("die_t13a")
    assert t.default_variant == "direct"
    assert t.defines_for(None) == {"DIE_CHARLIEPLEX": 0, "DIE_RULE_SEED": 0}
    assert t.defines_for("charlieplex") == {"DIE_CHARLIEPLEX": 1, "DIE_RULE_SEED": 0}
    assert [t.model_for(v) for v in t.variants] == ["fair", "fair", "seed"]
    assert sorted(p.name for p in t.sources()) == ["fair.S", "main.c", "rule.c", "store.S"]
    assert not t.has_cxx


def test_unknown_variant_names_the_choices() -> None:
    with pytest.raises(ToolchainError, match="choose from direct, charlieplex, seed"):
        load_target("die_t13a").defines_for("dice")


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


def test_a_target_is_loaded_as_its_file_is_now(tmp_path: Path) -> None:
    """Parsed targets are kept by their text: a target.toml edited in place
    (same size) loads as edited, a bad one is refused every time."""
    toml = tmp_path / "target.toml"
    good, bad = MINIMAL, MINIMAL.replace("attiny85", "attiny-5")
    assert len(good) == len(bad)
    toml.write_text(good)
    first = load_target(tmp_path)
    assert load_target(tmp_path) is first and first.mcu == "attiny85"
    for _ in range(2):
        toml.write_text(bad)
        with pytest.raises(ToolchainError, match="mcu must be a name"):
            load_target(tmp_path)
        toml.write_text(good)
        assert load_target(tmp_path) == first


def test_minimal_target_toml_defaults(tmp_path: Path) -> None:
    t = parse_target_toml(MINIMAL, tmp_path)
    assert (t.name, t.output, t.budget, t.variants) == (tmp_path.name, tmp_path.name, None, ())
    assert t.defines_for(None) == {}
    assert t.options == BuildOptions()
    assert t.options.warning_flags == ("-Wall", "-Wextra")  # no -Werror unless asked


def test_build_table(tmp_path: Path) -> None:
    text = MINIMAL + (
        "[build]\n"
        'warnings = ["all", "no-unused-parameter"]\n'
        "werror = true\n"
        'cflags = ["-O2", "-fshort-enums"]\n'
        'cxxflags = ["-fno-exceptions"]\n'
        'ldflags = ["-Wl,--relax", "-lm"]\n'
    )
    opts = parse_target_toml(text, tmp_path).options
    assert opts == BuildOptions(
        warnings=("all", "no-unused-parameter"),
        werror=True,
        cflags=("-O2", "-fshort-enums"),
        cxxflags=("-fno-exceptions",),
        ldflags=("-Wl,--relax", "-lm"),
    )
    assert opts.warning_flags == ("-Wall", "-Wno-unused-parameter", "-Werror")
    quiet = parse_target_toml(MINIMAL + "[build]\nwarnings = []\n", tmp_path).options
    assert quiet.warning_flags == ()


def test_shipped_firmware_keeps_werror() -> None:
    assert load_target("die_t13a").options.werror
    tests = firmware_dir() / "tests"
    for folder in sorted(p for p in tests.iterdir() if (p / "target.toml").is_file()):
        assert load_target(folder).options.werror, folder.name


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("build = 1", "[build] must be a table"),
        ("[build]\nwerror = 1", "build.werror must be true or false"),
        ('[build]\nwerror = "yes"', "build.werror must be true or false"),
        ('[build]\nwarnings = "all"', "build.warnings must be a list"),
        ('[build]\nwarnings = ["-Wall"]', "build.warnings must be a list of -W names"),
        ('[build]\nwarnings = ["all extra"]', "build.warnings must be a list"),
        ('[build]\nwarnings = ["error"]', "use werror = true"),
        ('[build]\ncflags = "-O2"', "build.cflags must be a list of strings"),
        ("[build]\ncflags = [2]", "build.cflags must be a list of strings"),
        ('[build]\ncflags = ["O2"]', "is not a compiler flag"),
        ('[build]\ncflags = [" -O2"]', "is not a compiler flag"),
        ('[build]\ncflags = ["-Werror"]', "use werror = true"),
        ('[build]\ncxxflags = ["-mmcu=atmega8"]', "set by the toolchain"),
        ('[build]\ncflags = ["-DF_CPU=1"]', "set by the toolchain"),
        ('[build]\nldflags = ["-o"]', "set by the toolchain"),
        ("[build]\nldflag = []", "unknown key build.ldflag"),
        ('name = "a b"', "name must be a plain name"),
        ('output = "a.b"', "output must be a plain name"),
    ],
)
def test_bad_build_table(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ToolchainError, match=message.replace("[", r"\[").replace("]", r"\]")) as e:
        parse_target_toml(table + "\n" + MINIMAL if "[" not in table else MINIMAL + table, tmp_path)
    assert "\n" not in str(e.value)


def test_folder_without_target_toml(tmp_path: Path) -> None:
    (tmp_path / "x.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "y.cpp").write_text("void y() {}\n")
    (tmp_path / "z.S").write_text("\n")
    (tmp_path / "notes.txt").write_text("\n")
    t = load_target(tmp_path)
    assert (t.mcu, t.budget, t.options) == (None, None, BuildOptions())
    assert [p.name for p in t.sources()] == ["x.c", "y.cpp", "z.S"] and t.has_cxx
    with pytest.raises(ToolchainError, match=r"no target\.toml: give the MCU and clock"):
        build(tmp_path, cache_dir=tmp_path / "cache")


def test_firmware_ships_in_the_package() -> None:
    import fairdie

    assert firmware_dir() == Path(fairdie.__file__).resolve().parent / "firmware"
    assert (DIE_FIRMWARE / "die_t13a" / "target.toml").is_file()
    assert (firmware_dir() / "tests" / "busy" / "main.c").is_file()


def test_relative_paths_resolve_from_the_working_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "work" / "blink"
    folder.mkdir(parents=True)
    (folder / "target.toml").write_text(MINIMAL)
    monkeypatch.chdir(tmp_path)
    for spec in ("work/blink", Path("work/blink"), "./work/blink", "work/../work/blink"):
        t = load_target(spec)
        assert t.path == folder.resolve() and t.path.is_absolute() and t.mcu == "attiny85"
    monkeypatch.chdir(tmp_path / "work")
    assert load_target("blink").path == folder.resolve()  # not shipped: the working directory
    assert load_target(Path("blink")).path == folder.resolve()
    (tmp_path / "work" / "die_t13a").mkdir()
    assert load_target("die_t13a").path == DIE_FIRMWARE / "die_t13a"  # shipped names first
    assert load_target("./die_t13a").path == (tmp_path / "work" / "die_t13a").resolve()


def test_test_firmwares_resolve_as_tests_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    shipped = firmware_dir() / "tests" / "buzzer"
    for spec in ("tests/buzzer", Path("tests/buzzer")):
        assert resolve_target(spec) == shipped.resolve()
        assert load_target(spec).path == shipped.resolve()
    with pytest.raises(ToolchainError, match="firmware target not found"):
        load_target("./tests/buzzer")  # "./": the working directory's alone
    with pytest.raises(ToolchainError, match="firmware target not found"):
        load_target("tests/nothing-here")
    (tmp_path / "tests" / "buzzer").mkdir(parents=True)  # the working directory's first
    assert load_target("tests/buzzer").path == (tmp_path / "tests" / "buzzer").resolve()


def test_target_names_resolve_under_firmware_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "blink").mkdir()
    (tmp_path / "blink" / "target.toml").write_text(MINIMAL)
    monkeypatch.setenv("FAIRDIE_FIRMWARE_DIR", str(tmp_path))
    assert load_target("blink").mcu == "attiny85"
    with pytest.raises(ToolchainError, match="firmware target not found"):
        load_target("nothing-here")
