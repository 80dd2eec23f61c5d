// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: memory windows (Documentation/infiniband/metaroce.rst, "Memory
 * windows").
 *
 * A window's key index is reserved in metaroce_dev.mr_xa (an entry of NULL),
 * so that MR and MW keys never collide; the window is in mw_xa under the
 * same index. The responder resolves an rkey with metaroce_rkey_get(): a
 * window if mw_xa has the index, else an MR (metaroce_mr_get()). Through a
 * window only the window's rights and range count, and a type 2 window
 * answers only the QP that bound it; the MR's own remote rights do not
 * apply.
 *
 * Binding (a BIND_MW send WQE, which ibv_bind_mw() of a type 1 window also
 * posts), invalidation (LOCAL_INV, SEND_INV) and dealloc change the binding
 * under the window's lock; a look-up takes a reference to the MR under the
 * same lock, and dereg_mr refuses an MR that windows are bound to.
 */

#include <linux/slab.h>

#include "metaroce.h"

#define METAROCE_MW_ACCESS	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

int metaroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibmw->device);
	struct metaroce_mw *mw = to_mmw(ibmw);
	u32 index;
	int ret;

	/* uverbs refuses other types; a kernel caller could pass anything. */
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (atomic_inc_return(&mdev->num_mw) > METAROCE_MAX_MW) {
		ret = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&mw->lock);
	refcount_set(&mw->ref, 1);
	init_completion(&mw->released);

	/* Reserve the index among the MR keys: xa_load() there gives NULL. */
	ret = xa_alloc(&mdev->mr_xa, &index, NULL,
		       XA_LIMIT(1, METAROCE_KEY_INDEX_MAX), GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -ENOMEM : ret;
		goto err_count;
	}
	mw->rkey = index << METAROCE_KEY_VARIANT_BITS | get_random_u8();
	ibmw->rkey = mw->rkey;

	ret = xa_insert(&mdev->mw_xa, index, mw, GFP_KERNEL);
	if (ret) {
		xa_erase(&mdev->mr_xa, index);
		goto err_count;
	}
	return 0;

err_count:
	atomic_dec(&mdev->num_mw);
	return ret;
}

/* Drop the binding; the caller holds mw->lock. */
static void metaroce_mw_unbind(struct metaroce_mw *mw)
{
	if (mw->bound && mw->mr)
		atomic_dec(&mw->mr->num_mw);
	mw->bound = false;
	mw->mr = NULL;
	mw->qp_uid = 0;
}

int metaroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct metaroce_dev *mdev = to_mdev(ibmw->device);
	struct metaroce_mw *mw = to_mmw(ibmw);
	u32 index = METAROCE_KEY_INDEX(mw->rkey);

	xa_erase(&mdev->mw_xa, index);
	/*
	 * ib_core frees the memory when we return, without RCU: wait for
	 * look-ups that loaded the pointer, then for the references taken.
	 */
	synchronize_rcu();
	if (!refcount_dec_and_test(&mw->ref))
		wait_for_completion(&mw->released);

	spin_lock_bh(&mw->lock);
	metaroce_mw_unbind(mw);
	spin_unlock_bh(&mw->lock);

	xa_erase(&mdev->mr_xa, index);
	atomic_dec(&mdev->num_mw);
	return 0;
}

static void metaroce_mw_put(struct metaroce_mw *mw)
{
	if (refcount_dec_and_test(&mw->ref))
		complete(&mw->released);
}

static struct metaroce_mw *metaroce_mw_find(struct metaroce_dev *mdev, u32 key)
{
	struct metaroce_mw *mw;

	rcu_read_lock();
	mw = xa_load(&mdev->mw_xa, METAROCE_KEY_INDEX(key));
	if (mw && !refcount_inc_not_zero(&mw->ref))
		mw = NULL;
	rcu_read_unlock();
	return mw;
}

/**
 * metaroce_mw_bind - execute a BIND_MW send WQE
 * @qp: the QP it was posted on
 * @e: the validated copy of the WQE (untrusted fields in e->wr.bind)
 *
 * Return: 0, or -errno; the WQE then completes with IB_WC_MW_BIND_ERR.
 */
