#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run inside the test VM by "make demo": two nodes joined by a veth link, a
# MetaRoCE device on each, the devices as verbs programs see them, then ib_write_bw between
# them with and without 1% loss, rxe beside it (tools/bench/loss.sh does the measuring).
# What does not exist yet is said plainly instead of being faked.
. "$(dirname "$0")/../selftests/metaroce/lib.sh"
require_vm

echo "== MetaRoCE demo on $(uname -r)"
node_add a
node_add b
link_add a eth0 10.0.0.1 b eth0 10.0.0.2

echo "== rdma link add mr0 type metaroce netdev eth0 (node a), mr1 (node b)"
if rdma_add metaroce mr0 a eth0 2>/tmp/demo-err && rdma_add metaroce mr1 b eth0 2>>/tmp/demo-err; then
	rdma link show
	ibv_devices
	ibv_devinfo -d mr0 | sed -n '1,/port:/p;/state:/p;/link_layer:/p'
else
	echo "   -> $(cat /tmp/demo-err)"
	echo "   MetaRoCE devices cannot be created yet: see"
	echo "   Documentation/infiniband/metaroce-status.rst for what exists."
fi
cleanup
# shellcheck disable=SC2034 # emptied: the EXIT trap's cleanup must not delete them again
NODES=() RDMA_LINKS=()

echo "== ib_write_bw, 64 KiB messages, lossless and 1% loss both ways"
BENCH_DRIVERS="metaroce rxe" BENCH_SIZES=65536 BENCH_LOSSES="0 1" \
	BENCH_CSV=${METAROCE_OUT:-/tmp}/demo.csv "$(dirname "$0")/bench/loss.sh"
