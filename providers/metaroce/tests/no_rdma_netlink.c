// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD helper for provider_enum.sh: make NETLINK_RDMA sockets fail as
 * on a kernel without ib_core, so that libibverbs falls back to discovering
 * devices in sysfs, which the test points at a fabricated tree (SYSFS_PATH).
 * Every other socket is created normally.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>
#include <linux/netlink.h>

int socket(int domain, int type, int protocol)
{
	static int (*next_socket)(int, int, int);

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (!next_socket) {
		next_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
		if (!next_socket) {
			errno = ENOSYS;
			return -1;
		}
	}
	return next_socket(domain, type, protocol);
}
