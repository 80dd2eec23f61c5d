// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: shared receive queues.
 *
 * An SRQ is one ring of receive WQEs, laid out like a QP's receive queue,
 * that the kernel allocated and we map. Posting writes the entries and
 * publishes prod: no system call. The kernel takes entries for whichever
 * attached QP a message arrives on (Documentation/infiniband/metaroce.rst,
 * "Shared receive queues"); creating, modifying (the limit) and querying go
 * through the core uverbs commands.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"
#include "rings.h"

struct metaroce_srq {
	struct ibv_srq ibsrq;
	pthread_spinlock_t lock;	/* rq and prod */
	struct metaroce_uring rq;
	uint32_t prod;			/* ours; published in rq.hdr->prod */
	uint32_t max_sge;
};

static inline struct metaroce_srq *to_msrq(struct ibv_srq *ibsrq)
{
	return (struct metaroce_srq *)((char *)ibsrq -
		offsetof(struct metaroce_srq, ibsrq));
}

/* The core response, then ours (see rings.c for why a placeholder). */
union metaroce_create_srq_resp_buf {
	struct ib_uverbs_create_srq_resp core;
	struct {
		uint8_t core_space[sizeof(struct ib_uverbs_create_srq_resp)];
		struct metaroce_create_srq_resp drv;
	};
};

static_assert(offsetof(union metaroce_create_srq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_srq_resp), "create_srq resp");

struct ibv_srq *metaroce_create_srq(struct ibv_pd *pd,
				    struct ibv_srq_init_attr *attr)
{
	union metaroce_create_srq_resp_buf resp = {};
	struct vpriv_cmd_create_srq cmd = {};
	struct metaroce_srq *srq;
	uint32_t room;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;

	/* On success attr->attr holds what the kernel granted. */
	ret = ibv_cmd_create_srq(pd, &srq->ibsrq, attr, &cmd, sizeof(cmd),
				 &resp.core, sizeof(resp));
	if (ret)
		goto err_free;

	ret = metaroce_uring_map(&srq->rq, &resp.drv.rq, pd->context->cmd_fd,
				 sizeof(struct metaroce_recv_wqe));
	if (ret)
		goto err_destroy;

	/* What the kernel granted, and no more than an entry holds. */
	room = (srq->rq.entry_size - sizeof(struct metaroce_recv_wqe)) /
	       sizeof(struct metaroce_sge);
	srq->max_sge = attr->attr.max_sge < room ? attr->attr.max_sge : room;

	ret = pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_unmap;
	srq->prod = metaroce_load_acquire(&srq->rq.hdr->prod);
	return &srq->ibsrq;

err_unmap:
	metaroce_uring_unmap(&srq->rq);
err_destroy:
	ibv_cmd_destroy_srq(&srq->ibsrq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

int metaroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			int attr_mask)
{
	struct vpriv_cmd_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int metaroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct vpriv_cmd_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int metaroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;

	metaroce_uring_unmap(&srq->rq);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int metaroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	struct metaroce_srq *srq = to_msrq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->lock);
	ret = metaroce_uring_post_recv(&srq->rq, &srq->prod, srq->max_sge, wr,
				       bad_wr);
	pthread_spin_unlock(&srq->lock);
	return ret;
}
