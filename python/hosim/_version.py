"""The package version, in a module of its own that imports nothing (``hosim.__version__``)."""

__version__ = "0.1.0"
