"""Hypothesis depth for tests that ask for more examples than a profile's default.

An explicit ``settings(max_examples=300)`` would override every profile, the
tier re-run's shallow one (tests/unit/test_tiers.py) and fairdie-thorough's
deep one alike. ``examples(300)`` is 300 under a profile of Hypothesis' default
depth (fairdie-ci, fairdie-dev) and scales with the one loaded: ten times that
under fairdie-thorough, a twentieth under the tier re-run's.
"""

from __future__ import annotations

from hypothesis import settings

#: Hypothesis' own default depth, against which a profile's depth is a scale
DEFAULT_EXAMPLES = 100


def examples(n: int) -> int:
    """``n`` at the default depth, scaled by the loaded profile's ``max_examples`` (at least 1).

    Called where a test module is imported, after pytest loaded the profile."""
    return max(1, n * settings().max_examples // DEFAULT_EXAMPLES)