int metaroce_mw_bind(struct metaroce_qp *qp, const struct metaroce_send_wqe *e)
{
	u64 addr = e->wr.bind.addr, length = e->wr.bind.length, end;
	int access = e->wr.bind.access;
	struct metaroce_mr *mr = NULL;
	struct metaroce_mw *mw;
	int ret = 0;

	if (METAROCE_KEY_INDEX(e->wr.bind.rkey) != METAROCE_KEY_INDEX(e->wr.bind.mw_rkey))
		return -EINVAL;
	/* Local write is implied by the MR; zero-based windows are not offered. */
	access &= ~IB_ACCESS_LOCAL_WRITE;
	if (access & ~METAROCE_MW_ACCESS)
		return -EINVAL;
	if (check_add_overflow(addr, length, &end))
		return -EINVAL;

	mw = metaroce_mw_find(qp->mdev, e->wr.bind.mw_rkey);
	if (!mw)
		return -ENOENT;
	if (mw->ibmw.pd != qp->ibqp.pd) {
		ret = -EPERM;
		goto out_mw;
	}

	/* A type 1 window is unbound by a bind of length 0: no MR needed. */
	if (length || mw->ibmw.type == IB_MW_TYPE_2) {
		ret = metaroce_mr_get(qp->mdev, e->wr.bind.mr_lkey, qp->ibqp.pd, 0,
				      addr, length, &mr);
		if (ret)
			goto out_mw;
		/* Remote write and atomic through a window need local write. */
		if (!(mr->access & IB_ACCESS_MW_BIND) ||
		    ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
		     !(mr->access & IB_ACCESS_LOCAL_WRITE))) {
			ret = -EACCES;
			goto out_mr;
		}
	}

	spin_lock_bh(&mw->lock);
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->bound) {
		/* A type 2 window is invalidated before it is bound again. */
		ret = -EBUSY;
	} else if (METAROCE_KEY_INDEX(READ_ONCE(mw->rkey)) ==
		   METAROCE_KEY_INDEX(e->wr.bind.mw_rkey)) {
		metaroce_mw_unbind(mw);
		WRITE_ONCE(mw->rkey, e->wr.bind.rkey);
		/* Negative: dereg_mr is under way (metaroce_dereg_mr()). */
		if (mr && !atomic_inc_unless_negative(&mr->num_mw)) {
			ret = -ENOENT;
		} else if (mr) {
			mw->bound = true;
			mw->mr = mr;
			mw->qp_uid = mw->ibmw.type == IB_MW_TYPE_2 ? qp->uid : 0;
			mw->addr = addr;
			mw->length = length;
			mw->access = access;
		}
	} else {
		ret = -ENOENT;
	}
	spin_unlock_bh(&mw->lock);
out_mr:
	if (mr)
		metaroce_mr_put(mr);
out_mw:
	metaroce_mw_put(mw);
	return ret;
}

/**
 * metaroce_mw_invalidate - LOCAL_INV or SEND_INV of an rkey that may be an MW's
 * @qp: the QP executing it
 * @rkey: the key (untrusted for a SEND_INV)
 *
 * Return: 0, -ENOENT if @rkey is no valid window's, -EPERM if the window is
 * not this QP's (other PD, or a type 2 window bound by another QP), -EINVAL
 * for a type 1 window (invalidated by binding it with length 0), or the
 * result of metaroce_mr_invalidate() if @rkey is no window's index.
 */
int metaroce_mw_invalidate(struct metaroce_qp *qp, u32 rkey)
{
	struct metaroce_mw *mw = metaroce_mw_find(qp->mdev, rkey);
	int ret = 0;

	if (!mw)
		return metaroce_mr_invalidate(qp->mdev, rkey, qp->ibqp.pd);

	spin_lock_bh(&mw->lock);
	if (mw->rkey != rkey || !mw->bound)
		ret = -ENOENT;
	else if (mw->ibmw.pd != qp->ibqp.pd || (mw->qp_uid && mw->qp_uid != qp->uid))
		ret = -EPERM;
	else if (mw->ibmw.type != IB_MW_TYPE_2)
		ret = -EINVAL;
	else
		metaroce_mw_unbind(mw);
	spin_unlock_bh(&mw->lock);
	metaroce_mw_put(mw);
	return ret;
}

/**
 * metaroce_rkey_get - find and check the memory a remote access names
 * @qp: the responder QP
 * @rkey: the rkey from the packet (untrusted)
 * @access: the remote right the access needs
 * @addr: first byte (untrusted)
 * @len: length (untrusted)
 * @mrp: the MR holding the memory, with a reference, on success
 *
 * Like metaroce_mr_get() (and the same errors), for the key of an MR or of
 * a memory window: a window must be bound, grant @access, contain the range
 * and, for type 2, have been bound by @qp. The caller drops the reference
 * with metaroce_mr_put().
 */
int metaroce_rkey_get(struct metaroce_qp *qp, u32 rkey, int access, u64 addr,
		      u64 len, struct metaroce_mr **mrp)
{
	struct metaroce_mw *mw = metaroce_mw_find(qp->mdev, rkey);
	int ret = 0;

	if (!mw)
		return metaroce_mr_get(qp->mdev, rkey, qp->ibqp.pd, access, addr,
				       len, mrp);

	spin_lock_bh(&mw->lock);
	if (mw->rkey != rkey || !mw->bound) {
		ret = -ENOENT;
	} else if (mw->ibmw.pd != qp->ibqp.pd || (mw->qp_uid && mw->qp_uid != qp->uid)) {
		ret = -EPERM;
	} else if ((mw->access & access) != access) {
		ret = -EACCES;
	} else if (addr < mw->addr || addr - mw->addr > mw->length ||
		   len > mw->length - (addr - mw->addr)) {
		ret = -ERANGE;
	} else if (!refcount_inc_not_zero(&mw->mr->ref)) {
		/* Cannot happen: dereg_mr refuses an MR with windows. */
		ret = -ENOENT;
	} else {
		*mrp = mw->mr;
	}
	spin_unlock_bh(&mw->lock);
	metaroce_mw_put(mw);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(metaroce_rkey_get, METAROCE);
