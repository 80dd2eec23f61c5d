#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# VM selftest: a MetaRoCE device on a veth is seen through libmetaroce by the
# stock verbs tools.
#
#   modprobe metaroce (or insmod the built module), a veth pair v0/v1 with
#   10.9.9.1/24 on v0, "rdma link add mr0 type metaroce netdev v0", then:
#   ibv_devices lists mr0, and "ibv_devinfo -v -d mr0" shows port 1
#   PORT_ACTIVE on Ethernet with a RoCE v2 GID (::ffff:10.9.9.1).
#
# Run as root inside the test VM: tools/testing/vm/run -- selftests/metaroce/provider_devinfo.sh
#
# The provider comes from the build tree (RDMAV_DRIVERS=<top>/build/lib/libmetaroce)
# when it has been built there, otherwise from the installed
# /etc/libibverbs.d/metaroce.driver. The module is modprobe'd if the running
# kernel knows it, else insmod'ed from <top>/build/kmod/$(uname -r)/ or $METAROCE_KO.
#
# While the kernel driver cannot create devices yet, "rdma link add" fails with
# "Operation not supported"; the test then reports SKIP with that reason.
# Output is TAP; the exit status is non-zero if any test fails.

# Functions called only through check() or the EXIT trap:
# shellcheck disable=SC2317

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
DEV=${METAROCE_DEV:-mr0}
NETDEV=v0
PEER=v1
ADDR=10.9.9.1
PLAN=10

n=0
failed=0
skip_reason=

diag() { # diag TEXT...: each line as a TAP comment
	local text line
	for text in "$@"; do
		[ -n "$text" ] || continue
		while IFS= read -r line; do echo "# $line"; done <<<"$text"
	done
}
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # not_ok NAME [DIAG...]
	n=$((n + 1))
	echo "not ok $n - $1"
	failed=$((failed + 1))
	shift
	diag "$@"
}
check() { # check NAME COMMAND...: ok if COMMAND succeeds
	local name=$1
	shift
	if [ -n "$skip_reason" ]; then
		n=$((n + 1))
		echo "ok $n - $name # SKIP $skip_reason"
	elif "$@"; then
		ok "$name"
	else
		not_ok "$name"
	fi
}
skip_rest() {
	while [ "$n" -lt "$PLAN" ]; do
		n=$((n + 1))
		echo "ok $n # SKIP $1"
	done
}
finish() {
	[ "$n" -eq "$PLAN" ] || { echo "# ran $n of $PLAN tests"; failed=$((failed + 1)); }
	[ "$failed" -eq 0 ]
	exit $?
}

