"""`python -m gluonlite.bench`: see gluonlite.bench.cli."""
import sys

from .cli import main

sys.exit(main())
