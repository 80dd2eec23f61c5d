/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sender congestion control of one direction of a connection: AIMD on the fraction of
 * ECN-marked packets the receiver echoes (DCTCP-style alpha), a mild cut on a loss that
 * comes with congestion evidence (marks in the same window, or queueing on the lost
 * packet's path), a reset on RTO with slow start back to half the window, and a cap from
 * the receiver's fair-share rate hint. Fixed point, no floats.
 */
#ifndef _METAROCE_PROTO_CC_H
#define _METAROCE_PROTO_CC_H

#include "platform.h"
#include "path.h"

struct mr_cc {
	u32	cwnd;		/* packets << MR_FP_SHIFT */
	u32	alpha;		/* CE fraction, MR_FP_ONE = 1 */
	u32	mtu;		/* payload bytes per full packet */
	u32	rate_hint;	/* Mbit/s, 0 = none */
	u64	last_cut_ns;
	u64	last_alpha_ns;
	u16	ce_cnt;		/* receiver counters at the last accepted ACK */
	u16	rx_cnt;
	bool	have_cnt;
	bool	cut_once;	/* last_cut_ns is meaningful */
	/* window-sum of the counter deltas since the last alpha update */
	u32	acc_ce;
	u32	acc_rx;
	u64	last_ce_ns;	/* an ACK last reported new CE marks (once ce_seen) */
	bool	ce_seen;
	u32	ssthresh;	/* after an RTO: slow start up to here (<< MR_FP_SHIFT); 0 none */
	u32	cwnd_prior;	/* before the RTO episode: restored if it proves spurious */
	u32	ssthresh_prior;
	u64	stat_loss_cong;	/* congestive losses (at most one cut per srtt) */
	u64	stat_loss_random;	/* losses without congestion evidence: no cut */
};

void mr_cc_init(struct mr_cc *cc, u32 mtu);
/*
 * An ACK arrived: the receiver's running ECN counters and rate hint, and the number of
 * packets it newly acknowledged. srtt_ns is the connection's smoothed RTT (0: none yet).
 */
void mr_cc_on_ack(struct mr_cc *cc, u64 now, u64 srtt_ns, u16 ce_cnt, u16 rx_cnt,
		  u32 rate_hint, u32 newly_acked);
/*
 * A packet last sent at sent_ns on a path whose RTT estimates are now path (NULL: a
 * retired path, whose delay is no evidence) was declared lost; shared_ns is the smallest
 * smoothed RTT of the connection's up paths (0: none), shared_var_ns the connection's
 * RTT variation over all paths. Cuts cwnd only with congestion evidence: CE marks
 * reported at or after sent_ns, or a queue on that path beyond what all paths share,
 * in depth or in jitter; returns true if the loss counted as congestive.
 */
bool mr_cc_on_loss(struct mr_cc *cc, u64 now, u64 srtt_ns, u64 sent_ns,
		   const struct mr_rtt *path, u64 shared_ns, u64 shared_var_ns);
/* A retransmission timeout; first: the first of an episode (no progress since). */
void mr_cc_on_rto(struct mr_cc *cc, bool first);
/* The episode's timeouts were spurious: back to the window before them. */
void mr_cc_undo_rto(struct mr_cc *cc);
/* Packets that may be in flight now. */
u32 mr_cc_window(const struct mr_cc *cc, u64 srtt_ns);
/* Pacing gap after a packet of bytes on the wire, ns; 0 = send at line rate. */
u64 mr_cc_gap_ns(const struct mr_cc *cc, u64 srtt_ns, u32 bytes);

#endif /* _METAROCE_PROTO_CC_H */
