import sys

from anachron.cli import main, options

options.PROGRAM = "python -m anachron"  # no console script without an install: the hints say this instead
sys.exit(main())
