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
# In the test VM, each finished script's counts go to $METAROCE_VM_STATE with this boot's
# id. When the emulator kills the guest (tools/testing/vm/run boots it again), the next boot
# counts the scripts an earlier boot finished and runs the rest, the interrupted one again.
state=${METAROCE_VM_STATE:+$METAROCE_VM_STATE/selftests}
boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)

# finished_before NAME: the counts "PASS FAIL SKIP" of NAME from an earlier boot
finished_before() {
	[ -n "$state" ] && [ -r "$state" ] || return 1
	awk -v name="$1" -v boot="$boot_id" '$1 != boot && $2 == name { last = $3 " " $4 " " $5 }
		END { if (last == "") exit 1; print last }' "$state"
}

for t in "$@"; do
	t=$(realpath "$t")
	case $t in
	"$here"/*) name=selftests/${t#"$here"/} ;;
	*) name=$t ;;
	esac
	if counts=$(finished_before "$name"); then
		read -r pass fail skip <<<"$counts"
		echo "# selftest: $name: finished before the guest was booted again:" \
			"$pass passed, $fail failed, $skip skipped"
		TAP_PASSED=$((TAP_PASSED + pass))
		TAP_FAILED=$((TAP_FAILED + fail))
		TAP_SKIPPED=$((TAP_SKIPPED + skip))
		continue
	fi
	pass=$TAP_PASSED fail=$TAP_FAILED skip=$TAP_SKIPPED
	tap_run "$name" "${SELFTEST_TIMEOUT:-600}" "$t"
	[ -n "$state" ] && echo "$boot_id $name $((TAP_PASSED - pass))" \
		"$((TAP_FAILED - fail)) $((TAP_SKIPPED - skip))" >>"$state"
done
echo "SELFTESTS passed=$TAP_PASSED failed=$TAP_FAILED skipped=$TAP_SKIPPED"
