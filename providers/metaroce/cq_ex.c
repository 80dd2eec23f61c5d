// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: extended CQs (ibv_create_cq_ex, ibv_start_poll and the
 * ibv_wc_read_* accessors).
 *
 * An extended CQ is an ordinary metaroce_cq on the same kind of ring, so
 * ibv_poll_cq, ibv_req_notify_cq, ibv_resize_cq and ibv_destroy_cq (rings.c)
 * work on it unchanged. start_poll takes the CQ lock and points at the
 * oldest unread CQE; the read_* callbacks read that entry in place (the
 * kernel does not reuse it before cons passes it); next_poll and end_poll
 * publish cons past it. The lock is held from a successful start_poll to
 * end_poll, as the API allows no other use of the CQ in between.
 */

#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"
#include "rings.h"

/*
 * What a CQE carries. slid, sl and dlid_path_bits are InfiniBand fields a
 * RoCE completion reports as 0. No timestamps, VLANs, flow tags or tag
 * matching: refused at creation.
 */
#define METAROCE_CQ_EX_WC_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
				 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
				 IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
				 IBV_WC_EX_WITH_DLID_PATH_BITS)

/* SINGLE_THREADED is a hint; IGNORE_OVERRUN is for the kernel to refuse. */
#define METAROCE_CQ_EX_FLAGS	(IBV_CREATE_CQ_ATTR_SINGLE_THREADED | \
				 IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)

static_assert(METAROCE_CQ_EX_WC_FLAGS == IBV_WC_STANDARD_FLAGS,
	      "the standard completion fields, nothing else");

union metaroce_create_cq_ex_resp_buf {
	struct ib_uverbs_ex_create_cq_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_ex_create_cq_resp)];
		struct metaroce_create_cq_resp drv;
	};
};

static_assert(offsetof(union metaroce_create_cq_ex_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_ex_create_cq_resp), "create_cq_ex resp");

static inline struct metaroce_cq *ex_to_mcq(struct ibv_cq_ex *cq_ex)
{
	return to_mcq(ibv_cq_ex_to_cq(cq_ex));
}

/* Makes the entry at cq->cons current, if there is one; lock held. */
static int metaroce_cq_ex_load(struct metaroce_cq *cq)
{
	const struct metaroce_cqe *cqe;

	if (cq->cons == metaroce_load_acquire(&cq->ring.hdr->prod)) {
		cq->cur = NULL;
		return ENOENT;
	}
	cqe = metaroce_uring_entry(&cq->ring, cq->cons);
	cq->cur = cqe;
	cq->vcq.cq_ex.wr_id = cqe->wr_id;
	cq->vcq.cq_ex.status = (enum ibv_wc_status)cqe->status;
	return 0;
}

/* The current entry is read: the kernel may reuse it. */
static void metaroce_cq_ex_consume(struct metaroce_cq *cq)
{
	cq->cons++;
	metaroce_store_release(&cq->ring.hdr->cons, cq->cons);
	cq->cur = NULL;
}

static int metaroce_start_poll(struct ibv_cq_ex *cq_ex,
			       struct ibv_poll_cq_attr *attr)
{
	struct metaroce_cq *cq = ex_to_mcq(cq_ex);
	bool yield;
	int ret;

	if (attr->comp_mask)
		return EINVAL;

	pthread_spin_lock(&cq->lock);
	ret = metaroce_cq_ex_load(cq);
	yield = metaroce_cq_polled(cq, !ret);
	if (ret)
		/* The caller does not call end_poll after ENOENT. */
		pthread_spin_unlock(&cq->lock);
	if (yield)
		sched_yield();
	return ret;
}

static int metaroce_next_poll(struct ibv_cq_ex *cq_ex)
{
	struct metaroce_cq *cq = ex_to_mcq(cq_ex);

	if (cq->cur)
		metaroce_cq_ex_consume(cq);
	return metaroce_cq_ex_load(cq);
}

static void metaroce_end_poll(struct ibv_cq_ex *cq_ex)
{
	struct metaroce_cq *cq = ex_to_mcq(cq_ex);

	if (cq->cur)
		metaroce_cq_ex_consume(cq);
	pthread_spin_unlock(&cq->lock);
}

