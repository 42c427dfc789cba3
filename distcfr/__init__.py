"""distcfr: exact, vectorised counterfactual regret minimization for two-player card games,
on one machine or a Ray cluster.

The names below are loaded on first use, so ``import distcfr`` stays cheap and no module of the
package imports this facade (see tests/test_imports.py)."""

from __future__ import annotations

import importlib

from distcfr.version import __version__ as __version__  # re-exported

_PUBLIC = {
    "ALGORITHMS": "distcfr.engine.rules", "RULES": "distcfr.engine.rules", "Solver": "distcfr.solve.solver",
    "SampledSolver": "distcfr.solve.sampled_solver", "SolverContract": "distcfr.solve.contract",
    "open_solver": "distcfr.solve.launch", "resume_solver": "distcfr.solve.launch",
    "Checkpoint": "distcfr.solve.checkpoint", "SampledCheckpoint": "distcfr.solve.checkpoint",
    "load_checkpoint": "distcfr.solve.checkpoint", "Strategy": "distcfr.evaluate.strategy",
    "load_strategy": "distcfr.evaluate.load", "load_game": "distcfr.games.registry",
    "BadFile": "distcfr.errors", "BadParameter": "distcfr.errors", "ClusterError": "distcfr.errors",
    "DistcfrError": "distcfr.errors", "UnknownGame": "distcfr.errors",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'distcfr' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_PUBLIC])
