/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Send window of one direction of a connection: per-packet state for the (at most
 * MR_SACK_BITS) unacknowledged PSNs, ACK/SACK processing, loss detection under spraying
 * (same-path distance and RACK-style time with a path-skew reorder window), retransmit
 * selection, tail-loss probe and retransmission timeout.
 *
 * The caller owns congestion control and path choice; it tells the window which path a
 * packet went on and receives callbacks for packets acknowledged and declared lost.
 */
#ifndef _METAROCE_PROTO_TXWIN_H
#define _METAROCE_PROTO_TXWIN_H

#include "platform.h"
#include "pkt.h"
#include "seq.h"

/* Why a packet was declared lost: what its retransmission is counted as. */
enum mr_loss_cause {
	MR_LOSS_ACK = 0,	/* ACK-driven detection: same-path distance or reorder time */
	MR_LOSS_NAK,		/* the receiver refused it (RNR) */
	MR_LOSS_RTO,		/* retransmission timeout */
	MR_LOSS_PROBE,		/* a tail-loss probe's copy arrived first (an event only) */
};

enum mr_txp_state {
	MR_TXP_FREE = 0,
	MR_TXP_INFLIGHT,	/* sent, neither acknowledged nor declared lost */
	MR_TXP_LOST,		/* declared lost, waiting for retransmission */
	MR_TXP_ACKED,		/* acknowledged (cumulatively or selectively) */
};

struct mr_txpkt {
	u64	sent_ns;	/* last transmission */
	u32	path_seq;	/* position among the packets of its path, last transmission */
	u32	msn;
	u32	moff;		/* owner's bookkeeping: offset in the message */
	u16	msg;		/* owner's bookkeeping: send queue slot */
	u16	len;
	u8	path;
	u8	first_path;	/* path of the original transmission */
	u8	stream;
	u8	state;		/* enum mr_txp_state */
	u8	nretx;
	u8	lost_cause;	/* enum mr_loss_cause of the last loss (once nretx or LOST) */
	bool	lost_stalled;	/* that loss was a stalled sender's verdict (mr_txwin_detect) */
	bool	probed;		/* first resent while in flight: by a tail-loss probe */
};

struct mr_txwin {
	u32	una;		/* oldest unacknowledged PSN */
	u32	nxt;		/* next new PSN */
	u32	in_flight;	/* packets in MR_TXP_INFLIGHT */
	u32	nlost;		/* packets in MR_TXP_LOST */

	/* RACK: the most recently sent packet known delivered */
	u64	rack_xmit_ns;
	u64	rack_rtt_ns;
	u32	rack_psn;
	bool	rack_valid;

	u64	reo_deadline_ns;	/* 0: no reorder timer */
	/* Reordering tolerance, raised by spurious retransmissions, relaxed by calm. */
	u8	reo_dup;	/* same-path distance threshold */
	u8	reo_mult;	/* multiplier of the reorder window */
	u16	reo_calm;	/* packets acknowledged since the last spurious retransmission */
	u64	rto_base_ns;		/* last progress of una, first verdict on it, RTO, probe */
	u64	tlp_base_ns;		/* last send or useful ACK */
	u8	tlp_cnt;
	u8	backoff;
	u8	retries;	/* RTOs without progress */
	u8	rto_shift;	/* RTO x 2^rto_shift: raised by spurious timeouts */
	bool	rto_undo;	/* an RTO episode that an echo may still prove spurious */
	bool	rto_late;	/* the last RTO's packets may still prove it spurious */
	u16	rto_calm;	/* packets acknowledged since the last spurious timeout */
	u8	retry_limit;	/* verbs retry_cnt */
	u64	progress_ns;	/* last advance of una, or first send into an empty window */
	u64	fail_min_ns;	/* no failure sooner than this after progress_ns (0: none) */

	u32	path_seq[MR_MAX_PATHS];	/* packets sent per path */
	u32	path_hi[MR_MAX_PATHS];	/* 1 + highest path_seq acknowledged per path */

	/* statistics */
	u64	stat_retx;
	u64	stat_spurious;	/* retransmissions whose original was delivered */
	u64	stat_tlp;
	u64	stat_rto;
	u64	stat_spurious_rto;	/* timeouts after which originals were delivered */

	struct mr_txpkt pkt[MR_SACK_BITS];	/* indexed by PSN % MR_SACK_BITS */
};

