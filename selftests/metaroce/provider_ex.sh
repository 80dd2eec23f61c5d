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
# Last, the client posts eight unsignaled RDMA writes, one per doorbell with a pause after
# each (the queue drained), between two trace markers, and reads them back: nothing waits
# for their completions, so metaroce.ko must run none in the client's system call (a run
# there took the whole round trip over veth, and a streaming process posted one WQE per
# round trip): no metaroce_qp_run event of the client's device in process context between
# the markers, against one or more per signaled doorbell before them.
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
CLIENT_CHECKS=9
# tracefs, mounted where the client (whose namespace has a /sys of its own) can write
# its markers: in the directory both sides share.
TRACING=$WORK/tracing
RUN_EVENT=$TRACING/events/metaroce/metaroce_qp_run/enable
GA='' GB=''
trap 'cleanup; umount "$TRACING" 2>/dev/null; rm -rf --one-file-system "$WORK"' EXIT

setup() {
	node_add a
	node_add b
	link_add a va 10.7.0.1 b vb 10.7.0.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		GA=$(gid_index mr_a 10.7.0.1) && GB=$(gid_index mr_b 10.7.0.2)
}

# doorbell_runs: "BEFORE BETWEEN MARKERS": metaroce_qp_run events of mr_b's QPs in a
# process (neither softirq nor a kworker) before the first trace marker and between the
# two, and how many markers the trace holds.
doorbell_runs() {
	awk "$RUN_CONTEXT_AWK"'
		/tracing_mark_write: provider_ex: unsignaled writes/ { m++; next }
		/ metaroce_qp_run: dev=mr_b / {
			if (run_context() != "task") next
			if (m == 0) before++
			else if (m == 1) between++
		}
		END { print before + 0, between + 0, m + 0 }' "$TRACING/trace"
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

ktap_plan $((2 + SERVER_CHECKS + CLIENT_CHECKS + 2))
if setup; then
	ktap_ok "two nodes, a MetaRoCE device on each (GIDs $GA, $GB)"
else
	ktap_fail "two nodes, a MetaRoCE device on each"
	ktap_finish
fi
ktap_check "helper built" cc -O2 -Wall -Wextra -Werror -o "$HELPER" \
	"$TOP/selftests/metaroce/provider_ex.c" -libverbs || ktap_finish

mkdir "$TRACING" && mount -t tracefs nodev "$TRACING" || ktap_diag "cannot mount tracefs"
echo >"$TRACING/trace" 2>/dev/null
echo 1 >"$RUN_EVENT" 2>/dev/null || ktap_diag "cannot enable $RUN_EVENT"
on a timeout 120 "$HELPER" server mr_a "$GA" "$WORK" >"$WORK/server.out" 2>&1 &
spid=$!
on b timeout 120 "$HELPER" client mr_b "$GB" "$WORK" >"$WORK/client.out" 2>&1
crc=$?
wait "$spid"
src=$?
echo 0 >"$RUN_EVENT" 2>/dev/null
points "$WORK/client.out" "$CLIENT_CHECKS" client
points "$WORK/server.out" "$SERVER_CHECKS" server
ktap_diag "exit status: client $crc, server $src"
read -r before between markers <<<"$(doorbell_runs)"
ktap_diag "mr_b's runs in a process: $before before the markers, $between between them ($markers markers)"
[ "$markers" -eq 2 ] && [ "$before" -gt 0 ] && [ "$between" -eq 0 ]
ktap_result "an unsignaled WRITE's doorbell does not run the transport in the process" $?
echo >"$TRACING/trace" 2>/dev/null
ktap_check "rdma link delete of both devices" rdma_del_all
ktap_finish
