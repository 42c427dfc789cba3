"""The user errors distcfr raises; the CLI turns each into a one-line message and exit code 2."""


class DistcfrError(Exception):
    """Base class of every error caused by what the user asked for."""


class UnknownGame(DistcfrError):
    """A game spec names a game that is not registered."""


class BadParameter(DistcfrError):
    """A parameter (of a game, a solver or the CLI) is unknown or impossible."""


class BadFile(DistcfrError):
    """A strategy or checkpoint file is corrupt, truncated, foreign or of another version."""


class ClusterError(DistcfrError):
    """The Ray cluster asked for cannot be reached or used."""


class TooFewCpus(ClusterError):
    """The cluster cannot place as many workers as a run asks for (one CPU each)."""


class WorkersLost(ClusterError):
    """Workers holding a sampled solve's rows died (a process or a node lost); the run can go on from
    its last recovery point (distcfr.solve.run)."""