created_link=
created_veth=
loaded_module=
cleanup() {
	[ -n "$created_link" ] && rdma link delete "$DEV" 2>/dev/null
	[ -n "$created_veth" ] && ip link del "$NETDEV" 2>/dev/null
	[ -n "$loaded_module" ] && rmmod metaroce 2>/dev/null
	return 0
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..$PLAN"

if [ "$(id -u)" -ne 0 ]; then
	echo "# must run as root (inside the test VM)"
	skip_rest "not root"
	finish
fi
missing=
for tool in ip rdma ibv_devices ibv_devinfo; do
	command -v "$tool" >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	skip_rest "missing tools:$missing"
	finish
fi

# The provider under test.
if [ -e "$TOP/build/lib/libmetaroce-rdmav34.so" ]; then
	export RDMAV_DRIVERS=$TOP/build/lib/libmetaroce
	echo "# provider: $RDMAV_DRIVERS-rdmav34.so"
elif [ -e /etc/libibverbs.d/metaroce.driver ]; then
	echo "# provider: installed (/etc/libibverbs.d/metaroce.driver)"
else
	skip_rest "libmetaroce is neither built in $TOP/build/lib nor installed"
	finish
fi

# 1: the kernel module.
modprobe ib_uverbs 2>/dev/null
if grep -q '^metaroce ' /proc/modules 2>/dev/null; then
	ok "metaroce module is loaded"
elif modinfo metaroce >/dev/null 2>&1; then
	if out=$(modprobe metaroce 2>&1); then
		loaded_module=1
		ok "modprobe metaroce"
	else
		not_ok "modprobe metaroce" "$out"
	fi
else
	ko=${METAROCE_KO:-$TOP/build/kmod/$(uname -r)/drivers/infiniband/sw/metaroce/metaroce.ko}
	if [ ! -e "$ko" ]; then
		skip_rest "no metaroce module for $(uname -r) (looked for $ko)"
		finish
	fi
	modprobe ib_core 2>/dev/null
	if out=$(insmod "$ko" 2>&1); then
		loaded_module=1
		ok "insmod $ko"
	else
		not_ok "insmod $ko" "$out"
	fi
fi

# 2: the Ethernet side. Both ends up, so that v0 has carrier.
if out=$(ip link add "$NETDEV" type veth peer name "$PEER" 2>&1); then
	created_veth=1
	out=$( { ip link set "$NETDEV" up && ip link set "$PEER" up &&
		 ip addr add "$ADDR/24" dev "$NETDEV"; } 2>&1)
fi
if [ -n "$created_veth" ] && [ -z "$out" ]; then
	ok "veth $NETDEV/$PEER up with $ADDR/24"
else
	not_ok "veth $NETDEV/$PEER up with $ADDR/24" "$out"
	skip_rest "no netdev to attach to"
	finish
fi

# 3: the MetaRoCE device.
if out=$(rdma link add "$DEV" type metaroce netdev "$NETDEV" 2>&1); then
	created_link=1
	ok "rdma link add $DEV type metaroce netdev $NETDEV"
elif grep -q 'Operation not supported' <<<"$out"; then
	skip_reason="the kernel driver cannot create devices yet (rdma link add: Operation not supported)"
	check "rdma link add $DEV type metaroce netdev $NETDEV" true
else
	not_ok "rdma link add $DEV type metaroce netdev $NETDEV" "$out"
	skip_rest "no device"
	finish
fi

# 4-5: enumeration through libibverbs, which needs the provider to claim it.
devices='' devices_rc=1 devices_stderr='' info='' info_rc=1
# Predicates, run through check().
lists_dev() { [ "$devices_rc" -eq 0 ] && grep -Eq "^[[:space:]]+${DEV}[[:space:]]" <<<"$devices"; }
no_warning() { ! grep -q libibverbs <<<"$devices_stderr"; }
devinfo_ok() { [ "$info_rc" -eq 0 ]; }
port_active() { grep -Eq '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)' <<<"$info"; }
on_ethernet() { grep -Eq '^[[:space:]]+link_layer:[[:space:]]+Ethernet' <<<"$info"; }
has_rocev2_gid() { grep -Eq 'GID\[ *[0-9]+\]:.*, RoCE v2$' <<<"$info"; }
has_ipv4_gid() { grep -Eq "GID\\[ *[0-9]+\\]:[[:space:]]+::ffff:$ADDR, RoCE v2\$" <<<"$info"; }

if [ -z "$skip_reason" ]; then
	errfile=$(mktemp)
	devices=$(ibv_devices 2>"$errfile")
	devices_rc=$?
	devices_stderr=$(cat "$errfile")
	rm -f "$errfile"
	diag "$devices" "$devices_stderr"
fi
check "ibv_devices lists $DEV" lists_dev
check "libibverbs prints no warning" no_warning

# 6-10: device and port attributes through the provider's control path.
if [ -z "$skip_reason" ]; then
	# The IPv4 GID is added by ib_core's address notifiers; give it a moment.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		info=$(ibv_devinfo -v -d "$DEV" 2>&1)
		info_rc=$?
		has_ipv4_gid && break
		sleep 0.5
	done
	diag "$info"
fi
check "ibv_devinfo -v -d $DEV succeeds" devinfo_ok
check "port 1 is PORT_ACTIVE" port_active
check "port 1 link layer is Ethernet" on_ethernet
check "port 1 has a RoCE v2 GID" has_rocev2_gid
check "a RoCE v2 GID for $ADDR" has_ipv4_gid

finish
