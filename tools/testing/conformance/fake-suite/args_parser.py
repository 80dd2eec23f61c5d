# SPDX-License-Identifier: GPL-2.0
# The interface of rdma-core's tests/args_parser.py that pyverbs_suite.py uses.
import argparse
import sys


class ArgsParser(object):
    def __init__(self):
        self.args = None

    def get_config(self):
        return self.args

    def parse_args(self):
        parser = argparse.ArgumentParser()
        parser.add_argument('--dev')
        parser.add_argument('--port', type=int, default=1)
        parser.add_argument('--gid', type=int)
        parser.add_argument('-v', '--verbose', dest='verbosity', action='store_const', const=2)
        ns, args = parser.parse_known_args()
        self.args = vars(ns)
        sys.argv[1:] = args


parser = ArgsParser()
