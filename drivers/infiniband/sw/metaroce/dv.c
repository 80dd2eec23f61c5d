// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: what the direct-verbs extension (infiniband/metaroce_dv.h) adds
 * to an RC QP: its number of paths and streams, chosen at creation, and a
 * page of per-path statistics that the process maps read-only and the
 * transport rewrites after each of its runs (plain verbs have
 * no way to return driver data from query_qp).
 */

#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "metaroce.h"
#include "proto/conn.h"

static_assert(METAROCE_MAX_QP_PATHS == MR_MAX_PATHS);
static_assert(METAROCE_MAX_QP_STREAMS == MR_MAX_STREAMS);
static_assert(sizeof(struct metaroce_qp_stats) <= PAGE_SIZE);

/* The driver data of CREATE_QP, if any: paths and streams. */
int metaroce_qp_dv_init(struct metaroce_qp *qp, const struct ib_qp_init_attr *init,
			struct ib_udata *udata)
{
	struct metaroce_create_qp_req req = {};
	int ret;

	qp->n_paths = READ_ONCE(qp->mdev->paths);
	qp->n_streams = 1;
	if (!udata || !udata->inlen)
		return 0;	/* a provider without the extension */

	if (udata->inlen < sizeof(req))
		return -EINVAL;
	/* A later request we do not know: its tail must be zero. */
	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req), udata->inlen - sizeof(req)))
		return -EOPNOTSUPP;
	ret = ib_copy_from_udata(&req, udata, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_mask)
		return -EOPNOTSUPP;
	if (req.reserved || req.num_paths > METAROCE_MAX_QP_PATHS ||
	    req.num_streams > METAROCE_MAX_QP_STREAMS)
		return -EINVAL;
	if ((req.num_paths || req.num_streams) && init->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	/* An SRQ completes a QP's receives in RMSN order (spec). */
	if (req.num_streams > 1 && init->srq)
		return -EOPNOTSUPP;

	if (req.num_paths)
		qp->n_paths = req.num_paths;
	if (req.num_streams)
		qp->n_streams = req.num_streams;
	return 0;
}

/* After the queues exist: what several streams need. */
int metaroce_qp_dv_alloc(struct metaroce_qp *qp)
{
	if (qp->n_streams > 1 && !qp->srq) {
		qp->rq_early = bitmap_zalloc(qp->rq.num, GFP_KERNEL);
		if (!qp->rq_early)
			return -ENOMEM;
	}
	return 0;
}

int metaroce_qp_stats_export(struct metaroce_qp *qp, struct ib_ucontext *uctx,
			     struct metaroce_ring_info *info)
{
	size_t len = PAGE_ALIGN(sizeof(struct metaroce_qp_stats));
	struct metaroce_mmap_entry *entry;
	unsigned int i;
	int ret;

	qp->stats = vmalloc_user(len);
	if (!qp->stats)
		return -ENOMEM;
	qp->stats->num_paths = qp->n_paths;
	qp->stats->num_streams = qp->n_streams;
	for (i = 0; i < qp->n_paths; i++)
		qp->stats->path[i].udp_sport = metaroce_qp_sport(qp, i);

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;	/* metaroce_qp_dv_free() frees the page */
	entry->buf = qp->stats;
	entry->readonly = true;
	ret = rdma_user_mmap_entry_insert(uctx, &entry->rdma, len);
	if (ret) {
		kfree(entry);
		return ret;
	}
	qp->stats_mmap = entry;

	memset(info, 0, sizeof(*info));
	info->mmap_offset = rdma_user_mmap_get_offset(&entry->rdma);
	info->mmap_length = len;
	info->num_entries = 1;
	info->entry_size = sizeof(struct metaroce_qp_stats);
	return 0;
}

/* From the transport (one context at a time): the only writer. */
void metaroce_qp_stats_update(struct metaroce_qp *qp)
{
	struct metaroce_qp_stats *st = qp->stats;
	const struct mr_conn *c = qp->conn;
	unsigned int i, n;
	u32 seq;

	if (!st || !c)
		return;
	n = min_t(unsigned int, c->paths.n, METAROCE_MAX_QP_PATHS);
	seq = st->seq;
	WRITE_ONCE(st->seq, seq + 1);
	smp_wmb();	/* seq odd before the fields change */
	for (i = 0; i < n; i++) {
		const struct mr_path *p = &c->paths.p[i];
		struct metaroce_path_stats *ps = &st->path[i];

		WRITE_ONCE(ps->tx_pkts, p->stat_sent);
		WRITE_ONCE(ps->tx_retx, p->stat_retx);
		WRITE_ONCE(ps->lost, p->losses);
		WRITE_ONCE(ps->ecn_marks, p->stat_ce);
		WRITE_ONCE(ps->srtt_ns, p->rtt.srtt);
		WRITE_ONCE(ps->state, p->up ? METAROCE_PATH_ACTIVE : METAROCE_PATH_RETIRED);
	}
	WRITE_ONCE(st->tx_pkts, c->stats.tx_pkts);
	smp_wmb();	/* the fields before seq is even again */
	WRITE_ONCE(st->seq, seq + 2);
}

void metaroce_qp_dv_free(struct metaroce_qp *qp)
{
	bitmap_free(qp->rq_early);
	qp->rq_early = NULL;
	if (qp->stats_mmap)
		/* The page goes with the last mapping: metaroce_mmap_free(). */
		rdma_user_mmap_entry_remove(&qp->stats_mmap->rdma);
	else
		vfree(qp->stats);
	qp->stats = NULL;
	qp->stats_mmap = NULL;
}
