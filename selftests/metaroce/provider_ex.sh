#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: the extended verbs of libmetaroce between two nodes. A MetaRoCE device on
# each end of a veth pair (namespaces a and b); the helper provider_ex.c (built here with cc)
# runs as server in a and client in b, each with an extended CQ (ibv_create_cq_ex) polled
# with ibv_start_poll/ibv_next_poll/ibv_end_poll and the ibv_wc_read_* accessors, and
# extended RC and UD QPs (ibv_create_qp_ex with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS). The
# client posts with the ibv_wr_* API only: an aborted send (which must never arrive), a
# 4 KiB send, a send with immediate and inline data, an RDMA write of two SGEs and an RDMA
# write with immediate in one batch, an RDMA read, fetch-and-add, compare-and-swap and a read
# back in one batch, a UD send with immediate (wr_set_ud_addr), then 200 UD sends in one
# batch (more than a run of the transport sends: metaroce.ko sends a budget per run and its
# work item the rest, not the whole ring with bottom halves off). The server checks every
# completion's fields and every byte that arrives; the client checks its own completions
# and the data it read. They exchange QP numbers, GIDs and rkeys through files. The server
# also checks that metaroce.ko refuses a CQ flag it lacks (IGNORE_OVERRUN) with EOPNOTSUPP.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_ex.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

WORK=$(mktemp -d)
HELPER=$WORK/provider_ex
SERVER_CHECKS=8
CLIENT_CHECKS=8
GA='' GB=''
trap 'cleanup; rm -rf "$WORK"' EXIT

setup() {
	node_add a
	node_add b
	link_add a va 10.7.0.1 b vb 10.7.0.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		GA=$(gid_index mr_a 10.7.0.1) && GB=$(gid_index mr_b 10.7.0.2)
}

# points FILE WANT WHO: FILE's PASS/FAIL lines as test points; WANT of them expected.
points() {
	local file=$1 want=$2 who=$3 line seen=0
	while IFS= read -r line; do
		case $line in
		PASS\ *) seen=$((seen + 1)); ktap_ok "${line#PASS }" ;;
		FAIL\ *) seen=$((seen + 1)); ktap_fail "${line#FAIL }" ;;
		*) ktap_diag "$who: $line" ;;
		esac
	done <"$file"
	while [ "$seen" -lt "$want" ]; do
		seen=$((seen + 1))
		ktap_fail "$who: check $seen did not run"
	done
}

ktap_plan $((2 + SERVER_CHECKS + CLIENT_CHECKS + 1))
if setup; then
	ktap_ok "two nodes, a MetaRoCE device on each (GIDs $GA, $GB)"
else
	ktap_fail "two nodes, a MetaRoCE device on each"
	ktap_finish
fi
ktap_check "helper built" cc -O2 -Wall -Wextra -Werror -o "$HELPER" \
	"$TOP/selftests/metaroce/provider_ex.c" -libverbs || ktap_finish

on a timeout 120 "$HELPER" server mr_a "$GA" "$WORK" >"$WORK/server.out" 2>&1 &
spid=$!
on b timeout 120 "$HELPER" client mr_b "$GB" "$WORK" >"$WORK/client.out" 2>&1
crc=$?
wait "$spid"
src=$?
points "$WORK/client.out" "$CLIENT_CHECKS" client
points "$WORK/server.out" "$SERVER_CHECKS" server
ktap_diag "exit status: client $crc, server $src"
ktap_check "rdma link delete of both devices" rdma_del_all
ktap_finish
