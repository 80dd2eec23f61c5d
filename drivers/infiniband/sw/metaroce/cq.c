// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: completion queues.
 *
 * The transport adds completions with metaroce_cq_post() from any context;
 * the consumer is told by the comp_handler when the CQ is armed
 * (ib_req_notify_cq(), or IB_USER_VERBS_CMD_REQ_NOTIFY_CQ for a process,
 * whose comp_handler is uverbs' completion channel).
 *
 * A kernel consumer's CQ is a ring of struct ib_wc under a spinlock, read by
 * ib_poll_cq(). A process's CQ (created with udata) is a struct
 * metaroce_queue of struct metaroce_cqe, mapped into the process (see
 * "Rings" in metaroce-abi.h), which polls it without a system call: the
 * kernel produces, the process consumes. The kernel keeps its producer index
 * to itself and only publishes it in the ring; the consumer index is read
 * from the ring and may be any value the process wrote, so it is used only
 * to decide whether there is room.
 */

#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "metaroce.h"

static_assert(sizeof(struct metaroce_cqe) == 64);
static_assert(sizeof(struct metaroce_create_cq_resp) == 24);
static_assert(sizeof(struct metaroce_resize_cq_resp) == 24);

/* Entries of a CQ for @cqe requested: a power of two, all usable. */
static int metaroce_cq_entries(int cqe, u32 *size)
{
	if (cqe < 1 || cqe > METAROCE_MAX_CQE)
		return -EINVAL;
	*size = roundup_pow_of_two(cqe);
	return 0;
}

static struct ib_wc *metaroce_cq_ring_alloc(int cqe, u32 *size)
{
	struct ib_wc *ring;
	int ret;

	ret = metaroce_cq_entries(cqe, size);
	if (ret)
		return ERR_PTR(ret);

	ring = kvcalloc(*size, sizeof(*ring), GFP_KERNEL);
	return ring ? ring : ERR_PTR(-ENOMEM);
}

/*
 * A ring of @cqe (rounded up) struct metaroce_cqe, mappable by the process of
 * @udata, described in @info.
 */
static int metaroce_cq_queue_create(struct metaroce_queue *q, int cqe,
				    struct ib_udata *udata,
				    struct metaroce_ring_info *info)
{
	struct metaroce_ucontext *uctx = rdma_udata_to_drv_context(udata,
			struct metaroce_ucontext, ibuc);
	u32 size;
	int ret;

	ret = metaroce_cq_entries(cqe, &size);
	if (ret)
		return ret;
	ret = metaroce_queue_init(q, size, sizeof(struct metaroce_cqe));
	if (ret)
		return ret;
	ret = metaroce_queue_export(q, &uctx->ibuc, info);
	if (ret)
		metaroce_queue_free(q);
	return ret;
}

/*
 * Driver data of CREATE_CQ and RESIZE_CQ: the request carries none (a later
 * revision may, zeroed meaning what it means today), the response must have
 * room for the ring.
 */
static int metaroce_cq_udata_check(struct ib_udata *udata, size_t resp_len)
{
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	if (udata->outlen < resp_len)
		return -EINVAL;
	return 0;
}

int metaroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct metaroce_verbs_attrs *attrs)
{
	struct ib_udata *udata = metaroce_attrs_udata(attrs);
	struct metaroce_dev *mdev = to_mdev(ibcq->device);
	struct metaroce_cq *cq = to_mcq(ibcq);
	struct metaroce_create_cq_resp resp = {};
	struct ib_wc *ring = NULL;
	u32 size;
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata) {
		ret = metaroce_cq_udata_check(udata, sizeof(resp));
		if (ret)
			return ret;
	}

	if (atomic_inc_return(&mdev->num_cq) > METAROCE_MAX_CQ) {
		atomic_dec(&mdev->num_cq);
		return -ENOMEM;
	}

	memset(&cq->queue, 0, sizeof(cq->queue));
	if (udata) {
		ret = metaroce_cq_queue_create(&cq->queue, attr->cqe, udata,
					       &resp.ring);
		if (ret)
			goto err_count;
		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret)
			goto err_queue;
		size = cq->queue.num;
	} else {
		ring = metaroce_cq_ring_alloc(attr->cqe, &size);
		if (IS_ERR(ring)) {
			ret = PTR_ERR(ring);
			goto err_count;
		}
	}

	spin_lock_init(&cq->lock);
	cq->ring = ring;
	cq->user = !!udata;
	cq->size = size;
	cq->prod = 0;
	cq->cons = 0;
	cq->notify = 0;
	cq->overflow = false;
	/* Every entry is usable: the indices are free-running. */
	ibcq->cqe = size;
	return 0;

