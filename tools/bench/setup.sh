# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the benchmarks in tools/bench/ (after selftests/metaroce/lib.sh): two endpoints
# of one driver, and netem loss on the link between them.

# shellcheck source=tools/bench/stats.sh
. "$(dirname "${BASH_SOURCE[0]}")/stats.sh"

# Each setup_* fills the endpoints: server device/node/GID, client device/node/GID, server IP,
# extra perftest flags, and the "node:interface" list that netem impairs.
setup_rxe() {
	rootpair_setup
	rdma_add rxe rxe0 - veth0 && rdma_add rxe rxe1 - veth1 || return
	rdma_wait_active rxe0 && rdma_wait_active rxe1 || return
	SRV=rxe1 NSRV=- GSRV=$(gid_index rxe1 192.0.2.2) || return
	CLI=rxe0 NCLI=- GCLI=$(gid_index rxe0 192.0.2.1) || return
	IP=192.0.2.2 EXTRA=() IMPAIR=(-:veth0 -:veth1)
}

# siw is iWARP: connections go through rdma_cm (-R), which picks the GIDs.
setup_siw() {
	node_add s1
	node_add s2
	link_add s1 eth1 10.0.1.1 s2 eth2 10.0.1.2
	rdma_add siw siw1 s1 eth1 && rdma_add siw siw2 s2 eth2 || return
	rdma_wait_active siw1 && rdma_wait_active siw2 || return
	SRV=siw2 NSRV=s2 GSRV=- CLI=siw1 NCLI=s1 GCLI=- IP=10.0.1.2 EXTRA=(-R)
	IMPAIR=(s1:eth1 s2:eth2)
}

# MetaRoCE devices live in their netdev's namespace, one node each.
setup_metaroce() {
	node_add m1
	node_add m2
	link_add m1 eth1 10.0.2.1 m2 eth2 10.0.2.2
	rdma_add metaroce mr1 m1 eth1 && rdma_add metaroce mr2 m2 eth2 || return
	rdma_wait_active mr1 && rdma_wait_active mr2 || return
	SRV=mr2 NSRV=m2 GSRV=$(gid_index mr2 10.0.2.2) || return
	CLI=mr1 NCLI=m1 GCLI=$(gid_index mr1 10.0.2.1) || return
	IP=10.0.2.2 EXTRA=() IMPAIR=(m1:eth1 m2:eth2)
}

# impair PCT: netem loss of PCT percent on every link in IMPAIR (both directions), 0
# included: the qdisc costs CPU of its own (a 64 KiB ib_write_bw lost 12-15% of its rate to
# netem at 0% on the 2-vCPU VM, testing.rst "A seventh session"), so a benchmark whose points
# all have it compares loss rates, not qdisc or none. impair off: the plain link again.
impair() {
	local l
	for l in "${IMPAIR[@]}"; do
		if [ "$1" = off ]; then
			on "${l%%:*}" tc qdisc del dev "${l#*:}" root 2>/dev/null
		else
			netem "${l%%:*}" "${l#*:}" loss "$1%"
		fi
	done
}

# lat_pair SRV NSRV GSRV CLI NCLI GCLI IP [perftest args]: ib_write_lat between the two
# endpoints; prints the client's result row (bytes, iterations, t_min, t_max, t_typical,
# t_avg, t_stdev, 99%, 99.9%, in microseconds).
lat_pair() {
	local srv=$1 nsrv=$2 gsrv=$3 cli=$4 ncli=$5 gcli=$6 ip=$7 out rc=0
	local -a xsrv=() xcli=()
	shift 7
	[ "$gsrv" = - ] || xsrv=(-x "$gsrv")
	[ "$gcli" = - ] || xcli=(-x "$gcli")
	xsrv=(-d "$srv" "${xsrv[@]}" -F "$@")
	xcli=(-d "$cli" "${xcli[@]}" -F "$@")
	perftest_pair ib_write_lat 5 /tmp/lat-server.$$ "$nsrv" xsrv "$ncli" xcli "$ip" || rc=$?
	out=$PERFTEST_OUT
	rm -f /tmp/lat-server.$$
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | sed 's/^/# client: /' >&2
		return "$rc"
	fi
	printf '%s\n' "$out" | awk '$1 ~ /^[0-9]+$/ && NF >= 7 { row = $0 } END { if (row == "") exit 1; print row }'
}

# setup_side_by_side "DRIVER...": every driver at once, each on its own link, so that a
# benchmark can interleave them (the host's speed drifts over minutes: drivers measured one
# after the other compare spells, not drivers). Fills READY with the drivers that came up,
# names the others in a "#" line, and sets IMPAIR to the links of all of them;
# bench_use DRIVER then selects one's endpoints (SRV ... EXTRA) for bw_pair or lat_pair.
declare -A BENCH_EP
setup_side_by_side() {
	local drv all=() want
	read -ra want <<<"$1"
	READY=()
	for drv in "${want[@]}"; do
		if [ "$drv" = siw ] && ! modinfo siw >/dev/null 2>&1; then
			echo "# siw: not available on $(uname -r) (built for 6.12 and 6.1 only)"
			continue
		fi
		if ! "setup_$drv" 2>/tmp/bench-err; then
			echo "# $drv: cannot set up two devices: $(tr '\n' ' ' </tmp/bench-err 2>/dev/null)"
			continue
		fi
		BENCH_EP[$drv]="$SRV $NSRV $GSRV $CLI $NCLI $GCLI $IP ${EXTRA[*]}"
		all+=("${IMPAIR[@]}")
		READY+=("$drv")
	done
	IMPAIR=("${all[@]}")
}

bench_use() {
	local -a ep
	read -ra ep <<<"${BENCH_EP[$1]}"
	SRV=${ep[0]} NSRV=${ep[1]} GSRV=${ep[2]} CLI=${ep[3]} NCLI=${ep[4]} GCLI=${ep[5]}
	IP=${ep[6]} EXTRA=("${ep[@]:7}")
}

# check_positive NAME VALUE: the benchmark stops unless VALUE (of the variable NAME) is a
# positive integer
check_positive() {
	case $2 in
	''|*[!0-9]*|0) echo "# $1 must be a positive integer, not '$2'" >&2; exit 2 ;;
	esac
}

# check_repeat N: check_positive for BENCH_REPEAT
check_repeat() {
	check_positive BENCH_REPEAT "$1"
}
