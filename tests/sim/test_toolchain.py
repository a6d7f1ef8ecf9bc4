"""fairdie.toolchain with the real avr-gcc: the die builds, fits, is cached, fails clearly.

Also: C++ targets, per-target warnings and flags, relative target paths, and
ELFs that do not depend on the folder a target sits in.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from fairdie.errors import ToolchainError
from fairdie.toolchain import Build, build, firmware_dir, load_target, simavr_include_dir
from fairdie.toolchain import _build as build_module
from fairdie.toolchain.__main__ import main

pytestmark = pytest.mark.sim

EMPTY_HEX = ":00000001FF\n"


def _handlers(elf: Path) -> set[str]:
    """The interrupt vectors the firmware handles (not aliased to __bad_interrupt)."""
    with elf.open("rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        syms = {s.name: s["st_value"] for s in symtab.iter_symbols()}  # type: ignore[union-attr]
    bad = syms["__bad_interrupt"]
    return {
        n for n, v in syms.items() if n[9:].isdigit() and n.startswith("__vector_") and v != bad
    }


def _mmcu(elf: Path) -> dict[int, bytes]:
    """simavr's .mmcu records: tag -> payload."""
    with elf.open("rb") as f:
        section = ELFFile(f).get_section_by_name(".mmcu")
        assert section is not None, "the ELF does not name its chip"
        blob = section.data()
    records: dict[int, bytes] = {}
    i = 0
    while i + 2 <= len(blob):
        tag, n = blob[i], blob[i + 1]
        records.setdefault(tag, blob[i + 2 : i + 2 + n])
        i += 2 + n
    return records


@pytest.mark.parametrize("f_cpu", [None, 9_600_000])
@pytest.mark.parametrize("variant", ["direct", "charlieplex"])
def test_die_builds_within_budget(
    variant: str, f_cpu: int | None, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    b = build("die_t13a", variant=variant, f_cpu=f_cpu, cache_dir=tmp_path)
    print(
        f"die_t13a {variant} @ {b.f_cpu} Hz: flash {b.flash_bytes}/{b.flash_budget} B, "
        f"static SRAM {b.sram_bytes}/{b.sram_budget} B, EEPROM {b.eeprom_bytes} B"
    )
    record_property("flash_bytes", b.flash_bytes)
    record_property("sram_bytes", b.sram_bytes)
    assert (b.mcu, b.f_cpu, b.variant) == ("attiny13a", f_cpu or 1_200_000, variant)
    assert b.flash_budget == 1024 and b.sram_budget == 64 - 32
    assert 0 < b.flash_bytes <= 1024
    assert b.sram_bytes <= 64 - 32
    assert b.eeprom_bytes == 0
    assert b.elf.name == "die.elf" and b.elf.parent == tmp_path / b.key
    assert b.hex.read_text().startswith(":") and b.hex.read_text().endswith(EMPTY_HEX)
    assert b.eep.read_text() == EMPTY_HEX
    handlers = _handlers(b.elf)  # WDT; TIM0_COMPA multiplexes the charlieplexed LEDs
    assert handlers == (
        {"__vector_8", "__vector_6"} if variant == "charlieplex" else {"__vector_8"}
    )


@pytest.mark.skipif(simavr_include_dir() is None, reason="simavr headers not installed")
def test_die_elf_names_its_chip_and_clock() -> None:
    records = _mmcu(build("die_t13a", f_cpu=9_600_000).elf)  # the process's cache
    assert records[1].rstrip(b"\0") == b"attiny13a"
    assert int.from_bytes(records[2][:4], "little") == 9_600_000
    assert int.from_bytes(records[3][:4], "little") == 3000  # Vcc, mV


def test_cache_hit_does_not_compile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = build("die_t13a", variant="charlieplex", cache_dir=tmp_path)
    stamp = first.elf.stat().st_mtime_ns

    def no_compile(*args: object) -> None:
        raise AssertionError("compiled on a cache hit")

    monkeypatch.setattr(build_module, "compile_target", no_compile)
    again = build("die_t13a", variant="charlieplex", cache_dir=tmp_path)
    assert again == first
    assert again.elf.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir()] == [first.key]
    with pytest.raises(AssertionError, match="compiled on a cache hit"):
        build("die_t13a", variant="direct", cache_dir=tmp_path)


