/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libmetaroce: what metaroce.c (context, device, control path) and rings.c
 * (CQs, QPs and AHs over the rings of rdma/metaroce-abi.h), cq_ex.c and
 * qp_ex.c (their extended verbs), srq.c (shared receive queues) and mw.c
 * (memory windows) share.
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
	unsigned int poll_yield;	/* METAROCE_POLL_YIELD, read at open */
};

static inline struct metaroce_context *to_mctx(struct ibv_context *ibctx)
{
	return (struct metaroce_context *)((char *)ibctx -
		offsetof(struct metaroce_context, vctx.context));
}

/* metaroce.c */
bool metaroce_is_our_device(struct ibv_device *ibdev);

/* rings.c (the ring helpers are in rings.h) */
unsigned int metaroce_poll_yield_env(void);
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

/* mw.c */
struct ibv_mw *metaroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int metaroce_dealloc_mw(struct ibv_mw *mw);
int metaroce_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		     struct ibv_mw_bind *mw_bind);
struct metaroce_send_wqe;
void metaroce_build_bind(struct metaroce_send_wqe *wqe, const struct ibv_mw *mw,
			 uint32_t rkey, const struct ibv_mw_bind_info *info);

/* cq_ex.c */
struct ibv_cq_ex *metaroce_create_cq_ex(struct ibv_context *context,
					struct ibv_cq_init_attr_ex *attr);

/* qp_ex.c */
struct ibv_qp *metaroce_create_qp_ex(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *attr);
struct metaroce_create_qp_req;
/* With the driver data of the dv extension (dv.c), or NULL for none. */
struct ibv_qp *metaroce_create_qp_ex_req(struct ibv_context *context,
					 struct ibv_qp_init_attr_ex *attr,
					 const struct metaroce_create_qp_req *req);

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
