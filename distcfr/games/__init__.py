"""The games distcfr solves: the game interface (``base``), one module per game, and the
registry (``registry.load_game`` for spec strings)."""
