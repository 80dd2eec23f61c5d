// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: completion queues, queue pairs and address handles.
 *
 * Every queue is a ring the kernel allocated and this library maps from the
 * uverbs file (see "Rings" in rdma/metaroce-abi.h). Polling a CQ and posting
 * a receive touch only the ring; posting sends writes the WQEs, publishes
 * them, then rings the doorbell (POST_SEND with no work requests). A user
 * AH is named in UD send WQEs by the number the kernel gave it.
 *
 * Each queue's producer or consumer index is kept here and only published in
 * the ring (release); the other side's index is read with acquire. Each
 * queue has a lock, so that the verbs are safe to call from several threads
 * as libibverbs promises. The objects (rings.h) are shared with the
 * extended verbs of cq_ex.c and qp_ex.c, which use the same rings.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"
#include "rings.h"

static_assert(sizeof(struct metaroce_ring) == METAROCE_RING_HDR_SIZE,
	      "ring header");
static_assert(sizeof(struct metaroce_sge) == 16, "metaroce_sge");
static_assert(sizeof(struct metaroce_send_wqe) == 64, "send WQE header");
static_assert(sizeof(struct metaroce_recv_wqe) == 16, "receive WQE header");
static_assert(sizeof(struct metaroce_cqe) == 64, "CQE");

/* The values the ABI takes from libibverbs' enums. */
static_assert(METAROCE_SEND_FENCE == IBV_SEND_FENCE &&
	      METAROCE_SEND_SIGNALED == IBV_SEND_SIGNALED &&
	      METAROCE_SEND_SOLICITED == IBV_SEND_SOLICITED &&
	      METAROCE_SEND_INLINE == IBV_SEND_INLINE, "send flags");
static_assert(METAROCE_WC_RECV == IBV_WC_RECV &&
	      METAROCE_WC_RECV_RDMA_WITH_IMM == IBV_WC_RECV_RDMA_WITH_IMM,
	      "receive completion opcodes");
static_assert(METAROCE_WC_GRH == IBV_WC_GRH &&
	      METAROCE_WC_WITH_IMM == IBV_WC_WITH_IMM &&
	      METAROCE_WC_WITH_INV == IBV_WC_WITH_INV, "completion flags");

/*
 * Maps the ring @info describes. Its geometry is checked first: entries of
 * at least @min_entry_size bytes, all inside the mapping.
 */
int metaroce_uring_map(struct metaroce_uring *r,
		       const struct metaroce_ring_info *info,
		       int cmd_fd, uint32_t min_entry_size)
{
	uint64_t need;
	void *p;

	if (!info->num_entries ||
	    (info->num_entries & (info->num_entries - 1)) ||
	    info->entry_size < min_entry_size || info->entry_size % 64)
		return EPROTO;
	need = METAROCE_RING_HDR_SIZE +
	       (uint64_t)info->num_entries * info->entry_size;
	if (info->mmap_length < need || info->mmap_length > SIZE_MAX ||
	    info->mmap_offset > INT64_MAX)
		return EPROTO;

	p = mmap(NULL, info->mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		 cmd_fd, (off_t)info->mmap_offset);
	if (p == MAP_FAILED)
		return errno;

	r->hdr = p;
	r->entries = (uint8_t *)p + METAROCE_RING_HDR_SIZE;
	r->map_len = info->mmap_length;
	r->num = info->num_entries;
	r->entry_size = info->entry_size;
	return 0;
}

void metaroce_uring_unmap(struct metaroce_uring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_len);
	memset(r, 0, sizeof(*r));
}

/* Completion queues */

/*
 * Responses with driver data: the core structure, then ours. The core
 * structures end in flexible arrays, so ours is laid out after a
 * placeholder of the same size (as for GET_CONTEXT in metaroce.c).
 */
union metaroce_create_cq_resp_buf {
	struct ib_uverbs_create_cq_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_create_cq_resp)];
		struct metaroce_create_cq_resp drv;
	};
};

