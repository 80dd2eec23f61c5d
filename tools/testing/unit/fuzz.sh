#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs one libFuzzer target for a bounded time, from a corpus of valid packets, and reports
# the result as TAP. MR_FUZZ_SECONDS overrides the duration (default 15).
FUZZDIR=@FUZZDIR@
NAME=@NAME@
SECS=${MR_FUZZ_SECONDS:-15}
WORK=$(mktemp -d) || exit 1
trap 'rm -rf "$WORK"' EXIT

echo "1..1"
if [ ! -x "$FUZZDIR/$NAME" ]; then
	echo "not ok 1 - $NAME: $FUZZDIR/$NAME is missing (make unit)"
	exit 1
fi
mkdir "$WORK/corpus" && "$FUZZDIR/fuzz_seeds" "$WORK/corpus" "${NAME#fuzz_}" || {
	echo "not ok 1 - $NAME: could not write the seed corpus"
	exit 1
}
if "$FUZZDIR/$NAME" -max_total_time="$SECS" -seed=1 -max_len=8192 \
	-artifact_prefix="$WORK/" "$WORK/corpus" >"$WORK/log" 2>&1; then
	runs=$(sed -n 's/.*Done \([0-9]*\) runs.*/\1/p' "$WORK/log")
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' "$WORK/log" | tail -n 1)
	echo "ok 1 - $NAME: ${runs:-?} inputs in ${SECS}s without a failure (cov ${cov:-?})"
	exit 0
fi
sed 's/^/# /' "$WORK/log" | tail -n 40
for f in "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-*; do
	[ -e "$f" ] && echo "# reproducer (hex): $(od -An -tx1 -v "$f" | tr -d ' \n')"
done
echo "not ok 1 - $NAME: the fuzzer found a failure"
exit 1
