// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: memory regions and the key look-up used by the transport.
 *
 * Three kinds of MR (enum metaroce_mr_type): the DMA MR of kernel consumers
 * (all of kernel memory, addressed by kernel virtual address), user MRs
 * (pinned with ib_umem; the page list is kept) and fast-registration MRs
 * (alloc_mr + map_mr_sg; made valid by an IB_WR_REG_MR work request and
 * invalidated by IB_WR_LOCAL_INV or a send with invalidate, both executed by
 * the transport through metaroce_mr_fast_reg() / metaroce_mr_invalidate()).
 *
 * Every MR is in metaroce_dev.mr_xa under the index of its key (see
 * METAROCE_KEY_INDEX). Look-ups run under RCU and take a reference;
 * dereg_mr unpublishes the MR, then waits for the references in flight to
 * be dropped before it releases the memory, so that no placement can reach
 * memory after dereg_mr returns.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "metaroce.h"

/* Access rights an MR can grant; the look-up checks the same set. */
#define METAROCE_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static int metaroce_mr_check_access(int access)
{
	/* Optional bits (relaxed ordering) may be ignored, others not. */
	if (access & ~(METAROCE_MR_ACCESS | IB_ACCESS_MW_BIND | IB_ACCESS_OPTIONAL))
		return -EOPNOTSUPP;

	/* IBA: remote write and atomic access need local write access. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;

	return 0;
}

static struct metaroce_mr *metaroce_mr_alloc(struct ib_pd *ibpd,
					     enum metaroce_mr_type type)
{
	struct metaroce_dev *mdev = to_mdev(ibpd->device);
	struct metaroce_mr *mr;

	if (atomic_inc_return(&mdev->num_mr) > METAROCE_MAX_MR) {
		atomic_dec(&mdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		atomic_dec(&mdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}

	mr->type = type;
	mr->pd = ibpd;
	mr->state = METAROCE_MR_INVALID;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	return mr;
}

static void metaroce_mr_free(struct metaroce_dev *mdev, struct metaroce_mr *mr)
{
	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->fr_pages);
	atomic_dec(&mdev->num_mr);
	/* Look-ups may still hold the pointer under RCU, not a reference. */
	kfree_rcu(mr, rcu);
}

/*
 * Gives @mr a key and makes it reachable by look-ups; a DMA or user MR
 * becomes valid at once, a fast-registration MR at its first REG_MR.
 */
static int metaroce_mr_publish(struct metaroce_dev *mdev, struct metaroce_mr *mr)
{
	u32 index;
	int ret;

	ret = xa_alloc(&mdev->mr_xa, &index, mr,
		       XA_LIMIT(1, METAROCE_KEY_INDEX_MAX), GFP_KERNEL);
	if (ret)
		return ret == -EBUSY ? -ENOMEM : ret;

	WRITE_ONCE(mr->key, index << METAROCE_KEY_VARIANT_BITS | get_random_u8());
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;

	if (mr->type == METAROCE_MR_FAST_REG)
		return 0;

	/* Publish the fields above: pairs with acquire in metaroce_mr_get() */
	smp_store_release(&mr->state, METAROCE_MR_VALID);
	return 0;
}

