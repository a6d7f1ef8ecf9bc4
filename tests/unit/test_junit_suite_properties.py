"""Firmware, board and seed are JUnit suite properties, once each. Under
pytest-xdist too (whose workers' own JUnit recording goes nowhere: only the
controller writes the XML): tests/sim/test_plugin.py's session on two workers
checks them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest


def test_suite_properties_reach_the_xml(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_a="def test_a(): pass\ndef test_b(): pass\n",
        test_b="def test_c(): pass\ndef test_d(): assert 0\n",
    )
    xml = pytester.path / "junit.xml"
    r = pytester.runpytest_inprocess(
        "-p",
        "no:xdist",
        "-p",
        "no:cacheprovider",
        "--fairdie-board=die-direct",
        "--fairdie-seed=5",
        f"--junitxml={xml}",
        "-o",
        "junit_family=xunit2",
    )
    assert r.ret == 1, r.stdout.str()[-2000:]
    assert r.parseoutcomes()["passed"] == 3
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None
    names = [(p.get("name"), p.get("value")) for p in suite.iterfind("properties/property")]
    assert names == [
        ("fairdie_firmware", "built from the board"),
        ("fairdie_board", "die-direct"),
        ("fairdie_seed", "5"),
    ]
