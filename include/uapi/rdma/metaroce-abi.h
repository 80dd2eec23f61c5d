/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * MetaRoCE user/kernel ABI: the one header shared by the kernel driver
 * (drivers/infiniband/sw/metaroce) and the rdma-core provider
 * (providers/metaroce, libmetaroce-rdmav34.so).
 *
 * Device identification
 * ---------------------
 * MetaRoCE is built out of tree and has no entry of its own in
 * enum rdma_driver_id, so the kernel driver leaves ib_device_ops.driver_id
 * at RDMA_DRIVER_UNKNOWN (the ioctl header's driver_id must equal it) and
 * the provider cannot match on it. Device names are chosen by the user
 * ("rdma link add NAME type metaroce ...") and can be changed with
 * "rdma dev set NAME name NEW", so they cannot identify the driver either.
 *
 * Instead the per-device uverbs ABI version (ib_device_ops.uverbs_abi_ver,
 * reported over netlink as RDMA_NLDEV_ATTR_CHARDEV_ABI and in
 * /sys/class/infiniband_verbs/uverbsN/abi_version) carries a MetaRoCE tag
 * in its upper 16 bits and the ABI revision in its lower 16 bits. The
 * kernel driver must set
 *
 *	.uverbs_abi_ver = METAROCE_UVERBS_ABI_VERSION,
 *
 * and the provider claims a device only if its driver_id is
 * RDMA_DRIVER_UNKNOWN and METAROCE_ABI_IS_METAROCE(abi_ver) holds. A device
 * carrying the tag with a revision the provider does not implement is
 * reported by libibverbs ("does not support the kernel ABI of ...") rather
 * than silently ignored.
 */
#ifndef _UAPI_RDMA_METAROCE_ABI_H
#define _UAPI_RDMA_METAROCE_ABI_H

#include <linux/types.h>

/* "MR" in the upper half: no in-tree driver uses a uverbs ABI this large. */
#define METAROCE_ABI_TAG		0x4d520000U
#define METAROCE_ABI_TAG_MASK		0xffff0000U
#define METAROCE_ABI_REVISION_MASK	0x0000ffffU

#define METAROCE_ABI_IS_METAROCE(abi)	\
	(((abi) & METAROCE_ABI_TAG_MASK) == METAROCE_ABI_TAG)
#define METAROCE_ABI_REVISION(abi)	((abi) & METAROCE_ABI_REVISION_MASK)

/*
 * Revision 1: control path only (device, port, PD, MR queries and objects
 * through the core uverbs commands). Bump it, and the provider's accepted
 * range, whenever a structure below changes incompatibly.
 */
#define METAROCE_ABI_REVISION_CURRENT	1
#define METAROCE_UVERBS_ABI_VERSION	\
	(METAROCE_ABI_TAG | METAROCE_ABI_REVISION_CURRENT)

/*
 * Encoding of ib_device_attr.fw_ver (QUERY_DEVICE's fw_ver): 16 bits each of
 * major, minor and sub-minor, shown as "major.minor.sub" by the provider
 * (ibv_devinfo). The kernel driver's get_dev_fw_str() (sysfs fw_ver) should
 * print it the same way.
 */
#define METAROCE_FW_VER(major, minor, sub)			\
	((((__u64)(major) & 0xffff) << 32) |			\
	 (((__u64)(minor) & 0xffff) << 16) |			\
	 ((__u64)(sub) & 0xffff))

/*
 * Driver-specific part of the IB_USER_VERBS_CMD_GET_CONTEXT response
 * (ib_alloc_ucontext's udata->outbuf), placed after
 * struct ib_uverbs_get_context_resp. Nothing is defined yet: the kernel
 * writes zeroes. comp_mask will flag the fields later revisions append.
 */
struct metaroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 reserved;
};

#endif /* _UAPI_RDMA_METAROCE_ABI_H */
