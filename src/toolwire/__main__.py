"""``python -m toolwire``: the same command line as the ``toolwire`` script."""

import sys

from toolwire.cli import main

if __name__ == "__main__":
    sys.exit(main())
