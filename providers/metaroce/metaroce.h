/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmetaroce: what metaroce.c (context, device, control path) and rings.c
 * (CQs, QPs and AHs over the rings of rdma/metaroce-abi.h) share.
 */
#ifndef METAROCE_PROVIDER_H
#define METAROCE_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/metaroce-abi.h>

#include "verbs_private.h"

struct metaroce_context {
	struct verbs_context vctx;
};

static inline struct metaroce_context *to_mctx(struct ibv_context *ibctx)
{
	return (struct metaroce_context *)((char *)ibctx -
		offsetof(struct metaroce_context, vctx.context));
}

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

/* rings.c */
int metaroce_uring_map(struct metaroce_uring *r,
		       const struct metaroce_ring_info *info,
		       int cmd_fd, uint32_t min_entry_size);
void metaroce_uring_unmap(struct metaroce_uring *r);
struct ibv_cq *metaroce_create_cq(struct ibv_context *context, int cqe,
				  struct ibv_comp_channel *channel,
				  int comp_vector);
int metaroce_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int metaroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
int metaroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int metaroce_destroy_cq(struct ibv_cq *ibcq);

struct ibv_qp *metaroce_create_qp(struct ibv_pd *pd,
				  struct ibv_qp_init_attr *attr);
int metaroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		       int attr_mask);
int metaroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_qp_init_attr *init_attr);
int metaroce_destroy_qp(struct ibv_qp *ibqp);
int metaroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr);
int metaroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

struct ibv_ah *metaroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int metaroce_destroy_ah(struct ibv_ah *ibah);

/* srq.c */
struct ibv_srq *metaroce_create_srq(struct ibv_pd *pd,
				    struct ibv_srq_init_attr *attr);
int metaroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			int attr_mask);
int metaroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int metaroce_destroy_srq(struct ibv_srq *ibsrq);
int metaroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr);

#endif /* METAROCE_PROVIDER_H */
