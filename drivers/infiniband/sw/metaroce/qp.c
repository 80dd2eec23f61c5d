// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: queue pairs, the verbs side.
 *
 * An RC QP is one MetaRoCE connection. Its send and receive queues are rings
 * (queue.h) that a process fills directly for a user QP and post_send and
 * post_recv fill for a kernel QP; the transport (transport.c) takes the
 * entries from there. modify_qp follows the IBTA state machine
 * (ib_modify_qp_is_ok()); the connection engine is created at RTR and starts
 * sending at RTS (Documentation/infiniband/metaroce.rst, "Setup through
 * verbs alone").
 */

#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "metaroce.h"
#include "proto/conn.h"

static_assert(METAROCE_MAX_PATHS == MR_MAX_PATHS);

unsigned int metaroce_default_paths = 8;
module_param_named(paths, metaroce_default_paths, uint, 0644);
MODULE_PARM_DESC(paths, "Network paths (UDP source ports) of the connections of a device created afterwards, 1..64 (default 8)");

/* Inline data a send WQE can carry, in the place of its SGEs. */
#define METAROCE_MAX_INLINE	512

#define METAROCE_SEND_WQE_HDR	sizeof(struct metaroce_send_wqe)
#define METAROCE_RECV_WQE_HDR	sizeof(struct metaroce_recv_wqe)

static int metaroce_qp_check_cap(struct ib_qp_cap *cap, bool srq)
{
	/* The SRQ's limits apply to receives. */
	if (srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	if (cap->max_send_wr > METAROCE_MAX_QP_WR ||
	    cap->max_recv_wr > METAROCE_MAX_QP_WR ||
	    cap->max_send_sge > METAROCE_MAX_SGE ||
	    cap->max_recv_sge > METAROCE_MAX_SGE ||
	    cap->max_inline_data > METAROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

static int metaroce_qp_alloc_queues(struct metaroce_qp *qp, struct ib_qp_cap *cap,
				    bool srq)
{
	u32 sq_num = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	u32 rq_num = roundup_pow_of_two(max(cap->max_recv_wr, 1U));
	u32 sq_data = max_t(u32, cap->max_send_sge * sizeof(struct metaroce_sge),
			    cap->max_inline_data);
	u32 sq_size = ALIGN(METAROCE_SEND_WQE_HDR + sq_data, 64);
	u32 rq_size = ALIGN(METAROCE_RECV_WQE_HDR +
			    cap->max_recv_sge * sizeof(struct metaroce_sge), 64);
	int ret;

	ret = metaroce_queue_init(&qp->sq, sq_num, sq_size);
	if (ret)
		return ret;
	if (!srq) {
		ret = metaroce_queue_init(&qp->rq, rq_num, rq_size);
		if (ret)
			goto err_sq;
	}

	qp->swqe = kvcalloc(sq_num, sizeof(*qp->swqe), GFP_KERNEL);
	qp->sq_data = kvcalloc(sq_num, sq_size - METAROCE_SEND_WQE_HDR, GFP_KERNEL);
	if (!qp->swqe || !qp->sq_data) {
		ret = -ENOMEM;
		goto err_rq;
	}

	/* What the entries hold, rounded up: tell the consumer. */
	qp->max_send_sge = (sq_size - METAROCE_SEND_WQE_HDR) / sizeof(struct metaroce_sge);
	qp->max_send_sge = min_t(u32, qp->max_send_sge, METAROCE_MAX_SGE);
	qp->max_inline = min_t(u32, sq_size - METAROCE_SEND_WQE_HDR, METAROCE_MAX_INLINE);
	qp->max_recv_sge = (rq_size - METAROCE_RECV_WQE_HDR) / sizeof(struct metaroce_sge);
	qp->max_recv_sge = min_t(u32, qp->max_recv_sge, METAROCE_MAX_SGE);
	if (srq)
		qp->max_recv_sge = 0;
	/* A receive WQE's SGEs, copied before use: the transport cannot sleep to allocate. */
	qp->rx_sge = kcalloc(max(qp->max_recv_sge, 1U), sizeof(*qp->rx_sge), GFP_KERNEL);
	if (!qp->rx_sge) {
		ret = -ENOMEM;
		goto err_rq;
	}
	cap->max_send_wr = sq_num;
	cap->max_recv_wr = srq ? 0 : rq_num;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;
	return 0;

err_rq:
	kfree(qp->rx_sge);
	kvfree(qp->swqe);
	kvfree(qp->sq_data);
	metaroce_queue_free(&qp->rq);
err_sq:
	metaroce_queue_free(&qp->sq);
	return ret;
}

static void metaroce_qp_free_queues(struct metaroce_qp *qp)
{
	kfree(qp->rx_sge);
	kvfree(qp->swqe);
	kvfree(qp->sq_data);
	metaroce_queue_free(&qp->rq);
	metaroce_queue_free(&qp->sq);
}

int metaroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		       struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibqp->device);
	struct metaroce_qp *qp = to_mqp(ibqp);
	struct metaroce_create_qp_resp resp = {};
	u32 qpn;
	int ret;

	/* An SRQ serves RC QPs only. */
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC &&
	    init->qp_type != IB_QPT_UD && init->qp_type != IB_QPT_GSI)
		return -EOPNOTSUPP;
	if (init->qp_type == IB_QPT_GSI && (udata || init->port_num != METAROCE_PORT))
		return -EINVAL;
	if ((init->srq && init->qp_type != IB_QPT_RC) || init->create_flags)
		return -EOPNOTSUPP;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	ret = metaroce_qp_check_cap(&init->cap, init->srq);
	if (ret)
		return ret;
	/* Providers from before the dv fields know sq and rq only. */
	if (udata && udata->outlen < offsetofend(struct metaroce_create_qp_resp, rq))
		return -EINVAL;
	qp->mdev = mdev;
	qp->uid = atomic64_inc_return(&mdev->qp_uid_seq);
	ret = metaroce_qp_dv_init(qp, init, udata);
	if (ret)
		return ret;

	if (atomic_inc_return(&mdev->num_qp) > METAROCE_MAX_QP) {
		ret = -ENOMEM;
		goto err_count;
	}

	qp->user = !!udata;
	mutex_init(&qp->mutex);
	spin_lock_init(&qp->sq_post_lock);
	spin_lock_init(&qp->rq_post_lock);
	qp->state = IB_QPS_RESET;
	qp->sport_base = get_random_u32() % METAROCE_SPORT_SPAN;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;

	ret = metaroce_qp_alloc_queues(qp, &init->cap, init->srq);
	if (ret)
		goto err_count;
	qp->attr.cap = init->cap;
	if (init->srq) {
		ret = metaroce_srq_qp_attach(qp, init->srq);
		if (ret)
			goto err_queues;
	}
	ret = metaroce_qp_dv_alloc(qp);
	if (ret)
		goto err_queues;

	if (udata) {
		struct metaroce_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct metaroce_ucontext, ibuc);

		ret = metaroce_queue_export(&qp->sq, &uctx->ibuc, &resp.sq);
		/* With an SRQ resp.rq stays zero: num_entries 0. */
		if (!ret && !init->srq)
			ret = metaroce_queue_export(&qp->rq, &uctx->ibuc, &resp.rq);
		if (!ret && init->qp_type == IB_QPT_RC) {
			resp.comp_mask = METAROCE_CREATE_QP_RESP_PATHS;
			resp.num_paths = qp->n_paths;
			resp.num_streams = qp->n_streams;
			/* Only for a provider that has room for it in its response. */
			if (udata->outlen >= offsetofend(typeof(resp), stats)) {
				ret = metaroce_qp_stats_export(qp, &uctx->ibuc, &resp.stats);
				resp.comp_mask |= METAROCE_CREATE_QP_RESP_STATS;
			}
		}
		if (!ret)
			ret = ib_copy_to_udata(udata, &resp,
					       min_t(size_t, udata->outlen, sizeof(resp)));
		if (ret)
			goto err_queues;
	}

	metaroce_qp_transport_init(qp);

	/* 0 and 1 are the special QPs; the wire carries 24 bits. */
	if (init->qp_type == IB_QPT_GSI) {
		qpn = 1;
		ret = xa_insert(&mdev->qp_xa, qpn, qp, GFP_KERNEL);
	} else {
		ret = xa_alloc_cyclic(&mdev->qp_xa, &qpn, qp, XA_LIMIT(2, MR_QPN_MASK),
				      &mdev->qp_next, GFP_KERNEL);
	}
	if (ret < 0)
		goto err_queues;
	ibqp->qp_num = qpn;
	return 0;

err_queues:
	metaroce_qp_dv_free(qp);
	metaroce_srq_qp_detach(qp);
	metaroce_qp_free_queues(qp);
err_count:
	atomic_dec(&mdev->num_qp);
	return ret;
}

