/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive window of one direction of a connection: cumulative ack point plus which of
 * the next MR_SACK_BITS PSNs have arrived. Bit i of bits[] is PSN cack + i; bit 0 is
 * always clear (cack is by definition missing).
 *
 * Checking and recording are separate so that a packet which fails a later check (rkey,
 * RNR) is not acknowledged: an acknowledged packet is placed, never reneged.
 */
#ifndef _METAROCE_PROTO_RXWIN_H
#define _METAROCE_PROTO_RXWIN_H

#include "platform.h"

enum mr_rx_verdict {
	MR_RX_NEW,	/* in the window and not seen: place and record it */
	MR_RX_DUP,	/* in the window, already received */
	MR_RX_STALE,	/* before cack: received long ago */
	MR_RX_BEYOND,	/* at or after cack + MR_SACK_BITS: a sender bug or a stale peer */
};

struct mr_rxwin {
	u32	cack;
	u64	bits[MR_SACK_WORDS];
};

void mr_rxwin_init(struct mr_rxwin *w, u32 first_psn);
enum mr_rx_verdict mr_rxwin_check(const struct mr_rxwin *w, u32 psn);
/* Record a PSN mr_rxwin_check() called new. Returns how far cack advanced. */
u32 mr_rxwin_record(struct mr_rxwin *w, u32 psn);
/* The SACK bitmap for an ACK, in the order of struct mr_pkt_ack.sack. */
void mr_rxwin_sack(const struct mr_rxwin *w, u64 sack[MR_SACK_WORDS]);
/*
 * Give up waiting for every PSN before @psn (UC: nothing is resent): cack moves to psn,
 * then past what was received there. Returns how many PSNs were skipped unreceived.
 */
u32 mr_rxwin_skip_to(struct mr_rxwin *w, u32 psn);
/* Give up the hole at cack: skip to the first PSN received beyond it (none: 0). */
u32 mr_rxwin_skip_hole(struct mr_rxwin *w);
/* Number of PSNs received beyond cack (out of order, waiting for a hole). */
unsigned int mr_rxwin_ooo(const struct mr_rxwin *w);

#endif /* _METAROCE_PROTO_RXWIN_H */
