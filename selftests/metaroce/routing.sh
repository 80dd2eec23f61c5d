#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# VM selftest: MetaRoCE connections across routers.
#
# Topology A, a route change on the host: nodes a and b sit on two LANs (a bridge in a switch
# namespace each) joined by two routers r1 and r2; a and b route through one of them.
#
#	a --- s1 ---+--- r1 ---+--- s2 --- b
#	            +--- r2 ---+
#
#  - a stream through r1 follows a route change on both hosts to r2 and outlives r1 turning
#    into a black hole (IPv4 and IPv6): the routes the software datapath keeps per path are
#    looked up again once the FIB changes.
#  - with a multipath route over r1 and r2 on a (hashed by the ports), one connection's
#    paths leave a through both routers (IPv4 and IPv6); the same with a's netdev in a VRF
#    and the route in the VRF's table.
#
# Topology B, an ECMP fabric: c and d each hang off a router (rc, rd) that spreads over two
# spine routers r3 and r4 by an L4 hash (fib_multipath_hash_policy 1), as switches do.
#
#	c --- rc ===(r3, r4)=== rd --- d
#
#  - one connection's paths (UDP source ports) spread over both spines, and when one spine
#    turns into a black hole under the stream (routing does not notice), the connection
#    moves its traffic to the paths through the other and the stream completes: the spine
#    that carried less of it, and the one that carried more.
#  - a ping-pong (ib_write_lat: one message in flight each way) while one spine drops the
#    UDP packets from c to d (ARP still passes: the other way works): only tail-loss
#    probes find c's writes lost there, and their answers retire those paths at c, whose
#    ACKs then keep off them too; few round trips need a probe (before, every path kept
#    its share for good, and c's ACKs went on all of them: about half the round trips did).
#  - path MTU discovery: with the links behind the spines narrower than c's and d's, the
#    spines' ICMP answers shrink c's segments (IPv4 and IPv6), those of a QP under way too,
#    and they grow back when c forgets the MTU; no stream fails, not even behind a link
#    narrower than the path MTU, nor when c never hears the ICMP answers.
#
# Run as root inside the test VM:
#   tools/testing/vm/run -- selftests/metaroce/routing.sh

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/metaroce/lib.sh
. "$TOP/selftests/metaroce/lib.sh"
require_vm

use_build_provider
PATHS=16	# paths per connection: all on one router of two has odds 2^-15

ktap_header
ktap_plan 17

# switch_add NODE: a namespace with a bridge, br0.
switch_add() {
	node_add "$1"
	ip -n "$1" link add br0 type bridge &&
		ip -n "$1" link set br0 up
}

# port_add NODE IF ADDR4 ADDR6 SWITCH: NODE's interface IF, cabled to a port of SWITCH.
port_add() {
	local node=$1 ifn=$2 addr4=$3 addr6=$4 sw=$5 port
	NEXT_IFINDEX=$((NEXT_IFINDEX + 2))
	port=p$NEXT_IFINDEX
	ip link add "$ifn" index "$NEXT_IFINDEX" netns "$node" type veth \
		peer name "$port" index $((NEXT_IFINDEX + 1)) netns "$sw" &&
		ip -n "$sw" link set "$port" master br0 up &&
		ip -n "$node" addr add "$addr4/24" dev "$ifn" &&
		ip -n "$node" addr add "$addr6/64" dev "$ifn" nodad &&
		ip -n "$node" link set "$ifn" up
}

# wire A IFA B IFB N: a link between A and B on 10.2.N.0/24 and fd02:N::/64 (A is .1, B .2).
wire() {
	link_add "$1" "$2" "10.2.$5.1" "$3" "$4" "10.2.$5.2" &&
		ip -n "$1" addr add "fd02:$5::1/64" dev "$2" nodad &&
		ip -n "$3" addr add "fd02:$5::2/64" dev "$4" nodad
}

