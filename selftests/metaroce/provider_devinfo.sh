#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# libmetaroce: a MetaRoCE device on a veth is seen by the stock verbs tools.
#
#   modprobe metaroce; veth v0/v1 (both up, so v0 has carrier) with 10.9.9.1/24 on v0;
#   rdma link add mr0 type metaroce netdev v0; then ibv_devices lists mr0 without
#   libibverbs warnings, and "ibv_devinfo -v -d mr0" shows port 1 PORT_ACTIVE on
#   Ethernet with the RoCE v2 GID ::ffff:10.9.9.1.
#
# The provider is the one tools/testing/vm/run installs from the build tree; run by hand
# elsewhere, RDMAV_DRIVERS points libibverbs at build/lib. While the kernel driver cannot
# create devices yet, "rdma link add" fails with "Operation not supported" and the device
# checks are reported as SKIP with that reason.
#
# METAROCE_DEVINFO_LINK_TYPE=rxe runs the same checks on a Soft-RoCE device instead, to
# validate the checks themselves against a working kernel driver and provider.
# shellcheck source=selftests/metaroce/lib.sh
. "$(dirname "$0")/lib.sh"
require_vm

DEV=mr0
NETDEV=v0
PEER=v1
ADDR=10.9.9.1
TYPE=${METAROCE_DEVINFO_LINK_TYPE:-metaroce}
case $TYPE in
rxe) MODULE=rdma_rxe; modprobe crc32_generic 2>/dev/null ;;
*) MODULE=$TYPE ;;
esac

trap 'cleanup; ip link del "$NETDEV" 2>/dev/null' EXIT

use_build_provider

ktap_plan 10

ktap_check "modprobe $MODULE" modprobe "$MODULE" || ktap_finish
modprobe ib_uverbs 2>/dev/null

ktap_check "veth $NETDEV/$PEER up with $ADDR/24" sh -c "
	ip link add $NETDEV type veth peer name $PEER &&
	ip link set $NETDEV up && ip link set $PEER up &&
	ip addr add $ADDR/24 dev $NETDEV" || ktap_finish

skip=
if out=$(rdma link add "$DEV" type "$TYPE" netdev "$NETDEV" 2>&1); then
	RDMA_LINKS+=("-:$DEV")
	ktap_ok "rdma link add $DEV type $TYPE netdev $NETDEV"
elif grep -q 'Operation not supported' <<<"$out"; then
	skip="the kernel driver cannot create devices yet (rdma link add: Operation not supported)"
	ktap_skip "rdma link add $DEV type $TYPE netdev $NETDEV" "$skip"
else
	ktap_diag "$out"
	ktap_fail "rdma link add $DEV type $TYPE netdev $NETDEV"
	ktap_finish
fi

# point NAME CMD...: a test point, skipped while there is no device
point() {
	if [ -n "$skip" ]; then
		ktap_skip "$1" "$skip"
	else
		ktap_check "$@"
	fi
}

devices='' devices_err='' info=''
if [ -z "$skip" ]; then
	devices=$(ibv_devices 2>/tmp/ibv_devices.err.$$)
	devices_err=$(cat /tmp/ibv_devices.err.$$)
	rm -f /tmp/ibv_devices.err.$$
	ktap_diag "$devices"
	# The IPv4 GID is added by ib_core's address notifiers: give it a moment.
	rdma_wait_active "$DEV"
	for _ in $(seq 20); do
		info=$(ibv_devinfo -v -d "$DEV" 2>&1)
		grep -q "::ffff:$ADDR, RoCE v2" <<<"$info" && break
		sleep 0.2
	done
	ktap_diag "$info"
fi

point "ibv_devices lists $DEV" grep -Eq "^[[:space:]]+${DEV}[[:space:]]" <<<"$devices"
# shellcheck disable=SC2016 # $1 is expanded by the inner shell
point "libibverbs prints no warning" sh -c '! printf "%s\n" "$1" | grep libibverbs' - "$devices_err"
point "ibv_devinfo -v -d $DEV succeeds" ibv_devinfo -v -d "$DEV"
point "port 1 is PORT_ACTIVE" \
	grep -Eq '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)' <<<"$info"
point "port 1 link layer is Ethernet" \
	grep -Eq '^[[:space:]]+link_layer:[[:space:]]+Ethernet' <<<"$info"
point "port 1 has a RoCE v2 GID" grep -Eq 'GID\[ *[0-9]+\]:.*, RoCE v2$' <<<"$info"
point "a RoCE v2 GID for $ADDR" \
	grep -Eq "GID\\[ *[0-9]+\\]:[[:space:]]+::ffff:$ADDR, RoCE v2\$" <<<"$info"

ktap_finish
