#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: the software datapath (datapath_udp.c) and the first receive stage (rcv.c).
#
#   Segments from debugfs xmit_test reach the peer over IPv4 and IPv6, one UDP source port
#   per path, ECT(0) and DF set; malformed datagrams are counted per failed check and
#   dropped; a CE mark on the way is counted; two devices in one namespace share the port
#   and each gets its own packets, also over lo; a QP sending from a VLAN's address (a GID
#   of the device below) goes through the VLAN both ways, also through rdma_cm; a device on
#   a VRF slave receives (IPv4, IPv6; with udp_l3mdev_accept) and sends through the VRF,
#   also when two VRFs' addresses overlap, and serves the VRF device's own address; a QP at
#   a bridge's address gets what comes through the bridge, and rdma_cm reaches a bridge over
#   a VLAN; deleting devices and unloading the module while packets flow leaves no device
#   and no socket behind.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/datapath.sh
# The harness fails the run on any kernel WARNING, BUG, KASAN or lockdep report.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

PORT=4793
PY=/usr/bin/python3
SNIFF=/tmp/datapath-sniff.$$

# xmit NODE DEV "ADDR SPORT COUNT [PATHS]": send test segments from DEV. The write is done
# from here: "ip netns exec" remounts /sys without debugfs, and DEV sends from its own
# namespace whoever writes.
xmit() {
	echo "$3" >"/sys/kernel/debug/metaroce/$2/xmit_test"
}

# rises DEV NAME N CMD...: CMD makes counter NAME of DEV rise by exactly N.
rises() {
	local dev=$1 name=$2 want=$3 before after _
	shift 3
	before=$(counter "$dev" "$name")
	"$@" || return
	for _ in $(seq 50); do
		after=$(counter "$dev" "$name")
		[ $((after - before)) -ge "$want" ] && break
		sleep 0.1
	done
	sleep 0.2
	after=$(counter "$dev" "$name")
	[ $((after - before)) -eq "$want" ] && return 0
	echo "$dev $name went from $before to $after, expected +$want"
	return 1
}

# The sniffer: prints "SPORT ECN DF" for each UDP datagram to $PORT seen on an interface.
cat >"$SNIFF.py" <<'EOF'
import socket, struct, sys
ifname, count, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((ifname, 0))
s.settimeout(10)
print("ready", flush=True)
seen = 0
while seen < count:
    f = s.recv(65535)
    et = struct.unpack("!H", f[12:14])[0]
    if et == 0x0800 and f[23] == 17:
        ihl = (f[14] & 15) * 4
        tos, df = f[15], (struct.unpack("!H", f[20:22])[0] >> 14) & 1
        udp = f[14 + ihl:]
    elif et == 0x86dd and f[20] == 17:
        tos, df = (struct.unpack("!H", f[14:16])[0] >> 4) & 0xff, 1
        udp = f[54:]
    else:
        continue
    sport, dport = struct.unpack("!HH", udp[:4])
    if dport == port:
        print(sport, tos & 3, df, flush=True)
        seen += 1
EOF

# The bad sender: one datagram of a kind to ADDR:PORT.
cat >"$SNIFF.bad.py" <<'EOF'
import socket, struct, sys
addr, port, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def crc32c(data):
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff
body = bytearray(40)
body[0], body[1] = 1, 0x01          # version 1, SEND
if kind == "short":
    pkt = bytes(10)
elif kind == "version":
    body[0] = 2
    pkt = bytes(body) + struct.pack("!I", crc32c(body))
elif kind == "icrc":
    pkt = bytes(body) + struct.pack("!I", crc32c(body) ^ 1)
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
socket.socket(fam, socket.SOCK_DGRAM).sendto(pkt, (addr, port))
EOF

datapath_cleanup() {
	rm -f "$SNIFF" "$SNIFF".* /tmp/datapath-add.$$
	[ -n "${FLOOD:-}" ] && kill "$FLOOD" 2>/dev/null
	cleanup
}
trap datapath_cleanup EXIT

# sniff NODE IF COUNT CMD...: run CMD while sniffing COUNT datagrams on IF; leaves them in
# $SNIFF.out.
sniff() {
	local node=$1 dev=$2 count=$3 pid _
	shift 3
	on "$node" "$PY" "$SNIFF.py" "$dev" "$count" "$PORT" >"$SNIFF.out" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		grep -q ready "$SNIFF.out" 2>/dev/null && break
		sleep 0.1
	done
	"$@" || return
	wait "$pid" || { cat "$SNIFF.out"; return 1; }
	sed -i '/^ready$/d' "$SNIFF.out"
}

