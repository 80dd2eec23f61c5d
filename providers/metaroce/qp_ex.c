// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: extended QPs (ibv_create_qp_ex with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, ibv_qp_to_qp_ex and the ibv_wr_* send
 * API).
 *
 * An extended QP is an ordinary metaroce_qp (rings.c): same rings, same
 * ibv_post_send and ibv_post_recv. wr_start takes the send queue lock; each
 * builder (wr_send, wr_rdma_write, ...) writes a WQE header into the next
 * free slot of the send ring past the published prod, and the setters
 * (wr_set_sge, wr_set_inline_data, wr_set_ud_addr, ...) complete that WQE in
 * place. Nothing is visible to the kernel until wr_complete publishes prod
 * and rings the doorbell of ibv_post_send. wr_abort publishes nothing: the
 * slots it wrote are free slots the kernel never reads, overwritten by the
 * next post. The first invalid call of a batch is remembered and
 * wr_complete returns it, posting none of the batch.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"
#include "rings.h"

/* The operations each QP type offers through the wr_* API. */
#define METAROCE_QP_EX_RC_OPS	(IBV_QP_EX_WITH_SEND | \
				 IBV_QP_EX_WITH_SEND_WITH_IMM | \
				 IBV_QP_EX_WITH_SEND_WITH_INV | \
				 IBV_QP_EX_WITH_RDMA_WRITE | \
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
				 IBV_QP_EX_WITH_RDMA_READ | \
				 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
				 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | \
				 IBV_QP_EX_WITH_ATOMIC_WRITE | \
				 IBV_QP_EX_WITH_BIND_MW | \
				 IBV_QP_EX_WITH_LOCAL_INV)
/* UC: no READ, atomics or SEND_WITH_INV (IBTA). */
#define METAROCE_QP_EX_UC_OPS	(IBV_QP_EX_WITH_SEND | \
				 IBV_QP_EX_WITH_SEND_WITH_IMM | \
				 IBV_QP_EX_WITH_RDMA_WRITE | \
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define METAROCE_QP_EX_UD_OPS	(IBV_QP_EX_WITH_SEND | \
				 IBV_QP_EX_WITH_SEND_WITH_IMM)

/* qp_base is the first member: the two views share an address. */
static inline struct metaroce_qp *ex_to_mqp(struct ibv_qp_ex *qpx)
{
	return to_mqp(&qpx->qp_base);
}

static inline struct metaroce_sge *wqe_sge(struct metaroce_send_wqe *wqe)
{
	return (struct metaroce_sge *)(wqe + 1);
}

static void metaroce_wr_fail(struct metaroce_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

static bool metaroce_is_atomic(uint8_t opcode)
{
	return opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * The checks a WQE can only pass once its setters have run: a UD send has
 * its address, an atomic its one 8-byte local buffer (as ibv_post_send
 * asks).
 */
static void metaroce_wr_finish(struct metaroce_qp *qp)
{
	struct metaroce_send_wqe *wqe = qp->wr_cur;

	if (!wqe)
		return;
	qp->wr_cur = NULL;
	if (qp->ibqp.qp_type == IBV_QPT_UD && !wqe->wr.ud.ah_num)
		metaroce_wr_fail(qp, EINVAL);
	if (metaroce_is_atomic(wqe->opcode) &&
	    (wqe->num_sge != 1 || wqe_sge(wqe)->length != 8))
		metaroce_wr_fail(qp, EINVAL);
	/* Their data is in the WQE itself: no SGE may be added. */
	if ((wqe->opcode == IBV_WR_ATOMIC_WRITE || wqe->opcode == IBV_WR_BIND_MW ||
	     wqe->opcode == IBV_WR_LOCAL_INV) &&
	    (wqe->num_sge || wqe->inline_len))
		metaroce_wr_fail(qp, EINVAL);
}

/* A new WQE for @opcode in the next free slot, or NULL after an error. */
static struct metaroce_send_wqe *metaroce_wr_new(struct ibv_qp_ex *qpx,
						 enum ibv_wr_opcode opcode)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);
	struct metaroce_send_wqe *wqe;
	uint32_t cons;

	metaroce_wr_finish(qp);
	if (qp->wr_err)
		return NULL;
	if (!metaroce_opcode_ok(qp->ibqp.qp_type, opcode) ||
	    (qpx->wr_flags & ~(unsigned int)METAROCE_SEND_FLAGS)) {
		metaroce_wr_fail(qp, EINVAL);
		return NULL;
	}
	cons = metaroce_load_acquire(&qp->sq.hdr->cons);
	if (qp->sq_prod + qp->wr_pending - cons >= qp->sq.num) {
		metaroce_wr_fail(qp, ENOMEM);
		return NULL;
	}

	wqe = metaroce_uring_entry(&qp->sq, qp->sq_prod + qp->wr_pending);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = qpx->wr_id;
	wqe->opcode = opcode;
	/* Inline is what wr_set_inline_data* says, not a flag here. */
	wqe->send_flags = qpx->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	qp->wr_cur = wqe;
	qp->wr_pending++;
	return wqe;
}

