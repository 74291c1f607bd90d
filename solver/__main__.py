import sys

from trample.solver.cli import main

sys.exit(main())
