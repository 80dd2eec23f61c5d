// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: ring memory and its mapping into processes.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "metaroce.h"
#include "queue.h"

int metaroce_queue_init(struct metaroce_queue *q, u32 num, u32 entry_size)
{
	size_t bytes;

	if (!num || num > METAROCE_MAX_QUEUE_ENTRIES || !is_power_of_2(num) ||
	    !entry_size || entry_size % 64)
		return -EINVAL;

	bytes = PAGE_ALIGN(METAROCE_RING_HDR_SIZE + (size_t)num * entry_size);
	/* vmalloc_user() zeroes and allows remap_vmalloc_range(). */
	q->ring = vmalloc_user(bytes);
	if (!q->ring)
		return -ENOMEM;
	q->entries = (void *)q->ring + METAROCE_RING_HDR_SIZE;
	q->num = num;
	q->entry_size = entry_size;
	q->length = bytes;
	q->mmap = NULL;
	return 0;
}

int metaroce_queue_export(struct metaroce_queue *q, struct ib_ucontext *uctx,
			  struct metaroce_ring_info *info)
{
	struct metaroce_mmap_entry *entry;
	int ret;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->buf = q->ring;
	ret = rdma_user_mmap_entry_insert(uctx, &entry->rdma, q->length);
	if (ret) {
		kfree(entry);
		return ret;
	}
	q->mmap = entry;

	memset(info, 0, sizeof(*info));
	info->mmap_offset = rdma_user_mmap_get_offset(&entry->rdma);
	info->mmap_length = q->length;
	info->num_entries = q->num;
	info->entry_size = q->entry_size;
	return 0;
}

void metaroce_queue_free(struct metaroce_queue *q)
{
	if (!q->ring)
		return;
	if (q->mmap)
		/* The memory goes with the last mapping: metaroce_mmap_free(). */
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->ring);
	q->ring = NULL;
	q->entries = NULL;
	q->mmap = NULL;
}

int metaroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct metaroce_mmap_entry *entry;
	int ret;

	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = container_of(rdma_entry, struct metaroce_mmap_entry, rdma);

	if (vma->vm_end - vma->vm_start > rdma_entry->npages * PAGE_SIZE) {
		ret = -EINVAL;
		goto out;
	}
	if (entry->readonly) {
		if (vma->vm_flags & VM_WRITE) {
			ret = -EPERM;
			goto out;
		}
		/* Nor later through mprotect(). */
		metaroce_vm_flags_clear(vma, VM_MAYWRITE);
	}
	ret = remap_vmalloc_range(vma, entry->buf, 0);
out:
	rdma_user_mmap_entry_put(rdma_entry);
	return ret;
}

void metaroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct metaroce_mmap_entry *entry =
		container_of(rdma_entry, struct metaroce_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}

/*
 * Writes kernel receive WQEs into @q and publishes each; the caller holds the
 * queue's post lock. Shared by QP receive queues and SRQs.
 */
int metaroce_queue_post_recv(struct metaroce_queue *q, u32 max_sge,
			     const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr)
{
	u32 prod = q->ring->prod;
	int ret = 0, i;

	for (; wr; wr = wr->next) {
		struct metaroce_recv_wqe *wqe;
		struct metaroce_sge *sge;

		if (wr->num_sge < 0 || (u32)wr->num_sge > max_sge) {
			ret = -EINVAL;
			break;
		}
		if (prod - metaroce_queue_cons_acquire(q) >= q->num) {
			ret = -ENOMEM;
			break;
		}
		wqe = metaroce_queue_entry(q, prod);
		sge = (void *)(wqe + 1);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		prod++;
		metaroce_queue_prod_release(q, prod);
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}
