#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The latency benchmark, run inside the test VM:
#   tools/testing/vm/run -- tools/bench/lat.sh
# ib_write_lat over MetaRoCE, rxe and siw in one run, one line per driver and size,
#   BENCH driver=rxe test=lat size=2 loss=0 iters=1000 t_min_us=... t_typical_us=... t_avg_us=... t_p99_us=...
# Under an emulated CPU the absolute figures mean little: compare drivers within one run.
# Each point runs BENCH_REPEAT times (3), the drivers side by side and interleaved as in
# loss.sh; each field of its BENCH line is the median of its runs, listed in a "#" line.
# The build machine's speed changes by a factor of two in spells of seconds (testing.rst),
# longer than a run, so the drivers' runs of one repeat, back to back, mostly share a spell
# while repeats do not: another driver's line compares it with rxe run by run,
#   ... typical_pct_of_rxe=94.2 typical_pct_of_rxe_lo=88.0 typical_pct_of_rxe_hi=101.3
# (the median over repeats of its t_typical as a share of rxe's in the same repeat, with a
# 90% bootstrap interval: stats.sh). Below 100, it was faster.
#
# Environment: BENCH_DRIVERS ("metaroce rxe siw"), BENCH_SIZES ("2"), BENCH_ITERS (1000),
# BENCH_LOSSES ("0", percent netem loss both ways), BENCH_REPEAT (3).
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
require_vm

drivers=${BENCH_DRIVERS:-metaroce rxe siw}
sizes=${BENCH_SIZES:-2}
iters=${BENCH_ITERS:-1000}
losses=${BENCH_LOSSES:-0}
repeat=${BENCH_REPEAT:-3}

check_repeat "$repeat"

echo "# bench-lat on $(uname -r): ib_write_lat, $iters iterations per run," \
	"median of $repeat runs per point, drivers interleaved"
declare -A rows typical
setup_side_by_side "$drivers"
for rep in $(seq "$repeat"); do
	for size in $sizes; do
		for loss in $losses; do
			# the plain link without loss: the latency of the link, no qdisc
			if [ "$loss" = 0 ]; then impair off; else impair "$loss"; fi
			for drv in "${READY[@]}"; do
				bench_use "$drv"
				if ! row=$(lat_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" \
						"${EXTRA[@]}" -s "$size" -n "$iters" 2>/tmp/bench-err); then
					sed "s/^# /# $drv: /" /tmp/bench-err | tail -n 4
					echo "# $drv: ib_write_lat failed at size $size, loss $loss%"
					continue
				fi
				# bytes iterations t_min t_max t_typical t_avg t_stdev p99 p99.9
				rows[$drv,$size,$loss]+="$row"$'\n'
				typical[$drv,$size,$loss,$rep]=$(awk '{ print $5 }' <<<"$row")
			done
		done
	done
done
impair off

# field N ROWS: column N of every row
field() {
	awk -v n="$1" 'NF { print $n }' <<<"$2"
}

# vs_rxe DRIVER SIZE LOSS: VS_RXE becomes the typical_pct_of_rxe fields of a driver other
# than rxe, from the repeats in which both ran, after a "#" line of the shares; empty
# without any.
vs_rxe() {
	local rep pct=() lo hi
	VS_RXE=
	[ "$1" != rxe ] || return 0
	for rep in $(seq "$repeat"); do
		[ -n "${typical[$1,$2,$3,$rep]:-}" ] && [ -n "${typical[rxe,$2,$3,$rep]:-}" ] || continue
		pct+=("$(awk -v a="${typical[$1,$2,$3,$rep]}" -v b="${typical[rxe,$2,$3,$rep]}" \
			'BEGIN { if (b > 0) printf "%.1f", 100 * a / b }')")
	done
	[ ${#pct[@]} -gt 0 ] || return 0
	echo "# $1 size=$2 loss=$3 typical as % of rxe's, per repeat: ${pct[*]}"
	read -r lo hi < <(median_interval "${pct[*]}")
	VS_RXE="typical_pct_of_rxe=$(median "${pct[@]}") typical_pct_of_rxe_lo=$lo typical_pct_of_rxe_hi=$hi"
}

for drv in "${READY[@]}"; do
	for size in $sizes; do
		for loss in $losses; do
			r=${rows[$drv,$size,$loss]:-}
			[ -n "$r" ] || continue
			echo "# $drv size=$size loss=$loss typical/avg/p99 runs:" \
				"$(awk 'NF { printf "%s/%s/%s ", $5, $6, $8 }' <<<"$r")"
			vs_rxe "$drv" "$size" "$loss"
			# shellcheck disable=SC2046 # one value per line, split on purpose
			echo "BENCH driver=$drv test=lat size=$size loss=$loss" \
				"iters=$(field 2 "$r" | head -n 1)" \
				"t_min_us=$(median $(field 3 "$r"))" \
				"t_typical_us=$(median $(field 5 "$r"))" \
				"t_avg_us=$(median $(field 6 "$r"))" \
				"t_p99_us=$(median $(field 8 "$r"))${VS_RXE:+ $VS_RXE}"
		done
	done
done
rdma_del_all
rootpair_cleanup
