#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the selftests inside the test VM, like the kernel's run_kselftest.sh: each script's KTAP
# is printed as it comes, then one summary line for tools/testing/run-tests to read:
#   SELFTESTS passed=N failed=N skipped=N
# Usage: selftests/run_selftests.sh [--except NAME]... [SCRIPT...]
#   Without SCRIPT: every selftests/metaroce/*.sh test but those named by --except
#   (e.g. --except conformance.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../tools/testing/tap.sh"

# all_selftests [NAME...]: the test scripts, every selftests/metaroce/*.sh but lib.sh and NAMEs.
# The one place that says which scripts are selftests.
all_selftests() {
	local t name
	for t in "$here"/metaroce/*.sh; do
		for name in lib.sh "$@"; do
			[ "${t##*/}" = "$name" ] && continue 2
		done
		echo "$t"
	done
}

except=()
while [ $# -gt 0 ]; do
	case $1 in
	--except) except+=("$2"); shift 2 ;;
	--) shift; break ;;
	-*) echo "run_selftests.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	mapfile -t tests <<<"$(all_selftests "${except[@]}")"
	set -- "${tests[@]}"
fi
for t in "$@"; do
	t=$(realpath "$t")
	tap_run "selftests/${t#"$here"/}" "${SELFTEST_TIMEOUT:-600}" "$t"
done
echo "SELFTESTS passed=$TAP_PASSED failed=$TAP_FAILED skipped=$TAP_SKIPPED"
