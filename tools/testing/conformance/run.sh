#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make conformance": boots the test VM once, runs rdma-core's test suite against rxe and,
# when one can be created, a metaroce device (in-vm.sh), keeps each device's results and
# checks that metaroce passes every test rxe passes (compare.sh).
#
#   tools/testing/conformance/run.sh [--kernel 6.12|6.1] [--out DIR] [pyverbs.sh options]
#
# Writes DIR/log, DIR/rxe.results and DIR/metaroce.results (default DIR:
# build/conformance/KERNEL). Every line of its own starts with "conformance: "; the suite's
# summary lines start with "CONFORMANCE ". Exit status: 0 when the runs completed and
# metaroce passes everything rxe passes or has no device yet; 1 when metaroce misses a test
# rxe passes; 2 when the VM or the harness failed.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
kernel=6.12
out=

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) break ;;
	esac
done
out=${out:-$top/build/conformance/$kernel}
mkdir -p "$out"
rm -f "$out/log" "$out/rxe.results" "$out/metaroce.results"

say() { echo "conformance: $*"; }

rc=0
"$top/tools/testing/vm/run" --kernel "$kernel" --timeout 7200 -- \
	tools/testing/conformance/in-vm.sh "$@" 2>&1 | tee "$out/log"
rc=${PIPESTATUS[0]}

# The guest's results come back as "conformance: result DEV OUTCOME TEST-ID" lines.
extract() {
	sed -n "s/^conformance: result $1 \([a-z]*\) /\1\t/p" "$out/log" >"$out/$2.results"
	[ -s "$out/$2.results" ] || rm -f "$out/$2.results"
}
extract rxe0 rxe
extract mr0 metaroce

if [ "$rc" -ne 0 ] || [ ! -e "$out/rxe.results" ]; then
	say "FAIL: the VM run failed (status $rc) or produced no rxe results; see $out/log"
	exit 2
fi
say "rxe results: $out/rxe.results"
grep '^CONFORMANCE ' "$out/log" | sed 's/^/conformance: summary: /'

if [ ! -e "$out/metaroce.results" ]; then
	say "SKIP compare: MetaRoCE has no device yet, nothing to compare with rxe"
	exit 0
fi
say "metaroce results: $out/metaroce.results"
rc=0
"$top/tools/testing/conformance/compare.sh" "$out/rxe.results" "$out/metaroce.results" || rc=$?
case $rc in
0) say "PASS: metaroce passes every test rxe passes" ;;
1) say "FAIL: metaroce does not pass every test rxe passes (listed above)" ;;
*) say "FAIL: compare.sh could not read the results" ;;
esac
exit "$rc"
