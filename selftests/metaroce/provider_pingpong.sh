#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: rdma-core's ibv_rc_pingpong between two MetaRoCE devices on two nodes, through
# libmetaroce: RC QPs whose send and receive rings the process fills, CQs it polls from the
# mapped ring, the POST_SEND doorbell. Runs of small and large messages (inline and not),
# polling and with completion events (-e), then over 5% loss; each must finish with its
# iterations counted by both sides. And the race ibv_rc_pingpong has under loss, made
# certain: the client's last ACK is lost and its QP is gone before the server resends.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_pingpong.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

PORT=18515
LINGER=/sys/kernel/debug/metaroce/mr_b/linger
RECORDS=''
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

# last_ack_lost NAME: the client's ACKs are lost while it runs (a u32 filter on the opcode
# byte of the MetaRoCE header, behind 20 bytes of IPv4 and 8 of UDP). Once the pong is there
# the client has both its completions, destroys its QP and exits, and the server has not
# heard that the pong arrived. Then the filter goes: the server's copies of the pong find
# only the record that the client's closed connection left ("The last ACK" in
# Documentation/infiniband/metaroce.rst), and its send must complete. Without the record it
# ends "transport retry counter exceeded" about 0.54 s after the pong was first sent
# (ibv_rc_pingpong's timeout 14 and retry_cnt 7), so the filter must go before that.
last_ack_lost() {
	local name=$1 spid rc=0 out srv before after t0 ms qpn listed
	PORT=$((PORT + 1))
	before=$(counter mr_b linger_ack_tx)
	if ! on b tc qdisc add dev vb clsact ||
	   ! on b tc filter add dev vb egress protocol ip u32 \
		match u16 4793 0xffff at 22 match u8 0x10 0xff at 29 action drop; then
		ktap_fail "$name (tc filter)"
		return
	fi
	on a timeout 60 ibv_rc_pingpong -d mr_a -g "$GA" -p "$PORT" -n 1 >/tmp/pp-srv.$$ 2>&1 &
	spid=$!
	wait_listen a "$PORT" "$spid"
	out=$(on b timeout 60 ibv_rc_pingpong -d mr_b -g "$GB" -p "$PORT" -n 1 10.7.0.1 2>&1) || rc=$?
	# One process to remove the filter, and bash's own clock: the server is waiting.
	t0=${EPOCHREALTIME/./}
	tc -n b qdisc del dev vb clsact
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	# Now, while the record is young: it lives 2 s from the client's exit.
	RECORDS=$(cat "$LINGER")
	wait "$spid" || rc=$((rc ? rc : $?))
	srv=$(cat /tmp/pp-srv.$$)
	rm -f /tmp/pp-srv.$$
	after=$(counter mr_b linger_ack_tx)
	# The client's record, as debugfs lists it: its QP number, the server as peer.
	qpn=$(sed -n 's/.*local address:.*QPN 0x\([0-9a-f]*\).*/\1/p' <<<"$out")
	listed=$(grep "^qp $((16#${qpn:-0})): peer ::ffff:10.7.0.1 " <<<"$RECORDS")
	ktap_diag "client: $out"
	ktap_diag "server: $srv"
	ktap_diag "filter removed ${ms} ms after the client exited; linger_ack_tx $before -> $after"
	ktap_diag "record: ${listed:-none}"
	if [ "$rc" -eq 0 ] && grep -q 'iters in' <<<"$srv" && [ "$after" -gt "$before" ] &&
	   [ -n "$listed" ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name (exit status $rc)"
	fi
}

# Records live MR_LINGER_NS (2 s) from their QP's close; then the device's work frees them.
# (debugfs files have size 0: read them.)
records_expire() {
	[ -n "$RECORDS" ] || { echo "no record was listed"; return 1; }
	sleep 3
	[ -z "$(cat "$LINGER")" ] || { cat "$LINGER"; return 1; }
}

ktap_plan 8
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
last_ack_lost "ibv_rc_pingpong -n 1, the client's ACKs lost until it exits: the closed QP's record answers"
ktap_check "the records are freed 2 s after their QPs closed" records_expire
netem a va loss 5%
netem b vb loss 5%
pingpong "ibv_rc_pingpong, 200 x 4 KiB, 5% loss" -n 200 -s 4096
ktap_check "rdma link delete of both devices" rdma_del_all
ktap_finish
