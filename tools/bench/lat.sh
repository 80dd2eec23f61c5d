#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The latency benchmark, run inside the test VM:
#   tools/testing/vm/run -- tools/bench/lat.sh
# ib_write_lat over MetaRoCE, rxe and siw in one run, one line per driver and size,
#   BENCH driver=rxe test=lat size=2 loss=0 iters=1000 t_min_us=... t_typical_us=... t_avg_us=... t_p99_us=...
# Under an emulated CPU the absolute figures mean little: compare drivers within one run.
#
# Environment: BENCH_DRIVERS ("metaroce rxe siw"), BENCH_SIZES ("2"), BENCH_ITERS (1000),
# BENCH_LOSSES ("0", percent netem loss both ways).
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
. "$(dirname "$0")/setup.sh"
require_vm

drivers=${BENCH_DRIVERS:-metaroce rxe siw}
sizes=${BENCH_SIZES:-2}
iters=${BENCH_ITERS:-1000}
losses=${BENCH_LOSSES:-0}

echo "# bench-lat on $(uname -r): ib_write_lat, $iters iterations per point"
for drv in $drivers; do
	if [ "$drv" = siw ] && ! modinfo siw >/dev/null 2>&1; then
		echo "# siw: not available on $(uname -r)"
		continue
	fi
	if ! "setup_$drv" 2>/tmp/bench-err; then
		echo "# $drv: cannot set up two devices: $(tr '\n' ' ' </tmp/bench-err 2>/dev/null)"
		continue
	fi
	for size in $sizes; do
		for loss in $losses; do
			impair "$loss"
			if ! row=$(lat_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" \
					"${EXTRA[@]}" -s "$size" -n "$iters" 2>/tmp/bench-err); then
				sed "s/^# /# $drv: /" /tmp/bench-err | tail -n 4
				echo "# $drv: ib_write_lat failed at size $size, loss $loss%"
				continue
			fi
			set -- $row
			echo "BENCH driver=$drv test=lat size=$size loss=$loss iters=$2" \
				"t_min_us=$3 t_typical_us=$5 t_avg_us=$6 t_p99_us=$8"
		done
		impair 0
	done
	rdma_del_all
	rootpair_cleanup
done
