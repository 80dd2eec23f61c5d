/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmetaroce: the ring objects rings.c (ordinary verbs), cq_ex.c
 * (extended CQs) and qp_ex.c (extended QPs) share. An extended CQ or QP is
 * the same object as an ordinary one, on the same rings, so that the
 * ordinary verbs (ibv_poll_cq, ibv_post_send, ...) work on it too.
 */
#ifndef METAROCE_RINGS_H
#define METAROCE_RINGS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#include "verbs_private.h"

#define METAROCE_WC_FLAGS	(METAROCE_WC_GRH | METAROCE_WC_WITH_IMM | \
				 METAROCE_WC_WITH_INV)
#define METAROCE_SEND_FLAGS	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
				 IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/* A ring mapped from the kernel. */
struct metaroce_uring {
	struct metaroce_ring *hdr;	/* NULL if not mapped */
	uint8_t *entries;
	size_t map_len;
	uint32_t num;			/* a power of two */
	uint32_t entry_size;
};

static inline uint32_t metaroce_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void metaroce_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void *metaroce_uring_entry(const struct metaroce_uring *r,
					 uint32_t idx)
{
	return r->entries + (size_t)(idx & (r->num - 1)) * r->entry_size;
}

int metaroce_uring_map(struct metaroce_uring *r,
		       const struct metaroce_ring_info *info,
		       int cmd_fd, uint32_t min_entry_size);
void metaroce_uring_unmap(struct metaroce_uring *r);
int metaroce_uring_post_recv(struct metaroce_uring *r, uint32_t *prod,
			     uint32_t max_sge, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);

struct metaroce_cq {
	union {
		struct ibv_cq ibcq;
		struct verbs_cq vcq;	/* vcq.cq_ex: ibv_create_cq_ex */
	};
	pthread_spinlock_t lock;	/* ring, cons; held from start_poll to end_poll */
	struct metaroce_uring ring;
	uint32_t cons;			/* ours; published in ring.hdr->cons */
	const struct metaroce_cqe *cur;	/* extended polling: the entry read */
	unsigned int empty_polls;	/* in a row; under lock */
	unsigned int yield_after;	/* the context's poll_yield; 0: never */
};

/* Empty polls in a row after which a poller yields its CPU (METAROCE_POLL_YIELD). */
#define METAROCE_POLL_YIELD_DEFAULT	16
#define METAROCE_POLL_YIELD_MAX		1000000

/*
 * Under the CQ lock, after a poll that read @n completions: true if the
 * caller should call sched_yield() once it has dropped the lock.
 */
static inline bool metaroce_cq_polled(struct metaroce_cq *cq, int n)
{
	if (n) {
		cq->empty_polls = 0;
		return false;
	}
	if (!cq->yield_after || ++cq->empty_polls < cq->yield_after)
		return false;
	cq->empty_polls = 0;
	return true;
}

static inline struct metaroce_cq *to_mcq(struct ibv_cq *ibcq)
{
	return (struct metaroce_cq *)((char *)ibcq -
		offsetof(struct metaroce_cq, ibcq));
}

int metaroce_cq_setup(struct metaroce_cq *cq,
		      const struct metaroce_ring_info *info,
		      struct ibv_context *context);

struct metaroce_ah {
	struct ibv_ah ibah;
	uint32_t ah_num;		/* metaroce_create_ah_resp.ah_num */
};

static inline struct metaroce_ah *to_mah(struct ibv_ah *ibah)
{
	return (struct metaroce_ah *)((char *)ibah -
		offsetof(struct metaroce_ah, ibah));
}

struct metaroce_qp {
	union {
		struct ibv_qp ibqp;
		struct verbs_qp vqp;	/* vqp.qp_ex: ibv_create_qp_ex */
	};
	pthread_spinlock_t sq_lock;	/* sq, sq_prod; held from wr_start on */
	pthread_spinlock_t rq_lock;	/* rq and rq_prod */
	struct metaroce_uring sq;
	struct metaroce_uring rq;	/* not mapped with an SRQ */
	uint32_t sq_prod;		/* ours; published in sq.hdr->prod */
	uint32_t rq_prod;		/* ours; published in rq.hdr->prod */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	/* dv.c: paths and streams (0 paths: not told), the statistics page */
	uint8_t num_paths;
	uint8_t num_streams;
	const struct metaroce_qp_stats *stats;
	size_t stats_len;
	/* The wr_* batch being built (qp_ex.c), past sq_prod, unpublished. */
	struct metaroce_send_wqe *wr_cur;
	uint32_t wr_pending;
	int wr_err;			/* the batch's first error */
};

static inline struct metaroce_qp *to_mqp(struct ibv_qp *ibqp)
{
	return (struct metaroce_qp *)((char *)ibqp -
		offsetof(struct metaroce_qp, ibqp));
}

/*
 * CREATE_QP's response, for ibv_create_qp and ibv_create_qp_ex alike: the
 * core part, then ours after a placeholder of its size (the core structure
 * ends in a flexible array).
 */
union metaroce_create_qp_resp_buf {
	struct ib_uverbs_create_qp_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_create_qp_resp)];
		struct metaroce_create_qp_resp drv;
	};
};

static_assert(offsetof(union metaroce_create_qp_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_qp_resp), "create_qp resp");

int metaroce_qp_setup(struct metaroce_qp *qp,
		      const struct metaroce_create_qp_resp *drv,
		      const struct ibv_qp_cap *cap, bool has_srq, int cmd_fd);
bool metaroce_opcode_ok(enum ibv_qp_type type, enum ibv_wr_opcode opcode);
int metaroce_post_send_stream(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			      uint8_t stream, struct ibv_send_wr **bad_wr);

/* qp_ex.c: the WQE the wr_* setters complete, or NULL (error remembered). */
struct metaroce_send_wqe *metaroce_wr_cur(struct ibv_qp_ex *qpx);

/* dv.c */
int metaroce_qp_dv_setup(struct metaroce_qp *qp,
			 const struct metaroce_create_qp_resp *drv, int cmd_fd);
void metaroce_qp_dv_unmap(struct metaroce_qp *qp);

#endif /* METAROCE_RINGS_H */
