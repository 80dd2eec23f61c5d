#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs everything the build and the tests need, from Debian's packages only, and caches the
# test kernels. Idempotent: a second run installs nothing and takes about a second.
#
# Kernel images are not installed (that would run update-initramfs for minutes); their packages
# are downloaded and unpacked into $METAROCE_CACHE/kernel/VERSION/, where the VM harness finds
# vmlinuz and /lib/modules. Headers are installed, as kbuild needs them at their usual path.
#
# Writes $METAROCE_CACHE/kernels.env with the chosen versions (newest 6.12 and 6.1 available).
set -euo pipefail

CACHE=${METAROCE_CACHE:-/var/cache/metaroce}
export DEBIAN_FRONTEND=noninteractive

log() { printf 'deps: %s\n' "$*" >&2; }

HOST_PKGS=(
	build-essential pkg-config kmod cpio xz-utils zstd
	qemu-system-x86 busybox-static iproute2
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	perftest rdmacm-utils python3-pyverbs
	sparse libcmocka-dev clang gnuplot-nox
	linux-source-6.12 linux-source-6.1
)

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || echo "$p"
	done
}

apt_updated=
apt_update_once() {
	[ -n "$apt_updated" ] && return
	log "apt-get update"
	apt-get update -qq >/dev/null
	apt_updated=1
}

install_pkgs() {
	local -a need
	mapfile -t need < <(missing_pkgs "$@")
	[ ${#need[@]} -eq 0 ] && return
	apt_update_once
	log "installing ${need[*]}"
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# Newest "6.12.N+deb12-amd64" (plain flavour: cloud lacks RDMA_RXE) and the 6.1 ABI that
# linux-headers-amd64 points at. Resolved once, then read back from kernels.env.
pick_kernels() {
	if [ -s "$CACHE/kernels.env" ] && [ -z "${METAROCE_REPICK:-}" ]; then
		return
	fi
	apt_update_once
	local k612 k61
	k612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V | tail -n 1)
	k61=$(apt-cache depends linux-headers-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$k612" ] || { log "no linux-headers-6.12.*+deb12-amd64 in apt"; exit 1; }
	[ -n "$k61" ] || { log "no linux-headers-6.1.0-*-amd64 in apt"; exit 1; }
	mkdir -p "$CACHE"
	printf 'K612=%s\nK61=%s\n' "$k612" "$k61" >"$CACHE/kernels.env.tmp"
	mv "$CACHE/kernels.env.tmp" "$CACHE/kernels.env"
}

# Unpack linux-image-VERSION-unsigned into $CACHE/kernel/VERSION (vmlinuz + modules).
fetch_kernel_image() {
	local ver=$1 dir="$CACHE/kernel/$1" tmp
	[ -e "$dir/.complete" ] && return
	apt_update_once
	log "fetching kernel image $ver"
	tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
	(cd "$tmp" && apt-get -o APT::Sandbox::User=root download -qq "linux-image-$ver-unsigned" >/dev/null)
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$dir"
	rm -rf "$tmp"
	# Decompressed modules make depmod (run for every test VM) take one second instead of
	# seven; the kernel loads either form.
	find "$dir/lib/modules" -name '*.ko.xz' -print0 | xargs -0 -r -P "$(nproc)" -n 64 unxz
	find "$dir/lib/modules" -name '*.ko.zst' -print0 | xargs -0 -r -P "$(nproc)" -n 64 unzstd -q --rm
	sed -i 's/\.ko\.\(xz\|zst\)$/.ko/' "$dir/lib/modules/$ver/modules.order"
	depmod -b "$dir" "$ver"
	touch "$dir/.complete"
}

# unpack_source VERSION PATH...: the parts of linux-source-VERSION's tarball the project uses,
# into $CACHE/linux-source-VERSION.
unpack_source() {
	local ver=$1 dst="$CACHE/linux-source-$1" tarball
	shift
	[ -e "$dst/.complete" ] && return
	tarball=$(ls "/usr/src/linux-source-$ver.tar."* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || { log "linux-source-$ver tarball missing"; exit 1; }
	log "unpacking $(basename "$tarball")"
	rm -rf "$dst"
	mkdir -p "$dst"
	tar -xf "$tarball" -C "$dst" --strip-components=1 "${@/#/linux-source-$ver/}"
	touch "$dst/.complete"
}

main() {
	mkdir -p "$CACHE"
	install_pkgs "${HOST_PKGS[@]}"
	pick_kernels
	# shellcheck source=/dev/null
	. "$CACHE/kernels.env"
	install_pkgs "linux-headers-$K612" "linux-headers-$K61"
	fetch_kernel_image "$K612"
	fetch_kernel_image "$K61"
	# 6.12's tree: siw (not built in Debian's kernels), checkpatch.pl, and the code we read.
	unpack_source 6.12 drivers/infiniband drivers/net/wireguard include/rdma \
		include/uapi/rdma tools/testing/selftests/wireguard scripts \
		Documentation/process/coding-style.rst
	# siw for the 6.1 kernel must come from 6.1's tree: 6.12's uses newer ib_core calls.
	unpack_source 6.1 drivers/infiniband/sw/siw
}

main "$@"