union metaroce_resize_cq_resp_buf {
	struct ib_uverbs_resize_cq_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_resize_cq_resp)];
		struct metaroce_resize_cq_resp drv;
	};
};

union metaroce_create_ah_resp_buf {
	struct ib_uverbs_create_ah_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_create_ah_resp)];
		struct metaroce_create_ah_resp drv;
	};
};

static_assert(offsetof(union metaroce_create_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_cq_resp), "create_cq resp");
static_assert(offsetof(union metaroce_resize_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_resize_cq_resp), "resize_cq resp");
static_assert(offsetof(union metaroce_create_ah_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_ah_resp), "create_ah resp");

/*
 * The software datapath runs on the host's CPUs, often on the one a process
 * busy-polls its CQ on; a poller that never lets go leaves the kernel work
 * that completes its requests (the QPs' work items) half of that CPU. So a
 * poller gives its CPU up (sched_yield) after METAROCE_POLL_YIELD empty
 * polls in a row; 0 never does (Documentation/infiniband/metaroce-admin.rst,
 * "Polling a CQ", has what it bought in the test VM). Read once per opened
 * device, as other providers read their variables: a bad value is reported
 * once, not for every CQ.
 */
unsigned int metaroce_poll_yield_env(void)
{
	const char *s = getenv("METAROCE_POLL_YIELD");
	unsigned long v;
	char *end;

	if (!s)
		return METAROCE_POLL_YIELD_DEFAULT;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end || v > METAROCE_POLL_YIELD_MAX) {
		fprintf(stderr,
			"libmetaroce: METAROCE_POLL_YIELD=%s is not a number of polls 0..%u; using %u\n",
			s, METAROCE_POLL_YIELD_MAX, METAROCE_POLL_YIELD_DEFAULT);
		return METAROCE_POLL_YIELD_DEFAULT;
	}
	return v;
}

/*
 * After the kernel created @cq (ordinary or extended): map its ring. On
 * failure the caller destroys the kernel object.
 */
int metaroce_cq_setup(struct metaroce_cq *cq,
		      const struct metaroce_ring_info *info,
		      struct ibv_context *context)
{
	int ret;

	ret = metaroce_uring_map(&cq->ring, info, context->cmd_fd,
				 sizeof(struct metaroce_cqe));
	if (ret)
		return ret;

	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		metaroce_uring_unmap(&cq->ring);
		return ret;
	}
	cq->cons = 0;
	cq->empty_polls = 0;
	cq->yield_after = to_mctx(context)->poll_yield;
	return 0;
}

struct ibv_cq *metaroce_create_cq(struct ibv_context *context, int cqe,
				  struct ibv_comp_channel *channel,
				  int comp_vector)
{
	union metaroce_create_cq_resp_buf resp = {};
	struct vpriv_cmd_create_cq cmd = {};
	struct metaroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector, &cq->ibcq,
				&cmd, sizeof(cmd), &resp.core, sizeof(resp));
	if (ret)
		goto err_free;

	ret = metaroce_cq_setup(cq, &resp.drv.ring, context);
	if (ret)
		goto err_destroy;
	return &cq->ibcq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->ibcq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

static void metaroce_cqe_to_wc(const struct metaroce_cqe *cqe,
			       struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	/* enum ib_uverbs_wc_opcode and enum ibv_wc_opcode agree. */
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	/* imm_data (network order) and invalidated_rkey share the word. */
	wc->imm_data = cqe->imm_inv;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags & METAROCE_WC_FLAGS;
}

int metaroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	uint32_t prod;
	bool yield;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	prod = metaroce_load_acquire(&cq->ring.hdr->prod);
	while (n < num_entries && cq->cons != prod) {
		metaroce_cqe_to_wc(metaroce_uring_entry(&cq->ring, cq->cons),
				   &wc[n]);
		cq->cons++;
		n++;
	}
	if (n)
		/* The entries are read: the kernel may reuse them. */
		metaroce_store_release(&cq->ring.hdr->cons, cq->cons);
	yield = metaroce_cq_polled(cq, n);
	pthread_spin_unlock(&cq->lock);
	if (yield)
		sched_yield();
	return n;
}

int metaroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * The kernel moves the unpolled completions to a new ring and drops the old
 * one; we switch mappings under the lock, so no poll sees half of it.
 */
int metaroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	union metaroce_resize_cq_resp_buf resp = {};
	struct vpriv_cmd_resize_cq cmd = {};
	struct metaroce_cq *cq = to_mcq(ibcq);
	struct metaroce_uring ring = {};
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.core,
				sizeof(resp));
	if (!ret)
		ret = metaroce_uring_map(&ring, &resp.drv.ring,
					 ibcq->context->cmd_fd,
					 sizeof(struct metaroce_cqe));
	if (!ret) {
		metaroce_uring_unmap(&cq->ring);
		cq->ring = ring;
		cq->cons = metaroce_load_acquire(&ring.hdr->cons);
	}
	pthread_spin_unlock(&cq->lock);
	return ret;
}

int metaroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	metaroce_uring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/* Address handles */

struct ibv_ah *metaroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	union metaroce_create_ah_resp_buf resp = {};
	struct metaroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibah, attr, &resp.core, sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	if (!resp.drv.ah_num) {
		/* A kernel that did not number it: UD sends could not name it. */
		ibv_cmd_destroy_ah(&ah->ibah);
		free(ah);
		errno = EPROTO;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibah;
}

int metaroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_mah(ibah));
	return 0;
}

/* Queue pairs */

static uint32_t metaroce_min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * After the kernel created @qp (ordinary or extended) with the capacities
 * @cap it granted: map its rings. On failure the caller destroys the
 * kernel object.
 */
int metaroce_qp_setup(struct metaroce_qp *qp,
		      const struct metaroce_create_qp_resp *drv,
		      const struct ibv_qp_cap *cap, bool has_srq, int cmd_fd)
{
	int ret;

	ret = metaroce_uring_map(&qp->sq, &drv->sq, cmd_fd,
				 sizeof(struct metaroce_send_wqe));
	if (ret)
		return ret;
	if (!has_srq) {
		ret = metaroce_uring_map(&qp->rq, &drv->rq, cmd_fd,
					 sizeof(struct metaroce_recv_wqe));
		if (ret)
			goto err_unmap;
	}

	/* What the kernel granted, and no more than an entry holds. */
	qp->max_send_sge = metaroce_min_u32(cap->max_send_sge,
		(qp->sq.entry_size - sizeof(struct metaroce_send_wqe)) /
		sizeof(struct metaroce_sge));
	qp->max_inline = metaroce_min_u32(cap->max_inline_data,
		qp->sq.entry_size - sizeof(struct metaroce_send_wqe));
	if (qp->rq.hdr)
		qp->max_recv_sge = metaroce_min_u32(cap->max_recv_sge,
			(qp->rq.entry_size - sizeof(struct metaroce_recv_wqe)) /
			sizeof(struct metaroce_sge));

	ret = pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_unmap;
	ret = pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		pthread_spin_destroy(&qp->sq_lock);
		goto err_unmap;
	}
	qp->sq_prod = metaroce_load_acquire(&qp->sq.hdr->prod);
	if (qp->rq.hdr)
		qp->rq_prod = metaroce_load_acquire(&qp->rq.hdr->prod);
	ret = metaroce_qp_dv_setup(qp, drv, cmd_fd);
	if (ret) {
		pthread_spin_destroy(&qp->rq_lock);
		pthread_spin_destroy(&qp->sq_lock);
		goto err_unmap;
	}
	return 0;

err_unmap:
	metaroce_uring_unmap(&qp->rq);
	metaroce_uring_unmap(&qp->sq);
	return ret;
}

