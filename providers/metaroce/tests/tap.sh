# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# TAP output for the provider's host test scripts, sourced by each of them.
#   tap_plan N                  header and plan
#   tap STATUS NAME [DIAG...]   one point from an exit status; DIAG explains a failure
#   skip_all REASON             every planned point skipped, then exit 0
#   tap_done                    exit status: all planned points reported, none failed

n=0
failed=0
planned=0

diag() {
	local text line
	for text in "$@"; do
		[ -n "$text" ] || continue
		while IFS= read -r line; do echo "  # $line"; done <<<"$text"
	done
}

tap_plan() {
	planned=$1
	echo "TAP version 13"
	echo "1..$planned"
}

tap() {
	local status=$1 name=$2
	shift 2
	n=$((n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
		diag "$@"
	fi
}

skip_all() {
	local i
	for i in $(seq 1 "$planned"); do echo "ok $i # SKIP $1"; done
	exit 0
}

tap_done() {
	[ "$n" -eq "$planned" ] && [ "$failed" -eq 0 ]
}
