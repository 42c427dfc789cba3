"""The package's version, in one place: pyproject.toml reads it, ``distcfr.__version__`` and every
tool's ``--version`` show it."""

__version__ = "0.1.0"
