#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks' statistics (tools/bench/stats.sh), plot (tools/bench/plot-loss) and
# profile.sh's window report (tools/bench/window.sh), on the host: the figures a BENCH or
# "# window" line carries are only as right as these. TAP output; run by
# tools/testing/run-tests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/bench/stats.sh
. "$top/tools/bench/stats.sh"
# shellcheck source=tools/bench/window.sh
. "$top/tools/bench/window.sh"
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
echo "1..31"
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

# kept.sh's shares: each lossy run against the mean of the lossless runs around it.
is "bracket_shares: a run at its neighbours' mean keeps 100 under steady drift" \
	"$(bracket_shares "1 2 3" "1.5 2.5" | tr '\n' ' ')" "100.00 100.00 "
is "bracket_shares: a run at three quarters of its neighbours keeps 75" \
	"$(bracket_shares "0.4 0.4" "0.3")" 75.00
is "bracket_shares: a run whose neighbours both moved nothing has no share" \
	"$(bracket_shares "0 0 0.4" "0.1 0.2")" 100.00
# loss.sh's brackets: a lossless run that perftest failed twice is "-", not a rate of 0.
is "bracket_shares: beside an unmeasured run the other neighbour stands alone" \
	"$(bracket_shares "0.4 - 0.2" "0.3 0.1" | tr '\n' ' ')" "75.00 50.00 "
is "bracket_shares: a run between two unmeasured ones has no share" \
	"$(bracket_shares "- -" "0.3")" ""
n=$((n + 1))
if bracket_shares "1 2" "1 1" >/dev/null; then
	failed=$((failed + 1))
	echo "not ok $n bracket_shares refuses lists whose lengths do not fit"
else
	echo "ok $n bracket_shares refuses lists whose lengths do not fit"
fi

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
# profile.sh's window, from two made-up snapshots two seconds apart at USER_HZ 100 (200
# ticks per vCPU): vCPU 0 does the kernel's work, vCPU 1 is the client's (pid 264, 150
# user and 10 system ticks); pid 256, the idle server, and pid 300, seen only in the
# second snapshot, are left out.
cat >"$tmp/before" <<'SNAP'
time 100.000000000
cpu cpu0 1000 500 200 300
cpu cpu1 2000 100 50 20
proc 256 10 5 0 3
proc 264 5000 300 10 1000
irq LOC 100 200
irq RES 10 20
irq CAL 1 2
cnt dp_tx_packets 1000
cnt retrans_fast 5
cnt retrans_probe 0
cnt retrans_timeout 1
SNAP
cat >"$tmp/after" <<'SNAP'
time 102.000000000
cpu cpu0 1040 580 202 378
cpu cpu1 2160 130 54 26
proc 256 10 5 0 3
proc 264 5150 310 12 1500
proc 300 900 90 1 1
irq LOC 600 1200
irq RES 210 60
irq CAL 3 2
cnt dp_tx_packets 81000
cnt retrans_fast 8005
cnt retrans_probe 100
cnt retrans_timeout 5
SNAP
window_report "$tmp/before" "$tmp/after" >"$tmp/report"
# reported WANT: WANT if the report has that line, else what it has
reported() { grep -qxF -- "$1" "$tmp/report" && echo "$1" || tr '\n' '|' <"$tmp/report"; }
# NAME|LINE: the report has LINE. The kernel's 0.92 vCPUs: system and softirq of both
# vCPUs (80 + 78 + 30 + 6 ticks) less the client's own system time (10).
while IFS='|' read -r name want; do
	is "window: $name" "$(reported "$want")" "$want"
done <<'WANT'
packets per second and loss recovery|# window 2.00 s: 40000 packets/s sent, 8000 fast retransmissions, 100 probes, 4 RTOs
vCPU 0's shares of its ticks|# window cpu0: user 20% system 40% softirq 39% idle 1%
vCPU 1's shares of its ticks|# window cpu1: user 80% system 15% softirq 3% idle 2%
the client's CPU, migrations and switches|# window perftest 264: user 0.75 system 0.05 vCPUs, 2 migrations, 500 involuntary switches
timer interrupts per second per vCPU|# window LOC interrupts/s: 250 500
rescheduling IPIs per second per vCPU|# window RES interrupts/s: 100 20
the kernel's vCPUs and time per packet|# window kernel: 0.92 vCPUs, 23.0 us per packet sent
WANT
is "window: an idle process and one seen once are left out" \
	"$(grep -cE 'perftest (256|300)' "$tmp/report")" 0
is "window: nothing else is reported" "$(grep -c '^# window' "$tmp/report")" 8
grep -v '^proc' "$tmp/after" >"$tmp/ended"
is "window: a transfer that ended in the window is named" \
	"$(window_report "$tmp/before" "$tmp/ended" | grep -c 'no perftest process ran through it')" 1
is "window: a window of no time reports nothing" "$(window_report "$tmp/before" "$tmp/before")" ""
[ "$failed" -eq 0 ]
