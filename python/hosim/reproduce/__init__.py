"""Reproductions of paper experiments: one module per paper, each writing its figures and
numbers for ``docs/reproductions/<paper>.md``."""
