"""Analytical models from the papers hosim reproduces.

Each module is pure Python (numpy) and independent of the simulator core, so it can be
used on its own or compared against simulation results.
"""

__all__ = ["MODEL_COMMANDS"]

#: ``hosim model NAME``: subcommand name -> ``"module:attribute"`` of its click command.
MODEL_COMMANDS = {
    "cohen-levin": "hosim.models.cohen_levin:cli",
    "hsdpa-stability": "hosim.models.hsdpa:cli",
    "pacifico": "hosim.models.pacifico:cli",
}
