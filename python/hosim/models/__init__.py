"""Analytical models from the papers hosim reproduces.

Each module is pure Python (numpy) and independent of the simulator core, so it can be
used on its own or compared against simulation results.
"""