struct ib_mr *metaroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct metaroce_dev *mdev = to_mdev(ibpd->device);
	struct metaroce_mr *mr;
	int ret;

	ret = metaroce_mr_check_access(access);
	if (ret)
		return ERR_PTR(ret);

	mr = metaroce_mr_alloc(ibpd, METAROCE_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->access = access;
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;

	ret = metaroce_mr_publish(mdev, mr);
	if (ret) {
		metaroce_mr_free(mdev, mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

static int metaroce_mr_pin_pages(struct metaroce_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter sg_iter;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;

	for_each_sgtable_page(&umem->sgt_append.sgt, &sg_iter, 0) {
		if (WARN_ON_ONCE(i == mr->npages))
			return -EFAULT;
		mr->pages[i++] = sg_page_iter_page(&sg_iter);
	}
	if (WARN_ON_ONCE(i != mr->npages))
		return -EFAULT;

	mr->first_offset = ib_umem_offset(umem);
	return 0;
}

struct ib_mr *metaroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 iova, int access, struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibpd->device);
	struct metaroce_mr *mr;
	struct ib_umem *umem;
	u64 end;
	int ret;

	ret = metaroce_mr_check_access(access);
	if (ret)
		return ERR_PTR(ret);

	if (!length || check_add_overflow(iova, length, &end) ||
	    length > U64_MAX - PAGE_SIZE)
		return ERR_PTR(-EINVAL);

	mr = metaroce_mr_alloc(ibpd, METAROCE_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem)) {
		ret = PTR_ERR(umem);
		goto err_free;
	}
	mr->umem = umem;

	ret = metaroce_mr_pin_pages(mr);
	if (ret)
		goto err_free;

	mr->access = access;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;

	ret = metaroce_mr_publish(mdev, mr);
	if (ret)
		goto err_free;
	return &mr->ibmr;

err_free:
	metaroce_mr_free(mdev, mr);
	return ERR_PTR(ret);
}

struct ib_mr *metaroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				u32 max_num_sg)
{
	struct metaroce_dev *mdev = to_mdev(ibpd->device);
	struct metaroce_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > METAROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = metaroce_mr_alloc(ibpd, METAROCE_MR_FAST_REG);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->fr_pages = kcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->fr_pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	mr->fr_max = max_num_sg;

	ret = metaroce_mr_publish(mdev, mr);
	if (ret)
		goto err_free;
	return &mr->ibmr;

err_free:
	metaroce_mr_free(mdev, mr);
	return ERR_PTR(ret);
}

static int metaroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct metaroce_mr *mr = to_mmr(ibmr);

	if (mr->fr_npages >= mr->fr_max)
		return -ENOMEM;

	WRITE_ONCE(mr->fr_pages[mr->fr_npages], addr);
	WRITE_ONCE(mr->fr_npages, mr->fr_npages + 1);
	return 0;
}

/*
 * Builds the page list of a fast-registration MR. ib_sg_to_pages() also sets
 * ibmr.iova and ibmr.length. The consumer must not remap an MR that is
 * valid (IBA); if it does anyway, metaroce_mr_page() still only returns
 * addresses from this MR's page list.
 */
int metaroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		       unsigned int *sg_offset)
{
	struct metaroce_mr *mr = to_mmr(ibmr);

	if (mr->type != METAROCE_MR_FAST_REG)
		return -EINVAL;
	if (!is_power_of_2(ibmr->page_size) || ibmr->page_size < SZ_4K)
		return -EINVAL;

	WRITE_ONCE(mr->fr_npages, 0);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, metaroce_set_page);
}

int metaroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibmr->device);
	struct metaroce_mr *mr = to_mmr(ibmr);

	/* IBA: not while windows are bound; -1 stops new binds (mw.c). */
	if (atomic_cmpxchg(&mr->num_mw, 0, -1))
		return -EBUSY;

	xa_erase(&mdev->mr_xa, METAROCE_KEY_INDEX(mr->key));

	/* Wait for placements that found the MR before it was erased. */
	if (!refcount_dec_and_test(&mr->ref))
		wait_for_completion(&mr->released);

	metaroce_mr_free(mdev, mr);
	return 0;
}

