#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: rdma-core's ibv_rc_pingpong between two MetaRoCE devices on two nodes, through
# libmetaroce: RC QPs whose send and receive rings the process fills, CQs it polls from the
# mapped ring, the POST_SEND doorbell. Runs of small and large messages (inline and not),
# polling and with completion events (-e), then over 5% loss; each must finish with its
# iterations counted by both sides. And the race ibv_rc_pingpong has under loss, made
# certain: the client's last ACK is lost and its QP is gone before the server resends;
# likewise for a QP moved to the error state (as rdma_disconnect does) or to RESET
# (rc_close.py, through pyverbs).
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/provider_pingpong.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

PORT=18515
PY=/usr/bin/python3
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

# drop_b_acks, pass_b_acks: a u32 filter on b's egress drops every MetaRoCE ACK (UDP
# destination port 4793, opcode byte 0x10) behind 20 bytes of IPv4 and 8 of UDP; removed
# in one process, since a server may be waiting.
drop_b_acks() {
	on b tc qdisc add dev vb clsact &&
		on b tc filter add dev vb egress protocol ip u32 \
			match u16 4793 0xffff at 22 match u8 0x10 0xff at 29 action drop
}
pass_b_acks() { tc -n b qdisc del dev vb clsact; }

# last_ack_lost NAME: the client's ACKs are lost while it runs (drop_b_acks). Once the
# pong is there the client has both its completions, destroys its QP and exits, and the
# server has not heard that the pong arrived. Then the filter goes: the server's copies of the pong find
# only the record that the client's closed connection left ("The last ACK" in
# Documentation/infiniband/metaroce.rst), and its send must complete. Without the record it
# ends "transport retry counter exceeded" about 0.54 s after the pong was first sent
# (ibv_rc_pingpong's timeout 14 and retry_cnt 7), so the filter must go before that.
last_ack_lost() {
	local name=$1 spid rc=0 out srv before after t0 ms qpn listed
	PORT=$((PORT + 1))
	before=$(counter mr_b linger_ack_tx)
	drop_b_acks || { ktap_fail "$name (tc filter)"; return; }
	on a timeout 60 ibv_rc_pingpong -d mr_a -g "$GA" -p "$PORT" -n 1 >/tmp/pp-srv.$$ 2>&1 &
	spid=$!
	wait_listen a "$PORT" "$spid"
	out=$(on b timeout 60 ibv_rc_pingpong -d mr_b -g "$GB" -p "$PORT" -n 1 10.7.0.1 2>&1) || rc=$?
	# One process to remove the filter, and bash's own clock: the server is waiting.
	t0=${EPOCHREALTIME/./}
	pass_b_acks
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

# rc_close NAME err|reset: rc_close.py's client receives one SEND, its ACKs dropped, and
# moves its QP to STATE (keeping it); then the filter goes. The server's SEND must complete,
# answered by the record the QP left when it left RTS. The server's verbs timeout (18)
# lets it retry for about 8.6 s: without the record it would fail, not pass by waiting.
rc_close() {
	local name=$1 state=$2 dir spid cpid rc=0 before after _
	dir=$(mktemp -d)
	before=$(counter mr_b linger_ack_tx)
	drop_b_acks || { ktap_fail "$name (tc filter)"; rm -rf "$dir"; return; }
	on a "$PY" "$TOP/selftests/metaroce/rc_close.py" server mr_a "$GA" "$dir" >"$dir/srv" 2>&1 &
	spid=$!
	on b "$PY" "$TOP/selftests/metaroce/rc_close.py" client mr_b "$GB" "$dir" "$state" \
		>"$dir/cli" 2>&1 &
	cpid=$!
	for _ in $(seq 3000); do
		[ -e "$dir/closed" ] || ! kill -0 "$cpid" 2>/dev/null && break
		sleep 0.01
	done
	pass_b_acks
	wait "$spid" || rc=$?
	wait "$cpid" || rc=$((rc ? rc : $?))
	after=$(counter mr_b linger_ack_tx)
	ktap_diag "server: $(cat "$dir/srv")"
	ktap_diag "client: $(cat "$dir/cli")"
	ktap_diag "linger_ack_tx $before -> $after"
	if [ "$rc" -eq 0 ] && grep -q 'send: status 0 (success)' "$dir/srv" &&
	   [ "$after" -gt "$before" ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name (exit status $rc)"
	fi
	rm -rf "$dir"
}

ktap_plan 10
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
rc_close "a QP moved to ERR (as by rdma_disconnect) after its ACKs were lost: its record answers" err
rc_close "a QP moved to RESET after its ACKs were lost: its record answers" reset
netem a va loss 5%
netem b vb loss 5%
pingpong "ibv_rc_pingpong, 200 x 4 KiB, 5% loss" -n 200 -s 4096
ktap_check "rdma link delete of both devices" rdma_del_all
ktap_finish
