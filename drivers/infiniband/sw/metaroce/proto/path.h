/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-path health and path selection for one sending direction of a connection.
 *
 * Each path keeps its own RTT, ECN and loss record and a weight. New packets are spread
 * over paths that are up by smooth weighted round-robin; marks and losses lower a path's
 * weight so that load moves off it; repeated losses retire it when its loss rate is
 * clearly worse than the other paths' (loss they all share retires none); a retired path
 * is probed with backoff and comes back when a probe is acknowledged.
 */
#ifndef _METAROCE_PROTO_PATH_H
#define _METAROCE_PROTO_PATH_H

#include "platform.h"

/* RTT estimator (RFC 6298 gains), nanoseconds. srtt == 0: no sample yet. */
struct mr_rtt {
	u64	srtt;
	u64	rttvar;
	u64	min;
};

void mr_rtt_sample(struct mr_rtt *r, u64 rtt_ns);

struct mr_path {
	struct mr_rtt rtt;
	u32	ce_frac;	/* EWMA of echoed CE, MR_FP_ONE = always marked */
	u32	weight;		/* MR_PATH_W_MIN .. MR_PATH_W_MAX */
	s64	credit;		/* smooth weighted round-robin state */
	u64	losses;
	u64	probe_at_ns;	/* retired: when the next probe may go */
	u64	probe_ival_ns;
	u8	consec_losses;
	u16	lost_len;	/* largest payload lost on it since it was last up */
	u32	loss_rate;	/* EWMA of packet fates, MR_FP_ONE = every packet lost */
	bool	up;
	bool	probing;	/* retired, a probe is outstanding */
	/* For the host's per-path statistics; the core does not read them. */
	u64	stat_sent;	/* data packets sent on it, retransmissions included */
	u64	stat_retx;	/* retransmissions and probes sent on it */
	u64	stat_ce;	/* echoes of a CE mark */
};

/* A path went out of service (up false) or came back (up true). */
typedef void (*mr_path_change_fn)(void *arg, u8 path, bool up);

struct mr_paths {
	u8	n;
	u8	rr;		/* round-robin cursor when no path is up */
	u16	since_probe;	/* packets sent since the last probe, up to MR_PATH_PROBE_GAP */
	u16	seg;		/* segment of the message started last; U16_MAX: none yet */
	struct mr_rtt conn;	/* over all paths: drives RTO and PTO */
	struct mr_path p[MR_MAX_PATHS];
	u64	stat_retired;	/* paths taken out of service */
	u64	stat_revived;	/* paths back in service */
	mr_path_change_fn on_change;	/* optional, set after mr_paths_init() */
	void	*change_arg;
};

void mr_paths_init(struct mr_paths *ps, u8 n);

/* The segment of the message started last: a retired path need not prove more. */
static inline void mr_paths_set_seg(struct mr_paths *ps, u16 seg)
{
	ps->seg = seg;
}

/*
 * An ACK echoed a packet with len bytes of payload sent on path; rtt_ns 0 when the
 * sample is ambiguous.
 */
void mr_paths_on_echo(struct mr_paths *ps, u8 path, u64 rtt_ns, bool ce, u16 len);
/*
 * A packet with len bytes of payload, last sent on path at sent_ns, was acknowledged
 * (cumulatively or selectively).
 */
void mr_paths_on_acked(struct mr_paths *ps, u8 path, u64 sent_ns, u16 len);
/* A packet with len bytes of payload sent on path was declared lost. */
void mr_paths_on_loss(struct mr_paths *ps, u64 now, u8 path, u16 len);
/* A packet sent on path was found lost by a tail-loss probe's copy, answered first. */
void mr_paths_on_probe_loss(struct mr_paths *ps, u64 now, u8 path, u16 len);
/* An RTO declared a packet sent on path lost: its size only; mr_paths_on_rto() judges. */
void mr_paths_on_rto_loss(struct mr_paths *ps, u8 path, u16 len);
/* Take path out of service. */
void mr_paths_retire(struct mr_paths *ps, u64 now, u8 path);
/*
 * RTO with packets outstanding on the paths of outstanding (bit i: path i): retire them
 * if they are at most half of the up paths, else only those whose loss rate is clearly
 * worse than the other up paths'.
 */
void mr_paths_on_rto(struct mr_paths *ps, u64 now, u64 outstanding);
/* Path for a new packet. Probes a retired path when its probe is due. */
u8 mr_paths_pick(struct mr_paths *ps, u64 now);
/* Path for a retransmission of a packet lost on path avoid. */
u8 mr_paths_pick_retx(struct mr_paths *ps, u64 now, u8 avoid);
/*
 * Path for a tail-loss probe of a packet last sent on path avoid: the healthiest other
 * up path, else avoid if it is up; never a retired one while a path is up. A ping-pong's
 * probe is all that stands between a lost packet and the RTO.
 */
u8 mr_paths_pick_tlp(struct mr_paths *ps, u64 now, u8 avoid);
/*
 * Path for an ACK of a packet the peer sent on its path number path: ours of that
 * number, or the next up one after it. The peer's verdict on its path then covers the
 * way its ACKs come back, and our own verdicts keep them off the paths we retired.
 */
u8 mr_paths_pick_ack(const struct mr_paths *ps, u8 path);
/* Reorder window for loss detection: tolerate the measured RTT spread between paths. */
u64 mr_paths_reo_wnd(const struct mr_paths *ps);
unsigned int mr_paths_up(const struct mr_paths *ps);
/* The smallest smoothed RTT of the up paths, 0 if none has one. */
u64 mr_paths_min_srtt(const struct mr_paths *ps);

#endif /* _METAROCE_PROTO_PATH_H */
