"""fairdie.scenario: scenario files (TOML) that drive a firmware on its board."""

from __future__ import annotations

from fairdie.scenario._model import Scenario, ScenarioError
from fairdie.scenario._parse import load_scenario, parse_scenario
from fairdie.scenario._run import Failure, ScenarioResult, StepOutcome, run_scenario

__all__ = [
    "Failure",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "StepOutcome",
    "load_scenario",
    "parse_scenario",
    "run_scenario",
]