def test_key_follows_variant_clock_and_defines() -> None:
    # the process's cache: the keys are the point, not fresh builds (those are
    # test_die_builds_within_budget's); a key that missed a field would name
    # another build's entry and be equal to its key
    keys = {
        build("die_t13a").key,
        build("die_t13a", variant="charlieplex").key,
        build("die_t13a", f_cpu=9_600_000).key,
        build("die_t13a", defines={"UNUSED_BY_THE_DIE": 1}).key,
    }
    assert len(keys) == 4
    assert build("die_t13a", variant="direct").key == build("die_t13a").key


def test_default_cache_dir_comes_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRDIE_CACHE", str(tmp_path / "env"))
    b = build("die_t13a")
    assert b.elf.parent == tmp_path / "env" / b.key


def _build_key(cache: str) -> str:
    return build("die_t13a", variant="charlieplex", cache_dir=Path(cache)).key


def test_parallel_builds_share_one_entry(tmp_path: Path) -> None:
    # two processes start on the empty cache at once: both compile (a compile
    # takes far longer than their start apart), and the second to publish
    # meets the first's entry; more would only race the same way again
    with ProcessPoolExecutor(2) as pool:
        keys = set(pool.map(_build_key, [str(tmp_path)] * 2))
    assert len(keys) == 1
    assert [p.name for p in tmp_path.iterdir()] == [keys.pop()]


def _target(
    folder: Path,
    source: str,
    budget: str = "flash = 1024\nsram = 64\nstack = 24\n",
    build_table: str = "werror = true\n",
    name: str = "main.c",
) -> Path:
    folder.mkdir()
    (folder / name).write_text(source)
    (folder / "target.toml").write_text(
        f'mcu = "attiny13a"\nf_cpu = 1200000\noutput = "t"\n[budget]\n{budget}'
        f"[build]\n{build_table}"
    )
    return folder


def test_over_flash_budget_is_one_line(tmp_path: Path) -> None:
    src = _target(tmp_path / "big", "int main(void) { return 0; }\n", "flash = 16\nsram = 64\n")
    with pytest.raises(ToolchainError) as info:
        build(src, cache_dir=tmp_path / "cache")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("big: flash ") and "budget of 16 B" in message


def test_over_sram_budget_is_one_line(tmp_path: Path) -> None:
    source = (
        "#include <stdint.h>\n"
        "volatile uint8_t buf[41];\n"
        "int main(void) { buf[0] = 1; return buf[40]; }\n"
    )
    src = _target(tmp_path / "fat", source)
    with pytest.raises(ToolchainError) as info:
        build(src, cache_dir=tmp_path / "cache")
    message = str(info.value)
    assert "\n" not in message
    assert "SRAM" in message and "41 B" in message and "budget of 40 B" in message


def test_linker_overflow_is_reported(tmp_path: Path) -> None:
    source = (
        "#include <avr/pgmspace.h>\n"
        "const char big[1100] PROGMEM = {1};\n"
        "int main(void) { return pgm_read_byte(&big[1099]); }\n"
    )
    src = _target(tmp_path / "huge", source)
    with pytest.raises(ToolchainError, match=r"huge: build failed: .*(overflow|fit)") as info:
        build(src, cache_dir=tmp_path / "cache")
    assert "\n" not in str(info.value)


def test_compile_error_is_short_with_the_log_path(tmp_path: Path) -> None:
    src = _target(tmp_path / "bad", UNUSED)
    with pytest.raises(ToolchainError) as info:
        build(src, cache_dir=tmp_path / "cache")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("bad: build failed: main.c:2:9: error: unused variable")
    log = Path(message.rsplit("(full log: ", 1)[1].rstrip(")"))
    assert log.is_file() and "-Werror" in log.read_text()
    assert not any(p.name == "bad" for p in (tmp_path / "cache").iterdir())  # nothing published


UNUSED = "int main(void) {\n    int unused;\n    return 0;\n}\n"


