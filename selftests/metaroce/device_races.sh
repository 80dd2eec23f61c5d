#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: device creation racing with its teardown paths.
#
#   rdma link add against deletion of the netdev, against deletion of the
#   netdev's namespace, and against module unload; link add/delete loops on
#   several netdevs at once. After each round no device may be left behind,
#   and the kernel must log no warning (the VM harness fails the run on one).
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/device_races.sh
# Output is TAP; the exit status is non-zero if a test failed.

# shellcheck source=selftests/metaroce/lib.sh
. "$(dirname "$0")/lib.sh"
require_vm

ROUNDS=${ROUNDS:-20}

leftovers() {
	local d
	for d in /sys/class/infiniband/mrr*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}
no_devices() { # no_devices: none left; else names them
	local left
	left=$(leftovers)
	[ -z "$left" ] && return 0
	echo "left behind: ${left//$'\n'/ }"
	return 1
}
# The rdma tool finds a device's index with a dump of all devices, which can
# miss one while others come and go ("Wrong device name"): retry.
link_delete() {
	local _
	for _ in 1 2 3 4 5; do
		rdma link delete "$1" && return 0
		sleep 0.1
	done
	return 1
}

races_cleanup() {
	local d
	for d in $(leftovers); do rdma link delete "$d"; done
	for d in $(ip -o link show | sed -n 's/^[0-9]*: \(rv[0-9]*\)@.*/\1/p'); do ip link del "$d"; done
	for d in $(ip netns list | sed -n 's/^\(mrrns[0-9]*\).*/\1/p'); do ip netns del "$d"; done
	modprobe -r metaroce 2>/dev/null
	cleanup
}
trap races_cleanup EXIT

ktap_plan 5
modprobe metaroce

# 1: link add against netdev deletion.
for i in $(seq "$ROUNDS"); do
	ip link add "rv$i" type veth peer name "rw$i"
	ip link set "rv$i" up
	rdma link add "mrr$i" type metaroce netdev "rv$i" 2>/dev/null &
	ip link del "rv$i"
	wait
done
ktap_check "link add racing netdev deletion leaves no device" wait_for 10 no_devices

# 2: link add in a namespace against deletion of the namespace.
for i in $(seq "$ROUNDS"); do
	ip netns add "mrrns$i"
	ip -n "mrrns$i" link add "rv$i" type veth peer name "rw$i"
	ip -n "mrrns$i" link set "rv$i" up
	ip netns exec "mrrns$i" rdma link add "mrr$i" type metaroce netdev "rv$i" 2>/dev/null &
	ip netns del "mrrns$i"
	wait
done
ktap_check "link add racing namespace deletion leaves no device" wait_for 20 no_devices

# 3: link add/delete loops on four netdevs at once.
for j in 1 2 3 4; do
	ip link add "rv$j" type veth peer name "rw$j"
	ip link set "rv$j" up
	(
		for _ in $(seq "$ROUNDS"); do
			rdma link add "mrr$j" type metaroce netdev "rv$j" &&
				link_delete "mrr$j"
		done
	) 2>/dev/null &
done
wait
ktap_check "concurrent add/delete loops leave no device" wait_for 10 no_devices

# 4: netdev deletion while devices on other netdevs come and go.
(
	for _ in $(seq "$ROUNDS"); do
		rdma link add mrr1 type metaroce netdev rv1 && link_delete mrr1
	done
) 2>/dev/null &
for j in 2 3 4; do
	rdma link add "mrr$j" type metaroce netdev "rv$j"
	ip link del "rv$j"
done
wait
ktap_check "netdev deletion beside add/delete loops leaves no device" wait_for 10 no_devices

# 5: module unload against link add.
for j in 2 3 4; do
	ip link add "rv$j" type veth peer name "rw$j"
	ip link set "rv$j" up
done
(
	for _ in $(seq "$ROUNDS"); do
		for j in 1 2 3 4; do
			rdma link add "mrr$j" type metaroce netdev "rv$j"
		done
	done
) 2>/dev/null &
loader=$!
for _ in $(seq 5); do
	sleep 0.3
	modprobe -r metaroce 2>/dev/null
	modprobe metaroce
done
wait "$loader"
unloads_leaving_nothing() {
	local rc=0
	modprobe -r metaroce || rc=1
	no_devices || rc=1
	if grep -q '^metaroce ' /proc/modules; then
		echo "metaroce is still loaded"
		rc=1
	fi
	return "$rc"
}
ktap_check "module unload racing link add: unloads, no device left" unloads_leaving_nothing

ktap_finish