# route NODE NET4 NET6 HOP...: NODE's routes to NET4 and NET6 through each HOP, given as
# "IPV4-GATEWAY IPV6-GATEWAY" (several hops: an ECMP route).
route() {
	local node=$1 net4=$2 net6=$3 hop v4=() v6=()
	shift 3
	for hop in "$@"; do
		v4+=(nexthop via "${hop% *}")
		v6+=(nexthop via "${hop#* }")
	done
	ip -n "$node" route replace "$net4" "${v4[@]}" &&
		ip -n "$node" -6 route replace "$net6" "${v6[@]}"
}

router() { on "$1" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1; }

# forwarded R IF: packets router R sent out of IF (netlink: "ip netns exec" is slow in the VM).
forwarded() {
	ip -n "$1" -s -o link show dev "$2" |
		awk '{ for (i = 1; i <= NF; i++) if ($i == "TX:") { print $(i + 9); exit } }'
}

# blackhole R / mend R: R drops everything it would send out of eth0 and eth1, and the
# routing around it does not notice (a gray failure); then R forwards again.
blackhole() { netem "$1" eth0 loss 100% && netem "$1" eth1 loss 100%; }
mend() { on "$1" tc qdisc del dev eth0 root && on "$1" tc qdisc del dev eth1 root; }

# via N: a and b reach each other through router rN only (topology A).
via() {
	route a 10.1.2.0/24 fd02::/64 "10.1.1.$(($1 + 1)) fd01::$(($1 + 1))" &&
		route b 10.1.1.0/24 fd01::/64 "10.1.2.$(($1 + 1)) fd02::$(($1 + 1))"
}

topology_a() {
	local n
	node_add a
	node_add b
	switch_add s1 && switch_add s2 || return
	port_add a eth0 10.1.1.1 fd01::1 s1 && port_add b eth0 10.1.2.1 fd02::1 s2 || return
	for n in 1 2; do
		node_add "r$n"
		port_add "r$n" eth0 "10.1.1.$((n + 1))" "fd01::$((n + 1))" s1 &&
			port_add "r$n" eth1 "10.1.2.$((n + 1))" "fd02::$((n + 1))" s2 &&
			router "r$n" || return
	done
	via 1
}

topology_b() {
	local n
	for n in c d rc rd r3 r4; do
		node_add "$n"
	done
	wire c eth0 rc eth0 1 && wire rc eth1 r3 eth0 2 && wire rc eth2 r4 eth0 3 &&
		wire r3 eth1 rd eth1 4 && wire r4 eth1 rd eth2 5 && wire rd eth0 d eth0 6 || return
	# perftest's own TCP connection goes over a link of its own (c 10.2.7.1, d 10.2.7.2):
	# through the fabric the routers hash it onto one spine, and when that spine fails the
	# two ends wait on TCP retransmissions. Once (CI, 6.12) that outlasted the test's
	# timeout after every write of the stream had completed.
	wire c eth1 d eth1 7 || return
	for n in rc rd r3 r4; do
		router "$n" || return
	done
	for n in rc rd; do
		on "$n" sysctl -qw net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv6.fib_multipath_hash_policy=1 || return
	done
	route c 0.0.0.0/0 ::/0 "10.2.1.2 fd02:1::2" &&
		route d 0.0.0.0/0 ::/0 "10.2.6.1 fd02:6::1" &&
		route rc 10.2.6.0/24 fd02:6::/64 "10.2.2.2 fd02:2::2" "10.2.3.2 fd02:3::2" &&
		route rd 10.2.1.0/24 fd02:1::/64 "10.2.4.1 fd02:4::1" "10.2.5.1 fd02:5::1" &&
		route r3 10.2.1.0/24 fd02:1::/64 "10.2.2.1 fd02:2::1" &&
		route r3 10.2.6.0/24 fd02:6::/64 "10.2.4.2 fd02:4::2" &&
		route r4 10.2.1.0/24 fd02:1::/64 "10.2.3.1 fd02:3::1" &&
		route r4 10.2.6.0/24 fd02:6::/64 "10.2.5.2 fd02:5::2"
}

