// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test: what libmetaroce registers, and which devices it claims.
 *
 * This program defines verbs_register_driver_34 itself and exports it
 * (-rdynamic), so when the provider's constructor runs during dlopen() its
 * call lands here instead of in libibverbs and the registered
 * verbs_device_ops can be inspected. The match_device() callback is then fed
 * device records shaped like the ones libibverbs builds from netlink.
 *
 * Library location and output as in provider_load.c.
 */

#include <dlfcn.h>
#include <string.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/metaroce-abi.h>

#include "../verbs_private.h"
#include "tap.h"

static const struct verbs_device_ops *registered;
static int registrations;

void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	registered = ops;
	registrations++;
}

struct match_case {
	const char *what;
	const char *ibdev_name;
	uint32_t driver_id;
	uint32_t abi_ver;
	bool claimed;
};

static const struct match_case cases[] = {
	{ "claims a MetaRoCE device named by the user", "mr0",
	  RDMA_DRIVER_UNKNOWN, METAROCE_UVERBS_ABI_VERSION, true },
	{ "claims it whatever its name", "rocep0s1",
	  RDMA_DRIVER_UNKNOWN, METAROCE_UVERBS_ABI_VERSION, true },
	{ "claims a MetaRoCE device of another ABI revision", "mr1",
	  RDMA_DRIVER_UNKNOWN, METAROCE_ABI_TAG | 0x7fff, true },
	{ "ignores rxe", "rxe0", RDMA_DRIVER_RXE, 2, false },
	{ "ignores siw", "siw0", RDMA_DRIVER_SIW, 1, false },
	{ "ignores an untagged driver-less device named mr0", "mr0",
	  RDMA_DRIVER_UNKNOWN, 1, false },
	{ "ignores a device without uverbs (abi 0)", "mr0",
	  RDMA_DRIVER_UNKNOWN, 0, false },
	{ "ignores the tag on a device that has a driver_id", "mlx5_0",
	  RDMA_DRIVER_MLX5, METAROCE_UVERBS_ABI_VERSION, false },
	{ "ignores a near-miss tag", "mr0",
	  RDMA_DRIVER_UNKNOWN, METAROCE_ABI_TAG ^ 0x00010000U, false },
};

int main(void)
{
	char buf[PATH_MAX + 64];
	const struct verbs_device_ops *ops;
	struct verbs_device *vdev = NULL;
	struct verbs_sysfs_dev sdev;
	const char *path;
	void *handle;
	int planned;
	size_t i;

	planned = 8 + ARRAY_SIZE(cases) + 2;
	printf("TAP version 13\n1..%d\n", planned);

	path = provider_path(buf, sizeof(buf));
	handle = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	tap(handle != NULL, "dlopen the provider", NULL);
	if (!handle)
		printf("  # %s\n", path ? dlerror() : "cannot locate the provider");

	tap(registrations == 1, "the constructor registers exactly once", NULL);
	ops = registered;
	if (!ops) {
		printf("Bail out! nothing was registered\n");
		return 1;
	}

	tap(ops->name && strcmp(ops->name, "metaroce") == 0,
	    "provider name is \"metaroce\" (as in metaroce.driver)", NULL);
	tap(ops->match_min_abi_version == METAROCE_UVERBS_ABI_VERSION &&
	    ops->match_max_abi_version == METAROCE_UVERBS_ABI_VERSION,
	    "accepts exactly the uapi header's METAROCE_UVERBS_ABI_VERSION", NULL);
	tap(ops->match_table == NULL && ops->match_device != NULL,
	    "matches by callback, not by table", NULL);
	tap(ops->alloc_device && ops->uninit_device && ops->alloc_context,
	    "alloc_device, uninit_device and alloc_context are set", NULL);
	tap(ops->import_context == NULL && ops->static_providers == NULL,
	    "import_context and static_providers are unset", NULL);
	tap(!METAROCE_ABI_IS_METAROCE(2) &&
	    METAROCE_ABI_REVISION(METAROCE_UVERBS_ABI_VERSION) ==
		    METAROCE_ABI_REVISION_CURRENT,
	    "uapi tag helpers are consistent", NULL);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct match_case *c = &cases[i];
		bool got;

		memset(&sdev, 0, sizeof(sdev));
		snprintf(sdev.ibdev_name, sizeof(sdev.ibdev_name), "%s",
			 c->ibdev_name);
		snprintf(sdev.sysfs_name, sizeof(sdev.sysfs_name), "uverbs%zu",
			 i);
		sdev.driver_id = c->driver_id;
		sdev.abi_ver = c->abi_ver;
		sdev.node_type = IBV_NODE_CA;
		sdev.num_ports = 1;

		got = ops->match_device(&sdev);
		tap(got == c->claimed, c->what, NULL);
	}

	memset(&sdev, 0, sizeof(sdev));
	sdev.abi_ver = METAROCE_UVERBS_ABI_VERSION;
	vdev = ops->alloc_device(&sdev);
	tap(vdev && vdev->ops == NULL && vdev->sysfs == NULL,
	    "alloc_device returns a zeroed verbs_device for the library to fill", NULL);
	if (vdev)
		ops->uninit_device(vdev);
	tap(vdev != NULL, "uninit_device takes back the allocated device", NULL);

	return tap_failed || tap_count != planned ? 1 : 0;
}