/* The routes the datapath kept for the old destination (transport paused or stopped). */
static void metaroce_qp_release_routes(struct metaroce_qp *qp)
{
	u8 i;

	for (i = 0; qp->routes && i < qp->n_paths; i++) {
		metaroce_dp_route_release(&qp->routes[i]);
		qp->routes[i].mtu = 0;
	}
}

int metaroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct metaroce_dev *mdev = to_mdev(ibqp->device);
	struct metaroce_qp *qp = to_mqp(ibqp);

	mutex_lock(&mdev->qps_lock);
	xa_erase(&mdev->qp_xa, ibqp->qp_num);
	mutex_unlock(&mdev->qps_lock);
	metaroce_qp_transport_stop(qp);
	metaroce_srq_qp_detach(qp);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	metaroce_qp_release_routes(qp);
	kfree(qp->routes);
	kfree(qp->fatal_nak);
	kvfree(qp->conn);
	qp->conn = NULL;
	metaroce_qp_dv_free(qp);
	metaroce_qp_free_queues(qp);
	mutex_destroy(&qp->mutex);
	atomic_dec(&mdev->num_qp);
	return 0;
}

static int metaroce_qp_set_av(struct metaroce_qp *qp, const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid;
	int ifindex;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	sgid = grh->sgid_attr;
	if (!sgid || sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	if (ipv6_addr_v4mapped((const struct in6_addr *)sgid->gid.raw) !=
	    ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw))
		return -EAFNOSUPPORT;
	ifindex = metaroce_gid_ifindex(sgid);
	if (ifindex < 0)
		return ifindex;

	metaroce_qp_release_routes(qp);
	memset(&qp->dest, 0, sizeof(qp->dest));
	memcpy(&qp->dest.saddr, sgid->gid.raw, sizeof(qp->dest.saddr));
	memcpy(&qp->dest.daddr, grh->dgid.raw, sizeof(qp->dest.daddr));
	qp->dest.tos = grh->traffic_class & ~INET_ECN_MASK;
	qp->dest.hop_limit = grh->hop_limit;
	qp->dest.flow_label = cpu_to_be32(grh->flow_label) & IPV6_FLOWLABEL_MASK;
	qp->dest.ifindex = ifindex;
	return 0;
}

