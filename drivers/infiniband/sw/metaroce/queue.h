/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: the rings of send, receive and completion queues
 * (include/uapi/rdma/metaroce-abi.h, "Rings").
 *
 * Kernel and user queues have the same layout. A user queue's memory belongs
 * to its mmap entry, so that it outlives the verbs object while the process
 * still has it mapped; a kernel queue's memory is freed with the queue.
 */

#ifndef METAROCE_QUEUE_H
#define METAROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/metaroce-abi.h>

struct metaroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;		/* vmalloc_user() */
	bool readonly;		/* the process may not map it writable */
};

struct metaroce_queue {
	struct metaroce_ring *ring;
	void *entries;
	u32 num;		/* entries, a power of two */
	u32 entry_size;
	size_t length;		/* header and entries, page aligned */
	struct metaroce_mmap_entry *mmap;	/* user queues only */
};

int metaroce_queue_init(struct metaroce_queue *q, u32 num, u32 entry_size);
/* Make q mappable by the process of @uctx and describe it in @info. */
int metaroce_queue_export(struct metaroce_queue *q, struct ib_ucontext *uctx,
			  struct metaroce_ring_info *info);
void metaroce_queue_free(struct metaroce_queue *q);
int metaroce_queue_post_recv(struct metaroce_queue *q, u32 max_sge,
			     const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr);

static inline void *metaroce_queue_entry(const struct metaroce_queue *q, u32 idx)
{
	return q->entries + (size_t)(idx & (q->num - 1)) * q->entry_size;
}

/*
 * Indices. The side that owns an index reads it plainly; the other side's
 * index is read with acquire semantics and may be any value a process chose:
 * callers check prod - cons against num.
 */
static inline u32 metaroce_queue_prod_acquire(const struct metaroce_queue *q)
{
	/* Pairs with the producer's release: entries before prod are written. */
	return smp_load_acquire(&q->ring->prod);
}

static inline u32 metaroce_queue_cons_acquire(const struct metaroce_queue *q)
{
	/* Pairs with the consumer's release: entries before cons are free. */
	return smp_load_acquire(&q->ring->cons);
}

static inline void metaroce_queue_prod_release(struct metaroce_queue *q, u32 v)
{
	/* The entries before v are written before prod says so. */
	smp_store_release(&q->ring->prod, v);
}

static inline void metaroce_queue_cons_release(struct metaroce_queue *q, u32 v)
{
	/* The entries before v are read before cons frees them. */
	smp_store_release(&q->ring->cons, v);
}

/* ib_device_ops.mmap and .mmap_free */
int metaroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void metaroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

#endif /* METAROCE_QUEUE_H */
