// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libmetaroce: the direct-verbs extension (metaroce_dv.h), the functions
 * this library exports (metaroce.map, METAROCE_1.0).
 *
 * The paths and streams of a QP go to the kernel as CREATE_QP driver data
 * (struct metaroce_create_qp_req) and come back in the response, with the
 * page of per-path statistics that the kernel keeps current; it is mapped
 * read-only and read under its sequence count, without a system call.
 */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>
#include <rdma/metaroce-abi.h>

#include "metaroce.h"
#include "metaroce_dv.h"
#include "rings.h"

#define METAROCE_DV_EXPORT	__attribute__((visibility("default")))

static_assert(METAROCE_DV_MAX_PATHS == METAROCE_MAX_QP_PATHS, "paths");
static_assert(METAROCE_DV_MAX_STREAMS == METAROCE_MAX_QP_STREAMS, "streams");
static_assert(METAROCE_DV_PATH_ACTIVE == METAROCE_PATH_ACTIVE, "path state");
static_assert(METAROCE_DV_PATH_RETIRED == METAROCE_PATH_RETIRED, "path state");

/* After CREATE_QP: what the kernel said about paths, streams and statistics. */
int metaroce_qp_dv_setup(struct metaroce_qp *qp,
			 const struct metaroce_create_qp_resp *drv, int cmd_fd)
{
	const struct metaroce_ring_info *info = &drv->stats;
	void *p;

	qp->num_streams = 1;
	if (drv->comp_mask & METAROCE_CREATE_QP_RESP_PATHS) {
		if (!drv->num_paths || drv->num_paths > METAROCE_MAX_QP_PATHS ||
		    !drv->num_streams || drv->num_streams > METAROCE_MAX_QP_STREAMS)
			return EPROTO;
		qp->num_paths = drv->num_paths;
		qp->num_streams = drv->num_streams;
	}
	if (!(drv->comp_mask & METAROCE_CREATE_QP_RESP_STATS))
		return 0;
	if (info->num_entries != 1 ||
	    info->entry_size < sizeof(struct metaroce_qp_stats) ||
	    info->mmap_length < info->entry_size || info->mmap_length > SIZE_MAX ||
	    info->mmap_offset > INT64_MAX)
		return EPROTO;
	/* Read-only: the kernel refuses a writable mapping. */
	p = mmap(NULL, info->mmap_length, PROT_READ, MAP_SHARED, cmd_fd,
		 (off_t)info->mmap_offset);
	if (p == MAP_FAILED)
		return errno;
	qp->stats = p;
	qp->stats_len = info->mmap_length;
	return 0;
}

void metaroce_qp_dv_unmap(struct metaroce_qp *qp)
{
	if (qp->stats)
		munmap((void *)qp->stats, qp->stats_len);
	qp->stats = NULL;
}

static bool metaroce_dv_qp_ok(struct ibv_qp *qp)
{
	return qp && qp->context && metaroce_is_our_device(qp->context->device);
}

METAROCE_DV_EXPORT
bool metaroce_dv_is_supported(struct ibv_device *device)
{
	return metaroce_is_our_device(device);
}

METAROCE_DV_EXPORT
struct ibv_qp *metaroce_dv_create_qp(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *qp_attr,
				     struct metaroce_dv_qp_init_attr *dv_attr)
{
	const uint64_t known = METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS |
			       METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS;
	struct metaroce_create_qp_req req = {};

