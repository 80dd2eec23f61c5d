// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: shared receive queues (Documentation/infiniband/metaroce.rst,
 * "Shared receive queues").
 *
 * An SRQ is a ring of receive WQEs like a QP's receive queue (queue.h),
 * filled by post_srq_recv or, for a user SRQ, by the process through its
 * mapping. The QPs attached to it take WQEs from it in their transport runs,
 * several at once, under take_lock: taking copies the WQE into the QP's
 * binding table (indexed by RMSN) and frees the slot, so that nothing the
 * process writes later is trusted and the SRQ never waits for a QP.
 */

#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "metaroce.h"
#include "proto/conn.h"
#include "proto/stream.h"

#define METAROCE_RECV_WQE_HDR	sizeof(struct metaroce_recv_wqe)
#define METAROCE_BIND_SLOTS	MR_STREAM_WIN

static void metaroce_srq_event(struct metaroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

int metaroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibsrq->device);
	struct metaroce_srq *srq = to_msrq(ibsrq);
	struct metaroce_create_srq_resp resp = {};
	struct ib_srq_attr *attr = &init->attr;
	u32 num, size;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > METAROCE_MAX_SRQ_WR ||
	    attr->max_sge > METAROCE_MAX_SGE)
		return -EINVAL;
	if (udata) {
		if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
			return -EINVAL;
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
	}
	if (atomic_inc_return(&mdev->num_srq) > METAROCE_MAX_SRQ) {
		ret = -ENOMEM;
		goto err_count;
	}

	num = roundup_pow_of_two(attr->max_wr);
	size = ALIGN(METAROCE_RECV_WQE_HDR +
		     max(attr->max_sge, 1U) * sizeof(struct metaroce_sge), 64);
	ret = metaroce_queue_init(&srq->rq, num, size);
	if (ret)
		goto err_count;
	srq->user = !!udata;
	spin_lock_init(&srq->post_lock);
	spin_lock_init(&srq->take_lock);
	atomic_set(&srq->num_qp, 0);
	srq->cons = 0;
	srq->limit = 0;
	srq->max_sge = min_t(u32, (size - METAROCE_RECV_WQE_HDR) /
			     sizeof(struct metaroce_sge), METAROCE_MAX_SGE);

	if (udata) {
		struct metaroce_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct metaroce_ucontext, ibuc);

		ret = metaroce_queue_export(&srq->rq, &uctx->ibuc, &resp.rq);
		if (!ret)
			ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret)
			goto err_queue;
	}
	/* What the ring holds: the consumer may use all of it. */
	attr->max_wr = num;
	attr->max_sge = srq->max_sge;
	return 0;

err_queue:
	metaroce_queue_free(&srq->rq);
err_count:
	atomic_dec(&mdev->num_srq);
	return ret;
}

int metaroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);

	/* The ring is mapped by the process: it is not resized. */
	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->rq.num)
			return -EINVAL;
		/* _bh: the transport takes it in softirq */
		spin_lock_bh(&srq->take_lock);
		srq->limit = attr->srq_limit;
		spin_unlock_bh(&srq->take_lock);
	}
	return 0;
}

int metaroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);

	attr->max_wr = srq->rq.num;
	attr->max_sge = srq->max_sge;
	spin_lock_bh(&srq->take_lock);
	attr->srq_limit = srq->limit;
	spin_unlock_bh(&srq->take_lock);
	return 0;
}

int metaroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);

	/* ib_core refuses this while QPs use the SRQ; their work would take from it. */
	if (atomic_read(&srq->num_qp))
		return -EBUSY;
	metaroce_queue_free(&srq->rq);
	atomic_dec(&to_mdev(ibsrq->device)->num_srq);
	return 0;
}

int metaroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);
	unsigned long flags;
	int ret;

	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&srq->post_lock, flags);
	ret = metaroce_queue_post_recv(&srq->rq, srq->max_sge, wr, bad_wr);
	spin_unlock_irqrestore(&srq->post_lock, flags);
	return ret;
}

/*
 * Take the next WQE of @srq into @b and @sge (srq->max_sge entries) if the
 * SRQ holds at least @need. Returns false if not, or if its producer index
 * is not one a well-behaved process could have written.
 */
static bool metaroce_srq_take(struct metaroce_srq *srq, u32 need,
			      struct metaroce_srq_bind *b, struct metaroce_sge *sge)
{
	struct metaroce_recv_wqe wqe;
	bool limit_reached = false;
	u32 prod, left;
	void *e;

	spin_lock(&srq->take_lock);
	prod = metaroce_queue_prod_acquire(&srq->rq);
	if (prod - srq->cons < need || prod - srq->cons > srq->rq.num) {
		spin_unlock(&srq->take_lock);
		return false;
	}
	e = metaroce_queue_entry(&srq->rq, srq->cons);
	/* One copy: a process may be rewriting the entry. */
	memcpy(&wqe, e, sizeof(wqe));
	b->wr_id = wqe.wr_id;
	b->num_sge = wqe.num_sge;
	memcpy(sge, e + sizeof(wqe), min(wqe.num_sge, srq->max_sge) * sizeof(*sge));
	srq->cons++;
	metaroce_queue_cons_release(&srq->rq, srq->cons);
	left = prod - srq->cons;
	if (srq->limit && left < srq->limit) {
		/* The event disarms the limit (IBTA). */
		srq->limit = 0;
		limit_reached = true;
	}
	spin_unlock(&srq->take_lock);

