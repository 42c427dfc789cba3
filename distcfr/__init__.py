"""distcfr: exact, vectorised counterfactual regret minimization for two-player card games,
on one machine or a Ray cluster."""

from distcfr.errors import BadFile, BadParameter, ClusterError, DistcfrError, UnknownGame
from distcfr.games import load_game
from distcfr.solve.rules import ALGORITHMS
from distcfr.solve.solver import Solver
from distcfr.strategy import Strategy

__version__ = "0.1.0"

__all__ = ["ALGORITHMS", "BadFile", "BadParameter", "ClusterError", "DistcfrError", "Solver",
           "Strategy", "UnknownGame", "load_game"]