# Devices on a, b, c and d with $PATHS paths per connection; the module parameter is read
# when a device is created, so it is put back for later tests.
devices() {
	local param=/sys/module/metaroce/parameters/paths old rc=0
	metaroce_load || return
	old=$(cat "$param")
	echo "$PATHS" >"$param"
	rdma_add metaroce mra a eth0 && rdma_add metaroce mrb b eth0 &&
		rdma_add metaroce mrc c eth0 && rdma_add metaroce mrd d eth0 || rc=1
	echo "$old" >"$param"
	[ "$rc" -eq 0 ] && rdma_wait_active mra && rdma_wait_active mrb &&
		rdma_wait_active mrc && rdma_wait_active mrd
}

# Not in a subshell: cleanup must see RDMA_LINKS and NODES.
if topology_a >/tmp/routing-setup.$$ 2>&1 && topology_b >>/tmp/routing-setup.$$ 2>&1 &&
   devices >>/tmp/routing-setup.$$ 2>&1; then
	ktap_ok "both topologies, a device with $PATHS paths on each host"
else
	sed 's/^/# /' /tmp/routing-setup.$$
	ktap_fail "both topologies, a device with $PATHS paths on each host"
fi
rm -f /tmp/routing-setup.$$

# stream_start SRC DST ADDR_SRC ADDR_DST SERVER_IP [ARGS...]: ib_write_bw from SRC's device
# (the client, which writes) to DST's (mrSRC and mrDST, on nodes SRC and DST) with the GIDs of
# the addresses given; stream_wait waits for both sides.
STREAM_PIDS=()
stream_start() {
	local src=$1 dst=$2 gs gd ip=$5 port
	gs=$(gid_index "mr$src" "$3") && gd=$(gid_index "mr$dst" "$4") || return
	shift 5
	port=$(next_port)
	on_bg "$dst" timeout 90 ib_write_bw -d "mr$dst" -x "$gd" -p "$port" -F --report_gbits \
		"$@" >/tmp/routing-dst.$$ 2>&1
	STREAM_PIDS=($!)
	wait_listen "$dst" "$port" "${STREAM_PIDS[0]}" || return
	on_bg "$src" timeout 90 ib_write_bw -d "mr$src" -x "$gs" -p "$port" -F --report_gbits \
		"$@" "$ip" >/tmp/routing-src.$$ 2>&1
	STREAM_PIDS+=($!)
	STREAM_T0=$(cut -d' ' -f1 /proc/uptime)
}

# since_start WHAT: a line of a failing point's timeline, in seconds since the stream's
# client started (a stream that ended too soon: was it fast, or was the script late?).
since_start() {
	awk -v t0="$STREAM_T0" -v what="$*" '{ printf "# %.1f s after the client started: %s\n", $1 - t0, what }' \
		/proc/uptime >&2
}

stream_wait() {
	local pid rc=0
	for pid in "${STREAM_PIDS[@]}"; do
		wait "$pid" || rc=1
	done
	STREAM_PIDS=()
	# Their last lines only, the client's last: perftest's banners are the same every
	# time, and a long log loses its head where CI shows only part of it.
	if [ "$rc" -ne 0 ]; then
		tail -n 4 /tmp/routing-dst.$$ | sed 's/^/# server: /'
		tail -n 8 /tmp/routing-src.$$ | sed 's/^/# client: /'
	fi
	rm -f /tmp/routing-src.$$ /tmp/routing-dst.$$
	return "$rc"
}

