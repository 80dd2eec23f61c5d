#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs rdma-core's own test suite (python3-pyverbs, /usr/share/doc/rdma-core/tests) against
# one RDMA device. Runs inside the test VM, as root, on a device that already exists:
#
#   tools/testing/conformance/pyverbs.sh [--results FILE] [--test-timeout S] [--timeout S]
#                                        [--driver NAME] [-k PATTERN]... DEV [GID_INDEX]
#
# The suite connects QPs of DEV to each other, so DEV must reach its own GID (loopback).
# Prints unittest's verbose output as it runs, then one line per test
#   conformance: result DEV OUTCOME TEST-ID
# (OUTCOME: pass skip fail error xfail upass hang notrun) and the summary
#   CONFORMANCE driver=D dev=DEV passed=N skipped=N failed=N errors=N total=N seconds=S
# passed counts pass and xfail, failed fail and upass, errors error, hang and notrun.
# --results FILE keeps "OUTCOME<TAB>TEST-ID" lines, sorted by id, for compare.sh.
#
# A test still running after --test-timeout seconds (default 300) is recorded as "hang"; the
# run is killed and resumed after it. --timeout (default 3600) bounds the whole run.
# Exit status: 0 when the run completed (whatever the tests' outcomes), 1 on bad usage,
# 2 when the harness itself failed (the suite could not be loaded or the run was cut short).
set -u

here=$(cd "$(dirname "$0")" && pwd)
SUITE=${CONFORMANCE_SUITE:-/usr/share/doc/rdma-core/tests}
# Debian's python3-pyverbs is built for the system interpreter; a python3 earlier in PATH
# (pyenv, a venv) would not find it.
PYTHON=/usr/bin/python3

results=
test_timeout=300
timeout=3600
driver=
patterns=()

usage() {
	sed -n '6,8p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--results) results=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--driver) driver=$2; shift 2 ;;
	-k) patterns+=(-k "$2"); shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "pyverbs.sh: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
dev=$1
gid=${2:-}

die() {
	echo "conformance: $dev: harness error: $*"
	exit 2
}

[ -d "/sys/class/infiniband/$dev" ] || { echo "pyverbs.sh: no RDMA device '$dev'" >&2; exit 1; }
[ -d "$SUITE" ] || die "no test suite at $SUITE (install python3-pyverbs)"
# A PCI device names its driver in sysfs; software devices (rxe, siw, metaroce) have no
# parent device, and their name stem is the best that is left without --driver.
if [ -z "$driver" ]; then
	driver=$(basename "$(readlink "/sys/class/infiniband/$dev/device/driver" 2>/dev/null)")
	[ -n "$driver" ] && [ "$driver" != . ] || driver=${dev%%[0-9]*}
fi

work=$(mktemp -d /tmp/conformance.XXXXXX) || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
# Debian gzips most of the suite's files under /usr/share/doc.
cp -r "$SUITE" "$work/tests" || die "cannot copy $SUITE"
find "$work/tests" -name '*.gz' -exec gunzip -f {} + || die "cannot gunzip the suite"
raw=$work/results
: >"$raw"

args=(--dev "$dev" --port 1)
[ -n "$gid" ] && args+=(--gid "$gid")

started=$(date +%s)
hangs=0
while :; do
	# pyverbs_suite.py creates "current" once the suite is loaded (that takes more than 10 s
	# under TCG): the per-test watchdog starts then, the overall timeout covers the loading.
	rm -f "$work/current"
	# Its own session, so that a hang is killed with the children some tests fork.
	setsid "$PYTHON" -u "$here/pyverbs_suite.py" --suite "$work/tests" --results "$raw" \
		--exclude "$raw" --current "$work/current" --list "$work/loaded" \
		"${patterns[@]}" -- "${args[@]}" -v 2>&1 &
	pid=$!
	hung=
	# The watchdog is out of the interpreter: a verb blocked in C can hold the GIL.
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		kill -0 "$pid" 2>/dev/null || break
		now=$(date +%s)
		cur=$(cat "$work/current" 2>/dev/null)
		age=$((now - $(stat -c %Y "$work/current" 2>/dev/null || echo "$now")))
		if [ $((now - started)) -ge "$timeout" ]; then
			kill -KILL -- "-$pid" 2>/dev/null
			{ wait "$pid"; } 2>/dev/null
			die "the run did not finish in ${timeout}s (running: ${cur:-no test})"
		fi
		[ "$age" -ge "$test_timeout" ] || continue
		kill -KILL -- "-$pid" 2>/dev/null
		{ wait "$pid"; } 2>/dev/null
		# Resuming would run the same fixture again, and hang again.
		[ -n "$cur" ] || die "hang outside any test (a class fixture?) for ${age}s"
		printf "\n"
		echo "conformance: $dev: $cur: no result after ${age}s, recorded as hang; resuming"
		printf 'hang\t%s\n' "$cur" >>"$raw"
		hangs=$((hangs + 1))
		hung=1
		break
	done
	if [ -z "$hung" ]; then
		wait "$pid" || die "pyverbs_suite.py exited with status $?"
		break
	fi
	[ "$hangs" -lt 20 ] || die "20 tests hung; giving up"
done
seconds=$(($(date +%s) - started))

[ -s "$work/loaded" ] || die "the suite loaded no tests"
# Every loaded test gets exactly one outcome; one that never reported is "notrun".
# (LC_ALL=C: sort and comm in byte order, the same on every machine.)
LC_ALL=C sort -u "$work/loaded" >"$work/loaded.sorted"
cut -f2- "$raw" | LC_ALL=C sort >"$work/seen"
dups=$(uniq -d "$work/seen")
[ -z "$dups" ] || die "tests reported twice: $dups"
LC_ALL=C comm -23 "$work/loaded.sorted" "$work/seen" | sed 's/^/notrun\t/' >>"$raw"
extra=$(LC_ALL=C comm -13 "$work/loaded.sorted" "$work/seen")
[ -z "$extra" ] || die "results for tests that were not loaded: $extra"
LC_ALL=C sort -t "$(printf '\t')" -k2 "$raw" >"$work/sorted"

while IFS=$'\t' read -r outcome id; do
	echo "conformance: result $dev $outcome $id"
done <"$work/sorted"

count() { grep -cE "^($1)"$'\t' "$work/sorted"; }
passed=$(count 'pass|xfail')
skipped=$(count 'skip')
failed=$(count 'fail|upass')
errors=$(count 'error|hang|notrun')
total=$(wc -l <"$work/sorted")
[ $((passed + skipped + failed + errors)) -eq "$total" ] || die "unknown outcomes in the results"

if [ -n "$results" ]; then
	cp "$work/sorted" "$results" || die "cannot write $results"
fi
echo "CONFORMANCE driver=$driver dev=$dev passed=$passed skipped=$skipped failed=$failed" \
	"errors=$errors total=$total seconds=$seconds"