def test_a_target_without_werror_builds_despite_warnings(tmp_path: Path) -> None:
    lax = build(_target(tmp_path / "lax", UNUSED, build_table=""), cache_dir=tmp_path / "c")
    log = (lax.elf.parent / "build.log").read_text()
    assert "warning: unused variable" in log and "-Werror" not in log and "-Wall" in log
    quiet = _target(tmp_path / "quiet", UNUSED, build_table="warnings = []\nwerror = true\n")
    assert (
        "warning"
        not in (build(quiet, cache_dir=tmp_path / "c").elf.parent / "build.log").read_text()
    )


def test_build_table_flags_reach_the_compiler_and_the_key(tmp_path: Path) -> None:
    source = (
        "#include <math.h>\nvolatile float x = 2;\nint main(void) { x = sqrtf(x); return 0; }\n"
    )
    plain = build(_target(tmp_path / "a", source), cache_dir=tmp_path / "c")
    tuned = build(
        _target(tmp_path / "b", source, build_table='cflags = ["-O1"]\nldflags = ["-lm"]\n'),
        cache_dir=tmp_path / "c",
    )
    assert plain.key != tuned.key
    log = (tuned.elf.parent / "build.log").read_text().splitlines()
    compile_line = next(line for line in log if " -c main.c " in line)
    link_line = next(line for line in log if " -o " in line and ".elf" in line)
    assert compile_line.index("-Os") < compile_line.index("-O1")  # theirs after ours
    assert link_line.endswith(" -lm")  # after the objects


def test_a_relative_target_path_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fw").mkdir()
    _target(tmp_path / "fw" / "rel", "int main(void) { return 0; }\n")
    monkeypatch.chdir(tmp_path)
    for spec in ("fw/rel", Path("fw/rel"), "./fw/rel"):
        b = build(spec, cache_dir=Path("cache"))
        assert b.elf.is_absolute() and b.elf.is_file()
        assert b.elf.parent.parent == tmp_path / "cache"
    monkeypatch.chdir(tmp_path / "fw")
    assert build("rel", cache_dir=tmp_path / "cache").elf.is_file()


