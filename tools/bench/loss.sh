#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loss benchmark, run inside the test VM by tools/bench/bench-loss ("make bench-loss"):
# ib_write_bw between two endpoints over MetaRoCE, rxe and siw, in one run, with 4 KiB and
# 64 KiB messages at each netem loss rate (both directions of the link). Prints one line per
# point,
#   BENCH driver=rxe size=65536 loss=1 gbps=0.039 kept_pct=12.6
# (kept_pct: share of the same driver's lossless rate at that size) and writes them as CSV to
# $METAROCE_OUT/bench-loss.csv. A driver that cannot run here is named in a "#" line, never
# given made-up figures.
#
# Environment: BENCH_DRIVERS ("metaroce rxe siw"), BENCH_SIZES ("4096 65536"),
# BENCH_LOSSES ("0 0.1 1 5 10", percent), BENCH_SECONDS (per point, 4), BENCH_CSV (the CSV file).
. "$(dirname "$0")/../../selftests/metaroce/lib.sh"
require_vm

drivers=${BENCH_DRIVERS:-metaroce rxe siw}
sizes=${BENCH_SIZES:-4096 65536}
losses=${BENCH_LOSSES:-0 0.1 1 5 10}
seconds=${BENCH_SECONDS:-4}
csv=${BENCH_CSV:-${METAROCE_OUT:-/tmp}/bench-loss.csv}

# Each setup_* fills the endpoints: server device/node/GID, client device/node/GID, server IP,
# extra perftest flags, and the "node:interface" list that netem impairs.
setup_rxe() {
	rootpair_setup
	rdma_add rxe rxe0 - veth0 && rdma_add rxe rxe1 - veth1 || return
	rdma_wait_active rxe0 && rdma_wait_active rxe1 || return
	SRV=rxe1 NSRV=- GSRV=$(gid_index rxe1 192.0.2.2) || return
	CLI=rxe0 NCLI=- GCLI=$(gid_index rxe0 192.0.2.1) || return
	IP=192.0.2.2 EXTRA=() IMPAIR=(-:veth0 -:veth1)
}

# siw is iWARP: connections go through rdma_cm (-R), which picks the GIDs.
setup_siw() {
	node_add s1
	node_add s2
	link_add s1 eth1 10.0.1.1 s2 eth2 10.0.1.2
	rdma_add siw siw1 s1 eth1 && rdma_add siw siw2 s2 eth2 || return
	rdma_wait_active siw1 && rdma_wait_active siw2 || return
	SRV=siw2 NSRV=s2 GSRV=- CLI=siw1 NCLI=s1 GCLI=- IP=10.0.1.2 EXTRA=(-R)
	IMPAIR=(s1:eth1 s2:eth2)
}

# MetaRoCE devices live in their netdev's namespace, one node each.
setup_metaroce() {
	node_add m1
	node_add m2
	link_add m1 eth1 10.0.2.1 m2 eth2 10.0.2.2
	rdma_add metaroce mr1 m1 eth1 && rdma_add metaroce mr2 m2 eth2 || return
	rdma_wait_active mr1 && rdma_wait_active mr2 || return
	SRV=mr2 NSRV=m2 GSRV=$(gid_index mr2 10.0.2.2) || return
	CLI=mr1 NCLI=m1 GCLI=$(gid_index mr1 10.0.2.1) || return
	IP=10.0.2.2 EXTRA=() IMPAIR=(m1:eth1 m2:eth2)
}

impair() {
	local l
	for l in "${IMPAIR[@]}"; do
		if [ "$1" = 0 ]; then
			on "${l%%:*}" tc qdisc del dev "${l#*:}" root 2>/dev/null
		else
			netem "${l%%:*}" "${l#*:}" loss "$1%"
		fi
	done
}

echo "driver,size,loss_pct,gbps,kept_pct" >"$csv"
echo "# bench-loss on $(uname -r): ib_write_bw, ${seconds}s per point, netem loss both ways"
for drv in $drivers; do
	case $drv in
	siw)
		if ! modinfo siw >/dev/null 2>&1; then
			echo "# siw: not available on $(uname -r) (built for 6.12 and 6.1 only)"
			continue
		fi
		;;
	esac
	if ! "setup_$drv" 2>/tmp/bench-err; then
		echo "# $drv: cannot set up two devices: $(tr '\n' ' ' </tmp/bench-err 2>/dev/null)"
		continue
	fi
	for size in $sizes; do
		base=
		for loss in $losses; do
			impair "$loss"
			if ! gbps=$(bw_pair "$SRV" "$NSRV" "$GSRV" "$CLI" "$NCLI" "$GCLI" "$IP" \
					"${EXTRA[@]}" -s "$size" -D "$seconds" 2>/tmp/bench-err); then
				grep '^# client: ' /tmp/bench-err | sed "s/^# /# $drv: /" | tail -n 4
				# Without loss a failure means the driver cannot run this test: no
				# figure at all. Under loss (retries exhausted, say) it moved nothing.
				if [ "$loss" = 0 ]; then
					echo "# $drv: ib_write_bw fails without loss; no $size-byte figures"
					break
				fi
				gbps=0
			fi
			[ "$loss" = 0 ] && base=$gbps
			kept=$(awk -v g="$gbps" -v b="$base" 'BEGIN { if (b > 0) printf "%.1f", 100 * g / b; else print "nan" }')
			echo "BENCH driver=$drv size=$size loss=$loss gbps=$gbps kept_pct=$kept"
			echo "$drv,$size,$loss,$gbps,$kept" >>"$csv"
		done
		impair 0
	done
	rdma_del_all
	rootpair_cleanup
done
