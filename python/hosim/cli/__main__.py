"""``python -m hosim.cli ARGS``: the same as ``hosim ARGS``."""

import sys

from hosim.cli import main

if __name__ == "__main__":  # not when a worker process re-imports the main module
    sys.exit(main())
