/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Serial-number arithmetic (RFC 1982) on 32-bit PSNs, MSNs and RMSNs, and on the 16-bit
 * ECN counters of the ACK. Values compared are always less than half the space apart:
 * at most MR_SACK_BITS packets are in flight.
 */
#ifndef _METAROCE_PROTO_SEQ_H
#define _METAROCE_PROTO_SEQ_H

#include "platform.h"

/* a comes before b */
static inline bool mr_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/* a comes after b */
static inline bool mr_seq_after(u32 a, u32 b)
{
	return (s32)(b - a) < 0;
}

/* lo <= x < lo + len, modulo 2^32 */
static inline bool mr_seq_in(u32 x, u32 lo, u32 len)
{
	return x - lo < len;
}

static inline u32 mr_seq_max(u32 a, u32 b)
{
	return mr_seq_after(a, b) ? a : b;
}

/* a comes after b, modulo 2^16 */
static inline bool mr_seq16_after(u16 a, u16 b)
{
	return (s16)(u16)(b - a) < 0;
}

#endif /* _METAROCE_PROTO_SEQ_H */
