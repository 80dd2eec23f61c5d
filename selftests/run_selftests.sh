#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the selftests inside the test VM, like the kernel's run_kselftest.sh: each script's KTAP
# is printed as it comes, then one summary line for tools/testing/run-tests to read:
#   SELFTESTS passed=N failed=N skipped=N
# Usage: selftests/run_selftests.sh [SCRIPT...]   (default: every selftests/metaroce/*.sh test)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tools/testing/tap.sh"

if [ $# -eq 0 ]; then
	set -- $(ls "$here"/metaroce/*.sh | grep -v '/lib\.sh$')
fi
for t in "$@"; do
	t=$(realpath "$t")
	tap_run "selftests/${t#"$here"/}" "${SELFTEST_TIMEOUT:-600}" "$t"
done
echo "SELFTESTS passed=$TAP_PASSED failed=$TAP_FAILED skipped=$TAP_SKIPPED"