# trace_start / trace_stop: record the connections' retransmissions and path changes
# (tracepoints) for one point; trace_summary: what they were, for a failing point. A
# stream that fails across a spine failure fails on timeouts: which paths did they try?
trace_start() {
	local e
	tracing_mount
	echo >"$TRACING/trace" || return
	for e in retransmit path_change; do
		echo 1 >"$TRACING/events/metaroce/metaroce_$e/enable" || return
	done
}
trace_stop() { echo 0 >"$TRACING/events/metaroce/enable"; }
trace_summary() {
	awk -v t0="$STREAM_T0" '
		/metaroce_(retransmit|path_change):/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/)
					t = substr($i, 1, length($i) - 1) - t0
		}
		/metaroce_retransmit:/ {
			c = $NF; sub("cause=", "", c); n[c]++
			if (c == "timeout")
				rto[++k] = sprintf("%.2f:%s", t, $(NF - 1))
		}
		/metaroce_path_change:.* down$/ { down++; last_down = sprintf("%.2f", t) }
		/metaroce_path_change:.* up$/ { up++ }
		END {
			printf "# trace: retransmissions"
			for (c in n)
				printf " %s=%d", c, n[c]
			printf "; paths down %d (last at %s s), up %d\n", down, last_down, up
			printf "# trace: timeout retransmissions (s after the client started:path):"
			for (i = (k > 24 ? k - 23 : 1); i <= k; i++)
				printf " %s", rto[i]
			printf "\n"
		}' "$TRACING/trace" >&2
}

# rises_by FROM N R IF: wait (30 s at most) until router R has sent N packets out of IF
# since it had sent FROM.
rises_by() {
	local from=$1 n=$2 _
	for _ in $(seq 60); do
		[ $(($(forwarded "$3" "$4") - from)) -ge "$n" ] && return 0
		sleep 0.5
	done
	echo "# $3 sent $(($(forwarded "$3" "$4") - from)) packets out of $4, not $n" >&2
	return 1
}

# A stream that outlives a failure: 600 writes of 64 KiB paced at 0.03 Gb/s by perftest
# one at a time (10.5 s, whatever the host's speed): still running when the failure comes.
PACED=(-n 600 --rate_limit_type=SW --rate_limit=0.03 --burst_size=1)

# still_running: the stream's client has not exited yet.
still_running() {
	kill -0 "${STREAM_PIDS[1]}" 2>/dev/null && return 0
	echo "# the stream had ended before the failure; its client's last lines:" >&2
	tail -n 3 /tmp/routing-src.$$ | sed 's/^/#   /' >&2
	return 1
}

# route_change ADDR_A ADDR_B: a stream from a to b through r1; both hosts' routes move to r2,
# then r1 drops everything. A datapath that kept sending on its old route would lose every
# packet from then on, and the stream would fail.
route_change() {
	local f1 f2 rc=0
	via 1 || return
	f1=$(forwarded r1 eth1)
	stream_start a b "$1" "$2" 10.1.2.1 "${PACED[@]}" || { stream_wait; return 1; }
	rises_by "$f1" 100 r1 eth1 || rc=1
	since_start "r1 forwarded 100 packets of it"
	f2=$(forwarded r2 eth1)
	via 2 || rc=1
	sleep 1
	blackhole r1 || rc=1
	since_start "routes moved to r2, r1 a black hole"
	still_running || rc=1
	stream_wait || rc=1
	mend r1
	rises_by "$f2" 300 r2 eth1 || rc=1
	return "$rc"
}
ktap_check "IPv4: a stream through r1 moves with the route to r2 and outlives r1" \
	route_change 10.1.1.1 10.1.2.1
ktap_check "IPv6: a stream through r1 moves with the route to r2 and outlives r1" \
	route_change fd01::1 fd02::1

# both_routers ADDR_A ADDR_B SERVER_IP: with a hashing by the ports, a stream from a to b
# (perftest's exchange with SERVER_IP) leaves a through r1 and through r2.
both_routers() {
	local f1 f2 d1 d2 rc=0
	on a sysctl -qw net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv6.fib_multipath_hash_policy=1 || return
	f1=$(forwarded r1 eth1)
	f2=$(forwarded r2 eth1)
	stream_start a b "$1" "$2" "$3" -n 200 || rc=1
	stream_wait || rc=1
	d1=$(($(forwarded r1 eth1) - f1))
	d2=$(($(forwarded r2 eth1) - f2))
	echo "# r1 forwarded $d1, r2 $d2 packets" >&2
	[ "$d1" -ge 500 ] && [ "$d2" -ge 500 ] || rc=1
	on a sysctl -qw net.ipv4.fib_multipath_hash_policy=0 \
		net.ipv6.fib_multipath_hash_policy=0
	return "$rc"
}

