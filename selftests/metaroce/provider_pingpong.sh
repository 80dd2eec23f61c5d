#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: rdma-core's ibv_rc_pingpong between two MetaRoCE devices on two nodes, through
# libmetaroce: RC QPs whose send and receive rings the process fills, CQs it polls from the
# mapped ring, the POST_SEND doorbell. Runs of small and large messages (inline and not),
# polling and with completion events (-e), then over 5% loss; each must finish with its
# iterations counted by both sides.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_pingpong.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

PORT=18515
GA='' GB=''

setup() {
	node_add a
	node_add b
	link_add a va 10.7.0.1 b vb 10.7.0.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		GA=$(gid_index mr_a 10.7.0.1) && GB=$(gid_index mr_b 10.7.0.2)
}

# pingpong NAME ARGS...: server on a, client on b, the same ibv_rc_pingpong ARGS; both must
# exit 0 and report their iterations.
pingpong() {
	local name=$1 spid rc=0 out srv
	shift
	PORT=$((PORT + 1))
	on a timeout 60 ibv_rc_pingpong -d mr_a -g "$GA" -p "$PORT" "$@" >/tmp/pp-srv.$$ 2>&1 &
	spid=$!
	wait_listen a "$PORT" "$spid"
	out=$(on b timeout 60 ibv_rc_pingpong -d mr_b -g "$GB" -p "$PORT" "$@" 10.7.0.1 2>&1) || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	srv=$(cat /tmp/pp-srv.$$)
	rm -f /tmp/pp-srv.$$
	ktap_diag "client: $out"
	ktap_diag "server: $srv"
	if [ "$rc" -eq 0 ] && grep -q 'iters in' <<<"$out" && grep -q 'iters in' <<<"$srv"; then
		ktap_ok "$name"
	else
		ktap_fail "$name (exit status $rc)"
	fi
}

ktap_plan 6
# Not through ktap_check, whose subshell would keep GA and GB to itself.
if setup; then
	ktap_ok "two nodes, a MetaRoCE device on each (GIDs $GA, $GB: IPv4)"
else
	ktap_fail "two nodes, a MetaRoCE device on each"
	ktap_finish
fi

pingpong "ibv_rc_pingpong, 100 x 64 B (inline sends)" -n 100 -s 64
pingpong "ibv_rc_pingpong, 100 x 64 KiB" -n 100 -s 65536
pingpong "ibv_rc_pingpong -e (completion events), 100 x 4 KiB" -n 100 -s 4096 -e
netem a va loss 5%
netem b vb loss 5%
pingpong "ibv_rc_pingpong, 200 x 4 KiB, 5% loss" -n 200 -s 4096
ktap_check "rdma link delete of both devices" rdma_del_all
ktap_finish
