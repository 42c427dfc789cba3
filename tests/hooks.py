"""A RunHooks made of plain functions, for tests that drive distcfr.solve.run directly."""

from __future__ import annotations

from distcfr.solve.run import RunHooks


def hooks(**methods) -> RunHooks:
    """A RunHooks whose named methods are these functions (given ``read``, it takes readings)."""

    class Hooks(RunHooks):
        reads = "read" in methods

    made = Hooks()
    for name, function in methods.items():
        if not callable(getattr(RunHooks, name, None)):
            raise AttributeError(f"RunHooks has no method {name}")
        setattr(made, name, function)
    return made