paths_distinct() { # paths_distinct N: N distinct source ports among the sniffed datagrams
	[ "$(cut -d' ' -f1 "$SNIFF.out" | sort -u | wc -l)" -eq "$1" ] || { cat "$SNIFF.out"; return 1; }
}
all_ect0() { # every sniffed datagram ECT(0) (ECN field 2) and, for IPv4, DF
	! grep -qv ' 2 1$' "$SNIFF.out" || { cat "$SNIFF.out"; return 1; }
}

bad() { on b "$PY" "$SNIFF.bad.py" "$1" "$PORT" "$2"; }

no_port_socket() { # no UDP socket on $PORT in any node
	local node
	for node in - a b; do
		[ -z "$(on "$node" ss -Hlun "sport = :$PORT")" ] || { on "$node" ss -lun; return 1; }
	done
}

ktap_plan 33

node_add a
node_add b
link_add a eth0 10.0.0.1 b eth0 10.0.0.2
link_add a eth1 10.0.1.1 b eth1 10.0.1.2
ip -n a addr add fd00::1/64 dev eth0 nodad
ip -n b addr add fd00::2/64 dev eth0 nodad
add_devices() { rdma_add metaroce mra a eth0 && rdma_add metaroce mrb b eth0 &&
	rdma_add metaroce mrb2 b eth1; }
# Not in a subshell: cleanup must see RDMA_LINKS.
if add_devices >/tmp/datapath-add.$$ 2>&1; then
	ktap_ok "devices on both nodes, and a second one on b"
else
	sed 's/^/# /' /tmp/datapath-add.$$
	ktap_fail "devices on both nodes, and a second one on b"
fi
socks_in_b() { [ "$(on b ss -Hlun "sport = :$PORT" | wc -l)" -eq 2 ] || on b ss -lun; }
ktap_check "one UDP socket per family on port $PORT in b for its two devices" socks_in_b

ktap_check "IPv4: 12 segments from a arrive at b" \
	rises mrb dp_rx_packets 12 sniff b eth0 12 xmit a mra "10.0.0.2 50000 12 4"
ktap_check "IPv4: four paths, four UDP source ports" paths_distinct 4
ktap_check "IPv4: ECT(0) and DF on every segment" all_ect0
ktap_check "valid segments without a QP are counted as no connection" \
	rises mrb rx_no_conn_dropped 5 xmit a mra "10.0.0.2 50000 5"
ktap_check "a counts what it sent" rises mra dp_tx_packets 7 xmit a mra "10.0.0.2 50100 7 7"

ipv6_paths() {
	rises mrb dp_rx_packets 6 sniff b eth0 6 xmit a mra "fd00::2 51000 6 3" &&
		paths_distinct 3 && all_ect0
}
ktap_check "IPv6: 6 segments over 3 paths arrive at b with ECT(0)" ipv6_paths

ktap_check "a truncated datagram is counted as short and dropped" \
	rises mrb rx_err_short 1 bad 10.0.0.2 short
ktap_check "a bad version is counted and dropped" rises mrb rx_err_version 1 bad 10.0.0.2 version
ktap_check "a bad ICRC is counted and dropped" rises mrb rx_err_icrc 1 bad fd00::2 icrc
malformed_is() { [ "$(counter mrb rx_malformed_dropped)" -eq "$1" ] || counter mrb rx_malformed_dropped; }
ktap_check "each of the three is malformed" malformed_is 3

# CE on the path: a pedit action on a's egress rewrites the ECN field, csum fixes the header.
if modprobe act_pedit 2>/dev/null && modprobe act_csum 2>/dev/null &&
   modprobe cls_u32 2>/dev/null && on a tc qdisc add dev eth0 clsact 2>/dev/null &&
   on a tc filter add dev eth0 egress protocol ip u32 match ip protocol 17 0xff \
	action pedit ex munge ip tos set 3 pipe action csum ip 2>/dev/null; then
	ktap_check "CE marked on the path is reported" \
		rises mrb ecn_marked_rx 4 xmit a mra "10.0.0.2 52000 4 2"
	on a tc qdisc del dev eth0 clsact
else
	ktap_skip "CE marked on the path is reported" "no tc pedit/csum actions"
fi

ktap_check "two devices in b: segments for eth1's address go to mrb2" \
	rises mrb2 dp_rx_packets 5 xmit a mra "10.0.1.2 53000 5"
ktap_check "device to device in one namespace, over lo" \
	rises mrb2 dp_rx_packets 3 xmit b mrb "10.0.1.2 53000 3"
ktap_check "a device to itself" rises mrb dp_rx_packets 4 xmit b mrb "10.0.0.2 53000 4 2"