/**
 * metaroce_mr_get - find and check the MR for an access
 * @mdev: the device the access arrived on
 * @key: lkey or rkey, as received (untrusted)
 * @pd: the PD of the QP making the access
 * @access: rights the access needs: 0 for a local read, else a combination
 *	of IB_ACCESS_LOCAL_WRITE, IB_ACCESS_REMOTE_READ,
 *	IB_ACCESS_REMOTE_WRITE and IB_ACCESS_REMOTE_ATOMIC
 * @addr: first byte of the access (untrusted)
 * @len: length of the access (untrusted), may be 0
 * @mrp: the MR, with a reference, on success
 *
 * [@addr, @addr + @len) must lie inside the MR's registered range; all
 * arithmetic is overflow-safe. The reference must be dropped with
 * metaroce_mr_put() as soon as the data is moved: dereg_mr waits for it.
 *
 * Context: any; does not sleep.
 * Return: 0 or
 *	-ENOENT: no MR with this key, stale key variant, or MR not valid;
 *	-EPERM: the MR belongs to another PD;
 *	-EACCES: the MR does not grant @access;
 *	-ERANGE: the access is not entirely inside the MR;
 *	-EINVAL: @access holds bits the look-up does not know (caller bug).
 *	The transport reports the first four as a remote access error to
 *	a peer, or a local protection error for a local access.
 */
