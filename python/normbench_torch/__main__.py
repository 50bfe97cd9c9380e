import sys

try:
    import numpy  # noqa: F401  the package computes inputs, references and checks with it
except ImportError:
    sys.stderr.write("normbench_torch: NumPy is not installed (pip install numpy); allowed: a "
                     "Python with NumPy\n")
    sys.exit(2)  # errors.EXIT_USAGE, which imports nothing; this is before any of the package

from .cli import main

sys.exit(main())
