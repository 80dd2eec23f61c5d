#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: unmodified verbs programs between two MetaRoCE devices on two nodes, through
# libmetaroce: rdma-core's ibv_ud_pingpong, ibv_rc_pingpong (1 MiB) and ibv_srq_pingpong
# (16 RC QPs receiving through one shared receive queue), perftest's send
# bandwidth and the latency tests of every RC operation, with its own exchange and with
# rdma_cm (-R), rdmacm-utils' rping, which checks its data, perftest's READ and atomic
# bandwidth tests, whose responder perftest leaves in RTR (it answers from a derived PSN:
# Documentation/infiniband/metaroce.rst, "Responses before RTS"), and ibv_uc_pingpong
# (unreliable connected QPs, data checked with -c, 4 KiB and 64 KiB messages). Each run
# must exit 0 on both sides with its result printed. Last, how ib_write_bw's messages are
# cut into packets on the 1500-byte link (Documentation/infiniband/metaroce.rst,
# "Segments"), and on it when its MTU is lowered under a run.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/programs.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

GA='' GB=''
SRV_OUT=/tmp/programs-srv.$$

setup() {
	modprobe rdma_ucm
	node_add a
	node_add b
	link_add a va 10.7.0.1 b vb 10.7.0.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b &&
		GA=$(gid_index mr_a 10.7.0.1) && GB=$(gid_index mr_b 10.7.0.2)
}

# pair NAME WANT PORT "SERVER CMD" "CLIENT CMD" [COUNT]: server in a, client in b; both must
# exit 0 and at least COUNT (default 1) lines of the client's output must match the extended
# regex WANT. PORT is the server's port (TCP or rdma_cm): the client starts once it listens.
pair() {
	local name=$1 want=$2 port=$3 srv=$4 cli=$5 count=${6:-1} spid out rc try
	for try in 1 2; do
		rc=0
		# shellcheck disable=SC2086
		on_bg a timeout 90 $srv >"$SRV_OUT" 2>&1
		spid=$!
		wait_listen a "$port" "$spid"
		# shellcheck disable=SC2086
		out=$(on b timeout 60 $cli 2>&1) || rc=$?
		# perftest -R makes two rdma_cm connections on PORT: one for its own exchange,
		# then, after a hand-shake over it, one for the QPs under test, for which the
		# server listens again. A client off the hand-shake before the server listens
		# again has its REQ rejected (reason 8, no ib_cm listener) and gives up, while
		# the server waits on. A second client would meet that server in the wrong
		# phase (its first connection taken as the second, its first message never
		# answered), so both start again, once.
		if [ "$try" -eq 1 ] && [ "$rc" -ne 0 ] &&
		   grep -q 'RDMA_CM_EVENT_REJECTED' <<<"$out" && kill -0 "$spid" 2>/dev/null; then
			ktap_diag "client rejected, once: $(grep -m1 'RDMA_CM_EVENT_REJECTED' <<<"$out")"
			kill "$spid" 2>/dev/null
			wait "$spid" 2>/dev/null
			continue
		fi
		wait "$spid" || rc=$((rc ? rc : $?))
		break
	done
	ktap_diag "client: $(tail -n 4 <<<"$out")"
	ktap_diag "server: $(tail -n 2 "$SRV_OUT")"
	if [ "$rc" -eq 0 ] && [ "$(grep -Ec "$want" <<<"$out")" -ge "$count" ]; then
		ktap_ok "$name"
	else
		# stderr lands before the buffered stdout: show all of it
		ktap_diag "client, all of it: $out"
		ktap_fail "$name (exit status $rc)"
	fi
}