/* RESET -> INIT and INIT -> INIT: the attributes the transport does not hold. */
static int metaroce_qp_set_attrs(struct metaroce_qp *qp, struct ib_qp_attr *attr,
				 int mask)
{
	int ret;

	if ((mask & IB_QP_PORT) && attr->port_num != METAROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096 ||
	     ib_mtu_enum_to_int(attr->path_mtu) > MR_MAX_PAYLOAD))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > METAROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > METAROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && (attr->dest_qp_num & ~MR_QPN_MASK))
		return -EINVAL;
	if (mask & IB_QP_AV) {
		ret = metaroce_qp_set_av(qp, &attr->ah_attr);
		if (ret)
			return ret;
		rdma_replace_ah_attr(&qp->attr.ah_attr, &attr->ah_attr);
	}

	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_PATH_MTU)
		qp->attr.path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->attr.rq_psn = attr->rq_psn & 0xffffff;
	if (mask & IB_QP_SQ_PSN)
		qp->attr.sq_psn = attr->sq_psn & 0xffffff;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	return 0;
}

/* To RESET: forget the connection and everything posted. */
static int metaroce_qp_reset(struct metaroce_qp *qp)
{
	kvfree(qp->conn);
	qp->conn = NULL;
	metaroce_rxq_purge(qp);
	if (!qp->user) {
		qp->sq.ring->cons = qp->sq.ring->prod;
		if (!qp->srq)
			qp->rq.ring->cons = qp->rq.ring->prod;
	}
	qp->sq_copy = READ_ONCE(qp->sq.ring->prod);
	qp->sq_done = qp->sq_copy;
	qp->rq_done = qp->srq ? 0 : READ_ONCE(qp->rq.ring->prod);
	qp->rq_base = qp->rq_done;
	if (qp->rq_early)
		bitmap_zero(qp->rq_early, qp->rq.num);
	metaroce_srq_qp_reset(qp);
	qp->sq_error = false;
	qp->flushing = false;
	WRITE_ONCE(qp->has_fatal_nak, false);
	kfree(qp->fatal_nak);
	qp->fatal_nak = NULL;
	return 0;
}

