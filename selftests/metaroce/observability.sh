#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: what an operator sees when one network path of a connection dies. Two nodes,
# a MetaRoCE device on each; node a's egress drops every UDP datagram whose source port is a
# multiple of 8, so exactly one of a connection's 8 consecutive path ports is dead from a to
# b. Checked: debugfs shows the path retired in an ib_write_bw QP's per-path state, and the
# QP's segments; metaroce_rc_test.ko's operations and a stream of sends complete across it;
# the device counters (rdma statistic) count the losses, their retransmissions and the path
# change; the metaroce tracepoints report them. Then, on a clean link, with mr_a created
# again while the module parameter paths was 2: its QPs have two paths, and a stream makes fast
# retransmissions of at most 1% of its packets (all of them spurious); metaroce_qp_run
# traces the runs of its transport, which together sent what the device counted, and drop
# monitors (skb:kfree_skb) see none of the packets it used. Last, the test module
# metaroce_ipsample.ko (tools/bench/profile.sh) samples such a stream.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/observability.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider

TEST_KO=$METAROCE_KOBJ/tests/metaroce_rc_test.ko
QPS=/sys/kernel/debug/metaroce/mr_a/qps

# positive DEV NAME...: every named counter of DEV is above zero (prints them all)
positive() {
	local dev=$1 name v rc=0

	shift
	for name in "$@"; do
		v=$(counter "$dev" "$name")
		echo "$name $v"
		[ "${v:-0}" -gt 0 ] || rc=1
	done
	return $rc
}

# lost_and_resent DEV: DEV counted lost packets, their retransmissions and a path change
lost_and_resent() {
	local retx=0 name

	positive "$1" pkts_lost path_changes || return 1
	for name in retrans_fast retrans_timeout retrans_probe; do
		retx=$((retx + $(counter "$1" $name)))
	done
	echo "retransmissions $retx"
	[ "$retx" -gt 0 ]
}

# traced EVENT [PATTERN]: the trace buffer holds EVENT (with PATTERN in its line)
traced() {
	grep -E "$1: .*${2:-}" "$TRACING/trace" | tail -n 3 | grep .
}

# The parameter is read when a device is created: it makes a per-device setting.
two_path_device() {
	local param=/sys/module/metaroce/parameters/paths

	on a rdma link delete mr_a || return 1
	echo 2 >$param && on a rdma link add mr_a type metaroce netdev va &&
		rdma_wait_active mr_a
	local rc=$?
	echo 8 >$param
	return $rc
}

# bw_start: ib_write_bw from a to b for far longer than needed, in the background
# (BW_PIDS): its QPs stay while debugfs is read; bw_stop ends it.
bw_start() {
	local port
	port=$(next_port)
	on_bg b ib_write_bw -d mr_b -x "$(gid_index mr_b 10.8.0.2)" -p "$port" -s 65536 \
		-n 1000000 >/dev/null 2>&1
	BW_PIDS=($!)
	wait_listen b "$port" "${BW_PIDS[0]}" || return 1
	on_bg a ib_write_bw -d mr_a -x "$(gid_index mr_a 10.8.0.1)" -p "$port" -s 65536 \
		-n 1000000 10.8.0.2 >/dev/null 2>&1
	BW_PIDS+=($!)
}

bw_stop() {
	kill -9 "${BW_PIDS[@]}" 2>/dev/null
	wait "${BW_PIDS[@]}" 2>/dev/null
	BW_PIDS=()
}

# stream COUNT [ARGS]: metaroce_rc_test with COUNT sends in its stream test
stream() {
	local count=$1
	shift
	insmod "$TEST_KO" a=mr_a b=mr_b count="$count" "$@" 2>/dev/null
	local rc=$?
	rmmod metaroce_rc_test 2>/dev/null
	return $rc
}

BW_PIDS=()
observe_cleanup() {
	bw_stop
	[ -d "$TRACING/events/metaroce" ] && echo 0 >"$TRACING/events/metaroce/enable"
	cleanup
}
trap observe_cleanup EXIT

setup() {
	node_add a
	node_add b
	link_add a va 10.8.0.1 b vb 10.8.0.2
	rdma_add metaroce mr_a a va && rdma_add metaroce mr_b b vb &&
		rdma_wait_active mr_a && rdma_wait_active mr_b
}

# One path of eight dead from a to b: UDP source ports that are multiples of 8.
kill_one_path() {
	on a tc qdisc add dev va clsact &&
		on a tc filter add dev va egress protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip sport 0 0x7 action drop
}

