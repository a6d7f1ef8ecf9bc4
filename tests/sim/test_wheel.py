"""A wheel of fairdie, installed (not editable) in a fresh venv, works outside the checkout.

The wheel is built from a copy of the checkout (so the build writes nothing
into it), with pip's build isolation (setuptools and cffi from the package
index). The fresh venv sees the test environment's dependencies through a
``.pth`` line, which does not run that environment's own ``.pth`` files, so
the editable install of fairdie stays invisible; every command runs from a
folder outside the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = [pytest.mark.sim, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
_TIMEOUT = 600
_NOT_SOURCES = {".git", ".venv", "build", "dist", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    bin: Path
    work: Path  # a folder outside the checkout, the working directory of every command
    env: dict[str, str]

    def run(self, *argv: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        r = subprocess.run(
            [str(a) for a in argv],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
        )
        if check:
            assert r.returncode == 0, f"{argv}: {r.stdout[-1500:]}\n{r.stderr[-1500:]}"
        return r


def _copy_sources(dest: Path) -> None:
    """The checkout's files that git tracks or would track (all of them without git)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout.split(b"\0")
        files = [REPO / os.fsdecode(name) for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        files = [
            p
            for p in REPO.rglob("*")
            if not _NOT_SOURCES & set(p.relative_to(REPO).parts)
            and "__pycache__" not in p.parts
            and not p.name.endswith((".so", ".egg-info"))
        ]
    for src in files:
        if src.is_file():  # a tracked file deleted in the working tree is skipped
            target = dest / src.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)


def _pip(*args: str | Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
    )
    assert r.returncode == 0, f"pip {args[0]} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    src, wheels, env_dir, work = root / "src", root / "wheels", root / "venv", root / "work"
    work.mkdir()
    _copy_sources(src)
    _pip("wheel", "--no-deps", "--wheel-dir", wheels, src)
    (wheel,) = wheels.glob("fairdie-*.whl")

    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    _pip("--python", python, "install", "--no-deps", "--no-index", wheel)
    # The dependencies come from this environment's site-packages, named in a .pth
    # file: the folders are added, their own .pth files (the editable fairdie) are not read.
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(site) / "fairdie-test-deps.pth").write_text("".join(f"{p}\n" for p in ours))

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "FAIRDIE_"))}
    env |= {
        "PATH": f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "VIRTUAL_ENV": str(env_dir),
        "FAIRDIE_CACHE": str(root / "cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    yield Installed(wheel, python, env_dir / "bin", work, env)


def test_the_wheel_holds_the_firmware(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    die = "fairdie/subjects/die"
    for name in (
        f"{die}/firmware/die_t13a/target.toml",
        f"{die}/firmware/die_t13a/main.c",
        f"{die}/firmware/die_t13a/pins.h",
        f"{die}/firmware/die_t13a/fair.S",
        f"{die}/boards/die-direct.toml",
        f"{die}/boards/die-charlieplex.toml",
        f"{die}/suite/conftest.py",
        "fairdie/firmware/tests/busy/main.c",
        "fairdie/firmware/tests/wdt/target.toml",
        "fairdie/firmware/tests/cxx/main.cpp",
        "fairdie/firmware/tests/button_die/board.toml",
    ):
        assert name in names, name
    # the die's files live in its subject's folder only
    assert not [n for n in names if n.startswith(("fairdie/firmware/die_", "fairdie/boards/"))]
    # every file of the subject's firmware and boards in the checkout is in the wheel
    root = REPO / "harness"
    for folder in ("firmware", "boards"):
        for f in (root / die / folder).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                assert f.relative_to(root).as_posix() in names
    assert any(n.startswith("fairdie/sim/_simavr") and n.endswith(".so") for n in names)


def test_the_installed_package_is_not_the_checkout(installed: Installed) -> None:
    code = (
        "import json, fairdie, fairdie.sim, fairdie.toolchain as t;"
        "print(json.dumps([fairdie.__file__, str(t.firmware_dir())]))"
    )
    module, firmware = json.loads(installed.run(installed.python, "-c", code).stdout)
    venv_dir = installed.python.parents[1]
    assert Path(module).is_relative_to(venv_dir), module
    assert Path(firmware).is_relative_to(venv_dir) and not Path(firmware).is_relative_to(REPO)


def test_fairdie_demo_and_build(installed: Installed) -> None:
    demo = installed.run(installed.bin / "fairdie", "demo", "--count", "6")
    assert "built die.elf" in demo.stdout and "count" in demo.stdout
    b = json.loads(
        installed.run(installed.bin / "fairdie", "build", "--target", "die_t13a", "--json").stdout
    )
    assert Path(b["elf"]).is_file() and 0 < b["flash_bytes"] <= b["flash_budget"]
    # The installed sources build the same ELF, under the same key, as the checkout's.
    from fairdie.toolchain import build

    here = build("die_t13a", cache_dir=Path(b["elf"]).parents[2] / "checkout")
    assert here.key == b["key"]
    assert here.elf.read_bytes() == Path(b["elf"]).read_bytes()
    # A target of the user's own, named by a path relative to the working directory.
    code = "import fairdie.toolchain as t; print(t.firmware_dir())"
    shipped = Path(installed.run(installed.python, "-c", code).stdout.strip())
    shutil.copytree(shipped / "tests" / "cxx", installed.work / "mine" / "cxx")
    out = installed.run(installed.bin / "fairdie", "build", "--target", "mine/cxx", "--json")
    mine = json.loads(out.stdout)
    assert mine["target"] == "cxx" and Path(mine["elf"]).is_file()


def test_fairdie_bench_json(installed: Installed) -> None:
    r = installed.run(
        installed.bin / "fairdie",
        "bench",
        "--json",
        "--cycles",
        "1000000",
        "--rounds",
        "1",
        "--no-verify",  # the engine figures: verify_seconds is the bench test's (test_bench.py)
    )
    result = json.loads(r.stdout)
    assert result["raw_mcycles_per_s"] > 0 and result["harness_mcycles_per_s"] > 0
    assert "verify_seconds" not in result


def test_the_shipped_die_suite_runs_against_a_hex(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    if not any(n.startswith("fairdie/subjects/die/suite/") for n in names):
        pytest.skip("this wheel ships no fairdie.subjects.die.suite")
    b = json.loads(
        installed.run(installed.bin / "fairdie", "build", "--target", "die_t13a", "--json").stdout
    )
    # -p names the plugin; the entry point would register it a second time.
    env = installed.env | {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    r = subprocess.run(
        [
            str(installed.python),
            "-m",
            "pytest",
            "-p",
            "fairdie.plugin",
            "--pyargs",
            "fairdie.subjects.die.suite",
            f"--fairdie-firmware={b['hex']}",
            "--fairdie-board=die-direct",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=installed.work,
        env=env,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1500:]
    # the whole suite on a HEX (test_plugin.py runs a part of it in process)
    ran = dict((k, int(n)) for n, k in re.findall(r"(\d+) (passed|failed|skipped)", r.stdout))
    assert ran.get("passed", 0) >= 30 and "failed" not in ran, r.stdout[-3000:]
    # the charlieplexed variants need another build: deselected in one line, not skipped
    assert "skipped" not in ran and re.search(r"\d+ deselected", r.stdout), r.stdout[-3000:]
    assert "fairdie die suite: " in r.stdout
