/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: per-device counters, shown by "rdma statistic show".
 *
 * The transport increments them with metaroce_count() / metaroce_count_add();
 * the names are in counters.c and are part of the user interface: rename
 * nothing, append new counters at the end.
 */

#ifndef METAROCE_COUNTERS_H
#define METAROCE_COUNTERS_H

#include <linux/atomic.h>
#include <rdma/ib_verbs.h>

enum metaroce_counter {
	METAROCE_CNT_TX_PACKETS,	/* segments handed to the datapath */
	METAROCE_CNT_RX_PACKETS,	/* segments received and accepted */
	METAROCE_CNT_TX_BYTES,		/* payload bytes of those */
	METAROCE_CNT_RX_BYTES,
	METAROCE_CNT_RETRANS_FAST,	/* retransmissions triggered by SACK */
	METAROCE_CNT_RETRANS_TIMEOUT,	/* retransmissions after a timeout */
	METAROCE_CNT_SACK_TX,		/* SACKs sent */
	METAROCE_CNT_SACK_RX,		/* SACKs received */
	METAROCE_CNT_RX_DUPLICATE,	/* segments already received */
	METAROCE_CNT_RX_OUT_OF_WINDOW,	/* segments outside the receive window */
	METAROCE_CNT_ECN_MARKED_RX,	/* received with ECN CE */
	METAROCE_CNT_ECN_ECHOED_TX,	/* congestion echoes sent */
	METAROCE_CNT_PATH_CHANGES,	/* a connection moved off a path */
	METAROCE_CNT_RX_MALFORMED,	/* dropped: failed validation */
	METAROCE_CNT_RNR_NAK_TX,
	METAROCE_CNT_RNR_NAK_RX,
	/* The datapath: every segment it moves, whatever the transport makes of it. */
	METAROCE_CNT_DP_TX_PACKETS,	/* segments handed to the network */
	METAROCE_CNT_DP_TX_BYTES,	/* their UDP payload bytes */
	METAROCE_CNT_DP_TX_DROPPED,	/* refused: no route, no memory */
	METAROCE_CNT_DP_RX_PACKETS,	/* segments handed to the transport */
	METAROCE_CNT_DP_RX_BYTES,	/* their UDP payload bytes */
	/* Receive drops of the transport other than malformed packets. */
	METAROCE_CNT_RX_NO_CONN,	/* valid packet for no known connection */
	METAROCE_CNT_RX_NOMEM,		/* could not linearize, or QP queue full */
	METAROCE_CNT_RX_NO_WQE,		/* datagram without a receive WQE */
	METAROCE_CNT_RX_BAD_QKEY,	/* datagram with another Q_Key */
	/* Malformed packets by first failed check, in enum mr_perr order. */
	METAROCE_CNT_RX_ERR_SHORT,
	METAROCE_CNT_RX_ERR_ICRC,
	METAROCE_CNT_RX_ERR_VERSION,
	METAROCE_CNT_RX_ERR_OPCODE,
	METAROCE_CNT_RX_ERR_FLAGS,
	METAROCE_CNT_RX_ERR_QPN,
	METAROCE_CNT_RX_ERR_TRUNC,
	METAROCE_CNT_RX_ERR_LENGTH,
	METAROCE_CNT_RX_ERR_PAYLEN,
	METAROCE_CNT_RX_ERR_STREAM,
	METAROCE_CNT_RX_ERR_PATH,
	METAROCE_CNT_RX_ERR_PSN,
	METAROCE_CNT_RX_ERR_MSG,
	METAROCE_CNT_RX_ERR_ALIGN,
	METAROCE_CNT_RX_ERR_RSVD,
	METAROCE_CNT_RX_ERR_ACK,
	METAROCE_CNT_RX_ERR_NAK,
	/* Loss recovery detail (retrans_fast: found from ACKs; _timeout: after an RTO). */
	METAROCE_CNT_PKTS_LOST,		/* data packets declared lost */
	METAROCE_CNT_RETRANS_PROBE,	/* tail-loss probes */
	METAROCE_CNT_RETRANS_RNR,	/* resent after an RNR NAK */
	METAROCE_CNT_LINGER_ACK_TX,	/* ACKs of closed connections' records */
	METAROCE_CNT_NAK_TX,		/* NAKs that end the connection, sent */
	METAROCE_CNT_NAK_RX,		/* and received (RNR NAKs: rnr_nak_*) */
	METAROCE_CNT_DP_TX_FRAGMENTED,	/* above the MTU now: sent in IP fragments */
	METAROCE_CNT_PMTU_BLACKHOLES,	/* connections that found an ICMP black hole */
	METAROCE_CNT_MAX
};

struct metaroce_counters {
	atomic64_t val[METAROCE_CNT_MAX];
};

static inline void metaroce_count_add(struct metaroce_counters *c,
				      enum metaroce_counter idx, u64 n)
{
	atomic64_add(n, &c->val[idx]);
}

static inline void metaroce_count(struct metaroce_counters *c,
				  enum metaroce_counter idx)
{
	atomic64_inc(&c->val[idx]);
}

void metaroce_counters_init(struct metaroce_counters *c);
u64 metaroce_counter_read(const struct metaroce_counters *c,
			  enum metaroce_counter idx);
const char *metaroce_counter_name(enum metaroce_counter idx);
struct rdma_hw_stats *metaroce_alloc_hw_device_stats(struct ib_device *ibdev);
struct rdma_hw_stats *metaroce_alloc_hw_port_stats(struct ib_device *ibdev,
						   u32 port);
int metaroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			  u32 port, int index);

#endif /* METAROCE_COUNTERS_H */
