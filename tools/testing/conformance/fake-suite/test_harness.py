# SPDX-License-Identifier: GPL-2.0
"""A suite with one test of every outcome, to check pyverbs.sh's bookkeeping.

The expected results are in expected.results; selftests/metaroce/conformance.sh compares.
"""
import os
import sys
import unittest

from args_parser import parser


class Outcomes(unittest.TestCase):
    def test_pass(self):
        """A docstring puts the "... ok" on a line of its own."""
        self.assertEqual(parser.get_config()['port'], 1)

    def test_pass_noisy(self):
        # Output in the middle of unittest's "name ... ok" line.
        print('noise ... FAIL', end='')
        sys.stdout.flush()

    def test_fail(self):
        self.fail('expected to fail')

    def test_error(self):
        raise OSError('expected to error')

    def test_skip(self):
        raise unittest.SkipTest('expected to skip')

    def test_subtest_fail(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertEqual(i, 0)

    @unittest.expectedFailure
    def test_xfail(self):
        self.fail('expected')

    def test_hang(self):
        # Blocks forever, like a verb waiting for a completion that never comes.
        r, w = os.pipe()
        os.read(r, 1)

    def test_zz_after_hang(self):
        """Runs after test_hang: shows that the run resumed."""


class SkippedClass(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest('the whole class is skipped')

    def test_a(self):
        pass

    def test_b(self):
        pass


class BrokenClass(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise RuntimeError('setUpClass breaks')

    def test_c(self):
        pass
