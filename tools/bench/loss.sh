#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loss benchmark, run inside the test VM by tools/bench/bench-loss ("make bench-loss"):
# ib_write_bw between two endpoints over MetaRoCE, rxe and siw, in one run, with 4 KiB and
# 64 KiB messages at each netem loss rate (both directions of the link). Prints one line per
# point,
#   BENCH driver=rxe size=65536 loss=1 gbps=0.039 kept_pct=12.6 gbps_min=0.031 gbps_max=0.044 runs=5 kept_lo=9.8 kept_hi=14.9
# (gbps is the median of BENCH_REPEAT runs, listed in a "#" line before it, gbps_min and
# gbps_max their range; kept_pct the share of the same driver's lossless rate at that size,
# kept_lo and kept_hi a 90% bootstrap interval of it, stats.sh) and writes them as CSV to
# $METAROCE_OUT/bench-loss.csv. A driver that cannot run here is named in a "#" line, never
# given made-up figures.
#
# Every point runs through a netem qdisc, the lossless ones at 0%: what a point keeps is
# what its loss costs, not what the qdisc costs on the emulated CPUs (setup.sh, impair).
#
# Environment: BENCH_DRIVERS ("metaroce rxe siw"), BENCH_SIZES ("4096 65536"),
# BENCH_LOSSES ("0 0.1 1 5 10", percent; the lossless runs are made whether 0 is named or
# not: they are what the others are shares of), BENCH_SECONDS (per run, 4), BENCH_ITERS
# (messages per run instead of a duration), BENCH_REPEAT (runs per point, 5), BENCH_CSV
# (the CSV file).
#
# Several runs per point: on the emulated 2-CPU VM one run of the same point can differ from
# the next by a factor of two, because the build machine's speed changes in spells of
# seconds (testing.rst), so a single run compares drivers by luck. Each lossy run is
# therefore measured between two lossless runs of its driver, seconds apart: per repeat,
# size and driver the runs go lossless, first loss rate, lossless, second loss rate, ...,
# lossless, and kept_pct is the median of the lossy runs' shares of the mean of the two
# lossless runs around each (bracket_shares), not one median over another a minute away: a
# change of speed that lasts over the three runs cancels out of a share. Every driver is set
# up once, side by side, and the drivers take turns from one size to the next (each repeat
# reverses their order), so a slow spell of minutes touches all of them.
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
lossy_rates=()
for loss in $losses; do
	[ "$loss" = 0 ] || lossy_rates+=("$loss")
done

echo "driver,size,loss_pct,gbps,kept_pct,gbps_min,gbps_max,kept_lo,kept_hi" >"$csv"
echo "# bench-loss on $(uname -r): ib_write_bw, $what per run, $repeat runs per point," \
	"each lossy run between two lossless runs of its driver, netem loss both ways (0% included)"

# runs[DRV,SIZE,LOSS]: the point's Gb/s, space-separated ("fail" at loss 0: no figures);
# shares[DRV,SIZE,LOSS]: its lossy runs' shares of the lossless runs around them.
declare -A runs shares
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

	impair 0
	for try in 1 2; do
		[ "$try" = 1 ] ||
			echo "# $drv: a $1-byte run without loss failed or moved nothing; once more" >&2
		g=$(measure "$1") && awk -v g="$g" 'BEGIN { exit !(g > 0) }' && { echo "$g"; return; }
	done
	return 1
}

# sequence SIZE: the selected driver's runs of one repeat at SIZE, lossless ones around each
# lossy one. A lossless run that failed twice is "-" in the brackets (its lossy neighbours
# take the other one alone); a driver that has never run this size is given up on.
sequence() {
	local size=$1 base=() lossy=() g l i

	for i in $(seq 0 "${#lossy_rates[@]}"); do
		if g=$(lossless "$size"); then
			runs[$drv,$size,0]+="$g "
		elif [ -z "${runs[$drv,$size,0]:-}" ]; then
			echo "# $drv: ib_write_bw fails without loss; no $size-byte figures"
			runs[$drv,$size,0]=fail
			return
		else
			echo "# $drv: a $size-byte run without loss failed twice; left out"
			g=-
		fi
		base+=("$g")
		[ "$i" -lt "${#lossy_rates[@]}" ] || break
		l=${lossy_rates[$i]}
		impair "$l"
		# Under loss (retries exhausted, say) that run moved nothing.
		g=$(measure "$size") || g=0
		runs[$drv,$size,$l]+="$g "
		lossy+=("$g")
	done
	# One bracket per lossy run, to file its share under its rate; one with no
	# neighbour measured has none.
	for i in "${!lossy[@]}"; do
		g=$(bracket_shares "${base[$i]} ${base[$((i + 1))]}" "${lossy[$i]}")
		[ -z "$g" ] || shares[$drv,$size,${lossy_rates[$i]}]+="$g "
	done
}

order=("${READY[@]}")
for _ in $(seq "$repeat"); do
	for size in $sizes; do
		for drv in "${order[@]}"; do
			[ "${runs[$drv,$size,0]:-}" = fail ] && continue
			bench_use "$drv"
			sequence "$size"
		done
	done
	# The next repeat takes the drivers the other way round.
	mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
done
impair off

for drv in "${READY[@]}"; do
	for size in $sizes; do
		[ "${runs[$drv,$size,0]:-}" = fail ] && continue
		for loss in 0 "${lossy_rates[@]}"; do
			read -ra r <<<"${runs[$drv,$size,$loss]}"
			gbps=$(median "${r[@]}")
			read -r lo hi < <(value_range "${r[@]}")
			echo "# $drv size=$size loss=$loss runs: ${r[*]}"
			if [ "$loss" = 0 ]; then
				# What the spread alone makes of no loss at all.
				kept=100.0
				read -r klo khi < <(kept_interval "${r[*]}" "${r[*]}")
			else
				read -ra sh <<<"${shares[$drv,$size,$loss]:-}"
				echo "# $drv size=$size loss=$loss shares: ${sh[*]}"
				if [ "${#sh[@]}" = 0 ]; then
					kept=nan klo=nan khi=nan
				else
					kept=$(median "${sh[@]}" | awk '{ printf "%.1f", $1 }')
					read -r klo khi < <(median_interval "${sh[*]}")
				fi
			fi
			echo "BENCH driver=$drv size=$size loss=$loss gbps=$gbps kept_pct=$kept" \
				"gbps_min=$lo gbps_max=$hi runs=${#r[@]} kept_lo=$klo kept_hi=$khi"
			echo "$drv,$size,$loss,$gbps,$kept,$lo,$hi,$klo,$khi" >>"$csv"
		done
	done
done
rdma_del_all
rootpair_cleanup
