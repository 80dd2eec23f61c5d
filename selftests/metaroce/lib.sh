#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the MetaRoCE selftests, in the manner of the kernel's WireGuard netns.sh:
# nodes are network namespaces joined by veth pairs, impairments are netem qdiscs, and RDMA
# devices (metaroce, rxe, siw) are added on the nodes' interfaces. Runs inside the test VM
# (tools/testing/vm/run) as root. Every script prints KTAP:
#
#	ktap_plan 3; ...; ktap_ok "name" / ktap_fail "name" / ktap_skip "name" "why"; ktap_finish
#
# KTAP helpers:
#	ktap_result NAME STATUS [DIAG]      ok if STATUS is 0, else DIAG as diagnostics and not ok
#	ktap_check NAME CMD...              ok if CMD succeeds, else its output as diagnostics
#	ktap_header; ktap_skip_all WHY      a script that has no test to run: "1..0 # SKIP WHY"
#	wait_for SECONDS CMD...             retry CMD quietly until it succeeds, then once more aloud
#
# Topology helpers:
#	node_add NAME                       a namespace "NAME" with lo up
#	link_add A IFA ADDRA B IFB ADDRB    veth between nodes A and B, /24 addresses, up
#	netem NODE IF ARGS...               replace IF's root qdisc with netem ARGS
#	rdma_add TYPE NAME NODE IF          rdma link add NAME type TYPE netdev IF, run in NODE
#	rdma_del_all                        rdma link delete of every device rdma_add made
#	rootpair_setup                      two root-namespace endpoints for rxe (see below)
#	gid_index DEV IPV4                  the RoCE v2 GID index of IPV4 on DEV, port 1
#	metaroce_load, metaroce_unload      modprobe (-r) metaroce; insmod of this tree's build
#	                                    where the module is not installed
# Cleanup of everything created here runs at exit. A script with more to undo traps EXIT
# with its own function that ends by calling cleanup.

set -u

KTAP_NUM=0
KTAP_FAILED=0
KTAP_PLANNED=0
NODES=()
RDMA_LINKS=()

ktap_header() {
	echo "TAP version 13"
}

ktap_plan() {
	KTAP_PLANNED=$1
	ktap_header
	echo "1..$1"
}

# ktap_skip_all WHY: after ktap_header, the plan of a script that has no test to run.
ktap_skip_all() {
	echo "1..0 # SKIP $1"
}

ktap_ok() {
	KTAP_NUM=$((KTAP_NUM + 1))
	echo "ok $KTAP_NUM $1"
}

ktap_fail() {
	KTAP_NUM=$((KTAP_NUM + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	echo "not ok $KTAP_NUM $1"
}

ktap_skip() {
	KTAP_NUM=$((KTAP_NUM + 1))
	echo "ok $KTAP_NUM $1 # SKIP $2"
}

# ktap_result NAME STATUS [DIAG]: one test point from a status, 0 being ok; DIAG (lines of
# text) is printed as diagnostics before a failure.
ktap_result() {
	if [ "$2" -eq 0 ]; then
		ktap_ok "$1"
	else
		[ -n "${3:-}" ] && ktap_diag "$3"
		ktap_fail "$1"
	fi
}

# ktap_check NAME CMD...: one test point from a command's exit status; its output becomes
# diagnostics so that a failure explains itself.
ktap_check() {
	local name=$1 out rc=0 diag
	shift
	out=$("$@" 2>&1) || rc=$?
	diag="'$*' exited with $rc"
	[ -n "$out" ] && diag=$out$'\n'$diag
	ktap_result "$name" "$rc" "$diag"
	return "$rc"
}

ktap_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# Points that were planned but never reached (a script that died early) count as failures,
# and so do points beyond the plan.
ktap_finish() {
	while [ "$KTAP_NUM" -lt "$KTAP_PLANNED" ]; do
		ktap_fail "not reached"
	done
	if [ "$KTAP_NUM" -gt "$KTAP_PLANNED" ]; then
		ktap_diag "planned $KTAP_PLANNED tests, ran $KTAP_NUM"
		KTAP_FAILED=$((KTAP_FAILED + 1))
	fi
	[ "$KTAP_FAILED" -eq 0 ]
	exit $?
}

# wait_for SECONDS CMD...: runs CMD every 0.1 s, its output hidden, until it succeeds; when
# SECONDS have passed, runs it once more with its output shown (the diagnostics of a
# ktap_check) and returns its status. The deadline is wall-clock time: on a loaded emulated
# CPU one try of CMD can take far longer than the 0.1 s between tries.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while [ "$SECONDS" -lt "$end" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	"$@"
}

pretty() { echo "# [$1] $2"; }

# RUN_CONTEXT_AWK: an awk function for a line of the trace buffer's text, run_context(),
# naming the context the event was traced in: "softirq" (the third flag is "s"), "worker"
# (a kworker task: a QP's work item) or "task" (the process that rang a doorbell).
# shellcheck disable=SC2034 # used by the scripts that source this file
RUN_CONTEXT_AWK='
function run_context(   i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/)
			break
	if (substr($(i + 1), 3, 1) == "s")
		return "softirq"
	return $1 ~ /^kworker/ ? "worker" : "task"
}'

