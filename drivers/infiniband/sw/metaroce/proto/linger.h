/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a receiver keeps of a closed connection (Documentation/infiniband/metaroce.rst,
 * "The last ACK"): verbs has no closing handshake, so the consumer of the last message
 * may destroy its QP before its ACK of that message arrives. If that ACK is lost, the
 * sender's retransmissions are answered from this record, for MR_LINGER_NS.
 */
#ifndef _METAROCE_PROTO_LINGER_H
#define _METAROCE_PROTO_LINGER_H

#include "conn.h"

struct mr_linger {
	struct mr_rxwin rx;	/* what had been received at the close */
	u32	peer_qpn;
	u32	ctok;		/* the token of the packets received */
	u16	ce_cnt;
	u16	rx_cnt;
	u8	n_paths;	/* ours, for the ACKs */
};

/*
 * Keep @c's receive direction in @l. False: nothing to keep (a UC connection, or no
 * data packet accepted).
 */
bool mr_conn_linger(const struct mr_conn *c, struct mr_linger *l);

/*
 * A packet that mr_pkt_decode() accepted, from the recorded peer, for a closed
 * connection: true if it is a data packet of the connection that had been received
 * before the close, with @ack the ACK to send on our @path.
 */
bool mr_linger_ack(const struct mr_linger *l, const struct mr_pkt *pkt, bool ce, u8 path,
		   struct mr_pkt *ack);

#endif /* _METAROCE_PROTO_LINGER_H */
