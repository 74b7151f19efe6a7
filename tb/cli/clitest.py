"""What the Python tests of tb/cli share: a check that prints ok or FAIL and
keeps the failures, and the exit at the end."""
import sys

failures = []


def expect(cond, what):
    """Print the check's outcome; a failure is kept for finish()."""
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def finish():
    """Exit 1 when a check failed."""
    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)