	if (limit_reached)
		metaroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return true;
}

/* QP side: the binding table, used only from the QP's transport and verbs. */

int metaroce_srq_qp_attach(struct metaroce_qp *qp, struct ib_srq *ibsrq)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);

	qp->bind = kvcalloc(METAROCE_BIND_SLOTS, sizeof(*qp->bind), GFP_KERNEL);
	qp->bind_sge = kvcalloc(METAROCE_BIND_SLOTS * srq->max_sge,
				sizeof(*qp->bind_sge), GFP_KERNEL);
	if (!qp->bind || !qp->bind_sge) {
		kvfree(qp->bind);
		kvfree(qp->bind_sge);
		qp->bind = NULL;
		qp->bind_sge = NULL;
		return -ENOMEM;
	}
	qp->srq = srq;
	qp->bind_next = 0;
	atomic_inc(&srq->num_qp);
	return 0;
}

/* After the QP's transport has stopped: nothing takes from the SRQ any more. */
void metaroce_srq_qp_detach(struct metaroce_qp *qp)
{
	if (!qp->srq)
		return;
	kvfree(qp->bind);
	kvfree(qp->bind_sge);
	qp->bind = NULL;
	qp->bind_sge = NULL;
	atomic_dec(&qp->srq->num_qp);
	qp->srq = NULL;
}

/* To RESET: bound WQEs are dropped with the connection; RMSN 0 comes next. */
void metaroce_srq_qp_reset(struct metaroce_qp *qp)
{
	if (!qp->srq)
		return;
	memset(qp->bind, 0, METAROCE_BIND_SLOTS * sizeof(*qp->bind));
	qp->bind_next = 0;
	qp->last_wqe_reached = false;
}

static struct metaroce_sge *metaroce_bind_sge(struct metaroce_qp *qp,
					      struct metaroce_srq_bind *b)
{
	return qp->bind_sge + (size_t)(b - qp->bind) * qp->srq->max_sge;
}

/* RMSNs before @rmsn that have no WQE yet: they come first (spec). */
static u32 metaroce_srq_unbound_before(struct metaroce_qp *qp, u32 rmsn)
{
	u32 r, n = 0;

	for (r = qp->bind_next; r != rmsn; r++) {
		const struct metaroce_srq_bind *b = &qp->bind[r % METAROCE_BIND_SLOTS];

		if (!b->used || b->rmsn != r)
			n++;
	}
	return n;
}

int metaroce_srq_bind(struct metaroce_qp *qp, u32 rmsn,
		      const struct metaroce_sge **sge, u32 *num_sge)
{
	struct metaroce_srq_bind *b = &qp->bind[rmsn % METAROCE_BIND_SLOTS];

	/* A conforming peer stays within its message window (spec). */
	if (rmsn - qp->bind_next >= METAROCE_BIND_SLOTS)
		return MR_NAK_INV_REQ;
	if (!b->used) {
		u32 need = metaroce_srq_unbound_before(qp, rmsn) + 1;

		if (!metaroce_srq_take(qp->srq, need, b, metaroce_bind_sge(qp, b)))
			return MR_NAK_RNR;
		b->rmsn = rmsn;
		b->used = true;
	} else if (b->rmsn != rmsn) {
		return MR_NAK_INV_REQ;
	}
	if (b->num_sge > qp->srq->max_sge)
		return MR_NAK_INV_REQ;
	if (sge) {
		*sge = metaroce_bind_sge(qp, b);
		*num_sge = b->num_sge;
	}
	return 0;
}

/* Complete the WQE bound to the next RMSN; -EPROTO if it is not @rmsn or unbound. */
int metaroce_srq_complete(struct metaroce_qp *qp, u32 rmsn, const struct ib_wc *tmpl,
			  bool solicited)
{
	struct metaroce_srq_bind *b = &qp->bind[rmsn % METAROCE_BIND_SLOTS];
	struct ib_wc wc = *tmpl;

	if (rmsn != qp->bind_next || !b->used || b->rmsn != rmsn)
		return -EPROTO;
	wc.wr_id = b->wr_id;
	wc.qp = &qp->ibqp;
	b->used = false;
	qp->bind_next++;
	metaroce_cq_post(to_mcq(qp->ibqp.recv_cq), &wc, solicited);
	return 0;
}

/* Error state: flush the bound WQEs in RMSN order, then say that was the last. */
void metaroce_srq_qp_flush(struct metaroce_qp *qp)
{
	struct ib_wc wc = { .status = IB_WC_WR_FLUSH_ERR, .opcode = IB_WC_RECV };
	u32 i;

	for (i = 0; i < METAROCE_BIND_SLOTS; i++) {
		u32 rmsn = qp->bind_next + i;
		struct metaroce_srq_bind *b = &qp->bind[rmsn % METAROCE_BIND_SLOTS];

		if (b->used && b->rmsn == rmsn) {
			wc.wr_id = b->wr_id;
			wc.qp = &qp->ibqp;
			b->used = false;
			metaroce_cq_post(to_mcq(qp->ibqp.recv_cq), &wc, false);
		}
	}
	if (!qp->last_wqe_reached) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = IB_EVENT_QP_LAST_WQE_REACHED,
		};

		qp->last_wqe_reached = true;
		if (qp->ibqp.event_handler)
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}