	if (!context || !qp_attr) {
		errno = EINVAL;
		return NULL;
	}
	if (!metaroce_is_our_device(context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (dv_attr) {
		if (dv_attr->comp_mask & ~known) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		if (dv_attr->comp_mask & METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS) {
			if (!dv_attr->num_paths ||
			    dv_attr->num_paths > METAROCE_DV_MAX_PATHS) {
				errno = EINVAL;
				return NULL;
			}
			req.num_paths = dv_attr->num_paths;
		}
		if (dv_attr->comp_mask & METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS) {
			if (!dv_attr->num_streams ||
			    dv_attr->num_streams > METAROCE_DV_MAX_STREAMS) {
				errno = EINVAL;
				return NULL;
			}
			req.num_streams = dv_attr->num_streams;
		}
	}
	/* The kernel checks the rest (QP type, SRQ) against the same rules. */
	return metaroce_create_qp_ex_req(context, qp_attr, &req);
}

METAROCE_DV_EXPORT
int metaroce_dv_query_qp(struct ibv_qp *ibqp, struct metaroce_dv_qp_attr *attr,
			 uint32_t inlen)
{
	struct metaroce_dv_qp_attr out = {};
	struct metaroce_qp *qp;

	if (!metaroce_dv_qp_ok(ibqp) || !attr)
		return EINVAL;
	/* The first version of the structure ends after num_streams. */
	if (inlen < offsetof(struct metaroce_dv_qp_attr, num_streams) + 1)
		return EINVAL;
	qp = to_mqp(ibqp);
	if (!qp->num_paths)
		return EOPNOTSUPP;	/* not RC: no paths */
	out.num_paths = qp->num_paths;
	out.num_streams = qp->num_streams;
	memcpy(attr, &out, inlen < sizeof(out) ? inlen : sizeof(out));
	if (inlen > sizeof(out))
		memset((char *)attr + sizeof(out), 0, inlen - sizeof(out));
	return 0;
}

METAROCE_DV_EXPORT
int metaroce_dv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  uint8_t stream, struct ibv_send_wr **bad_wr)
{
	if (!metaroce_dv_qp_ok(qp) || !bad_wr) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	return metaroce_post_send_stream(qp, wr, stream, bad_wr);
}

METAROCE_DV_EXPORT
void metaroce_dv_wr_set_stream(struct ibv_qp_ex *qpx, uint8_t stream)
{
	struct metaroce_send_wqe *wqe = metaroce_wr_cur(qpx);
	struct metaroce_qp *qp = to_mqp(&qpx->qp_base);

	if (!wqe)
		return;
	if (stream >= qp->num_streams) {
		/* As a bad setter: the batch fails at ibv_wr_complete(). */
		if (!qp->wr_err)
			qp->wr_err = EINVAL;
		return;
	}
	wqe->stream = stream;
}

static uint32_t metaroce_load_seq(const uint32_t *seq)
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

METAROCE_DV_EXPORT
int metaroce_dv_query_path_stats(struct ibv_qp *ibqp,
				 struct metaroce_dv_path_stats *stats,
				 uint32_t max_paths, uint32_t *num_paths,
				 uint64_t *tx_pkts)
{
	struct metaroce_qp_stats snap;
	const struct metaroce_qp_stats *page;
	uint32_t seq, i, n;

	if (!metaroce_dv_qp_ok(ibqp) || !num_paths || (max_paths && !stats))
		return EINVAL;
	page = to_mqp(ibqp)->stats;
	if (!page)
		return EOPNOTSUPP;

	/* The kernel rewrites the page while we copy: retry until stable. */
	for (;;) {
		seq = metaroce_load_seq(&page->seq);
		if (seq & 1)
			continue;
		memcpy(&snap, page, sizeof(snap));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (metaroce_load_seq(&page->seq) == seq)
			break;
	}

	n = snap.num_paths;
	if (n > METAROCE_MAX_QP_PATHS)
		return EPROTO;
	for (i = 0; i < n && i < max_paths; i++) {
		const struct metaroce_path_stats *p = &snap.path[i];

		memset(&stats[i], 0, sizeof(stats[i]));
		stats[i].udp_sport = p->udp_sport;
		stats[i].state = p->state;
		stats[i].tx_pkts = p->tx_pkts;
		stats[i].tx_retx = p->tx_retx;
		stats[i].lost = p->lost;
		stats[i].ecn_marks = p->ecn_marks;
		stats[i].srtt_ns = p->srtt_ns;
	}
	*num_paths = n;
	if (tx_pkts)
		*tx_pkts = snap.tx_pkts;
	return 0;
}