# A VLAN on each eth0: ib_core puts its addresses in the GID table of the device below, and a
# QP whose source GID is one sends through the VLAN and gets what arrives through it.
vlan_setup() {
	local n
	modprobe 8021q || return
	for n in a:1 b:2; do
		ip -n "${n%%:*}" link add link eth0 name eth0.100 type vlan id 100 &&
			ip -n "${n%%:*}" addr add "10.100.0.${n#*:}/24" dev eth0.100 &&
			ip -n "${n%%:*}" addr add "fd64::${n#*:}/64" dev eth0.100 nodad &&
			ip -n "${n%%:*}" link set eth0.100 up || return
	done
}
# gid_pingpong DEV_A ADDR_A DEV_B ADDR_B PORT: ibv_rc_pingpong from DEV_A's GID of ADDR_A in a
# to DEV_B's of ADDR_B in b, the programs' exchange over b's 10.0.0.2: 100 messages of 4 KiB.
# shellcheck disable=SC2317 # called through the checks below
gid_pingpong() {
	local ga gb pid rc=0 f
	use_build_provider
	ga=$(gid_index "$1" "$2") && gb=$(gid_index "$3" "$4") || return
	on_bg b timeout 60 ibv_rc_pingpong -d "$3" -g "$gb" -p "$5" -n 100 -s 4096 \
		>"$SNIFF.pp1" 2>&1
	pid=$!
	wait_listen b "$5" "$pid" || return
	on a timeout 50 ibv_rc_pingpong -d "$1" -g "$ga" -p "$5" -n 100 -s 4096 10.0.0.2 \
		>"$SNIFF.pp2" 2>&1 || rc=1
	wait "$pid" || rc=1
	for f in "$SNIFF".pp[12]; do
		grep -q 'iters in' "$f" || { rc=1; sed 's/^/# /' "$f"; }
	done
	return "$rc"
}
# received_through NETDEV N CMD...: CMD succeeds and b's NETDEV receives N packets or more
# meanwhile (the data came in through it).
# shellcheck disable=SC2317 # called through the checks below
received_through() {
	local ndev=$1 want=$2 before after rc=0
	shift 2
	before=$(on b cat "/sys/class/net/$ndev/statistics/rx_packets")
	"$@" || rc=1
	after=$(on b cat "/sys/class/net/$ndev/statistics/rx_packets")
	[ $((after - before)) -ge "$want" ] || { echo "# b's $ndev received $((after - before))"; rc=1; }
	return "$rc"
}
# vlan_pingpong ADDR_A ADDR_B: from a's VLAN address to b's; b's eth0.100 must have received
# the data (tagged).
# shellcheck disable=SC2317 # called through ktap_check
vlan_pingpong() {
	received_through eth0.100 100 gid_pingpong mra "$1" mrb "$2" 18602
}
# vlan_rping ADDR: rdma_cm to b's ADDR, whose GID entry has a VLAN: ib_core finds the GID a
# request was sent to by its address and the VLAN the completion reports.
# shellcheck disable=SC2317 # called through ktap_check
vlan_rping() {
	local pid rc=0 pings
	use_build_provider
	gid_index mrb "$1" >/dev/null || return
	on_bg b timeout 60 rping -s -a "$1" -p 7100 -C 10 >"$SNIFF.vl1" 2>&1
	pid=$!
	wait_listen b 7100 "$pid" || return
	pings=$(on a timeout 50 rping -c -a "$1" -p 7100 -C 10 -v 2>"$SNIFF.vl2" |
		grep -c '^ping data: ')
	wait "$pid" || rc=1
	[ "$pings" -eq 10 ] || { rc=1; echo "# $pings pings"; sed 's/^/# /' "$SNIFF".vl[12]; }
	return "$rc"
}
vlan_checks=("a QP whose source GID is a VLAN's sends and receives through it"
	     "... the same over IPv6" "rping over rdma_cm to a VLAN's address")
vlan_ok=
if vlan_setup; then
	vlan_ok=1
	ktap_check "${vlan_checks[0]}" vlan_pingpong 10.100.0.1 10.100.0.2
	ktap_check "${vlan_checks[1]}" vlan_pingpong fd64::1 fd64::2
	ktap_check "${vlan_checks[2]}" vlan_rping 10.100.0.2
else
	for c in "${vlan_checks[@]}"; do ktap_fail "$c"; done
fi