# host_multipath ADDR_A ADDR_B: a's own route to b's LAN is a multipath route over r1 and r2,
# hashed by the ports (b answers through r1): one connection's paths leave a through both
# next hops. A route lookup bound to a's netdev would take the first for every path.
host_multipath() {
	local rc=0
	if route a 10.1.2.0/24 fd02::/64 "10.1.1.2 fd01::2" "10.1.1.3 fd01::3" &&
	   route b 10.1.1.0/24 fd01::/64 "10.1.2.2 fd02::2"; then
		both_routers "$1" "$2" 10.1.2.1 || rc=1
	else
		rc=1
	fi
	via 1 || rc=1
	return "$rc"
}
ktap_check "IPv4: the host's own multipath route spreads one connection's paths" \
	host_multipath 10.1.1.1 10.1.2.1
ktap_check "IPv6: the host's own multipath route spreads one connection's paths" \
	host_multipath fd01::1 fd02::1

# The same with a's eth0 in a VRF and the multipath route in the VRF's table: a lookup bound
# to a VRF slave takes the first next hop as well. b answers through r1 (via 1). Topology A
# is not used after these (a's routes through its main table are gone); perftest's own
# exchange has a link of its own.
vrf_a() {
	modprobe vrf && wire a eth1 b eth1 8 &&
		on a ip link add blue type vrf table 10 && on a ip link set blue up &&
		on a ip link set eth0 master blue &&
		ip -n a addr add fd01::1/64 dev eth0 nodad &&	# enslaving cycles the link
		on a sysctl -qw net.ipv4.udp_l3mdev_accept=1 &&
		ip -n a route replace vrf blue 10.1.2.0/24 \
			nexthop via 10.1.1.2 nexthop via 10.1.1.3 &&
		ip -n a -6 route replace vrf blue fd02::/64 nexthop via fd01::2 nexthop via fd01::3
}
vrf_checks=("IPv4: a multipath route in a VRF's table spreads one connection's paths"
	    "IPv6: a multipath route in a VRF's table spreads one connection's paths")
if vrf_a >/tmp/routing-vrf.$$ 2>&1; then
	ktap_check "${vrf_checks[0]}" both_routers 10.1.1.1 10.1.2.1 10.2.8.2
	ktap_check "${vrf_checks[1]}" both_routers fd01::1 fd02::1 10.2.8.2
else
	sed 's/^/# /' /tmp/routing-vrf.$$
	for c in "${vrf_checks[@]}"; do ktap_fail "$c"; done
fi
rm -f /tmp/routing-vrf.$$

# spine_dies less|more ADDR_C ADDR_D: one connection's paths spread over both spines; then
# the spine that carried less (or more) of it drops everything, and the paths through the
# other carry the rest of the stream. Returns 2 if the stream had ended before that.
spine_dies() {
	local which=$1 f3 f4 d3 d4 dead live from rc=0
	shift
	f3=$(forwarded r3 eth1)
	f4=$(forwarded r4 eth1)
	trace_start || echo "# no tracepoints" >&2
	stream_start c d "$1" "$2" 10.2.7.2 "${PACED[@]}" || { stream_wait; trace_stop; return 1; }
	rises_by "$f3" 100 r3 eth1 && rises_by "$f4" 100 r4 eth1 || rc=1
	d3=$(($(forwarded r3 eth1) - f3))
	d4=$(($(forwarded r4 eth1) - f4))
	since_start "both spines forwarded 100 packets of it"
	dead=r4 live=r3
	if { [ "$which" = less ] && [ "$d3" -lt "$d4" ]; } ||
	   { [ "$which" = more ] && [ "$d3" -ge "$d4" ]; }; then
		dead=r3 live=r4
	fi
	echo "# r3 forwarded $d3, r4 $d4 packets; $dead fails" >&2
	blackhole "$dead" || rc=1
	since_start "$dead a black hole"
	from=$(forwarded "$live" eth1)
	if ! still_running; then
		stream_wait
		trace_stop
		mend "$dead"
		return 2
	fi
	stream_wait || rc=1
	trace_stop
	mend "$dead"
	rises_by "$from" 300 "$live" eth1 || rc=1
	rdma statistic show link mrc/1 | tr ' ' '\n' | paste - - |
		grep -E 'retrans|retire|timeout' | sed 's/^/# mrc: /' >&2
	[ "$rc" -eq 0 ] || trace_summary
	return "$rc"
}