def _debug_strings(elf: Path) -> list[str]:
    """Every file, folder and producer name in the DWARF (compile units and line tables)."""
    names: list[str] = []
    with elf.open("rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        for cu in dwarf.iter_CUs():
            top = cu.get_top_DIE()
            for attr in ("DW_AT_name", "DW_AT_comp_dir", "DW_AT_producer"):
                if attr in top.attributes:
                    names.append(top.attributes[attr].value.decode())
            program = dwarf.line_program_for_CU(cu)
            if program is not None:
                names += [d.decode() for d in program["include_directory"]]
                names += [e.name.decode() for e in program["file_entry"]]
    return names


@pytest.mark.parametrize("target", ["die_t13a", "tests/cxx"])
def test_the_elf_does_not_depend_on_the_folder(tmp_path: Path, target: str) -> None:
    # the die's target lives in its subject's folder; the test firmwares in the core's
    source = load_target(target).path if target == "die_t13a" else firmware_dir() / target
    elves = []
    for where in ("one", "two/levels/deeper"):
        copy = tmp_path / where / Path(target).name
        shutil.copytree(source, copy)
        elves.append(build(copy, cache_dir=tmp_path / where / "cache").elf)
    names = _debug_strings(elves[0])
    assert names and not [n for n in names if str(tmp_path) in n]
    assert not [n for n in names if n.startswith("/") and not n.startswith("/usr/")]
    assert Path(target).name in names  # the folder, mapped to the target's name
    assert elves[0].read_bytes() == elves[1].read_bytes()
    # The checkout's own copy builds the same ELF under the same key, too.
    shipped = build(source, cache_dir=tmp_path / "shipped")
    assert shipped.elf.read_bytes() == elves[0].read_bytes()
    assert shipped.key == elves[0].parent.name == elves[1].parent.name


def test_cxx_target_builds_and_runs(tmp_path: Path) -> None:
    b = build(firmware_dir() / "tests" / "cxx", cache_dir=tmp_path)
    log = (b.elf.parent / "build.log").read_text().splitlines()
    assert [line.split()[1].rsplit("/", 1)[-1] for line in log if line.startswith("$ ")] == [
        "avr-g++",
        "avr-gcc",
        "avr-g++",
    ]  # main.cpp, sum.c, then the link
    with b.elf.open("rb") as f:
        elf = ELFFile(f)
        symtab = elf.get_section_by_name(".symtab")
        syms = {s.name for s in symtab.iter_symbols()}  # type: ignore[union-attr]
        producers = {
            cu.get_top_DIE().attributes["DW_AT_producer"].value.decode().split()[1]
            for cu in elf.get_dwarf_info().iter_CUs()
        }
    assert {"main", "sum_u8", "cxx_result", "__do_global_ctors"} <= syms
    assert {"C++14", "C11"} <= producers
    try:
        from fairdie.sim import Chip
    except ImportError:  # pragma: no cover - the binding is not built
        pytest.skip("fairdie.sim binding not built")
    chip = Chip(b.elf, mcu=b.mcu, f_cpu=b.f_cpu)
    chip.power_on()
    chip.run(10_000)
    assert chip.read_var("cxx_result") == 42  # the constructor's 40, plus 2 from C
    assert chip.read_io("DDRB") & 0b11 == 0b11  # PB1 from the constructor, PB0 from main
    assert chip.level("PB0")


def test_assembler_sources_build_path_free(tmp_path: Path) -> None:
    asm = ".global main\nmain:\n    ldi r24, 7\n    ldi r25, 0\n    ret\n"
    b = build(_target(tmp_path / "asm", asm, name="main.S"), cache_dir=tmp_path / "c")
    names = _debug_strings(b.elf)
    assert b.flash_bytes > 0 and "main.S" in names and "asm" in names
    assert not [n for n in names if str(tmp_path) in n]


def test_plain_folder_needs_mcu_and_clock(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.c").write_text("int main(void) { return 0; }\n")
    b = build(folder, mcu="attiny13a", f_cpu=128_000, cache_dir=tmp_path / "c")
    assert isinstance(b, Build) and b.flash_budget is None and b.elf.name == "plain.elf"


def test_cli_prints_paths_and_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--target", "die_t13a", "--variant", "charlieplex", "--cache-dir", str(tmp_path)])
        == 0
    )
    lines = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())
    assert Path(lines["elf"]).is_file() and Path(lines["hex"]).is_file()
    assert lines["flash"].split()[1:3] == ["/", "1024"]
    assert lines["sram"].split()[1:3] == ["/", "32"]
    assert lines["target"] == "die_t13a (charlieplex)"
    assert load_target("die_t13a").variants == ("direct", "charlieplex", "seed")


@pytest.mark.parametrize("variant", ["direct", "charlieplex"])
def test_die_stack_fits_its_headroom(variant: str) -> None:
    """Paint SRAM after power-on, run past the 10 s clear, see how deep the stack went."""
    try:
        from fairdie.sim import Chip
    except ImportError:  # pragma: no cover - the binding is not built
        pytest.skip("fairdie.sim binding not built")
    b = build("die_t13a", variant=variant)  # the process's cache: the die as the suite runs it
    headroom = load_target("die_t13a").budget.stack  # type: ignore[union-attr]
    deepest = 0
    for counts, mv in [(bytes(6), 0), (b"\xff" * 6, 1500), (bytes([255, 0, 3, 255, 254, 9]), 2900)]:
        chip = Chip(b.elf, eeprom=counts, seed=3)
        chip.set_adc(2, mv)
        chip.power_on()
        size = chip.ramend + 1 - chip.sram_start
        chip.write_data(chip.sram_start, b"\xa5" * size)
        chip.run(seconds=10.2)
        ram = chip.read_data(chip.sram_start, size)
        untouched = next(i for i in range(b.sram_bytes, size) if ram[i] != 0xA5)
        deepest = max(deepest, size - untouched)
    print(f"die_t13a {variant}: peak stack {deepest} B of {headroom} B headroom")
    assert deepest <= headroom
