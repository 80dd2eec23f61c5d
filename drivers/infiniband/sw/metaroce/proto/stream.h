/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Message completion and in-order delivery within one stream.
 *
 * Packets are placed on arrival in any order; a message is complete when all of its
 * bytes are in, and is delivered (receiver: receive completion, READ/atomic execution;
 * sender: send completion) only after every earlier message of its stream. Streams are
 * independent of one another.
 *
 * The same tracker serves both ends: the receiver counts placed bytes, the sender counts
 * acknowledged bytes. At most MR_SACK_BITS packets, hence messages, are in flight, so a
 * message beyond next + MR_STREAM_WIN cannot be legitimate.
 */
#ifndef _METAROCE_PROTO_STREAM_H
#define _METAROCE_PROTO_STREAM_H

#include "platform.h"

#define MR_STREAM_WIN	MR_SACK_BITS

struct mr_msg_slot {
	u32	mlen;
	u32	got;		/* bytes counted so far */
	bool	used;
	bool	done;		/* all bytes in (a zero-length message: its one packet) */
};

struct mr_stream {
	u32	next;		/* MSN of the next message to deliver */
	u32	pending;	/* messages in slots, complete or not */
	struct mr_msg_slot slot[MR_STREAM_WIN];	/* indexed by MSN % MR_STREAM_WIN */
};

void mr_stream_init(struct mr_stream *s, u32 first_msn);
/*
 * Count len bytes of message msn of total length mlen. The caller de-duplicates packets
 * (by PSN) first, so every byte is counted once.
 * Returns 0; -ERANGE if msn is outside [next, next + MR_STREAM_WIN) (stale or beyond);
 * -EINVAL if mlen differs from earlier packets of the message or the bytes exceed it.
 */
int mr_stream_add(struct mr_stream *s, u32 msn, u32 mlen, u32 len);
/* The next message in order, if it is complete, without delivering it. */
bool mr_stream_peek(const struct mr_stream *s, u32 *msn);
/* Pop the next message in order if it is complete. */
bool mr_stream_deliver(struct mr_stream *s, u32 *msn, u32 *mlen);

#endif /* _METAROCE_PROTO_STREAM_H */
