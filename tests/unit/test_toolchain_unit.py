"""fairdie.toolchain without avr-gcc: ELF sizes, cache keys, flags, errors and
its command line (target files and where targets are found: test_toolchain_targets.py)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from plumbum import local

from fairdie.errors import ToolchainError
from fairdie.toolchain import (
    CFLAGS,
    CXXFLAGS,
    LDFLAGS,
    BuildOptions,
    build,
    compile_flags,
    default_cache_dir,
    elf_sections,
    sizes_from_sections,
)
from fairdie.toolchain.__main__ import main
from fairdie.toolchain._cache import cache_key, publish
from fairdie.toolchain._compiler import first_error
from fairdie.toolchain._flags import prefix_map_flag

DIE_SECTIONS = {
    ".mmcu": 92,
    ".text": 576,
    ".data": 2,
    ".bss": 1,
    ".noinit": 3,
    ".eeprom": 6,
    ".comment": 17,
    ".debug_info": 732,
}


def _elf32(sections: dict[str, int]) -> bytes:
    """A minimal AVR ELF32 file whose sections hold no data (SHT_NOBITS), only sizes."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in [*sections, ".shstrtab"])
    shoff = 52 + len(names)
    headers = [bytes(40)]  # the null section
    offset = 1
    for name, size in sections.items():
        headers.append(struct.pack("<10I", offset, 8, 0, 0, shoff, size, 0, 0, 1, 0))
        offset += len(name) + 1
    headers.append(struct.pack("<10I", offset, 3, 0, 0, 52, len(names), 0, 0, 1, 0))
    ident = b"\x7fELF\x01\x01\x01" + bytes(9)
    head = ident + struct.pack(
        "<HHIIIIIHHHHHH", 2, 83, 1, 0, 0, shoff, 0, 52, 32, 0, 40, len(headers), len(headers) - 1
    )
    return head + names + b"".join(headers)


def test_elf_sections_reads_every_section(tmp_path: Path) -> None:
    elf = tmp_path / "die.elf"
    elf.write_bytes(_elf32(DIE_SECTIONS))
    sections = elf_sections(elf)
    assert {k: v for k, v in sections.items() if k != ".shstrtab"} == DIE_SECTIONS
    assert sizes_from_sections(sections) == (578, 6, 6)


def test_sizes_default_to_zero_for_missing_sections() -> None:
    assert sizes_from_sections({".text": 10}) == (10, 0, 0)


@pytest.mark.parametrize("content", [None, b"", b"avr-size: 'x.elf': No such file", b"\x7fELF"])
def test_elf_sections_rejects_garbage_in_one_line(tmp_path: Path, content: bytes | None) -> None:
    elf = tmp_path / "x.elf"
    if content is not None:
        elf.write_bytes(content)
    with pytest.raises(ToolchainError, match="cannot read the sections of") as info:
        elf_sections(elf)
    assert "\n" not in str(info.value)


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


def test_compile_flags_are_complete() -> None:
    flags = compile_flags("attiny13a", 1_200_000, {"B": None, "A": "x y", "C": 3})
    for flag in ("-mmcu=attiny13a", "-DF_CPU=1200000UL", "-Os", "-Wall", "-Wextra"):
        assert flag in flags.c and flag in flags.cxx
    assert "-Werror" not in flags.c  # only a target that asks for it
    assert set(CFLAGS) <= set(flags.c) and set(CXXFLAGS) <= set(flags.cxx)
    assert "-std=gnu11" in flags.c and "-std=gnu++14" in flags.cxx and "-fno-rtti" in flags.cxx
    assert flags.ld == ("-mmcu=attiny13a", *LDFLAGS) and flags.libs == ()
    assert "-Wl,--gc-sections" in flags.ld
    assert flags.c[-3:] == flags.cxx[-3:] == ("-DA=x y", "-DB", "-DC=3")
    assert "-isystem" not in flags.c
    assert compile_flags("m", 1, simavr_include=Path("/inc")).c[-2:] == ("-isystem", "/inc")


