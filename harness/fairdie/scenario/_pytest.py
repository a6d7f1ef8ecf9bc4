"""pytest collects scenario files: each ``test_*.toml`` is one test item run
on the simulator.

Each item is marked ``sim``. A failing item reports the step and
expectation that failed and the command that replays it; a bad file is a
one-line collection error. The session's ``--fairdie-firmware`` and
``--fairdie-board`` (command line, environment or ini) stand in only where a
file names none of its own: a file that names its firmware runs it, one that
names its board runs on it. ``--fairdie-seed`` replaces every file's seed.
The fairdie plugin registers these hooks; alone:
``pytest -p fairdie.scenario._pytest``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fairdie.errors import FairdieError

__all__ = ["ScenarioFile", "ScenarioItem", "pytest_collect_file", "pytest_configure"]


class ScenarioFailed(Exception):
    """A scenario ran and an expectation did not hold (its message says which)."""


class ScenarioFile(pytest.File):
    def collect(self) -> list[pytest.Item]:
        from fairdie.scenario._parse import load_scenario

        try:
            scenario = load_scenario(self.path)
        except FairdieError as e:
            raise self.CollectError(str(e)) from None
        return [ScenarioItem.from_parent(self, name="scenario", scenario=scenario)]


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.add_marker("sim")  # it runs on the simulator: -m "not sim" leaves it out

    def _option(self, name: str) -> str | None:
        """The fairdie plugin's option ``name``: its command line, environment
        or ini value (:func:`fairdie.plugin.option_value`); None without it."""
        from fairdie.plugin import option_value

        try:
            return option_value(self.config, name)
        except ValueError:  # the fairdie plugin's options are not there
            return None

    def runtest(self) -> None:
        from fairdie.scenario._run import run_scenario

        sc = self.scenario
        seed = self._option("fairdie_seed")
        try:
            number = None if seed is None else int(seed, 0)
        except ValueError:
            raise FairdieError(f"--fairdie-seed {seed!r} is not a whole number") from None
        # the session's firmware and board stand in only where the file names none
        result = run_scenario(
            sc,
            firmware=self._option("fairdie_firmware") if sc.firmware is None else None,
            board=self._option("fairdie_board") if sc.board is None else None,
            seed=number,
        )
        self.user_properties.append(("fairdie_replay", result.replay))
        if not result.passed:
            raise ScenarioFailed(result.message())

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, ScenarioFailed | FairdieError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"scenario {self.scenario.name or self.path.name}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sim: needs avr-gcc and the compiled simavr binding")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".toml" and file_path.name.startswith("test_"):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None