# b's eth1 enslaved to a VRF: the device's socket, bound to no device, takes what arrives
# through the VRF once udp_l3mdev_accept allows it (the admin guide), and its packets leave
# through the VRF's table. mra2, on a's eth1, is the other end.
vrf_setup() {
	modprobe vrf && rdma_add metaroce mra2 a eth1 &&
		on b ip link add blue type vrf table 10 && on b ip link set blue up &&
		on b ip link set eth1 master blue && on b sysctl -qw net.ipv4.udp_l3mdev_accept=1 &&
		ip -n a addr add fd01::1/64 dev eth1 nodad &&
		ip -n b addr add fd01::2/64 dev eth1 nodad	# after: enslaving cycles the link
}
vrf_checks=("a device on a VRF slave receives (udp_l3mdev_accept=1)"
	    "... and sends through the VRF's table" "... and receives over IPv6 (the same sysctl)")
vrf_ok=
if vrf_setup; then
	vrf_ok=1
	ktap_check "${vrf_checks[0]}" rises mrb2 dp_rx_packets 5 xmit a mra2 "10.0.1.2 55000 5"
	ktap_check "${vrf_checks[1]}" rises mra2 dp_rx_packets 3 xmit b mrb2 "10.0.1.1 55000 3"
	ktap_check "${vrf_checks[2]}" rises mrb2 dp_rx_packets 4 xmit a mra2 "fd01::2 55000 4"
else
	for c in "${vrf_checks[@]}"; do ktap_fail "$c"; done
fi
# An address on the VRF device itself is a GID of the device on its slave (ib_core adds an
# upper device's addresses), and its datagrams come to that device.
vrf_addr_setup() {
	on b ip addr add 10.9.9.2/32 dev blue && ip -n a route add 10.9.9.2/32 via 10.0.1.2
}
vrf_addr_check="a QP whose GID is the VRF device's own address sends and receives"
if [ -n "$vrf_ok" ] && vrf_addr_setup; then
	ktap_check "$vrf_addr_check" gid_pingpong mra2 10.0.1.1 mrb2 10.9.9.2 18603
else
	ktap_fail "$vrf_addr_check"
fi

# A second VRF in b, red, on a link to a third node c, with blue's addresses: the address
# spaces overlap. Each device gets what arrives through its own VRF, whichever of the two
# addresses a lookup in the whole namespace would find first, and a device sends to its own
# address through its VRF.
overlap_setup() {
	node_add c && link_add c eth0 10.0.1.1 b eth2 10.0.1.2 &&
		link_add c eth1 10.0.2.1 b eth3 10.0.2.2 &&
		rdma_add metaroce mrc c eth0 && rdma_add metaroce mrb3 b eth2 &&
		on b ip link add red type vrf table 20 && on b ip link set red up &&
		on b ip link set eth2 master red &&
		ip -n c addr add fd01::1/64 dev eth0 nodad &&
		ip -n b addr add fd01::2/64 dev eth2 nodad
}
overlap_checks=("overlapping VRFs: red's device gets what comes through red"
		"... and blue's what comes through blue" "... the same over IPv6"
		"a device in a VRF sends to its own address through the VRF"
		"ibv_rc_pingpong -c through each of the two VRFs at once")
# One connection through each VRF, the programs' exchanges over the main tables (b's
# 10.0.0.2 and 10.0.2.2): mra2 with blue's mrb2, mrc with red's mrb3.
# shellcheck disable=SC2317 # called through ktap_check
overlap_pingpong() {
	local ga gc gb2 gb3 pids=() pid rc=0 f
	use_build_provider
	ga=$(gid_index mra2 10.0.1.1) && gc=$(gid_index mrc 10.0.1.1) &&
		gb2=$(gid_index mrb2 10.0.1.2) && gb3=$(gid_index mrb3 10.0.1.2) || return
	on_bg b timeout 60 ibv_rc_pingpong -d mrb2 -g "$gb2" -p 18600 -n 200 -s 4096 -c \
		>"$SNIFF.pp1" 2>&1
	pids+=($!)
	on_bg b timeout 60 ibv_rc_pingpong -d mrb3 -g "$gb3" -p 18601 -n 200 -s 4096 -c \
		>"$SNIFF.pp2" 2>&1
	pids+=($!)
	wait_listen b 18600 "${pids[0]}" && wait_listen b 18601 "${pids[1]}" || return
	on_bg a timeout 50 ibv_rc_pingpong -d mra2 -g "$ga" -p 18600 -n 200 -s 4096 -c \
		10.0.0.2 >"$SNIFF.pp3" 2>&1
	pids+=($!)
	on_bg c timeout 50 ibv_rc_pingpong -d mrc -g "$gc" -p 18601 -n 200 -s 4096 -c \
		10.0.2.2 >"$SNIFF.pp4" 2>&1
	pids+=($!)
	for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
	for f in "$SNIFF".pp[1-4]; do
		grep -q 'iters in' "$f" || { rc=1; sed 's/^/# /' "$f"; }
	done
	return "$rc"
}
if [ -n "$vrf_ok" ] && overlap_setup; then
	ktap_check "${overlap_checks[0]}" rises mrb3 dp_rx_packets 5 xmit c mrc "10.0.1.2 56000 5"
	ktap_check "${overlap_checks[1]}" rises mrb2 dp_rx_packets 4 xmit a mra2 "10.0.1.2 56000 4"
	overlap_ipv6() {
		rises mrb3 dp_rx_packets 3 xmit c mrc "fd01::2 56000 3" &&
			rises mrb2 dp_rx_packets 2 xmit a mra2 "fd01::2 56000 2"
	}
	ktap_check "${overlap_checks[2]}" overlap_ipv6
	ktap_check "${overlap_checks[3]}" rises mrb3 dp_rx_packets 2 xmit b mrb3 "10.0.1.2 56000 2"
	ktap_check "${overlap_checks[4]}" overlap_pingpong