/* Result of one ACK. */
struct mr_txack_res {
	u32	newly_acked;	/* packets */
	u32	newly_bytes;
	bool	una_advanced;
	bool	echo_acked;	/* the echoed PSN was acknowledged by this ACK */
	u16	echo_len;	/* ... its payload */
	bool	spurious_rto;	/* the last RTO was spurious: undo its window cut */
	bool	echo_rtt_valid;	/* the echoed packet gave an unambiguous RTT sample */
	u64	echo_rtt_ns;	/* minus the receiver's ack_delay */
	bool	probe_found_loss; /* the echo was a probe's copy: the original was lost */
	u8	probe_lost_path;  /* ... on this path */
	u32	probe_lost_psn;
};

typedef void (*mr_txpkt_fn)(void *arg, u32 psn, const struct mr_txpkt *p);

enum mr_tx_timer {
	MR_TMR_NONE,
	MR_TMR_REORDER,	/* run mr_txwin_detect() */
	MR_TMR_TLP,	/* retransmit *probe_psn with MR_F_AR */
	MR_TMR_RTO,	/* everything outstanding was declared lost */
	MR_TMR_FAILED,	/* retry limit exceeded: complete with IBV_WC_RETRY_EXC_ERR */
};

void mr_txwin_init(struct mr_txwin *w, u32 isn, u8 retry_limit);

static inline bool mr_txwin_can_send(const struct mr_txwin *w)
{
	return w->nxt - w->una < MR_SACK_BITS;
}

static inline u32 mr_txwin_outstanding(const struct mr_txwin *w)
{
	return w->nxt - w->una;
}

/* psn was sent and is not yet cumulatively acknowledged. */
static inline bool mr_txwin_holds(const struct mr_txwin *w, u32 psn)
{
	return mr_seq_in(psn, w->una, w->nxt - w->una);
}

static inline const struct mr_txpkt *mr_txwin_pkt(const struct mr_txwin *w, u32 psn)
{
	return &w->pkt[psn % MR_SACK_BITS];
}

/* Record a new packet; the caller has checked mr_txwin_can_send(). Returns its PSN. */
u32 mr_txwin_send(struct mr_txwin *w, u64 now, u8 path, u8 stream, u32 msn, u16 len);
/* Record a retransmission (of a lost packet, or a probe of an in-flight one). */
void mr_txwin_retransmit(struct mr_txwin *w, u64 now, u32 psn, u8 path);
/* Declare psn lost for a reason other than the loss rules (an RNR NAK); false if not in flight. */
bool mr_txwin_mark_lost(struct mr_txwin *w, u32 psn);
/* UC: packets declared lost leave the window unsent, as if acknowledged. Returns how many. */
u32 mr_txwin_forget_lost(struct mr_txwin *w);
/* Lowest PSN waiting for retransmission; false if none. */
bool mr_txwin_next_lost(const struct mr_txwin *w, u32 *psn);

/*
 * Apply an ACK or the cack of a NAK (ack->sack all zero). Returns 0, or -EINVAL without
 * changing anything if the ACK acknowledges a PSN that was never sent.
 */
int mr_txwin_ack(struct mr_txwin *w, u64 now, const struct mr_pkt_ack *ack,
		 mr_txpkt_fn acked, void *arg, struct mr_txack_res *res);

/*
 * Declare lost what the rules say is lost; re-arms the reorder deadline. stalled: the
 * caller will send no new packet until holes are repaired (nothing posted is left unsent,
 * or the window is full), which shortens the same-path distance.
 */
u32 mr_txwin_detect(struct mr_txwin *w, u64 now, u64 reo_wnd_ns, bool stalled,
		    mr_txpkt_fn lost, void *arg);

/* pto_ns of a window that must not probe (no RTT sample yet): the RTO covers it. */
#define MR_PTO_NONE	(U64_MAX / 4)

u64 mr_txwin_pto(u64 srtt_ns, u64 rttvar_ns);
u64 mr_txwin_rto(const struct mr_txwin *w, u64 srtt_ns, u64 rttvar_ns);
/* Earliest timer deadline, U64_MAX if nothing is outstanding. */
u64 mr_txwin_deadline(const struct mr_txwin *w, u64 pto_ns, u64 rto_ns);
/* Its timeouts only (tail probe, RTO), and its reorder timer only. */
u64 mr_txwin_timeout(const struct mr_txwin *w, u64 pto_ns, u64 rto_ns);
u64 mr_txwin_reo_deadline(const struct mr_txwin *w);
enum mr_tx_timer mr_txwin_timer(struct mr_txwin *w, u64 now, u64 pto_ns, u64 rto_ns,
				mr_txpkt_fn lost, void *arg, u32 *probe_psn);

#endif /* _METAROCE_PROTO_TXWIN_H */
