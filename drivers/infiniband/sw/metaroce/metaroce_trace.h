/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE tracepoints: loss, retransmission and path changes of RC connections, and
 * each run of a connected QP's transport (where a transfer's time goes).
 *
 *   echo 1 > /sys/kernel/tracing/events/metaroce/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM metaroce

#if !defined(_METAROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _METAROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "proto/conn.h"
#include "proto/params.h"

#define metaroce_show_cause(c)					\
	__print_symbolic(c,					\
			 { MR_LOSS_ACK, "ack" },		\
			 { MR_LOSS_NAK, "rnr" },		\
			 { MR_LOSS_RTO, "timeout" },		\
			 { MR_LOSS_PROBE, "probe" },		\
			 { MR_RETX_PROBE, "probe" })

DECLARE_EVENT_CLASS(metaroce_pkt_class,
		    TP_PROTO(const struct ib_qp *ibqp, u32 psn, u8 path, u8 cause),
		    TP_ARGS(ibqp, psn, path, cause),
		    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
				     __field(u32, qpn)
				     __field(u32, psn)
				     __field(u8, path)
				     __field(u8, cause)),
		    TP_fast_assign(strscpy(__entry->dev, dev_name(&ibqp->device->dev),
					   IB_DEVICE_NAME_MAX);
				   __entry->qpn = ibqp->qp_num;
				   __entry->psn = psn;
				   __entry->path = path;
				   __entry->cause = cause;),
		    TP_printk("dev=%s qpn=%u psn=%u path=%u cause=%s", __entry->dev,
			      __entry->qpn, __entry->psn, __entry->path,
			      metaroce_show_cause(__entry->cause))
);

/* A packet was declared lost (cause: what declared it). */
DEFINE_EVENT(metaroce_pkt_class, metaroce_loss,
	     TP_PROTO(const struct ib_qp *ibqp, u32 psn, u8 path, u8 cause),
	     TP_ARGS(ibqp, psn, path, cause));

/* A packet was sent again on path (cause: why it had been lost, or a tail probe). */
DEFINE_EVENT(metaroce_pkt_class, metaroce_retransmit,
	     TP_PROTO(const struct ib_qp *ibqp, u32 psn, u8 path, u8 cause),
	     TP_ARGS(ibqp, psn, path, cause));

/* A path of a connection went out of service or came back. */
TRACE_EVENT(metaroce_path_change,
	    TP_PROTO(const struct ib_qp *ibqp, u8 path, bool up),
	    TP_ARGS(ibqp, path, up),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u8, path)
			     __field(bool, up)),
	    TP_fast_assign(strscpy(__entry->dev, dev_name(&ibqp->device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->qpn = ibqp->qp_num;
			   __entry->path = path;
			   __entry->up = up;),
	    TP_printk("dev=%s qpn=%u path=%u %s", __entry->dev, __entry->qpn,
		      __entry->path, __entry->up ? "up" : "down")
);

/*
 * One run of a connected QP's transport: rx packets read from its receive queue, tx
 * packets sent (ACKs included), rxq packets still queued after the run, and the
 * connection's window as the run left it.
 */
TRACE_EVENT(metaroce_qp_run,
	    TP_PROTO(const struct ib_qp *ibqp, u32 rx, u32 tx, u32 rxq, const struct mr_conn *c),
	    TP_ARGS(ibqp, rx, tx, rxq, c),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __field(u32, qpn)
			     __field(u32, rx)
			     __field(u32, tx)
			     __field(u32, rxq)
			     __field(u32, in_flight)
			     __field(u32, cwnd)
			     __field(u64, srtt_ns)),
	    TP_fast_assign(strscpy(__entry->dev, dev_name(&ibqp->device->dev),
				   IB_DEVICE_NAME_MAX);
			   __entry->qpn = ibqp->qp_num;
			   __entry->rx = rx;
			   __entry->tx = tx;
			   __entry->rxq = rxq;
			   __entry->in_flight = c->tx.in_flight;
			   __entry->cwnd = c->cc.cwnd >> MR_FP_SHIFT;
			   __entry->srtt_ns = c->paths.conn.srtt;),
	    TP_printk("dev=%s qpn=%u rx=%u tx=%u rxq=%u in_flight=%u cwnd=%u srtt_us=%llu",
		      __entry->dev, __entry->qpn, __entry->rx, __entry->tx, __entry->rxq,
		      __entry->in_flight, __entry->cwnd, __entry->srtt_ns / 1000)
);

#endif /* _METAROCE_TRACE_H */

/* Out of tree the header is not under include/trace/events: look for it here. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE metaroce_trace
#include <trace/define_trace.h>
