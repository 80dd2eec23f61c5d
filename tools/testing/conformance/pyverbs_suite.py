#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's pyverbs test suite and record one outcome per test.

    pyverbs_suite.py --suite DIR --results FILE --current FILE [--exclude FILE] [--list FILE]
                     [-k PATTERN]... -- [run_tests.py arguments: --dev D --port P --gid G]

Loads the tests exactly as the suite's own run_tests.py does (its args_parser, then the
"tests" package's load_tests), and runs them with unittest's verbose runner, so the console
shows the usual "test (id) ... ok" lines. The outcomes are taken from unittest's result
calls rather than parsed back out of that text: tests print to stdout, warnings and
docstrings break lines, and a test that dies in a subtest or a class fixture never gets a
"... ok" line of its own.

--results gets one line per test as it finishes, "OUTCOME<TAB>TEST-ID", OUTCOME being pass,
skip, fail or error (xfail and upass for the unittest decorators). Tests a failing or
skipping setUpClass/setUpModule kept from running get that fixture's outcome, so every
loaded test has a line. The file is appended to, so that a run killed by the caller's
watchdog can be resumed with --exclude pointing at the same file.

--current, created once the suite is loaded, holds the id of the test that is running
(empty between tests): the caller's watchdog reads it to name a hung test. The GIL may be
held by a verb blocked in C, so the watchdog cannot live in this process.
"""

import argparse
import importlib.machinery
import os
import sys
import time
import unittest

# Worst first: a test's subtests and its own outcome merge into the worst of them.
RANK = ['error', 'fail', 'upass', 'skip', 'xfail', 'pass']


def worse(a, b):
    if a is None:
        return b
    return a if RANK.index(a) <= RANK.index(b) else b


def write_file(path, text):
    with open(path, 'w') as f:
        f.write(text)


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


class RecordingResult(unittest.TextTestResult):
    """TextTestResult that also writes each test's outcome to the results file."""

    results = None      # open file, set by main()
    current = None      # path
    fixtures = None     # {"setUpClass (tests.x.C)": outcome}, filled for main()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcome = None

    def startTest(self, test):
        self.outcome = None
        write_file(self.current, test.id() + '\n')
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        # A test whose only failures were in subtests gets no addFailure/addSuccess.
        self.results.write('%s\t%s\n' % (self.outcome or 'error', test.id()))
        self.results.flush()
        os.fsync(self.results.fileno())
        write_file(self.current, '')

    def _note(self, test, outcome):
        # Class and module fixtures report through an _ErrorHolder outside start/stopTest.
        if isinstance(test, unittest.case.TestCase):
            self.outcome = worse(self.outcome, outcome)
        else:
            self.fixtures[test.description] = worse(
                self.fixtures.get(test.description), outcome)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._note(test, 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, 'fail')

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, 'error')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._note(test, 'skip')

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._note(test, 'xfail')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._note(test, 'upass')

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self.outcome = worse(self.outcome, 'fail' if failed else 'error')


def fixture_outcome(fixtures, test):
    """The outcome of a class or module fixture that kept TEST from running, if any."""
    cls = type(test)
    names = ['setUpClass (%s.%s)' % (cls.__module__, cls.__qualname__),
             'setUpModule (%s)' % cls.__module__]
    found = [fixtures[n] for n in names if n in fixtures]
    return found[0] if found else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--suite', required=True, help="the suite's directory (run_tests.py)")
    ap.add_argument('--results', required=True)
    ap.add_argument('--current', required=True)
    ap.add_argument('--list', help='write the ids of all loaded tests here')
    ap.add_argument('--exclude', help='results file of tests not to run again')
    ap.add_argument('-k', dest='patterns', action='append',
                    help='run only tests matching this unittest -k pattern')
    ap.add_argument('rest', nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ['--'] else args.rest

    # What run_tests.py does, with our runner in place of unittest.main's.
    sys.path.insert(0, args.suite)
    from args_parser import parser
    sys.argv[1:] = rest
    parser.parse_args()
    tests = importlib.machinery.SourceFileLoader(
        'tests', os.path.join(args.suite, '__init__.py')).load_module()
    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = ['*%s*' % p if '*' not in p else p for p in args.patterns]
    loaded = list(flatten(loader.loadTestsFromModule(tests)))

    if args.list:
        with open(args.list, 'w') as f:
            f.writelines(t.id() + '\n' for t in loaded)

    done = set()
    if args.exclude and os.path.exists(args.exclude):
        with open(args.exclude) as f:
            done = {line.rstrip('\n').split('\t', 1)[1] for line in f if '\t' in line}
    todo = [t for t in loaded if t.id() not in done]
    print('pyverbs_suite: %d tests loaded, %d to run' % (len(loaded), len(todo)), flush=True)

    RecordingResult.results = open(args.results, 'a')
    RecordingResult.current = args.current
    RecordingResult.fixtures = {}
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=RecordingResult)
    # Tells the caller's watchdog that loading is over.
    write_file(args.current, '')
    started = time.monotonic()
    runner.run(unittest.TestSuite(todo))

    # Tests a fixture kept from running: give them the fixture's outcome, so that every
    # loaded test has exactly one line; any other test without one is an error.
    with open(args.results) as f:
        ran = {line.rstrip('\n').split('\t', 1)[1] for line in f if '\t' in line}
    for t in todo:
        if t.id() not in ran:
            outcome = fixture_outcome(RecordingResult.fixtures, t) or 'error'
            RecordingResult.results.write('%s\t%s\n' % (outcome, t.id()))
    for name, outcome in sorted(RecordingResult.fixtures.items()):
        print('pyverbs_suite: fixture %s: %s' % (name, outcome))
    RecordingResult.results.close()
    print('pyverbs_suite: finished in %.0fs' % (time.monotonic() - started), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