# void_once CMD...: CMD, and once more if it returns 2: its stream had ended before the
# failure came, so the point tested nothing. perftest's pacer has let a stream run at six
# times its pace (testing.rst, "A thirty-eighth session").
void_once() {
	local rc=0
	"$@" || rc=$?
	[ "$rc" -eq 2 ] || return "$rc"
	echo "# the stream ended before the failure: once more" >&2
	"$@"
}
# IPv4 only: the spines hash IPv6 by the same ports, and the transport does not see the
# family.
ktap_check "ECMP: a stream spreads over both spines and outlives the lesser one" \
	void_once spine_dies less 10.2.1.1 10.2.6.2
ktap_check "ECMP: a stream outlives the spine that carried most of it" \
	void_once spine_dies more 10.2.1.1 10.2.6.2

# drop_udp NODE IF: NODE drops the IPv4 UDP packets it would send out of IF, nothing else
# (a spine that loses traffic one way: ARP still passes, so the other way keeps working).
drop_udp() {
	modprobe -a sch_prio cls_u32 act_gact &&
		on "$1" tc qdisc replace dev "$2" root handle 1: prio &&
		on "$1" tc filter add dev "$2" parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff action drop
}

# pingpong_one_way_dead: r4 drops the UDP packets it would send to rd (c to d), not the
# other way; ib_write_lat from c to d. About half of c's paths go through r4 (2^-16 odds
# that all sixteen do): its writes and its ACKs of d's writes die there, until c retires
# them.
pingpong_one_way_dead() {
	local n=20000 port gc gd pc pd c0 d0 pid pids=() rc=0
	gc=$(gid_index mrc 10.2.1.1) && gd=$(gid_index mrd 10.2.6.2) || return
	drop_udp r4 eth1 || return
	pc=$(counter mrc retrans_probe) pd=$(counter mrd retrans_probe)
	c0=$(counter mrc path_changes) d0=$(counter mrd path_changes)
	port=$(next_port)
	on_bg d timeout 90 ib_write_lat -d mrd -x "$gd" -p "$port" -F -n "$n" \
		>/tmp/routing-dst.$$ 2>&1
	pids=($!)
	if wait_listen d "$port" "${pids[0]}"; then
		on_bg c timeout 90 ib_write_lat -d mrc -x "$gc" -p "$port" -F -n "$n" 10.2.7.2 \
			>/tmp/routing-src.$$ 2>&1
		pids+=($!)
	else
		rc=1
	fi
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	pc=$(($(counter mrc retrans_probe) - pc)) pd=$(($(counter mrd retrans_probe) - pd))
	on r4 tc qdisc del dev eth1 root || rc=1
	if [ "$rc" -ne 0 ]; then
		sed 's/^/# client: /' /tmp/routing-src.$$
		sed 's/^/# server: /' /tmp/routing-dst.$$
	fi
	rm -f /tmp/routing-src.$$ /tmp/routing-dst.$$
	echo "# tail-loss probes in $n round trips, r4 dropping c to d: c $pc, d $pd;" \
		"path changes c $(($(counter mrc path_changes) - c0))," \
		"d $(($(counter mrd path_changes) - d0))" >&2
	[ "$rc" -eq 0 ] && [ $((pc + pd)) -lt $((n / 10)) ]
}
ktap_check "ECMP: a ping-pong retires the paths through a spine dead one way" \
	pingpong_one_way_dead

