# SPDX-License-Identifier: BSD-3-Clause
"""The checks of a Python test: one line each, "ok   NAME" or "FAIL NAME
DETAIL", counted; the closing line "N passed, N failed" and the exit status
(1 on any failure or when nothing passed)."""


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, cond, detail=""):
        if cond:
            self.passed += 1
            print("ok   %s" % name)
        else:
            self.failed += 1
            print("FAIL %s %s" % (name, detail))
        return bool(cond)

    def status(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed or not self.passed else 0