int metaroce_mr_get(struct metaroce_dev *mdev, u32 key, const struct ib_pd *pd,
		    int access, u64 addr, u64 len, struct metaroce_mr **mrp)
{
	struct metaroce_mr *mr;
	u64 iova, length, off;
	int ret;

	if (WARN_ON_ONCE(access & ~METAROCE_MR_ACCESS))
		return -EINVAL;

	rcu_read_lock();
	mr = xa_load(&mdev->mr_xa, METAROCE_KEY_INDEX(key));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return -ENOENT;

	/* Pairs with smp_store_release() in publish and fast_reg. */
	if (smp_load_acquire(&mr->state) != METAROCE_MR_VALID ||
	    READ_ONCE(mr->key) != key) {
		ret = -ENOENT;
		goto err_put;
	}
	if (mr->pd != pd) {
		ret = -EPERM;
		goto err_put;
	}
	if ((READ_ONCE(mr->access) & access) != access) {
		ret = -EACCES;
		goto err_put;
	}

	iova = READ_ONCE(mr->ibmr.iova);
	length = READ_ONCE(mr->ibmr.length);
	if (addr < iova) {
		ret = -ERANGE;
		goto err_put;
	}
	off = addr - iova;
	if (off > length || len > length - off) {
		ret = -ERANGE;
		goto err_put;
	}

	*mrp = mr;
	return 0;

err_put:
	metaroce_mr_put(mr);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(metaroce_mr_get, METAROCE);

void metaroce_mr_put(struct metaroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}
EXPORT_SYMBOL_NS_GPL(metaroce_mr_put, METAROCE);

/* @kva is a kernel virtual address from a kernel consumer's SGE or MR. */
static int metaroce_kva_page(u64 kva, struct page **page, unsigned int *offset)
{
	if (!virt_addr_valid((void *)(uintptr_t)kva))
		return -EFAULT;

	*page = virt_to_page((void *)(uintptr_t)kva);
	*offset = offset_in_page(kva);
	return PAGE_SIZE - *offset;
}

/**
 * metaroce_mr_page - translate an address of an MR to a page
 * @mr: an MR from metaroce_mr_get()
 * @addr: an address that metaroce_mr_get() accepted for @mr
 * @page: the page holding @addr
 * @offset: the offset of @addr in @page
 *
 * The transport maps @page (kmap_local_page()) and copies at most the
 * returned number of bytes, then translates the next address.
 *
 * Return: the number of bytes from @addr that are contiguous in @page
 * (at least 1), or -ERANGE / -EFAULT if @addr cannot be translated.
 */
int metaroce_mr_page(struct metaroce_mr *mr, u64 addr, struct page **page,
		     unsigned int *offset)
{
	u64 iova = READ_ONCE(mr->ibmr.iova);
	u64 off, page_size, in_page;
	unsigned long idx;
	int ret;

	switch (mr->type) {
	case METAROCE_MR_DMA:
		return metaroce_kva_page(addr, page, offset);

	case METAROCE_MR_USER:
		if (addr < iova || addr - iova >= mr->ibmr.length)
			return -ERANGE;
		off = addr - iova + mr->first_offset;
		idx = off >> PAGE_SHIFT;
		if (idx >= mr->npages)
			return -ERANGE;
		*page = mr->pages[idx];
		*offset = offset_in_page(off);
		return PAGE_SIZE - *offset;

	case METAROCE_MR_FAST_REG:
		/* ib_sg_to_pages(): page 0 is iova rounded down to page_size. */
		page_size = mr->ibmr.page_size;
		if (!is_power_of_2(page_size) || addr < (iova & ~(page_size - 1)))
			return -ERANGE;
		off = addr - (iova & ~(page_size - 1));
		idx = off >> ilog2(page_size);
		if (idx >= min(READ_ONCE(mr->fr_npages), mr->fr_max))
			return -ERANGE;
		in_page = off & (page_size - 1);
		ret = metaroce_kva_page(READ_ONCE(mr->fr_pages[idx]) + in_page,
					page, offset);
		if (ret < 0)
			return ret;
		return min_t(u64, ret, page_size - in_page);
	}
	return -EINVAL;
}
EXPORT_SYMBOL_NS_GPL(metaroce_mr_page, METAROCE);

/**
 * metaroce_mr_fast_reg - execute IB_WR_REG_MR
 * @mr: a fast-registration MR, mapped with ib_map_mr_sg()
 * @key: the key of the work request (the consumer may change its variant)
 * @access: the access of the work request
 *
 * Return: 0, or -EINVAL if @mr is not a fast-registration MR, @key is not
 * @mr's or @access is invalid, -EBUSY if @mr is already valid.
 */
int metaroce_mr_fast_reg(struct metaroce_mr *mr, u32 key, int access)
{
	if (mr->type != METAROCE_MR_FAST_REG ||
	    METAROCE_KEY_INDEX(key) != METAROCE_KEY_INDEX(mr->key) ||
	    metaroce_mr_check_access(access))
		return -EINVAL;
	/* Acquire: pairs with the release of a concurrent invalidation. */
	if (smp_load_acquire(&mr->state) == METAROCE_MR_VALID)
		return -EBUSY;

	/* ibmr.lkey/rkey belong to the consumer (ib_update_fast_reg_key()). */
	WRITE_ONCE(mr->access, access);
	WRITE_ONCE(mr->key, key);
	/* Publish access, key, page list: pairs with acquire in _get() */
	smp_store_release(&mr->state, METAROCE_MR_VALID);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(metaroce_mr_fast_reg, METAROCE);

/**
 * metaroce_mr_invalidate - execute IB_WR_LOCAL_INV or a send with invalidate
 * @mdev: the device
 * @key: the key to invalidate (untrusted for a send with invalidate)
 * @pd: the PD of the QP
 *
 * Return: 0, or -ENOENT (no valid MR with @key), -EPERM (other PD), -EINVAL
 * (not a fast-registration MR).
 */
int metaroce_mr_invalidate(struct metaroce_dev *mdev, u32 key,
			   const struct ib_pd *pd)
{
	struct metaroce_mr *mr;
	int ret = 0;

	rcu_read_lock();
	mr = xa_load(&mdev->mr_xa, METAROCE_KEY_INDEX(key));
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return -ENOENT;

	if (READ_ONCE(mr->key) != key)
		ret = -ENOENT;
	else if (mr->pd != pd)
		ret = -EPERM;
	else if (mr->type != METAROCE_MR_FAST_REG)
		ret = -EINVAL;
	else if (cmpxchg(&mr->state, METAROCE_MR_VALID,
			 METAROCE_MR_INVALID) != METAROCE_MR_VALID)
		ret = -ENOENT;

	metaroce_mr_put(mr);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(metaroce_mr_invalidate, METAROCE);
