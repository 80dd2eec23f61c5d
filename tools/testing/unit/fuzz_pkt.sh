#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the packet-parser fuzzer for a bounded time and reports the result as TAP.
# MR_FUZZ_SECONDS overrides the duration (default 20).
FUZZDIR=@FUZZDIR@
SECS=${MR_FUZZ_SECONDS:-20}
WORK=$(mktemp -d) || exit 1
trap 'rm -rf "$WORK"' EXIT

echo "1..1"
mkdir "$WORK/corpus" && "$FUZZDIR/fuzz_seeds" "$WORK/corpus" || {
	echo "not ok 1 - fuzz_pkt: could not write the seed corpus"
	exit 1
}
if "$FUZZDIR/fuzz_pkt" -max_total_time="$SECS" -seed=1 -max_len=4200 \
	-artifact_prefix="$WORK/" "$WORK/corpus" >"$WORK/log" 2>&1; then
	runs=$(sed -n 's/.*Done \([0-9]*\) runs.*/\1/p' "$WORK/log")
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' "$WORK/log" | tail -n 1)
	echo "ok 1 - fuzz_pkt: mr_pkt_decode survived ${runs:-?} inputs in ${SECS}s (cov ${cov:-?})"
	exit 0
fi
sed 's/^/# /' "$WORK/log" | tail -n 40
for f in "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-*; do
	[ -e "$f" ] && echo "# reproducer (hex): $(od -An -tx1 -v "$f" | tr -d ' \n')"
done
echo "not ok 1 - fuzz_pkt: the fuzzer found a failure"
exit 1
