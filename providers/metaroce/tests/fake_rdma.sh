# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Sourced by the host tests: fabricated RDMA devices for libibverbs on a
# machine that has none.
#
# libibverbs 44 lists devices over RDMA netlink and, when that socket cannot
# be opened, from sysfs under $SYSFS_PATH. The tests build such a sysfs tree,
# preload no_rdma_netlink.so to force the fallback, and create the
# /dev/infiniband entries inside a private mount namespace (unshare), so the
# host is left untouched. A device is either a plain directory (listed, not
# openable) or, as root, a character node of the null device, whose writes
# fake_uverbs.so answers as the kernel would (see fake_uverbs.c).
#
# Needs: FAKE_HELPERS, the directory holding no_rdma_netlink.so and
# fake_uverbs.so.

FAKE_SYS=
FAKE_NODES=()

# fake_init DIR: start an empty device tree in DIR
fake_init() {
	FAKE_SYS=$1/sys
	FAKE_NODES=()
	mkdir -p "$FAKE_SYS/class/infiniband_verbs" "$FAKE_SYS/class/infiniband"
	echo 6 >"$FAKE_SYS/class/infiniband_verbs/abi_version"
}

# fake_add_device NAME ABI_VERSION NODE_GUID [openable]
fake_add_device() {
	local i=${#FAKE_NODES[@]}
	local uv=$FAKE_SYS/class/infiniband_verbs/uverbs$i
	local ib=$FAKE_SYS/class/infiniband/$1
	mkdir -p "$uv" "$ib/ports/1/gids" "$ib/ports/1/gid_attrs/types" \
		"$ib/ports/1/pkeys"
	echo "$1" >"$uv/ibdev"
	echo "$2" >"$uv/abi_version"
	echo 1 >"$ib/node_type"
	echo "$3" >"$ib/node_guid"
	echo 0xffff >"$ib/ports/1/pkeys/0"
	if [ "${4:-}" = openable ]; then
		echo 1:3 >"$uv/dev"		# the null device
		FAKE_NODES+=("uverbs$i:null")
	else
		echo "231:$((192 + i))" >"$uv/dev"
		FAKE_NODES+=("uverbs$i:dir")
	fi
}

# fake_add_gid NAME INDEX GID TYPE: a port 1 GID table entry, as sysfs shows it
fake_add_gid() {
	local port=$FAKE_SYS/class/infiniband/$1/ports/1
	echo "$3" >"$port/gids/$2"
	echo "$4" >"$port/gid_attrs/types/$2"
}

# fake_can_open: true if openable devices can be made (mknod needs root)
fake_can_open() {
	[ "$(id -u)" -eq 0 ]
}

# fake_run OUT ERR COMMAND...: run COMMAND against the fabricated devices;
# set variables for it with env, e.g. fake_run o e env A=1 prog
fake_run() {
	local out=$1 err=$2
	shift 2
	# shellcheck disable=SC2016
	local script='n=$1; shift
		mount -t tmpfs none /dev && mkdir /dev/infiniband || exit 1
		while [ "$n" -gt 0 ]; do
			node=${1%%:*}
			case ${1#*:} in
			null) mknod /dev/infiniband/$node c 1 3 || exit 1;;
			*) mkdir /dev/infiniband/$node || exit 1;;
			esac
			shift; n=$((n - 1))
		done
		exec "$@"'
	local ns=(unshare -m --propagation private)
	[ "$(id -u)" -eq 0 ] || ns=(unshare -r -m --propagation private)
	SYSFS_PATH=$FAKE_SYS \
	LD_PRELOAD="$FAKE_HELPERS/no_rdma_netlink.so $FAKE_HELPERS/fake_uverbs.so" \
		"${ns[@]}" sh -c "$script" sh "${#FAKE_NODES[@]}" "${FAKE_NODES[@]}" \
		"$@" >"$out" 2>"$err"
}

# fake_checks OUT WANT LOG COMMAND...: fake_run a test helper that prints one
# "PASS name" or "FAIL name: why" line per check (and may end with its own
# "FAIL check count" tally, not a check), and report those lines as TAP (tap.sh).
# WANT is how many checks it was to make: one it never reached fails, with the
# end of its stderr (OUT.err) and of the fake kernel's log LOG.
fake_checks() {
	local out=$1 want=$2 log=$3 seen=0 line
	shift 3
	fake_run "$out" "$out.err" "$@"
	while IFS= read -r line; do
		case $line in
		PASS\ *) seen=$((seen + 1)); tap 0 "${line#PASS }";;
		FAIL\ check\ count*) ;;
		FAIL\ *) seen=$((seen + 1)); tap 1 "${line#FAIL }";;
		esac
	done <"$out"
	while [ "$seen" -lt "$want" ]; do
		seen=$((seen + 1))
		tap 1 "${out##*/} check $seen did not run" "$(tail -n 5 "$out.err")" \
			"$(tail -n 20 "$log" 2>/dev/null)"
	done
}
