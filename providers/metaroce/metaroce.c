// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: the libibverbs provider for MetaRoCE devices.
 *
 * The control path (device and port queries, contexts, protection domains,
 * memory regions) goes through the core uverbs commands; CQs, QPs and AHs
 * are in rings.c, their extended verbs in cq_ex.c and qp_ex.c, SRQs in
 * srq.c, memory windows in mw.c. Every verb left unset here is answered by
 * libibverbs with EOPNOTSUPP.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"

struct metaroce_device {
	struct verbs_device vdev;
};

/*
 * GET_CONTEXT response: the core part, then ours (see metaroce-abi.h). The
 * core structure ends in a flexible array, so the driver part is laid out
 * after a placeholder of the same size rather than after the structure.
 */
union metaroce_get_context_resp {
	struct ib_uverbs_get_context_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_get_context_resp)];
		struct metaroce_alloc_ucontext_resp drv;
	};
};

static_assert(offsetof(union metaroce_get_context_resp, drv) ==
	      sizeof(struct ib_uverbs_get_context_resp),
	      "no padding between the core and driver parts of the response");
static_assert(sizeof(union metaroce_get_context_resp) % 8 == 0,
	      "uverbs responses are a whole number of 64-bit words");

static inline struct metaroce_device *to_mdev(struct verbs_device *vdev)
{
	return (struct metaroce_device *)((char *)vdev -
		offsetof(struct metaroce_device, vdev));
}

/* Printed like the kernel's fw_ver attribute; see METAROCE_FW_VER(). */
static void metaroce_format_fw_ver(char *buf, size_t len, uint64_t fw_ver)
{
	snprintf(buf, len, "%u.%u.%u",
		 (unsigned int)(fw_ver >> 32) & 0xffff,
		 (unsigned int)(fw_ver >> 16) & 0xffff,
		 (unsigned int)fw_ver & 0xffff);
}

static int metaroce_query_device_ex(struct ibv_context *context,
				    const struct ibv_query_device_ex_input *input,
				    struct ibv_device_attr_ex *attr,
				    size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size,
				       &resp, &resp_size);
	if (ret)
		return ret;

	metaroce_format_fw_ver(attr->orig_attr.fw_ver,
			       sizeof(attr->orig_attr.fw_ver),
			       resp.base.fw_ver);
	return 0;
}

static int metaroce_query_port(struct ibv_context *context, uint8_t port_num,
			       struct ibv_port_attr *port_attr)
{
	struct vpriv_cmd_query_port cmd = {};

	return ibv_cmd_query_port(context, port_num, port_attr,
				  &cmd, sizeof(cmd));
}

static struct ibv_pd *metaroce_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct vpriv_cmd_alloc_pd cmd = {};
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(context, pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int metaroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

static struct ibv_mr *metaroce_reg_mr(struct ibv_pd *pd, void *addr,
				      size_t length, uint64_t hca_va,
				      int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct vpriv_cmd_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr,
			     &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int metaroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;

	free(vmr);
	return 0;
}

static void metaroce_free_context(struct ibv_context *ibctx)
{
	struct metaroce_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops metaroce_ctx_ops = {
	.alloc_mw = metaroce_alloc_mw,
	.alloc_pd = metaroce_alloc_pd,
	.bind_mw = metaroce_bind_mw,
	.create_ah = metaroce_create_ah,
	.create_cq = metaroce_create_cq,
	.create_cq_ex = metaroce_create_cq_ex,
	.create_qp = metaroce_create_qp,
	.create_qp_ex = metaroce_create_qp_ex,
	.create_srq = metaroce_create_srq,
	.dealloc_mw = metaroce_dealloc_mw,
	.dealloc_pd = metaroce_dealloc_pd,
	.dereg_mr = metaroce_dereg_mr,
	.destroy_ah = metaroce_destroy_ah,
	.destroy_cq = metaroce_destroy_cq,
	.destroy_qp = metaroce_destroy_qp,
	.destroy_srq = metaroce_destroy_srq,
	.free_context = metaroce_free_context,
	.modify_qp = metaroce_modify_qp,
	.modify_srq = metaroce_modify_srq,
	.poll_cq = metaroce_poll_cq,
	.post_recv = metaroce_post_recv,
	.post_send = metaroce_post_send,
	.post_srq_recv = metaroce_post_srq_recv,
	.query_device_ex = metaroce_query_device_ex,
	.query_port = metaroce_query_port,
	.query_qp = metaroce_query_qp,
	.query_srq = metaroce_query_srq,
	.reg_mr = metaroce_reg_mr,
	.req_notify_cq = metaroce_req_notify_cq,
	.resize_cq = metaroce_resize_cq,
};

static struct verbs_context *metaroce_alloc_context(struct ibv_device *ibdev,
						    int cmd_fd,
						    void *private_data)
{
	union metaroce_get_context_resp resp = {};
	struct vpriv_cmd_get_context cmd = {};
	struct metaroce_context *ctx;
	int ret;

	(void)private_data;

	/* The kernel device has no driver_id: ioctl headers must carry 0. */
	ctx = vpriv_alloc_context(ibdev, cmd_fd, struct metaroce_context, vctx,
				  RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.core, sizeof(resp));
	if (ret) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}

	ctx->poll_yield = metaroce_poll_yield_env();
	verbs_set_ops(&ctx->vctx, &metaroce_ctx_ops);
	return &ctx->vctx;
}

/*
 * Which devices are ours.
 *
 * The kernel driver is out of tree, so its devices report driver_id
 * RDMA_DRIVER_UNKNOWN, and their names are whatever the user gave to
 * "rdma link add" (and may be renamed later), so neither a driver_id
 * entry nor a name pattern can identify them. libibverbs does hand every
 * provider the device's uverbs ABI version before anything is opened, and
 * the MetaRoCE kernel driver sets it to a tagged value (see
 * rdma/metaroce-abi.h). A device is claimed when it has no driver_id and
 * carries the MetaRoCE tag; any revision is claimed here so that a kernel
 * newer or older than this library is reported by libibverbs against
 * match_{min,max}_abi_version instead of the device silently vanishing.
 * No sysfs file is read, so matching costs nothing for other devices.
 */
static bool metaroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	if (sysfs_dev->driver_id != RDMA_DRIVER_UNKNOWN)
		return false;

	return METAROCE_ABI_IS_METAROCE(sysfs_dev->abi_ver);
}

static struct verbs_device *
metaroce_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct metaroce_device *dev;

	(void)sysfs_dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->vdev;
}

static void metaroce_uninit_device(struct verbs_device *vdev)
{
	free(to_mdev(vdev));
}

static const struct verbs_device_ops metaroce_dev_ops = {
	.name = "metaroce",
	.match_min_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_device = metaroce_match_device,
	.alloc_device = metaroce_alloc_device,
	.uninit_device = metaroce_uninit_device,
	.alloc_context = metaroce_alloc_context,
};

/* Direct verbs (dv.c): whether a device is one of ours. */
bool metaroce_is_our_device(struct ibv_device *ibdev)
{
	/* The library allocated it as our verbs_device: ibv_device comes first. */
	return ibdev && ((struct verbs_device *)ibdev)->ops == &metaroce_dev_ops;
}

/* libibverbs dlopen()s this library; registering is all it needs from us. */
static void __attribute__((constructor)) metaroce_register_driver(void)
{
	verbs_register_driver_34(&metaroce_dev_ops);
}