/* The WQE the setters complete, or NULL (error remembered). */
struct metaroce_send_wqe *metaroce_wr_cur(struct ibv_qp_ex *qpx)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);

	if (qp->wr_err)
		return NULL;
	if (!qp->wr_cur)
		metaroce_wr_fail(qp, EINVAL);	/* a setter before any builder */
	return qp->wr_cur;
}

/* Builders */

static void metaroce_wr_send(struct ibv_qp_ex *qpx)
{
	metaroce_wr_new(qpx, IBV_WR_SEND);
}

static void metaroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct metaroce_send_wqe *wqe = metaroce_wr_new(qpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		wqe->imm_inv = imm_data;	/* network order */
}

static void metaroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct metaroce_send_wqe *wqe = metaroce_wr_new(qpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		wqe->imm_inv = rkey;
}

static void metaroce_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			     uint32_t rkey, uint64_t remote_addr,
			     __be32 imm_data)
{
	struct metaroce_send_wqe *wqe = metaroce_wr_new(qpx, opcode);

	if (!wqe)
		return;
	wqe->wr.rdma.remote_addr = remote_addr;
	wqe->wr.rdma.rkey = rkey;
	wqe->imm_inv = imm_data;
}

static void metaroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr)
{
	metaroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void metaroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				       uint64_t remote_addr, __be32 imm_data)
{
	metaroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
			 imm_data);
}

static void metaroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr)
{
	metaroce_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void metaroce_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			       uint32_t rkey, uint64_t remote_addr,
			       uint64_t compare_add, uint64_t swap)
{
	struct metaroce_send_wqe *wqe = metaroce_wr_new(qpx, opcode);

	if (!wqe)
		return;
	wqe->wr.atomic.remote_addr = remote_addr;
	wqe->wr.atomic.compare_add = compare_add;
	wqe->wr.atomic.swap = swap;
	wqe->wr.atomic.rkey = rkey;
}

static void metaroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				       uint64_t remote_addr, uint64_t compare,
				       uint64_t swap)
{
	metaroce_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			   compare, swap);
}

static void metaroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
					 uint64_t remote_addr, uint64_t add)
{
	metaroce_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			   add, 0);
}

static void metaroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
				uint32_t rkey,
				const struct ibv_mw_bind_info *info)
{
	struct metaroce_send_wqe *wqe;

	if (!mw || !info) {
		metaroce_wr_finish(ex_to_mqp(qpx));
		metaroce_wr_fail(ex_to_mqp(qpx), EINVAL);
		return;
	}
	wqe = metaroce_wr_new(qpx, IBV_WR_BIND_MW);
	if (wqe)
		metaroce_build_bind(wqe, mw, rkey, info);
}

/* The 8 bytes are copied now, as ibv_wr_atomic_write() allows. */
static void metaroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr,
				     const void *atomic_wr)
{
	struct metaroce_send_wqe *wqe;

	if (!atomic_wr) {
		metaroce_wr_finish(ex_to_mqp(qpx));
		metaroce_wr_fail(ex_to_mqp(qpx), EINVAL);
		return;
	}
	wqe = metaroce_wr_new(qpx, IBV_WR_ATOMIC_WRITE);
	if (!wqe)
		return;
	wqe->wr.atomic.remote_addr = remote_addr;
	wqe->wr.atomic.rkey = rkey;
	memcpy(&wqe->wr.atomic.swap, atomic_wr, 8);
}

