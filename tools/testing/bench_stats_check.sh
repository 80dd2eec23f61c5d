#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks' statistics (tools/bench/stats.sh) and plot (tools/bench/plot-loss), on the
# host: the figures a BENCH line carries are only as right as these. TAP output; run by
# tools/testing/run-tests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/bench/stats.sh
. "$top/tools/bench/stats.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# is NAME GOT WANT
is() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		echo "not ok $n $1"
		echo "# got '$2', want '$3'"
	fi
}

# holds NAME AWK-CONDITION: the condition, over the variables set before it, is true
holds() {
	n=$((n + 1))
	if awk "BEGIN { exit !($2) }"; then
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		echo "not ok $n $1"
		echo "# false: $2"
	fi
}

echo "TAP version 13"
echo "1..14"
is "median of an odd count is the middle value" "$(median 0.3 0.1 0.2)" 0.2
is "median of an even count is the mean of the middle two" "$(median 4 1 3 2)" 2.500
is "value_range gives the smallest and the largest" "$(value_range 0.2 0.05 0.31 0.1)" "0.05 0.31"

is "runs that do not spread give the exact share" "$(kept_interval "0.4 0.4 0.4" "0.3 0.3 0.3")" "75.0 75.0"

# This session's 4 KiB MetaRoCE runs, lossless and at 1% (testing.rst).
base="0.199688 0.235897 0.276857 0.240779 0.226034"
lossy="0.132678 0.204734 0.208044 0.209682 0.257032"
read -r lo hi < <(kept_interval "$base" "$lossy")
kept=$(awk -v a="$(median $lossy)" -v b="$(median $base)" 'BEGIN { printf "%.1f", 100 * a / b }')
holds "the interval holds the point's own kept_pct ($lo <= $kept <= $hi)" "$lo <= $kept && $kept <= $hi"
holds "five spread runs give an interval wider than 20 points ($lo-$hi)" "$hi - $lo > 20"
is "the same runs give the same interval" "$(kept_interval "$base" "$lossy")" "$lo $hi"

# Fifteen runs drawn from the same spread: a narrower interval than five.
base15="$base $base $base"
lossy15="$lossy $lossy $lossy"
read -r lo15 hi15 < <(kept_interval "$base15" "$lossy15")
holds "three times the runs give a narrower interval ($lo15-$hi15 against $lo-$hi)" \
	"$hi15 - $lo15 < $hi - $lo"
is "a lossless point against itself holds 100" \
	"$(kept_interval "$base" "$base" | awk '{ print ($1 <= 100 && 100 <= $2) }')" 1
is "a lossless median that can be 0 gives no interval" "$(kept_interval "0 0 0.2" "0.1")" "nan nan"

# lat.sh's shares of rxe: the interval of one list's own median.
is "median_interval of equal runs is that value" "$(median_interval "95 95 95 95")" "95.0 95.0"
read -r lo hi < <(median_interval "88 94 97 101 110 90 93")
holds "median_interval holds the runs' median, inside their range ($lo-$hi)" \
	"88 <= $lo && $lo <= 94 && 94 <= $hi && $hi <= 110"

# The plot reads both CSV layouts: with the interval and from before it.
{
	echo "driver,size,loss_pct,gbps,kept_pct,gbps_min,gbps_max,kept_lo,kept_hi"
	echo "metaroce,4096,0,0.236,100.0,0.200,0.277,86.0,115.1"
	echo "metaroce,4096,1,0.208,88.2,0.133,0.257,58.7,106.8"
} >"$tmp/new.csv"
cut -d, -f1-7 "$tmp/new.csv" >"$tmp/old.csv"
for f in new old; do
	n=$((n + 1))
	if "$top/tools/bench/plot-loss" "$tmp/$f.csv" "$tmp/$f.png" >/dev/null 2>&1 &&
		[ "$(head -c 8 "$tmp/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
		echo "ok $n plot-loss draws a PNG from a CSV of the $f layout"
	else
		failed=$((failed + 1))
		echo "not ok $n plot-loss draws a PNG from a CSV of the $f layout"
	fi
done
[ "$failed" -eq 0 ]