static inline const struct metaroce_cqe *cur_cqe(struct ibv_cq_ex *cq_ex)
{
	return ex_to_mcq(cq_ex)->cur;
}

static enum ibv_wc_opcode metaroce_read_opcode(struct ibv_cq_ex *cq_ex)
{
	/* enum ib_uverbs_wc_opcode and enum ibv_wc_opcode agree. */
	return (enum ibv_wc_opcode)cur_cqe(cq_ex)->opcode;
}

static uint32_t metaroce_read_vendor_err(struct ibv_cq_ex *cq_ex)
{
	return cur_cqe(cq_ex)->vendor_err;
}

static uint32_t metaroce_read_byte_len(struct ibv_cq_ex *cq_ex)
{
	return cur_cqe(cq_ex)->byte_len;
}

/*
 * The immediate (network order) or, with IBV_WC_WITH_INV, the invalidated
 * rkey, which ibv_wc_read_invalidated_rkey() takes from here unconverted:
 * the CQE word as it is, like ibv_wc's union.
 */
static __be32 metaroce_read_imm_data(struct ibv_cq_ex *cq_ex)
{
	return cur_cqe(cq_ex)->imm_inv;
}

static uint32_t metaroce_read_qp_num(struct ibv_cq_ex *cq_ex)
{
	return cur_cqe(cq_ex)->qp_num;
}

static uint32_t metaroce_read_src_qp(struct ibv_cq_ex *cq_ex)
{
	return cur_cqe(cq_ex)->src_qp;
}

static unsigned int metaroce_read_wc_flags(struct ibv_cq_ex *cq_ex)
{
	return cur_cqe(cq_ex)->wc_flags & METAROCE_WC_FLAGS;
}

static uint32_t metaroce_read_slid(struct ibv_cq_ex *cq_ex)
{
	(void)cq_ex;
	return 0;
}

static uint8_t metaroce_read_sl(struct ibv_cq_ex *cq_ex)
{
	(void)cq_ex;
	return 0;
}

static uint8_t metaroce_read_dlid_path_bits(struct ibv_cq_ex *cq_ex)
{
	(void)cq_ex;
	return 0;
}

/* Only the accessors the creator asked for are set, as the API says. */
static void metaroce_cq_ex_set_ops(struct ibv_cq_ex *cq_ex, uint64_t wc_flags)
{
	cq_ex->start_poll = metaroce_start_poll;
	cq_ex->next_poll = metaroce_next_poll;
	cq_ex->end_poll = metaroce_end_poll;
	cq_ex->read_opcode = metaroce_read_opcode;
	cq_ex->read_vendor_err = metaroce_read_vendor_err;
	cq_ex->read_wc_flags = metaroce_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq_ex->read_byte_len = metaroce_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		cq_ex->read_imm_data = metaroce_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq_ex->read_qp_num = metaroce_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq_ex->read_src_qp = metaroce_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		cq_ex->read_slid = metaroce_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		cq_ex->read_sl = metaroce_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cq_ex->read_dlid_path_bits = metaroce_read_dlid_path_bits;
}

struct ibv_cq_ex *metaroce_create_cq_ex(struct ibv_context *context,
					struct ibv_cq_init_attr_ex *attr)
{
	union metaroce_create_cq_ex_resp_buf resp = {};
	struct vpriv_cmd_create_cq_ex cmd = {};
	struct metaroce_cq *cq;
	int ret;

	/* No parent domains; only the flags above; only what a CQE holds. */
	if ((attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)METAROCE_CQ_EX_FLAGS)) ||
	    (attr->wc_flags & ~(uint64_t)METAROCE_CQ_EX_WC_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq_ex(context, attr, &cq->vcq, &cmd, sizeof(cmd),
				   &resp.core, sizeof(resp), 0);
	if (ret)
		goto err_free;

	ret = metaroce_cq_setup(cq, &resp.drv.ring, context);
	if (ret)
		goto err_destroy;
	metaroce_cq_ex_set_ops(&cq->vcq.cq_ex, attr->wc_flags);
	return &cq->vcq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->ibcq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}
