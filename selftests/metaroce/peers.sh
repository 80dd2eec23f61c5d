#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The comparison peers work in the test VM: ib_write_bw between two endpoints over rxe (RoCE v2,
# both ends in the root namespace, see rootpair_setup) and over siw (iWARP, two namespaces,
# connected with rdma_cm). Every MetaRoCE benchmark puts these two beside its own figures.
. "$(dirname "$0")/lib.sh"
require_vm

ktap_plan 6
kver=$(uname -r)
ITERS=200	# 64 KiB writes per ib_write_bw run

# moved DRIVER "ITERATIONS GBPS": ib_write_bw exited 0 (bw_row) and its client counted all
# ITERS writes. The rate is only reported: perftest has printed 0.000000 Gb/s for complete
# runs in this VM (testing.rst), so a positive figure is not what shows the data moved.
moved() {
	local iters=${2%% *} gbps=${2#* }

	ktap_diag "$1 ib_write_bw 64 KiB: $iters iterations, $gbps Gb/s"
	[ "$iters" = "$ITERS" ] && ktap_ok "$1: ib_write_bw moves data" ||
		ktap_fail "$1: ib_write_bw moves data ($iters of $ITERS iterations)"
}

# rxe
if rootpair_setup && rdma_add rxe rxe0 - veth0 && rdma_add rxe rxe1 - veth1 &&
   rdma_wait_active rxe0 && rdma_wait_active rxe1; then
	ktap_ok "rxe: two devices on a veth pair"
	if g0=$(gid_index rxe0 192.0.2.1) && g1=$(gid_index rxe1 192.0.2.2) &&
	   row=$(bw_row rxe1 - "$g1" rxe0 - "$g0" 192.0.2.2 -s 65536 -n "$ITERS"); then
		moved rxe "$row"
	else
		ktap_fail "rxe: ib_write_bw moves data"
	fi
	rdma_del_all && ktap_ok "rxe: devices removed" || ktap_fail "rxe: devices removed"
	rootpair_cleanup
else
	ktap_fail "rxe: two devices on a veth pair"
	ktap_fail "rxe: ib_write_bw moves data"
	ktap_fail "rxe: devices removed"
fi

# siw: built from linux-source-6.12 and -6.1 only, so other kernels go without it.
case $kver in
6.12.* | 6.1.*)
	node_add n1
	node_add n2
	link_add n1 eth1 10.0.1.1 n2 eth2 10.0.1.2
	if rdma_add siw siw1 n1 eth1 && rdma_add siw siw2 n2 eth2 &&
	   rdma_wait_active siw1 && rdma_wait_active siw2; then
		ktap_ok "siw: two devices in two namespaces"
		if row=$(bw_row siw2 n2 - siw1 n1 - 10.0.1.2 -R -s 65536 -n "$ITERS"); then
			moved siw "$row"
		else
			ktap_fail "siw: ib_write_bw moves data"
		fi
		rdma_del_all && ktap_ok "siw: devices removed" || ktap_fail "siw: devices removed"
	else
		ktap_fail "siw: two devices in two namespaces"
		ktap_fail "siw: ib_write_bw moves data"
		ktap_fail "siw: devices removed"
	fi
	;;
*)
	for t in "two devices in two namespaces" "ib_write_bw moves data" "devices removed"; do
		ktap_skip "siw: $t" "siw is built for 6.12 and 6.1 only; this is $kver"
	done
	;;
esac

ktap_finish