err_queue:
	metaroce_queue_free(&cq->queue);
err_count:
	atomic_dec(&mdev->num_cq);
	return ret;
}

int metaroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct metaroce_cq *cq = to_mcq(ibcq);

	/*
	 * The QPs using the CQ are gone: nothing posts to it any more. A user
	 * ring stays allocated while the process still has it mapped.
	 */
	if (cq->user)
		metaroce_queue_free(&cq->queue);
	else
		kvfree(cq->ring);
	cq->ring = NULL;
	atomic_dec(&to_mdev(ibcq->device)->num_cq);
	return 0;
}

/*
 * A process's CQ gets a new ring with the completions it has not consumed;
 * the old ring is unpublished (its mapping, if the process keeps one, stays
 * valid but is no longer written).
 */
static int metaroce_resize_user_cq(struct metaroce_cq *cq, int cqe,
				   struct ib_udata *udata)
{
	struct metaroce_resize_cq_resp resp = {};
	struct metaroce_queue new, old;
	unsigned long flags;
	u32 cons, pending, i;
	int ret;

	ret = metaroce_cq_udata_check(udata, sizeof(resp));
	if (ret)
		return ret;

	memset(&new, 0, sizeof(new));
	ret = metaroce_cq_queue_create(&new, cqe, udata, &resp.ring);
	if (ret)
		return ret;
	/* Before the switch, which cannot fault; on failure it is ignored. */
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret)
		goto err;

	spin_lock_irqsave(&cq->lock, flags);
	cons = metaroce_queue_cons_acquire(&cq->queue);
	pending = cq->prod - cons;
	/* More than the old ring holds: the process wrote a bad index. */
	if (pending > cq->queue.num || pending > new.num) {
		spin_unlock_irqrestore(&cq->lock, flags);
		ret = -EINVAL;
		goto err;
	}
	for (i = 0; i < pending; i++)
		memcpy(metaroce_queue_entry(&new, i),
		       metaroce_queue_entry(&cq->queue, cons + i),
		       sizeof(struct metaroce_cqe));
	metaroce_queue_prod_release(&new, pending);
	old = cq->queue;
	cq->queue = new;
	cq->size = new.num;
	cq->prod = pending;
	cq->ibcq.cqe = new.num;
	spin_unlock_irqrestore(&cq->lock, flags);

	metaroce_queue_free(&old);
	return 0;

err:
	metaroce_queue_free(&new);
	return ret;
}

int metaroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	struct ib_wc *ring, *old;
	unsigned long flags;
	u32 size, pending, i;

	if (cq->user)
		return udata ? metaroce_resize_user_cq(cq, cqe, udata) : -EINVAL;
	if (udata)
		return -EINVAL;

	ring = metaroce_cq_ring_alloc(cqe, &size);
	if (IS_ERR(ring))
		return PTR_ERR(ring);

	spin_lock_irqsave(&cq->lock, flags);
	pending = cq->prod - cq->cons;
	if (pending > size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(ring);
		return -EINVAL;
	}
	for (i = 0; i < pending; i++)
		ring[i] = cq->ring[(cq->cons + i) & (cq->size - 1)];
	old = cq->ring;
	cq->ring = ring;
	cq->size = size;
	cq->cons = 0;
	cq->prod = pending;
	ibcq->cqe = size;
	spin_unlock_irqrestore(&cq->lock, flags);

	kvfree(old);
	return 0;
}

int metaroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	unsigned long flags;
	int n = 0;

	/* A process polls its ring itself; POLL_CQ from it gets nothing. */
	if (cq->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->cons != cq->prod) {
		wc[n++] = cq->ring[cq->cons & (cq->size - 1)];
		cq->cons++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	return n;
}

int metaroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;

	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    cq->prod != (cq->user ? metaroce_queue_cons_acquire(&cq->queue) :
			 cq->cons))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);

	return ret;
}

/* The completion as the process reads it (metaroce-abi.h). */
static void metaroce_cqe_from_wc(struct metaroce_cqe *cqe, const struct ib_wc *wc)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = wc->wr_id;
	cqe->status = wc->status;
	/* enum ib_wc_opcode takes its values from enum ib_uverbs_wc_opcode. */
	cqe->opcode = wc->opcode;
	if (wc->wc_flags & IB_WC_GRH)
		cqe->wc_flags |= METAROCE_WC_GRH;
	if (wc->wc_flags & IB_WC_WITH_IMM) {
		cqe->wc_flags |= METAROCE_WC_WITH_IMM;
		cqe->imm_inv = (__force u32)wc->ex.imm_data;
	} else if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		cqe->wc_flags |= METAROCE_WC_WITH_INV;
		cqe->imm_inv = wc->ex.invalidate_rkey;
	}
	cqe->vendor_err = wc->vendor_err;
	cqe->byte_len = wc->byte_len;
	cqe->qp_num = wc->qp ? wc->qp->qp_num : 0;
	cqe->src_qp = wc->src_qp;
}

/*
 * Adds @wc to the ring of a process's CQ; false if it is full, or if the
 * process's consumer index says more than full. Called under cq->lock.
 */
static bool metaroce_cq_post_user(struct metaroce_cq *cq, const struct ib_wc *wc)
{
	struct metaroce_queue *q = &cq->queue;
	struct metaroce_cqe cqe;

	if (cq->prod - metaroce_queue_cons_acquire(q) >= q->num)
		return false;

	/* Built aside: the kernel never reads back what the process can write. */
	metaroce_cqe_from_wc(&cqe, wc);
	memcpy(metaroce_queue_entry(q, cq->prod), &cqe, sizeof(cqe));
	cq->prod++;
	metaroce_queue_prod_release(q, cq->prod);
	return true;
}

/**
 * metaroce_cq_post - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion, copied
 * @solicited: the completion is for a solicited event
 *
 * Calls the consumer's comp_handler if the CQ is armed for this completion,
 * without locks held. A process's CQ is full when the consumer index it
 * wrote in the ring is @cq->size or more behind. On overflow the CQ is in error: the consumer gets
 * IB_EVENT_CQ_ERR once, and this and every later call fail.
 *
 * Context: any.
 * Return: 0, or -ENOSPC if the CQ overflowed.
 */
int metaroce_cq_post(struct metaroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	bool notify = false, overflow = false;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}
	if (cq->user ? !metaroce_cq_post_user(cq, wc) :
	    cq->prod - cq->cons == cq->size) {
		cq->overflow = true;
		overflow = true;
	} else {
		if (!cq->user) {
			cq->ring[cq->prod & (cq->size - 1)] = *wc;
			cq->prod++;
		}
		if (cq->notify == IB_CQ_NEXT_COMP ||
		    (cq->notify == IB_CQ_SOLICITED &&
		     (solicited || wc->status != IB_WC_SUCCESS))) {
			cq->notify = 0;
			notify = true;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow) {
		if (ibcq->event_handler) {
			struct ib_event event = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&event, ibcq->cq_context);
		}
		return -ENOSPC;
	}

	if (notify && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(metaroce_cq_post, METAROCE);
