#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the test VM by "make demo": two nodes joined by a veth link, a
# MetaRoCE device on each, ib_write_bw between them with and without 1% loss, rxe beside it.
# What does not exist yet is said plainly instead of being faked.
. "$(dirname "$0")/../selftests/metaroce/lib.sh"
require_vm

echo "== MetaRoCE demo on $(uname -r)"
node_add a
node_add b
link_add a eth0 10.0.0.1 b eth0 10.0.0.2

modprobe metaroce
echo "== rdma link add mr0 type metaroce netdev eth0 (in node a)"
if on a rdma link add mr0 type metaroce netdev eth0 2>/tmp/demo-err; then
	RDMA_LINKS+=("a:mr0")
	on b rdma link add mr1 type metaroce netdev eth0 && RDMA_LINKS+=("b:mr1")
	rdma link show
	ibv_devices
else
	echo "   -> $(cat /tmp/demo-err)"
	echo "   MetaRoCE devices do not exist yet: the verbs device, the transport and the"
	echo "   libibverbs provider are open work (see Documentation/infiniband/metaroce-status.rst)."
fi

echo "== The peer baseline in the same VM: rxe, ib_write_bw 64 KiB, 2 s"
rootpair_setup
rdma_add rxe rxe0 - veth0 && rdma_add rxe rxe1 - veth1
rdma_wait_active rxe0 && rdma_wait_active rxe1
g0=$(gid_index rxe0 192.0.2.1) && g1=$(gid_index rxe1 192.0.2.2) || exit 1
ibv_devices
for loss in 0 1; do
	if [ "$loss" != 0 ]; then
		netem - veth0 loss "$loss%"
		netem - veth1 loss "$loss%"
	fi
	gbps=$(bw_pair rxe1 - "$g1" rxe0 - "$g0" 192.0.2.2 -s 65536 -D 2) || gbps=failed
	echo "BENCH driver=rxe size=65536 loss=$loss gbps=$gbps"
done
