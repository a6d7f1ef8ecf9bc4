"""Shared test settings: Hypothesis profiles.

``ci`` (chosen when the environment has CI set) derandomizes Hypothesis so a
CI run is reproducible from the commit alone; every profile prints the blob
that replays a failing example (``@reproduce_failure``). Pick a profile with
``--hypothesis-profile NAME`` or FAIRDIE_HYPOTHESIS_PROFILE.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.register_profile("thorough", deadline=None, print_blob=True, max_examples=1000)
settings.load_profile(
    os.environ.get("FAIRDIE_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)