# spine_mtu MTU: the links between the spines and rd carry MTU bytes.
spine_mtu() {
	on r3 ip link set eth1 mtu "$1" && on r4 ip link set eth1 mtu "$1" &&
		on rd ip link set eth1 mtu "$1" && on rd ip link set eth2 mtu "$1"
}

# narrow_spines ADDR_C ADDR_D: the links behind the spines carry 1400 bytes, c's and d's
# netdevs 1500. The spines drop c's 1376-byte segments (DF) and answer with ICMP, which
# c's stack keeps with its route to d: the messages under way finish in IP fragments,
# later ones use 1280-byte segments (spec, "Segments"), 52 packets a 64 KiB message, in
# a second connection from the start. Before the datapath followed its routes' MTU every
# such packet was lost, and the first stream failed.
narrow_spines() {
	local frag sent rc=0
	spine_mtu 1400 || rc=1
	frag=$(counter mrc dp_tx_fragmented)
	stream_start c d "$1" "$2" 10.2.7.2 -s 65536 -n 400 || rc=1
	stream_wait || rc=1
	frag=$(($(counter mrc dp_tx_fragmented) - frag))
	sent=$(counter mrc tx_packets)
	stream_start c d "$1" "$2" 10.2.7.2 -s 65536 -n 200 || rc=1
	stream_wait || rc=1
	sent=$(($(counter mrc tx_packets) - sent))
	echo "# $frag packets in fragments; then $sent packets for 200 messages;" \
		"c's route: $(ip -n c route get "$2" | tr -s ' \n' ' ')" >&2
	spine_mtu 1500 || rc=1
	ip -n c route flush cache && ip -n c -6 route flush cache || rc=1
	[ "$rc" -eq 0 ] && [ "$frag" -gt 0 ] && [ "$sent" -ge $((200 * 52)) ] &&
		[ "$sent" -le $((200 * 53)) ]
}
ktap_check "IPv4: a router's smaller MTU (ICMP) shrinks the segments; the stream completes" \
	narrow_spines 10.2.1.1 10.2.6.2
ktap_check "IPv6: a router's smaller MTU (ICMPv6) shrinks the segments; the stream completes" \
	narrow_spines fd02:1::1 fd02:6::2

# segments_now QPS ADDR_D FAMILY: for a failing wait, what c's QP sends (its segments, each
# path's state and the MTU of the route it keeps; QPS: c's debugfs file) and the MTU c's
# stack holds for d.
segments_now() {
	awk '/ seg: / { sub(/^ +/, ""); print "# c: " $0 }
	     / path [0-9]+: / { s = s " " $2 $3 "/" $NF }
	     END { print "# c: path:state/route_mtu" s }' "$1" >&2
	echo "# c's route: $(ip -n c "$3" route get "$2" | tr -s ' \n' ' ')" >&2
}

# shrink_and_grow ADDR_C ADDR_D FAMILY: one paced stream from c to d. Behind 1400-byte
# links its QP's segments shrink to 1280 bytes (debugfs: its own largest, and the next
# message's); the links are put back to 1500 bytes and c forgets the MTU it learnt ("ip
# route flush cache", as the stack does once the learnt MTU expires, ten minutes): the
# same QP's segments grow back to 1376.
shrink_and_grow() {
	local qps=/sys/kernel/debug/metaroce/mrc/qps rc=0
	spine_mtu 1400 || return
	if stream_start c d "$1" "$2" 10.2.7.2 "${PACED[@]}"; then
		wait_for 8 grep -q 'seg: path_mtu 1024 tx 1280 own 1280 ' "$qps" ||
			{ rc=1; segments_now "$qps" "$2" "$3"; }
		since_start "the segments shrank (or the wait ended)"
		spine_mtu 1500 && ip -n c "$3" route flush cache || rc=1
		wait_for 8 grep -q 'seg: path_mtu 1024 tx 1376 own 1376 ' "$qps" ||
			{ rc=1; segments_now "$qps" "$2" "$3"; }
		since_start "the segments grew back (or the wait ended)"
	else
		rc=1
	fi
	stream_wait || rc=1
	spine_mtu 1500
	return "$rc"
}
ktap_check "IPv4: one QP's segments shrink with its route's MTU, and grow back with it" \
	shrink_and_grow 10.2.1.1 10.2.6.2 -4
