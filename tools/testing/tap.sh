#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tap_run NAME TIMEOUT CMD...: runs one TAP-printing test program, prints its output and adds
# its test points to TAP_PASSED, TAP_FAILED and TAP_SKIPPED. A program that exits non-zero
# without reporting a failure, stops before its plan is complete, or prints no test point at
# all counts as one failure more: a crash never passes as success.
TAP_PASSED=${TAP_PASSED:-0}
TAP_FAILED=${TAP_FAILED:-0}
TAP_SKIPPED=${TAP_SKIPPED:-0}

tap_run() {
	local name=$1 limit=$2 out rc=0 counts pass fail skip plan seen t0
	shift 2
	echo "# selftest: $name"
	t0=$(date +%s)
	out=$(mktemp)
	timeout -k 10 "$limit" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	# Top-level points only: indented lines are a subtest's own.
	counts=$(awk '
		/^ok [0-9]+/ && /# [Ss][Kk][Ii][Pp]/ { skip++; next }
		/^ok [0-9]+/ { pass++; next }
		/^not ok [0-9]+/ && /# TODO/ { skip++; next }
		/^not ok [0-9]+/ { fail++; next }
		/^1\.\.[0-9]+/ { split($0, a, "\\.\\."); plan = a[2] + 0 }
		END { printf "%d %d %d %d\n", pass, fail, skip, (plan == "" ? -1 : plan) }' "$out")
	rm -f "$out"
	read -r pass fail skip plan <<<"$counts"
	seen=$((pass + fail + skip))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "not ok - $name: timed out after ${limit}s"
		fail=$((fail + 1))
	elif [ "$seen" -eq 0 ]; then
		echo "not ok - $name: no test point reported (exit status $rc)"
		fail=$((fail + 1))
	elif [ "$plan" -ge 0 ] && [ "$seen" -lt "$plan" ]; then
		echo "not ok - $name: $seen of $plan planned test points reported"
		fail=$((fail + 1))
	elif [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		echo "not ok - $name: exit status $rc with no failing test point"
		fail=$((fail + 1))
	fi
	TAP_PASSED=$((TAP_PASSED + pass))
	TAP_FAILED=$((TAP_FAILED + fail))
	TAP_SKIPPED=$((TAP_SKIPPED + skip))
	echo "# $name: $pass passed, $fail failed, $skip skipped ($(( $(date +%s) - t0 ))s)"
}