/* Invalidates a type 2 window's key on this QP, as ibv_post_send does. */
static void metaroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct metaroce_send_wqe *wqe = metaroce_wr_new(qpx, IBV_WR_LOCAL_INV);

	if (wqe)
		wqe->imm_inv = invalidate_rkey;
}

/*
 * What MetaRoCE does not do through this API (TSO, XRC): creation refuses
 * the flags, and these stand in for the builders so that a stray call fails
 * the batch instead of calling NULL.
 */

static void metaroce_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr,
				 uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	metaroce_wr_finish(ex_to_mqp(qpx));
	metaroce_wr_fail(ex_to_mqp(qpx), EOPNOTSUPP);
}

static void metaroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t srqn)
{
	(void)srqn;
	metaroce_wr_fail(ex_to_mqp(qpx), EOPNOTSUPP);
}

/* Setters */

static void metaroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				    uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);
	struct metaroce_send_wqe *wqe = metaroce_wr_cur(qpx);

	if (!wqe)
		return;
	if (qp->ibqp.qp_type != IBV_QPT_UD || !ah) {
		metaroce_wr_fail(qp, EINVAL);
		return;
	}
	wqe->wr.ud.ah_num = to_mah(ah)->ah_num;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
}

static void metaroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				     const struct ibv_sge *sg_list)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);
	struct metaroce_send_wqe *wqe = metaroce_wr_cur(qpx);
	struct metaroce_sge *sge;
	size_t i;

	if (!wqe)
		return;
	if (num_sge > qp->max_send_sge || (num_sge && !sg_list)) {
		metaroce_wr_fail(qp, EINVAL);
		return;
	}
	sge = wqe_sge(wqe);
	for (i = 0; i < num_sge; i++) {
		sge[i].addr = sg_list[i].addr;
		sge[i].length = sg_list[i].length;
		sge[i].lkey = sg_list[i].lkey;
	}
	wqe->num_sge = num_sge;
	wqe->inline_len = 0;
	wqe->send_flags &= ~(uint32_t)IBV_SEND_INLINE;
}

static void metaroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
				uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	metaroce_wr_set_sge_list(qpx, 1, &sge);
}

/* The data is copied now: the caller may reuse its buffers on return. */
static void metaroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					     size_t num_buf,
					     const struct ibv_data_buf *bufs)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);
	struct metaroce_send_wqe *wqe = metaroce_wr_cur(qpx);
	uint8_t *dst;
	size_t i, len = 0;

	if (!wqe)
		return;
	switch (wqe->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		break;
	default:
		metaroce_wr_fail(qp, EINVAL);	/* reads and atomics */
		return;
	}
	if (num_buf && !bufs) {
		metaroce_wr_fail(qp, EINVAL);
		return;
	}
	dst = (uint8_t *)(wqe + 1);
	for (i = 0; i < num_buf; i++) {
		if (bufs[i].length > qp->max_inline - len) {
			metaroce_wr_fail(qp, EINVAL);
			return;
		}
		memcpy(dst + len, bufs[i].addr, bufs[i].length);
		len += bufs[i].length;
	}
	wqe->inline_len = len;
	wqe->num_sge = 0;
	wqe->send_flags |= IBV_SEND_INLINE;
}

static void metaroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
					size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	metaroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/* Batches */

static void metaroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);

	pthread_spin_lock(&qp->sq_lock);
	qp->wr_cur = NULL;
	qp->wr_pending = 0;
	qp->wr_err = 0;
}

static int metaroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);
	struct ibv_send_wr *unused;
	uint32_t pending;
	int ret;

	metaroce_wr_finish(qp);
	ret = qp->wr_err;
	/* As ibv_post_send: posting in RESET is an error. */
	if (!ret && qp->wr_pending && qp->ibqp.state == IBV_QPS_RESET)
		ret = EINVAL;
	pending = ret ? 0 : qp->wr_pending;
	if (pending) {
		qp->sq_prod += pending;
		/* The WQEs are written before the kernel may read them. */
		metaroce_store_release(&qp->sq.hdr->prod, qp->sq_prod);
	}
	qp->wr_pending = 0;
	pthread_spin_unlock(&qp->sq_lock);

	if (pending)
		ret = ibv_cmd_post_send(&qp->ibqp, NULL, &unused);
	return ret;
}

