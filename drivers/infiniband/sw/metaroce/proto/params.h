/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protocol constants. Each is named in Documentation/infiniband/metaroce.rst; change them
 * there first.
 */
#ifndef _METAROCE_PROTO_PARAMS_H
#define _METAROCE_PROTO_PARAMS_H

#define MR_NSEC_PER_USEC	1000ULL
#define MR_NSEC_PER_MSEC	1000000ULL

/* ACK generation */
#define MR_ACK_EVERY		4
#define MR_ACK_DELAY_NS		(8 * MR_NSEC_PER_USEC)

/* Loss detection */
#define MR_REO_PATH_DUP		3	/* later packets acked on the same path => loss */
#define MR_REO_PATH_DUP_MAX	64
#define MR_REO_MULT_MAX		4	/* reorder window scaling after spurious retransmits */
#define MR_REO_CALM_PKTS	1024	/* packets acked without a spurious retransmit to relax */
#define MR_REO_MIN_NS		(2 * MR_NSEC_PER_USEC)
#define MR_TLP_MIN_NS		(10 * MR_NSEC_PER_USEC)
#define MR_TLP_MAX		2
#define MR_RTO_MIN_NS		(100 * MR_NSEC_PER_USEC)
#define MR_RTO_MAX_NS		(64 * MR_NSEC_PER_MSEC)
#define MR_RTO_INIT_NS		(1 * MR_NSEC_PER_MSEC)
#define MR_RTO_SPURIOUS_MAX	4	/* RTO floor shift after spurious timeouts */
#define MR_RTO_CALM_PKTS	4096	/* packets acked without one to lower it */
#define MR_RTO_COPIES		4	/* the oldest packet, on this many paths after an RTO */
/* Without a loss for this long, a host may take timeouts late (spec, "Timer precision"). */
#define MR_LOSS_QUIET_NS	(100 * MR_NSEC_PER_MSEC)
/* A closed connection's receive direction answers retransmissions this long. */
#define MR_LINGER_NS		(2000 * MR_NSEC_PER_MSEC)
/* UC receiver: a hole older than this is lost (its packet is never resent). */
#define MR_UC_HOLE_NS		(8 * MR_NSEC_PER_MSEC)
/* An ICMP black-hole verdict lasts as long as a learnt route MTU (spec, "Segments"). */
#define MR_BLACKHOLE_HOLD_NS	(600000 * MR_NSEC_PER_MSEC)

/* Congestion control; windows and fractions are fixed point with MR_FP_SHIFT bits */
#define MR_FP_SHIFT		10
#define MR_FP_ONE		BIT(MR_FP_SHIFT)
#define MR_CWND_INIT		16
#define MR_CWND_MIN		1
#define MR_CWND_MAX		MR_SACK_BITS
#define MR_PACE_BURST		64	/* packets a late sender may send back to back */
#define MR_PACE_GAIN		2	/* pacing rate over the window rate */
#define MR_ALPHA_G_SHIFT	4	/* alpha gain 1/16 */
#define MR_LOSS_BETA_SHIFT	3	/* a congestive loss episode cuts cwnd by 1/8 */
#define MR_CC_QDELAY_MIN_NS	(4 * MR_NSEC_PER_USEC)	/* RTT above min by this: queueing */

/* Path health */
#define MR_PATH_W_MAX		1024
#define MR_PATH_W_MIN		16
#define MR_PATH_W_UP		256	/* weight of a path that comes back */
#define MR_PATH_W_INC		16
#define MR_PATH_CE_SHIFT	3	/* per-path CE EWMA gain 1/8 */
#define MR_PATH_FAIL_LOSSES	4
#define MR_PATH_FAIL_RATIO	4	/* ... and a loss rate this many times the others' */
#define MR_PATH_LOSS_SHIFT	4	/* per-path loss rate EWMA gain 1/16 */
#define MR_PATH_SLOW_FACTOR	3	/* srtt above this many times the fastest: shed load */
#define MR_PATH_PROBE_NS	(1 * MR_NSEC_PER_MSEC)
#define MR_PATH_PROBE_MAX_NS	(64 * MR_NSEC_PER_MSEC)
#define MR_PATH_PROBE_GAP	64	/* packets sent between two probes, at least */

#endif /* _METAROCE_PROTO_PARAMS_H */
