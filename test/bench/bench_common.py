# SPDX-License-Identifier: BSD-3-Clause
"""What the Python benchmarks share (test/tools/pack.py carries this module
beside them to the GPU machine)."""
import os


def find_program(p):
    """A program given as a path: the path if it exists, else the program
    of that name in bin/ (the GPU machine's carried programs), else None."""
    if p is None:
        return None
    if os.path.exists(p):
        return p
    alt = os.path.join("bin", os.path.basename(p))
    return os.path.abspath(alt) if os.path.exists(alt) else None
