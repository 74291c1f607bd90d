import sys

from trample.solver.interface.cli import main

sys.exit(main())
