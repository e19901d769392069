"""The game: rules, dice sequences, replay, exact solutions, analysis, computer players.

Pure Python: no I/O and no framework imports, so every edge of the service can
trust it and the tests can pin it.
"""