# traced_runs: metaroce_qp_run over a 300-send stream. mr_a's runs read packets and send
# some; together they sent what the device counted, but for NAKs, which go out while a run
# reads (at most 1% here).
traced_runs() {
	local run=$TRACING/events/metaroce/metaroce_qp_run/enable sent0 sent rc sums
	sent0=$(counter mr_a tx_packets)
	echo >"$TRACING/trace" && echo 1 >"$run" || return 1
	stream 300
	rc=$?
	echo 0 >"$run"
	sent=$(($(counter mr_a tx_packets) - sent0))
	sums=$(awk '/metaroce_qp_run: dev=mr_a qpn=[0-9]+ rx=[0-9]+ tx=[0-9]+ rxq=[0-9]+ in_flight=[0-9]+ cwnd=[0-9]+ srtt_us=[0-9]+$/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		n++; rx += f["rx"]; tx += f["tx"] }
		END { print n + 0, rx + 0, tx + 0 }' "$TRACING/trace")
	set -- $sums
	echo "status $rc, $1 runs of mr_a: $2 packets read, $3 sent; the device sent $sent"
	[ "$rc" -eq 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$3" -le "$sent" ] &&
		[ $((sent - $3)) -le $((sent / 100)) ]
}

# ip_sampled: metaroce_ipsample.ko, profile.sh's sampler, over a 300-send stream: it will
# not list while it samples; afterwards it lists samples, metaroce's functions among them.
ip_sampled() {
	local d=/sys/kernel/debug/metaroce_ipsample busy rc total mod
	insmod "$METAROCE_KOBJ/tests/metaroce_ipsample.ko" || return 1
	echo 1 >"$d/enable"
	if cat "$d/samples" >/dev/null 2>&1; then busy=listed; else busy=refused; fi
	stream 300
	rc=$?
	echo 0 >"$d/enable"
	total=$(sed -n 's/^# \([0-9]*\) samples.*/\1/p' "$d/samples")
	mod=$(awk '/ \[metaroce\]$/ { n += $1 } END { print n + 0 }' "$d/samples")
	rmmod metaroce_ipsample
	echo "while sampling: $busy; stream status $rc; ${total:-no} samples, $mod in metaroce"
	[ "$busy" = refused ] && [ "$rc" -eq 0 ] && [ "${total:-0}" -gt 0 ] && [ "$mod" -gt 0 ]
}

# not_dropped: a 300-send stream on the clean link, with the tracepoint skb:kfree_skb on,
# which drop monitors (dropwatch, perf) read. MetaRoCE frees there only the packets it
# could not use, and counts each (duplicates of spurious retransmissions, RNR NAKs, the
# packets metaroce_rc_test's error cases refuse with a NAK); those it placed or read are
# consumed. Before consume_skb() every packet was a "drop"; before nak_tx the refused ones
# were not counted.
DROP_COUNTERS=(rx_duplicate rx_out_of_window rx_malformed_dropped rx_no_conn_dropped
	rx_nomem_dropped rx_no_wqe_dropped rx_bad_qkey_dropped rnr_nak_tx nak_tx dp_tx_dropped)
# both_sum NAME...: the named counters of mr_a and mr_b, summed
both_sum() {
	local n=0 dev name
	for dev in mr_a mr_b; do
		for name in "$@"; do
			n=$((n + $(counter "$dev" "$name")))
		done
	done
	echo "$n"
}
not_dropped() {
	local ev=$TRACING/events/skb/kfree_skb hist=hist:keys=location.sym-offset
	local rx0 rx rc sites drops counted

	rx0=$(both_sum rx_packets)
	counted=$(both_sum "${DROP_COUNTERS[@]}")
	# A histogram by call site, not the trace: 6.1 prints the location as a hashed
	# pointer, and a full ring buffer would lose events.
	echo "$hist" >"$ev/trigger" || return 1
	stream 300
	rc=$?
	sites=$(grep metaroce "$ev/hist")
	echo "!$hist" >"$ev/trigger"
	rx=$(($(both_sum rx_packets) - rx0))
	counted=$(($(both_sum "${DROP_COUNTERS[@]}") - counted))
	drops=$(awk '{ for (i = 1; i < NF; i++) if ($i == "hitcount:") n += $(i + 1) }
		END { print n + 0 }' <<<"$sites")
	echo "status $rc; $rx data packets placed; $drops freed by metaroce as dropped," \
		"$counted counted as dropped"
	printf '%s\n' "$sites"
	# Some are always dropped: the refusals of the error cases.
	[ "$rc" -eq 0 ] && [ "$rx" -gt 0 ] && [ "$drops" -gt 0 ] && [ "$drops" -le "$counted" ]
}

# naks_counted: metaroce_rc_test's runs so far wrote to dead rkeys and without access
# rights; the responders refused with NAKs and the requesters read them (nak_tx, nak_rx).
# A NAK can be answered again to a retransmission, so reads never exceed sends.
naks_counted() {
	local tx rx

	tx=$(both_sum nak_tx)
	rx=$(both_sum nak_rx)
	echo "NAKs that end a connection: $tx sent, $rx received"
	[ "$tx" -gt 0 ] && [ "$rx" -gt 0 ] && [ "$rx" -le "$tx" ]
}

ktap_plan 17
# In this shell, not in ktap_check's subshell: cleanup must know the nodes it made.
setup
rc=$?
ktap_result "two nodes, a MetaRoCE device on each" $rc
[ "$rc" -eq 0 ] || ktap_finish
tracing_mount
# Not metaroce_qp_run: one event per transport run would overwrite these in the buffer.
ktap_check "tracepoints metaroce_{loss,retransmit,path_change} exist and enable" \
	sh -c "echo > $TRACING/trace && for e in loss retransmit path_change; do
		echo 1 > $TRACING/events/metaroce/metaroce_\$e/enable || exit 1; done"
ktap_check "one path of eight dropped by tc on a's egress" kill_one_path

bw_start
ktap_check "debugfs shows an ib_write_bw QP with a retired path" \
	wait_for 120 grep -E 'path [0-9]+: retired' "$QPS"
# The links carry 1500 bytes: 1376-byte segments over perftest's path MTU of 1024, once
# the peer's ACKs said it takes them; the paths' routes at the link's MTU.
ktap_check "debugfs shows the QP's segments (1376 bytes) and its routes' MTU" \
	wait_for 30 sh -c "grep -q 'seg: path_mtu 1024 tx 1376 own 1376 rx 1376 peer_rx 1376' \
		$QPS && grep -qE 'path [0-9]+: .* route_mtu 1500$' $QPS"
bw_stop
# UC loses what the dead path carries until the path is retired: uc_lossy.
stream 1500 uc_lossy=1
ktap_result "every RC operation and a 1500-send stream complete over the dead path" $? \
	"$(dmesg | grep metaroce_rc_test | grep -v '^.* ok ' | tail -n 20)"
ktap_check "counters: pkts_lost, retransmissions, path_changes" lost_and_resent mr_a
ktap_check "tracepoint metaroce_path_change: a path of mr_a down" \
	traced metaroce_path_change "dev=mr_a .*down"
ktap_check "tracepoint metaroce_loss" traced metaroce_loss dev=mr_a
ktap_check "tracepoint metaroce_retransmit" traced metaroce_retransmit dev=mr_a

# Without the filter nothing is lost. (Timeouts can still fire spuriously: under TCG an
# ACK can take longer than the RTO estimate.)
on a tc qdisc del dev va clsact
ktap_check "mr_a again, created while the module parameter paths is 2" two_path_device
bw_start
ktap_check "its QPs have 2 paths although the parameter is back at 8" \
	wait_for 60 sh -c "grep -q 'path 1:' $QPS && ! grep -q 'path 2:' $QPS"
bw_stop
# Nothing is lost, so fast retransmissions are spurious (the reorder window misjudged an
# emulated CPU's jitter): at most 1% of the packets sent.
fast0=$(counter mr_a retrans_fast)
sent0=$(counter mr_a tx_packets)
stream 500
rc=$?
fast=$(($(counter mr_a retrans_fast) - fast0))
sent=$(($(counter mr_a tx_packets) - sent0))
ktap_result "clean link: the stream completes, fast retransmissions <= 1% of packets" \
	$(( rc != 0 || sent == 0 || fast * 100 > sent )) \
	"$fast fast retransmissions of $sent packets sent (status $rc)"
ktap_check "tracepoint metaroce_qp_run: mr_a's runs account for the packets it sent" \
	traced_runs
ktap_check "drop monitors: metaroce frees as dropped only packets it could not use" \
	not_dropped
ktap_check "counters nak_tx, nak_rx: the error cases' refusals, sent and read" naks_counted
ktap_check "metaroce_ipsample.ko samples a stream, metaroce's functions among its samples" \
	ip_sampled
ktap_finish
