# SPDX-License-Identifier: GPL-2.0
# Loads test_*.py the way rdma-core's tests/__init__.py does (load_tests protocol).
import importlib
import os


def load_tests(loader, standard_tests, pattern):
    for fn in sorted(os.listdir(os.path.dirname(__file__))):
        if fn.endswith('.py') and fn.startswith('test_'):
            m = importlib.import_module('.' + fn[:-3], __name__)
            standard_tests.addTests(loader.loadTestsFromModule(m, pattern))
    return standard_tests
