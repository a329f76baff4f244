"""Reproductions of paper experiments: each module runs its paper's presets and writes the
figures and numbers behind docs/reproductions/<paper>.md."""
