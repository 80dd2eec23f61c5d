/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receiver's fair share: one per device (per receiving link). Connections that
 * deliver data mark themselves active; the share of each is the link rate divided by
 * the number of connections active over the last one to two windows. The result is the
 * rate hint every ACK carries (Documentation/infiniband/metaroce.rst, "Receiver rate
 * hint"). O(1) per packet, no list of connections.
 */
#ifndef _METAROCE_PROTO_SHARE_H
#define _METAROCE_PROTO_SHARE_H

#include "platform.h"

#define MR_SHARE_WINDOW_NS	(100 * 1000ULL)	/* "active": data within ~100 us */

struct mr_share {
	u32	link_mbps;	/* 0: no hints */
	u32	epoch;		/* current window number, never 0 */
	u64	epoch_start_ns;
	u32	cur;		/* connections active in the current window */
	u32	prev;		/* ... in the previous one */
};

void mr_share_init(struct mr_share *s, u32 link_mbps, u64 now);
/* A connection delivered data; *conn_epoch is the connection's own marker, 0 at first. */
void mr_share_touch(struct mr_share *s, u32 *conn_epoch, u64 now);
/* Mbit/s each active sender may use; 0 if the link rate is unknown. */
u32 mr_share_hint(struct mr_share *s, u64 now);

#endif /* _METAROCE_PROTO_SHARE_H */