# tracefs, where the module's tracepoints are enabled and read; tracing_mount mounts it
# where the VM's init has not.
TRACING=/sys/kernel/tracing
tracing_mount() {
	[ -d "$TRACING/events" ] || mount -t tracefs nodev "$TRACING" 2>/dev/null
}

# counter DEV NAME: one of DEV's port counters, as "rdma statistic" shows it.
counter() {
	rdma statistic show link "$1/1" | tr ' ' '\n' | grep -A1 -x "$2" | tail -n 1
}

node_add() {
	ip netns add "$1"
	NODES+=("$1")
	ip -n "$1" link set lo up
}

# Interface indexes are unique across all nodes: siw binds a wildcard rdma_cm listener to each
# device's ifindex in the listener's namespace, and two eth devices that are both index 2 in
# their own namespaces collide there.
NEXT_IFINDEX=100
link_add() {
	local a=$1 ifa=$2 addra=$3 b=$4 ifb=$5 addrb=$6
	NEXT_IFINDEX=$((NEXT_IFINDEX + 2))
	ip link add "$ifa" index "$NEXT_IFINDEX" netns "$a" type veth \
		peer name "$ifb" index $((NEXT_IFINDEX + 1)) netns "$b"
	ip -n "$a" addr add "$addra/24" dev "$ifa"
	ip -n "$b" addr add "$addrb/24" dev "$ifb"
	ip -n "$a" link set "$ifa" up
	ip -n "$b" link set "$ifb" up
}

netem() {
	local node=$1 dev=$2
	shift 2
	modprobe sch_netem
	if [ "$node" = "-" ]; then
		tc qdisc replace dev "$dev" root netem "$@"
	else
		ip netns exec "$node" tc qdisc replace dev "$dev" root netem "$@"
	fi
}

# on NODE CMD...: run CMD in NODE's namespace ("-" is the root namespace).
on() {
	local node=$1
	shift
	if [ "$node" = "-" ]; then
		"$@"
	else
		ip netns exec "$node" "$@"
	fi
}

# on_bg NODE CMD...: on, in the background. Unlike "on NODE CMD &", which forks a subshell
# to run the function, $! is then CMD's own process (ip netns exec becomes it): a signal
# sent to $! reaches the program, and kill -0 $! tells whether the program is gone.
on_bg() {
	local node=$1
	shift
	if [ "$node" = "-" ]; then
		"$@" &
	else
		ip netns exec "$node" "$@" &
	fi
}

rdma_add() {
	local type=$1 name=$2 node=$3 dev=$4
	case $type in
	rxe) modprobe crc32_generic 2>/dev/null; modprobe rdma_rxe ;;
	siw) modprobe siw ;;
	metaroce) modprobe metaroce ;;
	esac
	on "$node" rdma link add "$name" type "$type" netdev "$dev" || return
	RDMA_LINKS+=("$node:$name")
}

# use_build_provider: unless the provider is installed (/etc/libibverbs.d, as the VM harness
# and make install arrange), point libibverbs at this tree's build of it.
METAROCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
use_build_provider() {
	if [ ! -e /etc/libibverbs.d/metaroce.driver ] &&
	   [ -e "$METAROCE_TOP/build/lib/libmetaroce-rdmav34.so" ]; then
		export RDMAV_DRIVERS=$METAROCE_TOP/build/lib/libmetaroce
	fi
}

# This tree's module build for the running kernel: what metaroce_load inserts where the
# module is not installed (tools/testing/vm/run installs it). METAROCE_KO overrides it.
METAROCE_KOBJ=$METAROCE_TOP/build/kmod/$(uname -r)/drivers/infiniband/sw/metaroce
metaroce_load() {
	if modinfo metaroce >/dev/null 2>&1; then
		modprobe metaroce
	else
		insmod "${METAROCE_KO:-$METAROCE_KOBJ/metaroce.ko}"
	fi
}
metaroce_unload() { modprobe -r metaroce 2>/dev/null || rmmod metaroce; }