static u8 metaroce_qp_max_rd_atomic(const struct metaroce_qp *qp)
{
	return clamp_t(u8, max(qp->attr.max_rd_atomic, qp->attr.max_dest_rd_atomic),
		       1, METAROCE_MAX_RD_ATOMIC);
}

/* The largest segment the netdev carries, told to the peer in our ACKs; 0 if none. */
static u32 metaroce_qp_rx_segment(u32 payload)
{
	u32 seg = min_t(u32, round_down(payload, MR_SEG_UNIT), MR_SEG_MAX);

	return seg >= MR_SEG_MIN ? seg : 0;
}

/*
 * The payload of our packets (spec, "Segments"): a path MTU that is the largest IB MTU
 * the outgoing netdev allows means "what the link carries", so the segment grows to
 * the netdev's (1376 bytes instead of 1024 on a 1500-byte link); a smaller path MTU
 * was asked for and is kept.
 */
static u32 metaroce_qp_segment(u32 mtu, u32 payload)
{
	if (ib_mtu_int_to_enum(payload) != ib_mtu_int_to_enum(mtu))
		return mtu;
	return max(mtu, metaroce_qp_rx_segment(payload));
}

/*
 * The payload that @payload (the outgoing netdev's) leaves on the routes of the QP's
 * paths: a router that reported a smaller MTU made the stack keep it with the route
 * (spec, "Segments"). Routes not used yet say nothing.
 */
static u32 metaroce_qp_route_payload(const struct metaroce_qp *qp, u32 payload)
{
	unsigned int mtu;
	u8 i;

	for (i = 0; qp->routes && i < qp->n_paths; i++) {
		mtu = READ_ONCE(qp->routes[i].mtu);
		if (mtu)
			payload = min(payload, metaroce_mtu_payload(mtu));
	}
	return payload;
}

/*
 * Some netdev's or route's MTU changed since the segments were chosen: choose them
 * again, for the messages started from now on (spec, "Segments"): what we send from
 * the smallest of the outgoing netdev's and our routes', what we take from the
 * netdev's. Called by the transport, which owns the connection and its routes.
 */
void metaroce_qp_follow_mtu(struct metaroce_qp *qp)
{
	unsigned int gen = atomic_read(&metaroce_mtu_gen);
	u32 payload;

	if (likely(gen == qp->mtu_gen))
		return;
	qp->mtu_gen = gen;
	payload = metaroce_out_payload_mtu(qp->mdev, qp->dest.ifindex);
	mr_conn_set_seg(qp->conn,
			metaroce_qp_segment(qp->conn->cfg.mtu,
					    metaroce_qp_route_payload(qp, payload)),
			metaroce_qp_rx_segment(payload));
}