else
	for c in "${overlap_checks[@]}"; do ktap_fail "$c"; done
fi
for l in a:mra2 c:mrc b:mrb3; do on "${l%%:*}" rdma link delete "${l#*:}" 2>/dev/null; done

# b's eth4 a port of a bridge that holds its addresses: they are GIDs of the device on the
# port, and what a QP receives at one comes in through the bridge.
bridge_setup() {
	modprobe bridge && link_add a eth2 10.0.3.1 b eth4 10.0.3.2 &&
		ip -n b addr flush dev eth4 && on b ip link add br0 type bridge &&
		on b ip link set eth4 master br0 && on b ip link set br0 up &&
		ip -n b addr add 10.0.3.2/24 dev br0 && ip -n b addr add fd03::2/64 dev br0 nodad &&
		ip -n a addr add fd03::1/64 dev eth2 nodad &&
		rdma_add metaroce mra3 a eth2 && rdma_add metaroce mrb4 b eth4
}
bridge_checks=("a QP whose GID is a bridge's, the device on its port, gets what comes through it"
	       "... the same over IPv6")
bridge_ok=
if bridge_setup; then
	bridge_ok=1
	ktap_check "${bridge_checks[0]}" received_through br0 100 \
		gid_pingpong mra3 10.0.3.1 mrb4 10.0.3.2 18604
	ktap_check "${bridge_checks[1]}" received_through br0 100 \
		gid_pingpong mra3 fd03::1 mrb4 fd03::2 18605
else
	for c in "${bridge_checks[@]}"; do ktap_fail "$c"; done
fi
for l in a:mra3 b:mrb4; do on "${l%%:*}" rdma link delete "${l#*:}" 2>/dev/null; done

# A bridge over a VLAN in b (br1 over eth0.300): its addresses are GIDs of mrb whose VLAN is
# the bridge's lower device's, and a UD completion must report it for rdma_cm to find them.
brvlan_setup() {
	local n
	for n in a b; do
		ip -n "$n" link add link eth0 name eth0.300 type vlan id 300 &&
			ip -n "$n" link set eth0.300 up || return
	done
	ip -n a addr add 10.30.0.1/24 dev eth0.300 && on b ip link add br1 type bridge &&
		on b ip link set eth0.300 master br1 && on b ip link set br1 up &&
		ip -n b addr add 10.30.0.2/24 dev br1
}
brvlan_check="rping over rdma_cm to a bridge's address, the bridge over a VLAN"
if [ -n "$bridge_ok" ] && [ -n "$vlan_ok" ] && brvlan_setup; then
	ktap_check "$brvlan_check" vlan_rping 10.30.0.2
else
	ktap_fail "$brvlan_check"
fi

# Traffic in both directions while the devices go, then the module.
(
	while :; do
		xmit a mra "10.0.0.2 54000 200 8" 2>/dev/null
		xmit b mrb "10.0.0.1 54000 200 8" 2>/dev/null
		on b "$PY" "$SNIFF.bad.py" 10.0.0.2 "$PORT" icrc 2>/dev/null
	done
) &
FLOOD=$!
sleep 1
on b rdma link delete mrb
sleep 0.5
on a rdma link delete mra
sleep 0.5
kill "$FLOOD"
wait "$FLOOD" 2>/dev/null
FLOOD=
RDMA_LINKS=()
unload() { on b rdma link delete mrb2 && modprobe -r metaroce && ! grep -q '^metaroce ' /proc/modules; }
ktap_check "the last device goes and the module unloads" unload
ktap_check "no UDP socket left on port $PORT" no_port_socket

ktap_finish
