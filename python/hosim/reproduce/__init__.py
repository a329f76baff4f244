"""Reproductions of paper experiments: one module per paper, each writing its figures and
numbers for ``docs/reproductions/<paper>.md``."""

__all__ = ["REPRODUCTIONS"]

#: ``hosim reproduce PAPER``: paper name -> ``"module:attribute"`` of its click command.
REPRODUCTIONS = {
    "drop-or-forward": "hosim.reproduce.fcp:cli",
    "hsdpa": "hosim.reproduce.hsdpa:cli",
    "inter-rat": "hosim.reproduce.inter_rat:cli",
    "lte-x2": "hosim.reproduce.lte_x2:cli",
    "todays-handovers": "hosim.reproduce.todays_handovers:cli",
    "vertical-handoff": "hosim.reproduce.vertical:cli",
}