/* INIT -> RTR: the receive side of the connection. */
static int metaroce_qp_to_rtr(struct metaroce_qp *qp)
{
	struct mr_conn_cfg cfg = {};
	struct mr_conn *c;
	u32 mtu, payload;
	int ret;

	mtu = ib_mtu_enum_to_int(qp->attr.path_mtu ? qp->attr.path_mtu : IB_MTU_1024);
	/* Read before the MTU: a change after it makes the transport choose again. */
	qp->mtu_gen = atomic_read(&metaroce_mtu_gen);
	payload = metaroce_out_payload_mtu(qp->mdev, qp->dest.ifindex);
	if (mtu > payload)
		return -EINVAL;

	cfg.peer_qpn = qp->attr.dest_qp_num;
	cfg.local_qpn = qp->ibqp.qp_num;
	/* sq_psn comes at RTS; a response before it starts from a derived PSN. */
	cfg.tx_deferred = true;
	cfg.local_ctok = mr_ctok_derive(qp->ibqp.qp_num, qp->attr.dest_qp_num,
					qp->attr.rq_psn);
	cfg.rx_isn = qp->attr.rq_psn;
	cfg.mtu = mtu;
	cfg.seg = metaroce_qp_segment(mtu, payload);
	cfg.rx_seg = metaroce_qp_rx_segment(payload);
	cfg.n_paths = qp->n_paths;
	cfg.peer_paths = MR_MAX_PATHS;
	/* Both sides must have been created with the same M (spec). */
	cfg.n_streams = qp->n_streams;
	cfg.uc = qp->ibqp.qp_type == IB_QPT_UC;
	cfg.retry_cnt = 7;
	cfg.rnr_retry = 7;
	cfg.max_rd_atomic = metaroce_qp_max_rd_atomic(qp);
	cfg.on_event = metaroce_conn_event;
	cfg.event_arg = qp;

	if (!qp->routes) {
		qp->routes = kcalloc(qp->n_paths, sizeof(*qp->routes), GFP_KERNEL);
		if (!qp->routes)
			return -ENOMEM;
	}
	c = kvzalloc(mr_conn_size(cfg.n_streams), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = mr_conn_init(c, &cfg);
	if (ret) {
		kvfree(c);
		return ret;
	}
	kvfree(qp->conn);
	qp->conn = c;
	/* RMSN 0 is the first receive WQE not yet consumed. */
	qp->rq_base = qp->rq_done;
	return 0;
}

/*
 * The adaptive RTO retransmits long before the verbs local ACK timeout
 * (4.096 us x 2^timeout) would, but the connection fails no sooner than
 * verbs lets it: retry_cnt + 1 such timeouts without progress. timeout 0
 * ("infinite" in verbs) leaves the failure to the retry count alone.
 */
static u64 metaroce_qp_fail_time(const struct metaroce_qp *qp)
{
	u8 t = min_t(u8, qp->attr.timeout, 31);

	return t ? (qp->attr.retry_cnt + 1ULL) * (4096ULL << t) : 0;
}

/* RTR -> RTS: the send side. */
static void metaroce_qp_to_rts(struct metaroce_qp *qp)
{
	u32 ctok = mr_ctok_derive(qp->attr.dest_qp_num, qp->ibqp.qp_num,
				  qp->attr.sq_psn);

	mr_conn_start_tx(qp->conn, qp->attr.sq_psn, ctok, qp->attr.retry_cnt,
			 qp->attr.rnr_retry, metaroce_qp_max_rd_atomic(qp));
	mr_conn_set_fail_time(qp->conn, metaroce_qp_fail_time(qp));
}

int metaroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_udata *udata)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	enum ib_qp_state cur, new;
	int ret = 0;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	metaroce_qp_pause(qp);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (cur != qp->state ||
	    !ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		ret = -EINVAL;
		goto out;
	}
	if (new == IB_QPS_SQD || new == IB_QPS_SQE) {
		ret = -EOPNOTSUPP;
		goto out;
	}

	ret = metaroce_qp_set_attrs(qp, attr, mask);
	if (ret)
		goto out;

	if (new != cur) {
		/* Leaving RTR or RTS: the peer may still need our last ACK. */
		if (new == IB_QPS_RESET || new == IB_QPS_ERR)
			metaroce_linger_add(qp);
		switch (new) {
		case IB_QPS_RESET:
			ret = metaroce_qp_reset(qp);
			break;
		case IB_QPS_RTR:
			/* A datagram QP has no connection. */
			if (metaroce_qp_connected(qp))
				ret = metaroce_qp_to_rtr(qp);
			break;
		case IB_QPS_RTS:
			if (cur == IB_QPS_RTR && metaroce_qp_connected(qp))
				metaroce_qp_to_rts(qp);
			break;
		default:
			break;
		}
		if (ret)
			goto out;
		WRITE_ONCE(qp->state, new);
		qp->attr.qp_state = new;
	}
out:
	metaroce_qp_resume(qp);
	mutex_unlock(&qp->mutex);
	/* ERR flushes, RTS may send what was posted in INIT or RTR. */
	if (!ret && (mask & IB_QP_STATE))
		metaroce_qp_kick(qp);
	return ret;
}

int metaroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_qp_init_attr *init)
{
	struct metaroce_qp *qp = to_mqp(ibqp);

	mutex_lock(&qp->mutex);
	metaroce_qp_pause(qp);
	*attr = qp->attr;
	/* ib_query_qp() callers take no reference on the source GID. */
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->port_num = METAROCE_PORT;
	metaroce_qp_resume(qp);
	mutex_unlock(&qp->mutex);

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->srq = ibqp->srq;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* Kernel consumers: one ib_send_wr into the send ring. */
static int metaroce_build_send_wqe(struct metaroce_qp *qp, const struct ib_send_wr *wr,
				   struct metaroce_send_wqe *wqe)
{
	struct metaroce_sge *sge = (void *)(wqe + 1);
	u32 flags = 0;
	int i;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= METAROCE_SEND_FENCE;
	if (wr->send_flags & IB_SEND_SIGNALED)
		flags |= METAROCE_SEND_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= METAROCE_SEND_SOLICITED;

	/* UC: SEND, WRITE (with immediate) and local operations only (IBTA). */
	if (qp->ibqp.qp_type == IB_QPT_UC &&
	    (wr->opcode == IB_WR_RDMA_READ || wr->opcode == IB_WR_SEND_WITH_INV ||
	     wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	     wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD))
		return -EINVAL;
	if (!metaroce_qp_connected(qp)) {
		const struct ib_ud_wr *ud = ud_wr(wr);
		u64 ah = (uintptr_t)ud->ah;

		if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
			return -EINVAL;
		if (!ud->ah)
			return -EINVAL;
		wqe->wr.ud.remote_qpn = ud->remote_qpn;
		wqe->wr.ud.remote_qkey = ud->remote_qkey;
		/* Kernel rings only: the AH is named by pointer, see metaroce.h. */
		memcpy(wqe->reserved, &ah, sizeof(ah));
	}

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		break;
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->imm_inv = (__force u32)wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
		wqe->imm_inv = wr->ex.invalidate_rkey;
		break;
	case IB_WR_LOCAL_INV:
		wqe->imm_inv = wr->ex.invalidate_rkey;
		wqe->opcode = wr->opcode;
		wqe->send_flags = flags;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		/* Kernel rings only: the MR pointer never reaches a process. */
		wqe->opcode = METAROCE_WR_REG_MR;
		wqe->send_flags = flags;
		wqe->wr.atomic.remote_addr = (uintptr_t)reg_wr(wr)->mr;
		wqe->wr.atomic.rkey = reg_wr(wr)->key;
		wqe->wr.atomic.compare_add = reg_wr(wr)->access;
		return 0;
	default:
		return -EINVAL;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE || wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_READ) {
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
	}
	wqe->opcode = wr->opcode;

	if (wr->num_sge < 0)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && wr->opcode != IB_WR_RDMA_READ &&
	    wr->opcode != IB_WR_ATOMIC_CMP_AND_SWP &&
	    wr->opcode != IB_WR_ATOMIC_FETCH_AND_ADD) {
		u8 *p = (u8 *)(wqe + 1);
		u32 len = 0;

		for (i = 0; i < wr->num_sge; i++) {
			u32 n = wr->sg_list[i].length;

			if (n > qp->max_inline - len)
				return -EINVAL;
			/* virt DMA: kernel SGEs hold kernel addresses */
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr, n);
			len += n;
		}
		flags |= METAROCE_SEND_INLINE;
		wqe->inline_len = len;
	} else {
		if (wr->num_sge > qp->max_send_sge)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		wqe->num_sge = wr->num_sge;
	}
	wqe->send_flags = flags;
	return 0;
}

int metaroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	unsigned long flags;
	int ret = 0;
	u32 prod;

	/* A user QP's doorbell: the process filled the ring. */
	if (qp->user) {
		metaroce_qp_doorbell(qp);
		return 0;
	}

	if (READ_ONCE(qp->state) < IB_QPS_RTS && READ_ONCE(qp->state) != IB_QPS_ERR) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->sq_post_lock, flags);
	prod = qp->sq.ring->prod;
	for (; wr; wr = wr->next) {
		if (prod - metaroce_queue_cons_acquire(&qp->sq) >= qp->sq.num) {
			ret = -ENOMEM;
			break;
		}
		ret = metaroce_build_send_wqe(qp, wr, metaroce_queue_entry(&qp->sq, prod));
		if (ret)
			break;
		prod++;
		metaroce_queue_prod_release(&qp->sq, prod);
	}
	spin_unlock_irqrestore(&qp->sq_post_lock, flags);
	if (ret)
		*bad_wr = wr;
	metaroce_qp_kick(qp);
	return ret;
}

int metaroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct metaroce_qp *qp = to_mqp(ibqp);
	unsigned long flags;
	int ret;

	if (qp->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/* Receives go to the SRQ. */
	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq_post_lock, flags);
	ret = metaroce_queue_post_recv(&qp->rq, qp->max_recv_sge, wr, bad_wr);
	spin_unlock_irqrestore(&qp->rq_post_lock, flags);
	/* A receive may be what a message waits for (RNR), or to be flushed. */
	metaroce_qp_kick(qp);
	return ret;
}