# segments NAME PER_MSG [perftest args]: 200 x 64 KiB ib_write_bw from b to a; b's device
# must send PER_MSG packets a message, and 200 more at most: retransmissions, and the
# messages started before a's first ACK told b the segment a takes (in the path MTU).
segments() {
	local name=$1 per=$2 before sent row
	shift 2
	before=$(counter mr_b tx_packets)
	if ! row=$(bw_row mr_a a "$GA" mr_b b "$GB" 10.7.0.1 -s 65536 -n 200 "$@"); then
		ktap_fail "$name (ib_write_bw failed)"
		return
	fi
	sent=$(($(counter mr_b tx_packets) - before))
	ktap_diag "$sent packets for 200 messages (iterations, Gb/s: $row)"
	if [ "$sent" -ge $((200 * per)) ] && [ "$sent" -le $((200 * (per + 1))) ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name ($sent packets, not about $((200 * per)))"
	fi
}

# mtu_lowered: the link's MTU goes from 1500 to 1400 under a running ib_write_bw (once
# 2000 packets are out). The messages under way keep their 1376-byte segments and leave
# in IP fragments; later ones are cut smaller. The run must complete.
mtu_lowered() {
	local name="ib_write_bw completes with the MTU lowered under it" before frag row _
	before=$(counter mr_b tx_packets)
	frag=$(counter mr_b dp_tx_fragmented)
	(
		for _ in $(seq 600); do
			[ $(($(counter mr_b tx_packets) - before)) -gt 2000 ] && break
			sleep 0.1
		done
		on a ip link set va mtu 1400
		on b ip link set vb mtu 1400
	) &
	row=$(bw_row mr_a a "$GA" mr_b b "$GB" 10.7.0.1 -s 65536 -n 3000) || row=failed
	wait
	frag=$(($(counter mr_b dp_tx_fragmented) - frag))
	ktap_diag "$frag packets sent in fragments (iterations, Gb/s: $row)"
	if [ "$row" != failed ] && [ "$frag" -gt 0 ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name"
	fi
}

programs_cleanup() {
	rm -f "$SRV_OUT"
	cleanup
}
trap programs_cleanup EXIT

ktap_plan 26
if setup; then
	ktap_ok "two nodes, a MetaRoCE device on each"
else
	ktap_fail "two nodes, a MetaRoCE device on each"
	ktap_finish
fi

P=19000
PP="-d mr_a -g $GA" PC="-d mr_b -g $GB"
pair "ibv_ud_pingpong, 100 datagrams" 'iters in' $((P + 1)) \
	"ibv_ud_pingpong $PP -p $((P + 1)) -n 100" "ibv_ud_pingpong $PC -p $((P + 1)) -n 100 10.7.0.1"
pair "ibv_rc_pingpong, 20 x 1 MiB" 'iters in' $((P + 2)) \
	"ibv_rc_pingpong $PP -p $((P + 2)) -n 20 -s 1048576" \
	"ibv_rc_pingpong $PC -p $((P + 2)) -n 20 -s 1048576 10.7.0.1"
pair "ibv_srq_pingpong -c, 16 QPs on one SRQ, 500 x 4 KiB" 'iters in' $((P + 40)) \
	"ibv_srq_pingpong $PP -p $((P + 40)) -q 16 -n 500 -s 4096 -c" \
	"ibv_srq_pingpong $PC -p $((P + 40)) -q 16 -n 500 -s 4096 -c 10.7.0.1"
# A clean link loses nothing: every UC message arrives, checked byte for byte (-c).
u=3
for s in 4096 65536; do
	pair "ibv_uc_pingpong -c, UC, 200 x $s bytes" 'iters in' $((P + u)) \
		"ibv_uc_pingpong $PP -p $((P + u)) -n 200 -s $s -c" \
		"ibv_uc_pingpong $PC -p $((P + u)) -n 200 -s $s -c 10.7.0.1"
	u=$((u + 1))
done

# -F: perftest times with the TSC and checks it against /proc/cpuinfo and against a
# sample; under TCG the sample's fit (r^2 < 0.9) fails now and then, and without -F
# perftest then refuses to print any report.
PP="-d mr_a -x $GA -F" PC="-d mr_b -x $GB -F"
n=4
for t in ib_send_bw ib_write_lat ib_read_lat ib_send_lat ib_atomic_lat; do
	n=$((n + 1))
	pair "$t, 200 iterations" '^ *[0-9]+ +200 ' $((P + n)) \
		"$t $PP -p $((P + n)) -n 200" "$t $PC -p $((P + n)) -n 200 10.7.0.1"
done
# Every one again with rdma_cm (-R): the QPs are created, connected and moved to RTS by
# rdma_cm through the kernel's CM over GSI QP1, not by perftest's own exchange; the bw
# tests' responders go to RTS too, unlike below.
for t in ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat ib_read_lat ib_send_lat \
	ib_atomic_lat; do
	n=$((n + 1))
	pair "$t -R (rdma_cm), 200 iterations" '^ *[0-9]+ +200 ' $((P + n)) \
		"$t -d mr_a -R -F -p $((P + n)) -n 200" "$t -d mr_b -R -F -p $((P + n)) -n 200 10.7.0.1"
done
n=$((n + 1))
# rping -v prints each ping's data, which it checks against its pattern.
pair "rping, 10 verified pings over rdma_cm" '^ping data: ' $((P + n)) \
	"rping -s -a 10.7.0.1 -p $((P + n)) -C 10" "rping -c -a 10.7.0.1 -p $((P + n)) -C 10 -v" 10
# The responder of these stays in RTR: its answers start its send direction.
for t in ib_read_bw ib_atomic_bw; do
	n=$((n + 1))
	pair "$t, 200 iterations, responder in RTR" '^ *[0-9]+ +200 ' $((P + n)) \
		"$t $PP -p $((P + n)) -n 200" "$t $PC -p $((P + n)) -n 200 10.7.0.1"
done
# The port's active MTU (1024) as path MTU: the link's own payload, 1376-byte segments,
# 48 packets where 1024-byte ones take 64. A smaller path MTU asked for is kept.
segments "ib_write_bw, 64 KiB in 1376-byte segments: 48 packets a message" 48
segments "ib_write_bw -m 512: the path MTU asked for, 128 packets a message" 128 -m 512
mtu_lowered
segments "ib_write_bw at MTU 1400: 1280-byte segments, 52 packets a message" 52
on a ip link set va mtu 1500
on b ip link set vb mtu 1500
ktap_finish
