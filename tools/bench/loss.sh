#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loss benchmark, run inside the test VM by tools/bench/bench-loss ("make bench-loss"):
# ib_write_bw between two endpoints over MetaRoCE, rxe and siw, in one run, with 4 KiB and
# 64 KiB messages at each netem loss rate (both directions of the link). Prints one line per
# point,
#   BENCH driver=rxe size=65536 loss=1 gbps=0.039 kept_pct=12.6 gbps_min=0.031 gbps_max=0.044 runs=5 kept_lo=9.8 kept_hi=14.9
# (kept_pct: share of the same driver's lossless rate at that size; gbps is the median of
# BENCH_REPEAT runs, listed in a "#" line before it, gbps_min and gbps_max their range;
# kept_lo and kept_hi a 90% bootstrap interval of kept_pct, stats.sh) and writes them as CSV
# to $METAROCE_OUT/bench-loss.csv. A driver that cannot run here is named in a "#" line,
# never given made-up figures.
#
# Every point runs through a netem qdisc, the lossless ones at 0%: what a point keeps is
# what its loss costs, not what the qdisc costs on the emulated CPUs (setup.sh, impair).
#
# Environment: BENCH_DRIVERS ("metaroce rxe siw"), BENCH_SIZES ("4096 65536"),
# BENCH_LOSSES ("0 0.1 1 5 10", percent), BENCH_SECONDS (per run, 4), BENCH_ITERS (messages
# per run instead of a duration), BENCH_REPEAT (runs per point, 5), BENCH_CSV (the CSV file).
# Several runs per point: on the emulated 2-CPU VM one run of the same point can differ from
# the next by a factor of two (in one VM boot, at the same point), so a single run compares
# drivers by luck; the median of five does much less often, and the range beside it shows
# how far a figure can be trusted: a kept_pct whose loss and lossless ranges overlap widely
# says little, and kept_lo..kept_hi says how little (the lossless point's own interval
# shows what the spread alone makes of 100%). The host's speed also drifts over minutes, so
# every driver is set up once, side by side, and each repeat visits every point, the drivers
# of one point back to back: drift touches all drivers and loss rates alike instead of
# whichever one ran during a slow spell.
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
require_vm

drivers=${BENCH_DRIVERS:-metaroce rxe siw}
sizes=${BENCH_SIZES:-4096 65536}
losses=${BENCH_LOSSES:-0 0.1 1 5 10}
seconds=${BENCH_SECONDS:-4}
repeat=${BENCH_REPEAT:-5}
csv=${BENCH_CSV:-${METAROCE_OUT:-/tmp}/bench-loss.csv}
# A fixed number of messages instead of a duration: perftest's duration mode can report an
# average of zero on a loaded emulated CPU although data moved.
if [ -n "${BENCH_ITERS:-}" ]; then
	run=(-n "$BENCH_ITERS") what="$BENCH_ITERS messages"
else
	run=(-D "$seconds") what="${seconds}s"
fi

check_repeat "$repeat"

echo "driver,size,loss_pct,gbps,kept_pct,gbps_min,gbps_max,kept_lo,kept_hi" >"$csv"
echo "# bench-loss on $(uname -r): ib_write_bw, $what per run, median of $repeat runs per point," \
	"drivers and loss rates interleaved, netem loss both ways (0% included)"

declare -A runs
setup_side_by_side "$drivers"

# measure SIZE: Gb/s of one ib_write_bw run of the selected driver (bench_use); fails with
# the client's last lines on stderr.
measure() {
	bw_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" "${EXTRA[@]}" -s "$1" \
		"${run[@]}" 2>/tmp/bench-err && return
	grep '^# client: ' /tmp/bench-err | sed "s/^# /# $drv: /" | tail -n 4 >&2
	return 1
}

# lossless SIZE: measure without loss, once more if the run failed or reported nothing moved:
# without loss only the driver or perftest stops a run, and perftest now and then fails to
# connect or prints 0.000000 Gb/s for a run that moved data (testing.rst, "A twenty-fifth
# session"). Fails if both tries did.
lossless() {
	local g try

	for try in 1 2; do
		[ "$try" = 1 ] ||
			echo "# $drv: a $1-byte run without loss failed or moved nothing; once more" >&2
		g=$(measure "$1") && awk -v g="$g" 'BEGIN { exit !(g > 0) }' && { echo "$g"; return; }
	done
	return 1
}

for _ in $(seq "$repeat"); do
	for size in $sizes; do
		for loss in $losses; do
			impair "$loss"
			for drv in "${READY[@]}"; do
				[ "${runs[$drv,$size,0]:-}" = fail ] && continue
				bench_use "$drv"
				if [ "$loss" != 0 ]; then
					# Under loss (retries exhausted, say) that run moved nothing.
					gbps=$(measure "$size") || gbps=0
				elif ! gbps=$(lossless "$size"); then
					# A driver that never ran this size cannot: no figures at
					# it. After runs that did, a double failure is left out of
					# the lossless median.
					if [ -z "${runs[$drv,$size,0]:-}" ]; then
						echo "# $drv: ib_write_bw fails without loss; no $size-byte figures"
						runs[$drv,$size,0]=fail
					else
						echo "# $drv: a $size-byte run without loss failed twice; left out"
					fi
					continue
				fi
				runs[$drv,$size,$loss]+="$gbps "
			done
		done
	done
done
impair off

for drv in "${READY[@]}"; do
	for size in $sizes; do
		[ "${runs[$drv,$size,0]:-}" = fail ] && continue
		base=
		for loss in $losses; do
			read -ra r <<<"${runs[$drv,$size,$loss]}"
			gbps=$(median "${r[@]}")
			read -r lo hi < <(value_range "${r[@]}")
			echo "# $drv size=$size loss=$loss runs: ${r[*]}"
			[ "$loss" = 0 ] && base=$gbps
			kept=$(awk -v g="$gbps" -v b="$base" 'BEGIN { if (b > 0) printf "%.1f", 100 * g / b; else print "nan" }')
			read -r klo khi < <(kept_interval "${runs[$drv,$size,0]}" "${r[*]}")
			echo "BENCH driver=$drv size=$size loss=$loss gbps=$gbps kept_pct=$kept" \
				"gbps_min=$lo gbps_max=$hi runs=${#r[@]} kept_lo=$klo kept_hi=$khi"
			echo "$drv,$size,$loss,$gbps,$kept,$lo,$hi,$klo,$khi" >>"$csv"
		done
	done
done
rdma_del_all
rootpair_cleanup
