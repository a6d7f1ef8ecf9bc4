"""The die suite, shipped with the plugin: run it against any build of a die.

    pytest --pyargs fairdie.suite                                  # our die, built here
    pytest --pyargs fairdie.suite --fairdie-firmware die.hex       # a build of ours
    pytest --pyargs fairdie.suite --fairdie-firmware x.hex --fairdie-board x.toml

:mod:`~fairdie.suite.test_any_die` holds what any die must do (every face
valid, every face reachable, one steady face per roll);
:mod:`~fairdie.suite.test_fair_die` holds our firmware's rule and its EEPROM
table, and skips, saying why, on a die that keeps no table. Every test gets
its die from the plugin's fixtures, so a firmware or board given on the
command line is what every test runs.
"""
