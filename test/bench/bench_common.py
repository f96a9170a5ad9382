# SPDX-License-Identifier: BSD-3-Clause
"""What the Python benchmarks share (test/tools/pack.py carries this module
beside them to the GPU machine)."""
import os


def find_program(p):
    """A program given as a path: the path if it exists, else the program
    of that name in bin/ (the GPU machine's carried programs) or beside
    this module (carried scripts), else None."""
    if p is None:
        return None
    if os.path.exists(p):
        return p
    for alt in (os.path.join("bin", os.path.basename(p)),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), os.path.basename(p))):
        if os.path.exists(alt):
            return os.path.abspath(alt)
    return None