# Waits until DEV's port 1 is ACTIVE (GIDs are filled asynchronously after link add).
rdma_wait_active() {
	local dev=$1 _
	for _ in $(seq 50); do
		grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# gid_index DEV ADDR: the index of DEV's RoCE v2 GID of the IPv4 or IPv6 address ADDR.
gid_index() {
	local dev=$1 ip=$2 port=/sys/class/infiniband/$1/ports/1 f n
	local hex
	if [[ $ip == *:* ]]; then
		hex=$(python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$ip") || return
	else
		hex=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${ip//./ })
	fi
	# One grep reads the whole table: a cat per entry costs seconds under TCG for an entry
	# late in the glob's order (2 comes after 100-199).
	for _ in $(seq 30); do
		while read -r f; do
			n=${f##*/}
			[ "$(cat "$port/gid_attrs/types/$n" 2>/dev/null)" = "RoCE v2" ] || continue
			echo "$n"
			return 0
		done < <(grep -lxF "$hex" "$port"/gids/* 2>/dev/null)
		sleep 0.1
	done
	echo "gid_index: no RoCE v2 GID for $ip on $dev" >&2
	return 1
}

# rxe in 6.12 sends only from the initial namespace (rxe_net.c uses init_net), so its two
# endpoints are both veth ends in the root namespace, with policy routing that forces
# traffic between 192.0.2.1 (veth0) and 192.0.2.2 (veth1) over the wire instead of lo.
ROOTPAIR=0
rootpair_setup() {
	local d
	ip link add veth0 type veth peer name veth1
	ip addr add 192.0.2.1/32 dev veth0
	ip addr add 192.0.2.2/32 dev veth1
	ip link set veth0 up
	ip link set veth1 up
	for d in all default lo veth0 veth1; do
		sysctl -qw "net.ipv4.conf.$d.rp_filter=0" "net.ipv4.conf.$d.accept_local=1"
	done
	ip rule add pref 10 to 192.0.2.2 iif lo table 100
	ip route add 192.0.2.2/32 dev veth0 src 192.0.2.1 table 100
	ip rule add pref 11 to 192.0.2.1 iif lo table 101
	ip route add 192.0.2.1/32 dev veth1 src 192.0.2.2 table 101
	# rdma_cm's reverse-path check of an incoming request
	ip rule add pref 12 to 192.0.2.1 oif veth1 table 101
	ip rule add pref 13 to 192.0.2.2 oif veth0 table 100
	ip rule add pref 100 table local
	ip rule del pref 0 table local
	ROOTPAIR=1
}

rootpair_cleanup() {
	[ "$ROOTPAIR" = 1 ] || return 0
	ip rule add pref 0 table local
	ip rule del pref 100 table local
	local p
	for p in 10 11 12 13; do ip rule del pref "$p" 2>/dev/null; done
	ip link del veth0 2>/dev/null
	ROOTPAIR=0
}

# bw_pair runs in command substitutions (a subshell each), so the next free port is kept in a
# file: a fresh port per run keeps a server from meeting its predecessor's TIME_WAIT.
PERFTEST_PORT_FILE=/tmp/perftest-port.$$
next_port() {
	local p
	p=$(cat "$PERFTEST_PORT_FILE" 2>/dev/null || echo 18515)
	p=$((p + 1))
	echo "$p" >"$PERFTEST_PORT_FILE"
	echo "$p"
}

# What a perftest client prints when its connection was refused: the server not listening
# yet (its out-of-band TCP socket, or its first rdma_cm listener with -R), or, with -R, not
# listening again yet for the second connection (see perftest_pair).
PERFTEST_REFUSED='Unable to init the socket connection|Couldn.t connect|ERRNO: Connection refused|RDMA_CM_EVENT_REJECTED'

# wait_listen NODE PORT PID: until something listens on PORT in NODE (60 s at most), or PID
# has exited: a TCP socket, or an rdma_cm listener, which RoCE devices have without a socket.
wait_listen() {
	local _
	for _ in $(seq 120); do
		[ -n "$(on "$1" ss -Hltn "sport = :$2" 2>/dev/null)" ] && return 0
		on "$1" rdma resource show cm_id src-port "$2" 2>/dev/null |
			grep -q 'state LISTEN' && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

# perftest_pair PROG TRIES SRV_OUT NODE_SRV SRV_ARGS NODE_CLI CLI_ARGS SERVER_IP: PROG's
# server in NODE_SRV (arguments: the array named SRV_ARGS), its output in the file SRV_OUT,
# and, once it listens, its client in NODE_CLI (the array named CLI_ARGS) against SERVER_IP,
# each on a fresh port. Sets PERFTEST_OUT to the client's output; returns the client's exit
# status, or the server's if the client's was 0.
#
# A refused client is tried again, up to TRIES runs in all, and its server with it: with -R
# perftest makes two rdma_cm connections, one for its own exchange and, after a hand-shake
# over it, one for the QPs under test, for which the server listens again. A client quicker
# off the hand-shake than the server is refused the second and gives up, and a second client
# would meet that server in the wrong phase (testing.rst, "A thirty-second session").
perftest_pair() {
	local prog=$1 tries=$2 sout=$3 nsrv=$4 ncli=$6 ip=$8 spid rc port try
	local -n _pp_srv=$5 _pp_cli=$7

	for ((try = 1; ; try++)); do
		port=$(next_port)
		on_bg "$nsrv" timeout 120 "$prog" "${_pp_srv[@]}" -p "$port" >"$sout" 2>&1
		spid=$!
		wait_listen "$nsrv" "$port" "$spid"
		rc=0
		PERFTEST_OUT=$(on "$ncli" timeout 120 "$prog" "${_pp_cli[@]}" -p "$port" "$ip" 2>&1) ||
			rc=$?
		if [ "$rc" -ne 0 ] && [ "$try" -lt "$tries" ] && kill -0 "$spid" 2>/dev/null &&
		   grep -qE "$PERFTEST_REFUSED" <<<"$PERFTEST_OUT"; then
			kill "$spid" 2>/dev/null
			wait "$spid" 2>/dev/null
			sleep 2
			continue
		fi
		[ "$rc" -ne 0 ] && kill "$spid" 2>/dev/null
		wait "$spid" || rc=$((rc ? rc : $?))
		return "$rc"
	done
}

# bw_row SRV NODE_SRV GID_SRV CLI NODE_CLI GID_CLI SERVER_IP [perftest args]: ib_write_bw
# between two devices in their nodes' namespaces; prints the iterations and the average Gb/s
# of the client's result row. A GID index of "-" leaves it to perftest (with -R, rdma_cm
# picks it).
bw_row() {
	local srv=$1 nsrv=$2 gsrv=$3 cli=$4 ncli=$5 gcli=$6 ip=$7 out rc=0
	local -a xsrv=() xcli=()
	shift 7
	[ "$gsrv" = - ] || xsrv=(-x "$gsrv")
	[ "$gcli" = - ] || xcli=(-x "$gcli")
	xsrv=(-d "$srv" "${xsrv[@]}" -F --report_gbits "$@")
	xcli=(-d "$cli" "${xcli[@]}" -F --report_gbits "$@")
	perftest_pair ib_write_bw 10 /tmp/bw-server.$$ "$nsrv" xsrv "$ncli" xcli "$ip" || rc=$?
	out=$PERFTEST_OUT
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | sed 's/^/# client: /' >&2
		sed 's/^/# server: /' /tmp/bw-server.$$ >&2
		rm -f /tmp/bw-server.$$
		return "$rc"
	fi
	rm -f /tmp/bw-server.$$
	# The result row: bytes, iterations, peak, average, msg rate. perftest prints Gb/s
	# with 2 decimals from 0.1 up (6 below), steps of 3-10% at this VM's rates; its
	# message rate (Mpps, always 6 decimals) times the bytes gives the same figure finer.
	printf '%s\n' "$out" |
		awk '$1 ~ /^[0-9]+$/ && NF >= 5 {
			g = $4
			if (g ~ /\.[0-9][0-9]$/) g = sprintf("%.6f", $1 * $5 * 8 / 1000)
			row = $2 " " g
		} END { if (row == "") exit 1; print row }'
}

# bw_pair, with bw_row's arguments: prints the average Gb/s only.
bw_pair() {
	local row

	row=$(bw_row "$@") || return
	printf '%s\n' "${row#* }"
}

# rdma_del_all: deletes every device rdma_add made; fails if any deletion did.
rdma_del_all() {
	local l rc=0
	for l in "${RDMA_LINKS[@]}"; do
		on "${l%%:*}" rdma link delete "${l#*:}" || rc=1
	done
	RDMA_LINKS=()
	return "$rc"
}

cleanup() {
	local node
	rdma_del_all 2>/dev/null
	rootpair_cleanup
	for node in "${NODES[@]}"; do
		ip netns del "$node" 2>/dev/null
	done
	rm -f /tmp/bw-server.$$ "$PERFTEST_PORT_FILE"
}
trap cleanup EXIT

# Fails the script early (as a TAP bail-out) unless it runs inside the test VM as root.
require_vm() {
	if [ "$(id -u)" != 0 ] || ! grep -q 'metaroce-vm' /proc/sys/kernel/hostname 2>/dev/null; then
		echo "Bail out! run this inside the test VM: tools/testing/vm/run -- $0"
		exit 4
	fi
}
