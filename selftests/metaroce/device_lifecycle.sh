#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: life cycle of MetaRoCE devices.
#
#   rdma link add/delete, the GIDs ib_core derives from the netdev's
#   addresses (RoCE v2), port state following carrier, MTU, counters,
#   teardown on netdev deletion and on a move to another namespace, module
#   unload with devices present, devices in two network namespaces and
#   teardown with their namespace.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/device_lifecycle.sh
# The VM harness fails the run on any kernel WARNING, BUG, KASAN or lockdep
# report, which is part of what this test checks.
#
# Output is TAP; the exit status is non-zero if any test fails.

# shellcheck source=selftests/metaroce/lib.sh
. "$(dirname "$0")/lib.sh"
require_vm

dev_exists() { [ -e "/sys/class/infiniband/$1" ]; }
dev_gone() { ! dev_exists "$1"; }
port_state() { cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null; }
port_active() { port_state "$1" | grep -q ACTIVE; }
port_down() { port_state "$1" | grep -q DOWN; }
has_gid() { # has_gid DEV GID: GID in the table with type RoCE v2
	local port=/sys/class/infiniband/$1/ports/1 f files
	files=$(grep -lx "$2" "$port"/gids/* 2>/dev/null)
	while read -r f; do
		[ -n "$f" ] || continue
		[ "$(cat "$port/gid_attrs/types/${f##*/}")" = "RoCE v2" ] && return 0
	done <<<"$files"
	echo "no RoCE v2 GID $2 on $1:"
	grep -vx '0000:0000:0000:0000:0000:0000:0000:0000' "$port"/gids/*
	return 1
}
debugfs_field() { # debugfs_field DEV FIELD
	sed -n "s/^$2:\t//p" "/sys/kernel/debug/metaroce/$1/info"
}
link_add_fails() { ! rdma link add "$1" type metaroce netdev "$2" 2>/dev/null; }
counters_listed() {
	local out c
	out=$(rdma statistic show link "$1/1") || return 1
	for c in tx_packets rx_packets tx_bytes rx_bytes retrans_fast retrans_timeout \
		 sack_tx sack_rx rx_duplicate rx_out_of_window ecn_marked_rx ecn_echoed_tx \
		 path_changes rx_malformed_dropped rnr_nak_tx rnr_nak_rx nak_tx nak_rx; do
		grep -qw "$c 0" <<<"$out" || { echo "missing '$c 0' in: $out"; return 1; }
	done
}
payload_mtu_is() { [ "$(debugfs_field "$1" payload_mtu)" = "$2" ]; }
netns_inode() { ip netns exec "$1" readlink /proc/self/ns/net | tr -dc 0-9; }
dev_in_netns() { [ "$(debugfs_field "$1" netns)" = "$(netns_inode "$2")" ]; }

lifecycle_cleanup() {
	rdma link delete mr0 2>/dev/null
	ip link del v0 2>/dev/null
	ip link del w1 2>/dev/null
	ip link del x1 2>/dev/null
	ip netns del mrns_a 2>/dev/null
	ip netns del mrns_b 2>/dev/null
	ip netns del mrns_c 2>/dev/null
	metaroce_unload 2>/dev/null
	cleanup
}
trap lifecycle_cleanup EXIT

ktap_plan 26

ktap_check "module loads" metaroce_load

ip link add v0 type veth peer name v1
ip link set v0 up
ip link set v1 up
ip addr add 10.9.9.1/24 dev v0
ip addr add 2001:db8:9::1/64 dev v0 nodad

ktap_check "rdma link add on a veth" rdma link add mr0 type metaroce netdev v0
ktap_check "rdma link show: mr0/1 on netdev v0" \
	bash -c 'rdma link show mr0/1 | grep -q "netdev v0"'
ktap_check "second device on the same netdev refused" link_add_fails mr1 v0
# A VLAN's addresses are GIDs of the device on its real netdev (ib_core's choice); a device
# on the VLAN itself would have none of them.
vlan_add() {
	modprobe 8021q && ip link add link v0 name v0.100 type vlan id 100 &&
		ip addr add 10.9.7.1/24 dev v0.100 && ip link set v0.100 up
}
vlan_refused() { vlan_add && link_add_fails mr1 v0.100 && dmesg | grep -q 'mr1: v0.100 is a VLAN'; }
ktap_check "a device on a VLAN refused, and the log says why" vlan_refused
ktap_check "the VLAN's address is a GID of the device on its real netdev" \
	wait_for 5 has_gid mr0 0000:0000:0000:0000:0000:ffff:0a09:0701
ktap_check "IPv4 address as a RoCE v2 GID" wait_for 5 has_gid mr0 0000:0000:0000:0000:0000:ffff:0a09:0901
ktap_check "IPv6 address as a RoCE v2 GID" wait_for 5 has_gid mr0 2001:0db8:0009:0000:0000:0000:0000:0001
ip addr add 10.9.8.1/24 dev v0
ktap_check "address added later appears as a GID" wait_for 5 has_gid mr0 0000:0000:0000:0000:0000:ffff:0a09:0801
ktap_check "port ACTIVE with carrier" wait_for 5 port_active mr0

ip link set v1 down	# v0 loses carrier
ktap_check "port DOWN without carrier" wait_for 5 port_down mr0
ip link set v1 up
ktap_check "port ACTIVE when carrier returns" wait_for 5 port_active mr0

ktap_check "payload MTU 1500 - 112 = 1388" payload_mtu_is mr0 1388
ip link set v0 mtu 9000
ktap_check "payload MTU follows netdev MTU (9000 - 112 = 8888)" payload_mtu_is mr0 8888
ip link set v0 mtu 1500

ktap_check "rdma statistic show lists every counter at 0" counters_listed mr0

ktap_check "rdma link delete" rdma link delete mr0
ktap_check "device gone after delete" dev_gone mr0

rdma link add mr0 type metaroce netdev v0
ip link del v0
ktap_check "netdev deletion removes the device" wait_for 5 dev_gone mr0

ip link add v0 type veth peer name v1
ip link set v0 up
rdma link add mr0 type metaroce netdev v0
ip netns add mrns_c
ip link set v0 netns mrns_c
ktap_check "netdev moved to another namespace removes the device" wait_for 5 dev_gone mr0
ip netns del mrns_c

ip link add v0 type veth peer name v1
ip link set v0 up
rdma link add mr0 type metaroce netdev v0
ktap_check "module unload with a device present" metaroce_unload
ktap_check "device gone after module unload" dev_gone mr0
ip link del v0

# Two devices, each in its own namespace on its own veth (the other end
# stays in init_net: deleting a veth also deletes its peer).
metaroce_load
ip netns add mrns_a
ip netns add mrns_b
ip link add w0 type veth peer name w1
ip link add x0 type veth peer name x1
ip link set w0 netns mrns_a
ip link set x0 netns mrns_b
ip -n mrns_a addr add 10.9.7.1/24 dev w0
ip -n mrns_b addr add 10.9.7.2/24 dev x0
ip -n mrns_a link set w0 up
ip -n mrns_b link set x0 up
ip link set w1 up
ip link set x1 up

ktap_check "rdma link add in two namespaces" bash -c '
	ip netns exec mrns_a rdma link add mra type metaroce netdev w0 &&
	ip netns exec mrns_b rdma link add mrb type metaroce netdev x0'
both_in_own_netns() { dev_in_netns mra mrns_a && dev_in_netns mrb mrns_b; }
ktap_check "each device in the namespace of its netdev" both_in_own_netns
both_have_gids() {
	wait_for 5 has_gid mra 0000:0000:0000:0000:0000:ffff:0a09:0701 &&
	wait_for 5 has_gid mrb 0000:0000:0000:0000:0000:ffff:0a09:0702
}
ktap_check "GIDs from the addresses of each namespace" both_have_gids
ip netns del mrns_a
only_mra_gone() { wait_for 10 dev_gone mra && dev_exists mrb; }
ktap_check "namespace deletion removes its device only" only_mra_gone
ip netns del mrns_b
mrb_gone_and_unload() { wait_for 10 dev_gone mrb && metaroce_unload; }
ktap_check "module unloads after namespace teardown" mrb_gone_and_unload

ktap_finish
