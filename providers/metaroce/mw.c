// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: memory windows. Allocation and deallocation are the core
 * uverbs commands; a bind is a BIND_MW send WQE (metaroce-abi.h, wr.bind)
 * that the kernel executes in send queue order: ibv_post_send with
 * IBV_WR_BIND_MW and ibv_wr_bind_mw for type 2 windows, ibv_bind_mw for
 * type 1 windows.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"
#include "rings.h"

struct ibv_mw *metaroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct vpriv_cmd_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	/* The kernel judges the type: an unknown one is EINVAL, not EOPNOTSUPP. */
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int metaroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

void metaroce_build_bind(struct metaroce_send_wqe *wqe, const struct ibv_mw *mw,
			 uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	wqe->wr.bind.addr = info->addr;
	wqe->wr.bind.length = info->length;
	wqe->wr.bind.mr_lkey = info->mr ? info->mr->lkey : 0;
	wqe->wr.bind.mw_rkey = mw->rkey;
	wqe->wr.bind.rkey = rkey;
	wqe->wr.bind.access = info->mw_access_flags;
}

/*
 * ibv_bind_mw() (type 1): post the bind and give the window its next key
 * now, as the verb promises; a bind the kernel refuses completes with
 * IBV_WC_MW_BIND_ERR and leaves the kernel's key unchanged.
 */
int metaroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		     struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
	};
	struct ibv_send_wr *bad;
	int ret;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = metaroce_post_send(ibqp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
