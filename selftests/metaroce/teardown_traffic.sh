#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: teardown while traffic runs. Between two MetaRoCE devices on two nodes:
#  - the processes of a user stream (perftest ib_write_bw) are killed: their QPs are destroyed with
#    packets in flight; the devices still carry a new stream afterwards;
#  - the netdev is deleted under a user stream, then under a kernel stream
#    (metaroce_rc_test.ko): both devices go, the processes and the test module return;
#  - the module is unloaded under a user stream: ib_core disassociates the process.
# Every step is bounded by a timeout (a hang fails it); the harness fails the run on any
# WARNING, Oops or hung task in the kernel log, and the last point unloads the module, which
# ib_core allows only once every object of every device is gone.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/teardown_traffic.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider
TEST_KO=$METAROCE_KOBJ/tests/metaroce_rc_test.ko
PIDS=()

dev_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }

# The link, a device on each end; fresh namespaces each time (deleting the netdev removes
# the devices with it).
setup() {
	local n=$1
	node_add "a$n"
	node_add "b$n"
	link_add "a$n" va "10.9.$n.1" "b$n" vb "10.9.$n.2"
	rdma_add metaroce "ma$n" "a$n" va && rdma_add metaroce "mb$n" "b$n" vb &&
		rdma_wait_active "ma$n" && rdma_wait_active "mb$n"
}

# stream N: ib_write_bw from node bN to aN for far longer than the test, in the background
# (PIDS); returns once data moves.
stream() {
	local n=$1 port before
	port=$(next_port)
	on_bg "a$n" ib_write_bw -d "ma$n" -x "$(gid_index "ma$n" "10.9.$n.1")" -p "$port" \
		-s 65536 -n 1000000 >/dev/null 2>&1
	PIDS=($!)
	wait_listen "a$n" "$port" "${PIDS[0]}" || return 1
	on_bg "b$n" ib_write_bw -d "mb$n" -x "$(gid_index "mb$n" "10.9.$n.2")" -p "$port" \
		-s 65536 -n 1000000 "10.9.$n.1" >/dev/null 2>&1
	PIDS+=($!)
	before=$(counter "ma$n" rx_packets)
	wait_for 60 sh -c "[ \$(rdma statistic show link ma$n/1 | tr ' ' '\n' |
		grep -A1 -x rx_packets | tail -n 1) -gt $((before + 100)) ]"
}

# exited SECONDS: every process of PIDS has exited within SECONDS
exited() {
	local end=$((SECONDS + $1)) p
	for p in "${PIDS[@]}"; do
		while kill -0 "$p" 2>/dev/null; do
			[ "$SECONDS" -lt "$end" ] || return 1
			sleep 0.2
		done
	done
}

# gone_when_killed SECONDS: every process of PIDS is killed and gone within SECONDS (none is
# stuck in the kernel). perftest polls its CQ for ever when its peer or its device goes,
# so its exit is not awaited on its own.
gone_when_killed() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	exited "$1"
}

kill_client() {
	PIDS=("${PIDS[1]}" "${PIDS[0]}")
	gone_when_killed 30
}

short_stream() {
	[ -n "$(bw_pair ma1 a1 "$(gid_index ma1 10.9.1.1)" mb1 b1 "$(gid_index mb1 10.9.1.2)" \
		10.9.1.1 -s 65536 -n 200)" ]
}

# point NAME CMD...: like ktap_check, but CMD runs in this shell (it may set PIDS, NODES)
point() {
	local name=$1
	shift
	"$@"
	ktap_result "$name" $?
}

ktap_plan 14
modprobe rdma_ucm

# 1. Killing a process destroys its QPs with data in flight; the devices carry on.
setup 1 && stream 1
rc=$?
ktap_result "two nodes, a device on each, ib_write_bw moving data" $rc
[ "$rc" -eq 0 ] || ktap_finish
point "kill -9 of both sides mid-stream: QPs destroyed, processes gone" kill_client
ktap_check "a new stream between the same devices completes" short_stream

# 2. The netdev goes under a user stream.
setup 2 && stream 2
ktap_result "second pair streaming" $?
ip -n a2 link del va
ktap_check "netdev deleted under traffic: both devices gone" \
	wait_for 30 sh -c "[ ! -e /sys/class/infiniband/ma2 ] && [ ! -e /sys/class/infiniband/mb2 ]"
point "both perftest processes killed and gone" gone_when_killed 60

# 3. The netdev goes under a kernel stream.
setup 3
ktap_result "third pair" $?
insmod "$TEST_KO" a=ma3 b=mb3 count=1000000 timeout_ms=3000 >/dev/null 2>&1 &
PIDS=($!)
ktap_check "kernel stream moving data" \
	wait_for 60 sh -c "[ \$(rdma statistic show link ma3/1 | tr ' ' '\n' |
		grep -A1 -x tx_packets | tail -n 1) -gt 1000 ]"
ip -n a3 link del va
ktap_check "netdev deleted under kernel traffic: both devices gone" \
	wait_for 30 sh -c "[ ! -e /sys/class/infiniband/ma3 ] && [ ! -e /sys/class/infiniband/mb3 ]"
point "the test module's insmod returns" exited 60
rmmod metaroce_rc_test 2>/dev/null

# 4. The module goes under a user stream (ib_core disassociates the processes).
setup 4 && stream 4
ktap_result "fourth pair streaming" $?
ktap_check "module unload under traffic" timeout 60 modprobe -r metaroce
point "both perftest processes killed and gone" gone_when_killed 60
ktap_check "module gone, devices gone" \
	sh -c '! grep -q "^metaroce " /proc/modules && [ ! -e /sys/class/infiniband/ma4 ]'
RDMA_LINKS=()
ktap_finish
