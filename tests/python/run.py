"""Runs the Python package's tests (unittest) against python/satlib of this checkout and prints
`N passed, N failed, N skipped`; exit 1 on any failure. GPU tests skip without a CUDA device.
Usage: python3 tests/python/run.py [-v] [test name pattern ...]"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
sys.path.insert(0, HERE)


def main(argv):
    verbose = "-v" in argv
    patterns = [a for a in argv if a != "-v"]
    loader = unittest.TestLoader()
    if patterns:
        loader.testNamePatterns = ["*%s*" % p for p in patterns]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2 if verbose else 1, stream=sys.stdout).run(suite)
    reasons = {}
    for _, why in result.skipped:
        reasons[why] = reasons.get(why, 0) + 1
    for why, n in sorted(reasons.items()):
        print("skipped %d: %s" % (n, why))
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped - len(result.expectedFailures)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
