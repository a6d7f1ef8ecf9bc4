"""The die suite, shipped with the plugin: run it against any build of a die.

    pytest --pyargs fairdie.subjects.die.suite                          # our die, built here
    pytest --pyargs fairdie.subjects.die.suite --fairdie-firmware die.hex  # a build of ours
    pytest --pyargs fairdie.subjects.die.suite --fairdie-firmware x.hex --fairdie-board x.toml

:mod:`~fairdie.subjects.die.suite.test_any_die` holds what any die must do (every face
valid, every face reachable, one steady face per roll);
:mod:`~fairdie.subjects.die.suite.test_fair_die` holds our firmware's rules, press by press
against the die's reference model (``die.model``: the fair rule on its ring of
records, or the seed's on six counters),
:mod:`~fairdie.subjects.die.suite.test_fair_die_properties` the same rules on any table,
EEPROM bytes and noise Hypothesis draws, and
:mod:`~fairdie.subjects.die.suite.test_fair_die_hygiene` what its LEDs, pins and EEPROM
writes must never do. Those skip, saying why, on a die that follows no model
and keeps no counters; a test of one rule skips on a die of the other. Every
test gets its die from the plugin's fixtures (through the suite's conftest,
which gives a die of ours the model its board's build names), so a firmware
or board given on the command line is what every test runs.
"""