def test_compile_flags_follow_the_build_options() -> None:
    options = BuildOptions(
        warnings=("all", "shadow"),
        werror=True,
        cflags=("-O2",),
        cxxflags=("-fno-exceptions",),
        ldflags=("-lm",),
    )
    flags = compile_flags("attiny85", 8_000_000, {"X": 1}, options=options)
    tail_c = flags.c[flags.c.index("-Wall") :]
    assert tail_c == ("-Wall", "-Wshadow", "-Werror", "-O2", "-DX=1")
    tail_cxx = flags.cxx[flags.cxx.index("-Wall") :]
    assert tail_cxx == ("-Wall", "-Wshadow", "-Werror", "-O2", "-fno-exceptions", "-DX=1")
    assert "-Wextra" not in flags.c
    assert flags.libs == ("-lm",) and "-lm" not in flags.ld
    quiet = compile_flags("attiny85", 8_000_000, options=BuildOptions(warnings=()))
    assert not any(f.startswith("-W") and not f.startswith("-Wl,") for f in quiet.c)


def test_flags_in_the_key_are_tagged_by_list() -> None:
    plain = compile_flags("attiny13a", 1).all()
    strict = compile_flags("attiny13a", 1, options=BuildOptions(werror=True)).all()
    assert "c:-Werror" in strict and "cxx:-Werror" in strict and "c:-Werror" not in plain
    libs = compile_flags("attiny13a", 1, options=BuildOptions(ldflags=("-lm",))).all()
    assert "libs:-lm" in libs
    assert _key(flags=plain) != _key(flags=strict) != _key(flags=libs)


@pytest.mark.parametrize(
    ("version", "flag"),
    [
        ("avr-gcc (GCC) 5.4.0\nCopyright", "-fdebug-prefix-map"),
        ("avr-gcc (GCC) 7.3.0", "-fdebug-prefix-map"),
        ("avr-gcc (GCC) 8.1.0", "-ffile-prefix-map"),
        ("avr-gcc (Fedora 14.1.0-1.fc40) 14.1.0", "-ffile-prefix-map"),
        ("", "-fdebug-prefix-map"),
    ],
)
def test_prefix_map_flag_follows_the_compiler(version: str, flag: str) -> None:
    assert prefix_map_flag(version) == flag


def test_missing_avr_gcc_is_one_line(tmp_path: Path) -> None:
    with local.env(PATH=str(tmp_path)), pytest.raises(ToolchainError) as info:
        build("die_t13a", cache_dir=tmp_path / "cache")
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


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    if "--target" not in argv:
        argv = ("--target", "die_t13a", *argv)
    try:
        rc = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        rc = int(exc.code or 0)
    return rc, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--variant", "dice"],
            "unknown variant 'dice' for die_t13a: choose from direct, charlieplex",
        ),
        (["--target", "no-such-target"], "firmware target not found"),
        (["--target", "./no/such/dir"], "firmware target not found"),
        (["-D", "F_CPU=1"], "F_CPU is set by the toolchain"),
        (["-D", "9X"], "bad define name"),
        (["-D", "X=1", "-D", "X=2"], "-D X given twice"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    rc, err = _cli(capsys, *argv)
    assert rc == 2
    assert err == f"fairdie: error: {err.split('error: ', 1)[1]}" and err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize("hz", ["99", "40000000", "fast"])
def test_cli_rejects_a_bad_clock(capsys: pytest.CaptureFixture[str], hz: str) -> None:
    rc, err = _cli(capsys, "--f-cpu", hz)
    assert rc == 2 and "--f-cpu" in err and "Traceback" not in err


def test_cli_reports_errors_as_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with local.env(PATH=str(tmp_path)):
        assert main(["--target", "die_t13a", "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fairdie: error: avr-gcc not found")
    assert err.count("\n") == 1


def test_fairdie_build_is_the_same_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fairdie.cli import main as fairdie_main

    with local.env(PATH=str(tmp_path)):
        assert fairdie_main(["build", "--target", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("fairdie: error: ")
    assert fairdie_main(["build", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--target", "--variant", "--f-cpu", "--mcu", "-D", "--cache-dir", "--json"):
        assert option in out


def test_the_toolchain_and_the_vcd_writer_load_their_libraries_when_used() -> None:
    # a process that only reads firmware (a campaign worker, `fairdie press`)
    # starts without plumbum (whose import runs `uname -p`), pyelftools or pyvcd
    code = (
        "import sys, fairdie.toolchain, fairdie.sim._vcd\n"
        "print(sorted({'plumbum', 'elftools', 'vcd'} & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