struct ibv_qp *metaroce_create_qp(struct ibv_pd *pd,
				  struct ibv_qp_init_attr *attr)
{
	union metaroce_create_qp_resp_buf resp = {};
	struct vpriv_cmd_create_qp cmd = {};
	struct metaroce_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	/* On success attr->cap holds what the kernel granted. */
	ret = ibv_cmd_create_qp(pd, &qp->ibqp, attr, &cmd, sizeof(cmd),
				&resp.core, sizeof(resp));
	if (ret)
		goto err_free;

	ret = metaroce_qp_setup(qp, &resp.drv, &attr->cap, attr->srq,
				pd->context->cmd_fd);
	if (ret)
		goto err_destroy;
	return &qp->ibqp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->ibqp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

int metaroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		       int attr_mask)
{
	struct vpriv_cmd_modify_qp cmd = {};

	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

int metaroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct vpriv_cmd_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr,
				&cmd, sizeof(cmd));
}

int metaroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	metaroce_qp_dv_unmap(qp);
	metaroce_uring_unmap(&qp->rq);
	metaroce_uring_unmap(&qp->sq);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	return 0;
}

/* Whether a QP of @type can post @opcode. */
bool metaroce_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode opcode)
{
	switch (opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return type == IBV_QPT_RC || type == IBV_QPT_UC ||
		       type == IBV_QPT_UD;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return type == IBV_QPT_RC || type == IBV_QPT_UC;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_WRITE:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		return type == IBV_QPT_RC;
	default:
		return false;
	}
}

/* Copies the data of an inline send into the entry; EINVAL if too long. */
static int metaroce_copy_inline(struct metaroce_qp *qp,
				const struct ibv_send_wr *wr,
				struct metaroce_send_wqe *wqe)
{
	uint8_t *dst = (uint8_t *)(wqe + 1);
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *sge = &wr->sg_list[i];

		if (sge->length > qp->max_inline - len)
			return EINVAL;
		memcpy(dst + len, (const void *)(uintptr_t)sge->addr,
		       sge->length);
		len += sge->length;
	}
	wqe->inline_len = len;
	return 0;
}

/* Writes the WQE for @wr into @wqe (not yet published); an errno if bad. */
static int metaroce_build_send(struct metaroce_qp *qp,
			       const struct ibv_send_wr *wr,
			       struct metaroce_send_wqe *wqe)
{
	enum ibv_qp_type type = qp->ibqp.qp_type;
	struct metaroce_sge *sge = (struct metaroce_sge *)(wqe + 1);
	bool is_inline = wr->send_flags & IBV_SEND_INLINE;
	int i;

