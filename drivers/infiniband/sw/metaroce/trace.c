// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE connection events (losses, retransmissions, path changes) as device
 * counters and tracepoints. The events are declared in metaroce_trace.h.
 */
#include "metaroce.h"

#define CREATE_TRACE_POINTS
#include "metaroce_trace.h"

static enum metaroce_counter metaroce_retx_counter(u8 cause)
{
	switch (cause) {
	case MR_LOSS_ACK:
		return METAROCE_CNT_RETRANS_FAST;
	case MR_LOSS_RTO:
		return METAROCE_CNT_RETRANS_TIMEOUT;
	case MR_LOSS_NAK:
		return METAROCE_CNT_RETRANS_RNR;
	default:
		return METAROCE_CNT_RETRANS_PROBE;
	}
}

/* mr_conn_cfg.on_event of RC QPs; runs in the QP's transport (BHs disabled). */
void metaroce_conn_event(void *arg, const struct mr_event *ev)
{
	struct metaroce_qp *qp = arg;
	struct metaroce_counters *cnt = &qp->mdev->counters;

	switch (ev->type) {
	case MR_EV_LOSS:
		metaroce_count(cnt, METAROCE_CNT_PKTS_LOST);
		trace_metaroce_loss(&qp->ibqp, ev->psn, ev->path, ev->cause);
		break;
	case MR_EV_RETX:
		metaroce_count(cnt, metaroce_retx_counter(ev->cause));
		trace_metaroce_retransmit(&qp->ibqp, ev->psn, ev->path, ev->cause);
		break;
	case MR_EV_PATH_DOWN:
	case MR_EV_PATH_UP:
		metaroce_count(cnt, METAROCE_CNT_PATH_CHANGES);
		trace_metaroce_path_change(&qp->ibqp, ev->path, ev->type == MR_EV_PATH_UP);
		break;
	case MR_EV_PMTU_BLACKHOLE:
		metaroce_count(cnt, METAROCE_CNT_PMTU_BLACKHOLES);
		break;
	}
}