static void metaroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct metaroce_qp *qp = ex_to_mqp(qpx);

	qp->wr_cur = NULL;
	qp->wr_pending = 0;
	pthread_spin_unlock(&qp->sq_lock);
}

static void metaroce_qp_ex_set_ops(struct ibv_qp_ex *qpx)
{
	qpx->wr_atomic_cmp_swp = metaroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = metaroce_wr_atomic_fetch_add;
	qpx->wr_bind_mw = metaroce_wr_bind_mw;
	qpx->wr_local_inv = metaroce_wr_local_inv;
	qpx->wr_rdma_read = metaroce_wr_rdma_read;
	qpx->wr_rdma_write = metaroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = metaroce_wr_rdma_write_imm;
	qpx->wr_send = metaroce_wr_send;
	qpx->wr_send_imm = metaroce_wr_send_imm;
	qpx->wr_send_inv = metaroce_wr_send_inv;
	qpx->wr_send_tso = metaroce_wr_send_tso;
	qpx->wr_set_ud_addr = metaroce_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = metaroce_wr_set_xrc_srqn;
	qpx->wr_set_inline_data = metaroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = metaroce_wr_set_inline_data_list;
	qpx->wr_set_sge = metaroce_wr_set_sge;
	qpx->wr_set_sge_list = metaroce_wr_set_sge_list;
	qpx->wr_start = metaroce_wr_start;
	qpx->wr_complete = metaroce_wr_complete;
	qpx->wr_abort = metaroce_wr_abort;
	qpx->wr_atomic_write = metaroce_wr_atomic_write;
}

/* EOPNOTSUPP for what MetaRoCE does not do, EINVAL for what is malformed. */
static int metaroce_qp_ex_check(const struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t known = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS |
			       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	uint64_t ops;

	if (attr->comp_mask & ~known)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	switch (attr->qp_type) {
	case IBV_QPT_RC:
		ops = METAROCE_QP_EX_RC_OPS;
		break;
	case IBV_QPT_UC:
		ops = METAROCE_QP_EX_UC_OPS;
		break;
	case IBV_QPT_UD:
		ops = METAROCE_QP_EX_UD_OPS;
		break;
	default:
		return EOPNOTSUPP;
	}
	return attr->send_ops_flags & ~ops ? EOPNOTSUPP : 0;
}

struct ibv_qp *metaroce_create_qp_ex(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *attr)
{
	return metaroce_create_qp_ex_req(context, attr, NULL);
}

struct ibv_qp *metaroce_create_qp_ex_req(struct ibv_context *context,
					 struct ibv_qp_init_attr_ex *attr,
					 const struct metaroce_create_qp_req *req)
{
	union metaroce_create_qp_resp_buf resp = {};
	struct {
		struct vpriv_cmd_create_qp ibv;
		struct metaroce_create_qp_req drv;	/* udata: only with req */
	} cmd = {};
	struct ibv_qp_init_attr_ex kattr;
	struct metaroce_qp *qp;
	int ret;

	ret = metaroce_qp_ex_check(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	/* CREATE_FLAGS, checked to be 0 above, is not the command's to see. */
	kattr = *attr;
	kattr.comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_CREATE_FLAGS;
	if (req)
		cmd.drv = *req;
	ret = ibv_cmd_create_qp_ex(context, &qp->vqp, &kattr, &cmd.ibv,
				   req ? sizeof(cmd) : sizeof(cmd.ibv),
				   &resp.core, sizeof(resp));
	if (ret)
		goto err_free;
	/* What the kernel granted, as ibv_create_qp() reports it. */
	attr->cap = kattr.cap;

	ret = metaroce_qp_setup(qp, &resp.drv, &attr->cap, attr->srq,
				context->cmd_fd);
	if (ret)
		goto err_destroy;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		metaroce_qp_ex_set_ops(&qp->vqp.qp_ex);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return &qp->ibqp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->ibqp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}