	if (!metaroce_opcode_ok(type, wr->opcode) ||
	    (wr->send_flags & ~METAROCE_SEND_FLAGS) || wr->num_sge < 0)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm_inv = wr->imm_data;	/* network order */
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->imm_inv = wr->invalidate_rkey;
		break;
	default:
		break;
	}

	if (type == IBV_QPT_UD) {
		if (!wr->wr.ud.ah)
			return EINVAL;
		wqe->wr.ud.ah_num = to_mah(wr->wr.ud.ah)->ah_num;
		wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
	} else {
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
		case IBV_WR_RDMA_READ:
			wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
			wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			/* One 8-byte local buffer for the original value. */
			if (wr->num_sge != 1 || wr->sg_list[0].length != 8)
				return EINVAL;
			wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
			wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
			wqe->wr.atomic.swap = wr->wr.atomic.swap;
			wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
			break;
		case IBV_WR_ATOMIC_WRITE:
			/* The 8 bytes go in the WQE now (metaroce-abi.h). */
			if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
			    is_inline)
				return EINVAL;
			wqe->wr.atomic.remote_addr = wr->wr.rdma.remote_addr;
			wqe->wr.atomic.rkey = wr->wr.rdma.rkey;
			memcpy(&wqe->wr.atomic.swap,
			       (const void *)(uintptr_t)wr->sg_list[0].addr, 8);
			return 0;
		case IBV_WR_BIND_MW:
			if (!wr->bind_mw.mw || is_inline)
				return EINVAL;
			metaroce_build_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
					    &wr->bind_mw.bind_info);
			return 0;
		default:
			break;
		}
	}

	if (is_inline) {
		switch (wr->opcode) {
		case IBV_WR_SEND:
		case IBV_WR_SEND_WITH_IMM:
		case IBV_WR_SEND_WITH_INV:
		case IBV_WR_RDMA_WRITE:
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			return metaroce_copy_inline(qp, wr, wqe);
		default:
			return EINVAL;
		}
	}

	if ((uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = wr->sg_list[i].addr;
		sge[i].length = wr->sg_list[i].length;
		sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

int metaroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr)
{
	return metaroce_post_send_stream(ibqp, wr, 0, bad_wr);
}

/* ibv_post_send() on @stream (the dv extension's metaroce_dv_post_send()). */
int metaroce_post_send_stream(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			      uint8_t stream, struct ibv_send_wr **bad_wr)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	struct ibv_send_wr *unused;
	unsigned int posted = 0;
	int ret = 0, db;

	/*
	 * Posting in RESET is an error; queued, the WQE would go out once
	 * the QP reached RTS. libibverbs tracks the state we check. A stream
	 * the QP lacks would fail it in the kernel: refuse it here.
	 */
	if (ibqp->state == IBV_QPS_RESET || stream >= qp->num_streams) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->sq_lock);
	for (; wr; wr = wr->next) {
		uint32_t cons = metaroce_load_acquire(&qp->sq.hdr->cons);

		if (qp->sq_prod - cons >= qp->sq.num) {
			ret = ENOMEM;
			break;
		}
		ret = metaroce_build_send(qp, wr,
				metaroce_uring_entry(&qp->sq, qp->sq_prod));
		if (ret)
			break;
		((struct metaroce_send_wqe *)
		 metaroce_uring_entry(&qp->sq, qp->sq_prod))->stream = stream;
		qp->sq_prod++;
		posted++;
	}
	if (posted)
		/* The WQEs are written before the kernel may read them. */
		metaroce_store_release(&qp->sq.hdr->prod, qp->sq_prod);
	pthread_spin_unlock(&qp->sq_lock);

	/* The work requests before *bad_wr are queued either way. */
	if (ret)
		*bad_wr = wr;
	if (posted) {
		db = ibv_cmd_post_send(ibqp, NULL, &unused);
		if (db && !ret) {
			ret = db;
			*bad_wr = NULL;
		}
	}
	return ret;
}

/*
 * Writes receive WQEs into @r from *@prod on and publishes them; the caller
 * holds the ring's lock. Shared by QP receive queues and SRQs.
 */
int metaroce_uring_post_recv(struct metaroce_uring *r, uint32_t *prod,
			     uint32_t max_sge, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr)
{
	unsigned int posted = 0;
	int ret = 0, i;

	for (; wr; wr = wr->next) {
		uint32_t cons = metaroce_load_acquire(&r->hdr->cons);
		struct metaroce_recv_wqe *wqe;
		struct metaroce_sge *sge;

		if (*prod - cons >= r->num) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			ret = EINVAL;
			break;
		}
		wqe = metaroce_uring_entry(r, *prod);
		sge = (struct metaroce_sge *)(wqe + 1);
		memset(wqe, 0, sizeof(*wqe));
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		(*prod)++;
		posted++;
	}
	if (posted)
		/* The WQEs are written before the kernel may take them. */
		metaroce_store_release(&r->hdr->prod, *prod);
	if (ret)
		*bad_wr = wr;
	return ret;
}

int metaroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	int ret;

	/*
	 * No receive ring: the QP receives through its SRQ. And no receive
	 * may be posted in RESET (IBTA C10-97.2.1).
	 */
	if (!qp->rq.hdr || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->rq_lock);
	ret = metaroce_uring_post_recv(&qp->rq, &qp->rq_prod, qp->max_recv_sge,
				       wr, bad_wr);
	pthread_spin_unlock(&qp->rq_lock);
	return ret;
}
