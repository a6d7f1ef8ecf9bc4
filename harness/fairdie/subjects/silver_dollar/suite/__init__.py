"""The Silver Dollar Game's suite, shipped with the plugin: run it against any build.

    pytest --pyargs fairdie.subjects.silver_dollar.suite                  # our game, built here
    pytest --pyargs fairdie.subjects.silver_dollar.suite \\
        --fairdie-firmware sdg.hex --fairdie-board silver-dollar            # a build of it

Every test runs the emulated firmware and reads it as a person would (the
lit cells, the tones) through :class:`~fairdie.subjects.silver_dollar.Game`,
and judges it by the brute-force solver (:mod:`.._solver`), never by the
Nim formula the firmware plays by:

- :mod:`.test_device_play`: the device's reply from placed positions (a
  winning one when there is one, chosen uniformly; else a legal one), and
  its choices through play;
- :mod:`.test_games`: the starts, and whole games of a perfect and a random
  player;
- :mod:`.test_presses`: invalid presses, clicks, tunes, bounce;
- :mod:`.test_power_display`: the 30 s power-down and its wake, the
  display's refresh and ghosts.

Tests that place a position need a build that reads one (variant
``test-position``, or any build with ``SDG_TEST_POSITION=1``); given
another firmware they skip, saying so. The exhaustive sweeps are marked
``slow`` and run only when ``-m`` selects them (``-m slow``).
"""
