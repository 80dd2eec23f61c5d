// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: completion queues.
 *
 * Kernel consumers only for now: a user CQ needs a ring shared with the
 * provider library, which comes with the uverbs ABI. The CQ is a ring of
 * struct ib_wc under a spinlock; the transport adds completions with
 * metaroce_cq_post() from any context, consumers take them with ib_poll_cq()
 * and are told by the comp_handler when armed (ib_req_notify_cq()).
 */

#include <linux/log2.h>
#include <linux/slab.h>

#include "metaroce.h"

static struct ib_wc *metaroce_cq_ring_alloc(int cqe, u32 *size)
{
	struct ib_wc *ring;

	if (cqe < 1 || cqe > METAROCE_MAX_CQE)
		return ERR_PTR(-EINVAL);

	*size = roundup_pow_of_two(cqe);
	ring = kvcalloc(*size, sizeof(*ring), GFP_KERNEL);
	return ring ? ring : ERR_PTR(-ENOMEM);
}

int metaroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		       struct metaroce_verbs_attrs *attrs)
{
	struct metaroce_dev *mdev = to_mdev(ibcq->device);
	struct metaroce_cq *cq = to_mcq(ibcq);
	struct ib_wc *ring;
	u32 size;

	if (metaroce_attrs_udata(attrs))
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;

	if (atomic_inc_return(&mdev->num_cq) > METAROCE_MAX_CQ) {
		atomic_dec(&mdev->num_cq);
		return -ENOMEM;
	}

	ring = metaroce_cq_ring_alloc(attr->cqe, &size);
	if (IS_ERR(ring)) {
		atomic_dec(&mdev->num_cq);
		return PTR_ERR(ring);
	}

	spin_lock_init(&cq->lock);
	cq->ring = ring;
	cq->size = size;
	cq->prod = 0;
	cq->cons = 0;
	cq->notify = 0;
	cq->overflow = false;
	ibcq->cqe = size;
	return 0;
}

int metaroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct metaroce_cq *cq = to_mcq(ibcq);

	/* The QPs using the CQ are gone: nothing posts to it any more. */
	kvfree(cq->ring);
	cq->ring = NULL;
	atomic_dec(&to_mdev(ibcq->device)->num_cq);
	return 0;
}

int metaroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct metaroce_cq *cq = to_mcq(ibcq);
	struct ib_wc *ring, *old;
	unsigned long flags;
	u32 size, pending, i;

	if (udata)
		return -EOPNOTSUPP;

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

	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->prod != cq->cons)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);

	return ret;
}

/**
 * metaroce_cq_post - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion, copied
 * @solicited: the completion is for a solicited event
 *
 * Calls the consumer's comp_handler if the CQ is armed for this completion,
 * without locks held. On overflow the CQ is in error: the consumer gets
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
	if (cq->prod - cq->cons == cq->size) {
		cq->overflow = true;
		overflow = true;
	} else {
		cq->ring[cq->prod & (cq->size - 1)] = *wc;
		cq->prod++;
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