ktap_check "IPv6: one QP's segments shrink with its route's MTU, and grow back with it" \
	shrink_and_grow fd02:1::1 fd02:6::2 -6

# icmp_black_hole ADDR_C ADDR_D FAMILY: the links behind the spines carry 1400 bytes and c
# never hears the spines' ICMP "fragmentation needed" or ICMPv6 "packet too big" (dropped on
# its way in). c's 1376-byte segments vanish: after three timeouts in a row c's QP takes
# path-MTU segments for later messages and lets the packets of those under way pass in
# fragments (spec, "Segments"): over IPv4 the spines fragment them (DF clear), over IPv6,
# whose routers never fragment, c sends them in fragments of 1280 bytes. The stream
# completes.
icmp_black_hole() {
	local bh frag rc=0 match
	if [ "$3" = -4 ]; then
		match=(protocol ip prio 1 u32 match ip protocol 1 0xff
		       match u8 3 0xff at 20 match u8 4 0xff at 21)
	else
		match=(protocol ipv6 prio 1 u32 match ip6 protocol 58 0xff
		       match u8 2 0xff at 40)
	fi
	on c tc qdisc add dev eth0 clsact &&
		on c tc filter add dev eth0 ingress "${match[@]}" action drop || rc=1
	spine_mtu 1400 || rc=1
	bh=$(counter mrc pmtu_blackholes)
	frag=$(counter mrc dp_tx_fragmented)
	stream_start c d "$1" "$2" 10.2.7.2 -s 65536 -n 200 || rc=1
	stream_wait || rc=1
	bh=$(($(counter mrc pmtu_blackholes) - bh))
	frag=$(($(counter mrc dp_tx_fragmented) - frag))
	echo "# $bh connections found the black hole, $frag packets sent in fragments;" \
		"c's route: $(ip -n c route get "$2" | tr -s ' \n' ' ')" >&2
	spine_mtu 1500 || rc=1
	on c tc qdisc del dev eth0 clsact || rc=1
	ip -n c "$3" route flush cache || rc=1
	# IPv4's fragments are the spines', which c does not count.
	[ "$rc" -eq 0 ] && [ "$bh" -ge 1 ] && { [ "$3" = -4 ] || [ "$frag" -gt 0 ]; }
}
ktap_check "IPv4: behind a link narrower than the segments that drops ICMP, the stream completes" \
	icmp_black_hole 10.2.1.1 10.2.6.2 -4
ktap_check "IPv6: behind a link narrower than the segments that drops ICMPv6, the stream completes" \
	icmp_black_hole fd02:1::1 fd02:6::2 -6

# below_path_mtu: the links behind the spines carry 1100 bytes, less than a packet of the
# path MTU (1024 bytes of payload, 1116 in IPv4), and segments never go below the path
# MTU: every data packet of a 200-message stream leaves in IP fragments, and the stream
# completes. IPv4 only: an IPv6 link carries at least 1280 bytes, and one set below that
# loses its IPv6 addresses for good (the kernel takes IPv6 off it), so this point runs last.
below_path_mtu() {
	local frag rc=0
	spine_mtu 1100 || rc=1
	frag=$(counter mrc dp_tx_fragmented)
	stream_start c d 10.2.1.1 10.2.6.2 10.2.7.2 -s 65536 -n 200 || rc=1
	stream_wait || rc=1
	frag=$(($(counter mrc dp_tx_fragmented) - frag))
	echo "# $frag packets in fragments for 200 messages of 64 packets" >&2
	spine_mtu 1500 || rc=1
	ip -n c route flush cache || rc=1
	[ "$rc" -eq 0 ] && [ "$frag" -ge $((200 * 64)) ]
}
ktap_check "IPv4: behind a link narrower than the path MTU every packet leaves in fragments" \
	below_path_mtu

ktap_finish
