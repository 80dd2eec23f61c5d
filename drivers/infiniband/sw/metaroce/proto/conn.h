/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One MetaRoCE connection endpoint: the send and receive windows, paths, congestion
 * control, the send queue of messages being transmitted and the receive-side message
 * tracking, tied together. The host keeps memory (placement, WQEs, CQs), sockets and the
 * one timer; this object decides what goes on the wire and when, and what completes.
 *
 * This engine carries every version 1 operation: SEND, SEND_IMM, SEND_INV, WRITE,
 * WRITE_IMM, READ, CMP_SWAP and FETCH_ADD. With cfg.uc it is an unreliable connected
 * endpoint instead (uc.c): SEND, SEND_IMM, WRITE and WRITE_IMM only, nothing resent,
 * a send complete once handed to the wire, a message with a lost packet discarded.
 *
 * Receive path, per packet: mr_pkt_icrc_ok(), mr_pkt_decode(), then mr_conn_rx(). For a
 * data packet that returns MR_RXC_PLACE, the host checks the rkey or receive WQE, writes
 * the payload to its final place (for READ_RESP: the read WQE res->cookie at offset moff;
 * for READ_REQ there is nothing to write, only the rkey and range to check) and calls
 * mr_conn_rx_commit(). A packet the host refuses is not committed (and so not
 * acknowledged); mr_conn_refuse() builds the NAK that says why.
 *
 * A READ is answered by the engine itself: when a READ_REQ is delivered in stream order
 * the responder queues a READ_RESP message, whose payload mr_conn_tx() asks the host to
 * read at src_rkey/src_va. An atomic is delivered to the host in stream order; the host
 * performs it on its memory and hands the old value to mr_conn_atomic_result(), which
 * releases the ATOMIC_RESP. Responses are sent, retransmitted and freed like any message
 * but never reported by mr_conn_poll_send(). Exactly-once execution of atomics needs no
 * replay cache: the receive window never accepts a PSN twice.
 */
#ifndef _METAROCE_PROTO_CONN_H
#define _METAROCE_PROTO_CONN_H

#include "platform.h"
#include "pkt.h"
#include "txwin.h"
#include "rxwin.h"
#include "path.h"
#include "cc.h"
#include "stream.h"
#include "share.h"

#define MR_SENDQ_DEPTH	256	/* messages posted and not completed; a power of two */
/* So RMSNs not yet delivered lie within this many of the lowest (spec). */
#define MR_RMSN_WIN	MR_SENDQ_DEPTH
/*
 * Responses (READ_RESP, ATOMIC_RESP) have a ring of their own, so that the peer's
 * requests are answered however full the host keeps the send queue: a shared queue can
 * deadlock two sides that each wait for the other's answers. Slots free themselves as
 * the peer acknowledges them. A power of two, below 0x8000 (see mr_txpkt.msg).
 */
#define MR_RESPQ_DEPTH	256
#define MR_MSG_RESP	0x8000	/* mr_txpkt.msg: a response ring slot */

/*
 * Events for the host's counters and tracing, reported as they happen through
 * mr_conn_cfg.on_event (optional). A packet declared lost is reported once per loss;
 * a retransmission says why it was sent (the cause of its loss, or a tail probe).
 */
enum mr_event_type {
	MR_EV_LOSS,		/* psn, path: declared lost; cause: enum mr_loss_cause */
	MR_EV_RETX,		/* psn, path: the new path; cause: mr_loss_cause, MR_RETX_PROBE */
	MR_EV_PATH_DOWN,	/* path: taken out of service */
	MR_EV_PATH_UP,		/* path: back in service */
	MR_EV_PMTU_BLACKHOLE,	/* psn: the packet the verdict was made on */
};

#define MR_RETX_PROBE	0xff	/* MR_EV_RETX cause of a tail-loss probe */

struct mr_event {
	u8	type;		/* enum mr_event_type */
	u8	cause;
	u8	path;
	u32	psn;
};

typedef void (*mr_event_fn)(void *arg, const struct mr_event *ev);

struct mr_conn_cfg {
	u32	peer_qpn;	/* dqpn of the packets we send */
	u32	peer_ctok;	/* ctok of the packets we send */
	u32	local_ctok;	/* ctok the packets we receive must carry */
	u32	tx_isn;		/* our first PSN */
	u32	rx_isn;		/* the peer's first PSN */
	u16	mtu;		/* path MTU: packets whose seg is 0 carry this much */
	u16	seg;		/* largest segment we send; 0 = mtu (spec, "Segments") */
	u16	rx_seg;		/* largest segment we take, told in our ACKs; 0 = mtu */
	u8	n_paths;	/* our paths (N) */
	u8	peer_paths;	/* the peer's N: path ids we accept */
	u8	n_streams;	/* M, both directions */
	u8	retry_cnt;	/* verbs retry_cnt, 0..7 */
	u8	rnr_retry;	/* verbs rnr_retry, 7 = infinite */
	u8	max_rd_atomic;	/* READs in progress, each way (requester and responder) */
	/*
	 * Verbs RTR: tx_isn and peer_ctok are not known yet. Nothing but responses is sent
	 * until mr_conn_start_tx(); a response before it starts the send direction from
	 * the derived initial PSN (mr_conn_derived_isn()), named with local_qpn.
	 */
	bool	tx_deferred;
	bool	uc;		/* unreliable connected (verbs UC) */
	u32	local_qpn;	/* our QP number: derived tokens need it */
	struct mr_share *share;	/* the receiving device's fair share, or NULL */
	mr_event_fn on_event;	/* optional */
	void	*event_arg;
};

/* The initial PSN of a direction started before RTS, from the other one's (spec). */
#define MR_DISN_XOR	0x80000000U

/* How our receive direction started (Documentation: "Responses before RTS"). */
enum mr_rx_mode {
	MR_RXM_FRESH,	/* no data packet accepted yet */
	MR_RXM_PLAIN,	/* accepted data without MR_F_DISN: it never comes */
	MR_RXM_DISN,	/* re-based to the derived PSN and token: MR_F_DISN required */
};

enum mr_wc_status {
	MR_WC_SUCCESS = 0,
	MR_WC_RETRY_EXC,
	MR_WC_RNR_RETRY_EXC,
	MR_WC_REM_ACCESS,
	MR_WC_REM_INV_REQ,
	MR_WC_REM_OP,
	MR_WC_FLUSH,
};

/* A message to send, as the host's send WQE describes it. */
struct mr_send_wr {
	u64	cookie;		/* the host's handle, returned at completion */
	u8	opcode;		/* MR_OP_SEND .. MR_OP_FETCH_ADD, MR_OP_ATOMIC_WRITE */
	u8	stream;
	bool	solicited;
	u32	len;		/* atomics: 8 */
	u64	va;		/* WRITE*, READ, atomics: remote address */
	u32	rkey;		/* WRITE*, READ, atomics: remote key */
	u32	imm_inv;	/* SEND_IMM, WRITE_IMM: immediate; SEND_INV: rkey */
	u64	swap_add;	/* CMP_SWAP: swap; FETCH_ADD: addend; ATOMIC_WRITE: data */
	u64	compare;	/* CMP_SWAP */
};

struct mr_sendmsg {
	struct mr_send_wr wr;
	u32	msn;
	u32	rmsn;
	u32	next_off;	/* bytes handed to the wire so far */
	u32	pkts;		/* packets in the message; 0 once reported */
	u32	pkts_acked;
	u32	resp_got;	/* READ: response bytes placed */
	u8	resp_seg;	/* READ: the response's seg, once resp_got is not 0 */
	u16	seg;		/* payload bytes per packet, fixed by the first one sent */
	u32	req_psn;	/* READ, atomic: PSN of the request (ours, or the peer's) */
	u64	orig;		/* ATOMIC_RESP: the value before the operation */
	bool	all_sent;
	bool	resp_done;	/* READ, atomic: the whole response has been placed */
	bool	hold;		/* ATOMIC_RESP waiting for mr_conn_atomic_result() */
};

/* Per message, what the receiver remembers until delivery. */
struct mr_rmsg {
	u8	opcode;
	u8	seg;		/* every packet of a message has the same */
	bool	se;
	u32	rmsn;
	u32	imm_inv;
	u32	psn;		/* READ_REQ, atomics: the request's, for a late refusal */
	u32	len;		/* READ_REQ: bytes to read */
	u32	rkey;		/* READ_REQ, atomics */
	u64	va;		/* READ_REQ, atomics */
	u64	swap_add;	/* atomics */
	u64	compare;
	/* UC: the receive WQE the message was placed in, and where its PSNs lie */
	u32	rwqe;
	u32	skip;		/* uc_skip_bind when it was bound */
	u32	first_psn;
	u32	last_psn;
	bool	dead;		/* UC: a packet was lost or refused; discard the rest */
};

struct mr_rstream {
	struct mr_stream st;
	struct mr_rmsg info[MR_STREAM_WIN];
};

/*
 * A packet to transmit: the host encodes hdr and appends paylen bytes: from the WQE
 * cookie at offset moff, or for READ_RESP from its memory at src_rkey/src_va.
 */
struct mr_tx_pkt {
	struct mr_pkt hdr;
	u64	cookie;
	u32	moff;
	u32	src_rkey;
	u64	src_va;
	u32	resp_slot;	/* READ_RESP: for mr_conn_refuse_resp() */
};

/* What mr_conn_rx() tells the host beyond the class. */
struct mr_rx_res {
	u64	cookie;		/* READ_RESP, ATOMIC_RESP: the WQE to place into */
	u32	rwqe;		/* SEND*, WRITE_IMM: the receive WQE, counted like an RMSN */
	struct mr_pkt nak;	/* MR_RXC_FATAL: the NAK to send */
};

/* A delivered message, in stream order. */
struct mr_rx_done {
	u8	opcode;
	u8	stream;
	bool	se;
	u32	msn;
	u32	mlen;
	u32	rmsn;	/* the receive WQE it completes */
	u32	rwqe;	/* UC: the receive WQE its payload was placed in, if not rmsn */
	u32	imm_inv;
	/* atomics: perform, then mr_conn_atomic_result(c, resp_slot, old value) */
	u64	va;
	u32	rkey;
	u64	swap_add;
	u64	compare;
	u32	resp_slot;
};

enum mr_rx_class {
	MR_RXC_DROP,	/* refused; counted */
	MR_RXC_DUP,	/* duplicate or stale; counted; an ACK is scheduled */
	MR_RXC_PLACE,	/* new data: place it, then mr_conn_rx_commit() */
	MR_RXC_DONE,	/* ACK or NAK, fully processed */
	MR_RXC_FATAL,	/* protocol violation: send res->nak, connection failed */
};

struct mr_conn_stats {
	u64	tx_pkts;
	u64	tx_retx;
	u64	tx_probes;
	u64	rx_pkts;
	u64	rx_bad_token;
	u64	rx_bad_stream;
	u64	rx_bad_path;
	u64	rx_bad_length;
	u64	rx_dup;
	u64	rx_stale;
	u64	rx_beyond;
	u64	rx_inconsistent;
	u64	rx_bad_ack;
	u64	rx_bad_resp;
	u64	rx_bad_disn;
	u64	rx_nak;
	u64	acks_sent;
	u64	rx_bad_type;	/* MR_F_UC does not match the connection, a NAK to UC */
	u64	uc_discarded;	/* UC data packets not placed: message lost or refused */
	u64	uc_msgs_lost;	/* UC messages given up */
	u64	uc_holes;	/* UC PSNs given up (never arrived) */
	u64	tx_rsp_probes;	/* requests resent while waiting for their responses */
};

struct mr_conn {
	struct mr_conn_cfg cfg;

	/* sending */
	struct mr_txwin tx;
	struct mr_paths paths;
	struct mr_cc cc;
	struct mr_sendmsg sq[MR_SENDQ_DEPTH];
	u32	sq_head;	/* next slot to post into */
	u32	sq_tail;	/* oldest message not yet completed */
	u32	sq_next;	/* oldest message with bytes not yet sent */
	struct mr_sendmsg rq[MR_RESPQ_DEPTH];	/* responses to the peer's requests */
	u32	rq_head;
	u32	rq_tail;	/* oldest response not fully acknowledged */
	u32	rq_next;	/* oldest response with bytes not yet sent */
	u32	tx_msn[MR_MAX_STREAMS];
	u32	tx_rmsn;
	u64	next_tx_ns;	/* pacing and RNR back-off */
	u32	probe_psn;
	bool	probe_pending;
	u8	rto_copies;	/* copies of the oldest packet still to send after an RTO */
	bool	lost_any;	/* the loss rules declared a packet of ours lost */
	u64	lost_ns;	/* when they last did (spec, "Timer precision") */
	/* Waiting for responses with nothing of ours outstanding (spec) */
	bool	rsp_waiting;
	u64	rsp_wait_ns;	/* the timer's start */
	u64	rsp_alive_ns;	/* last response packet or answered probe */
	u32	rsp_probe_psn;	/* the request last sent as a response probe */
	u8	rsp_probes;	/* sent since the responder last answered */
	u8	rsp_backoff;	/* sent since the last response packet */
	bool	rsp_probe_pending;
	u8	rnr_retries;
	u8	rd_out;		/* our READs sent and not fully answered */
	u8	rsp_out;	/* peer's READs accepted and not fully answered */
	bool	failed;
	enum mr_wc_status fail_status;
	bool	tx_idle;	/* cfg.tx_deferred and nothing sent: window not started */
	bool	tx_resp_only;	/* cfg.tx_deferred until mr_conn_start_tx() */
	bool	tx_disn;	/* started from the derived PSN: MR_F_DISN on all data */

	/* receiving */
	struct mr_rxwin rx;
	u16	ce_cnt;
	u16	rx_cnt;
	u32	unacked;
	u64	ack_due_ns;	/* 0: no ACK owed */
	bool	ack_now;
	u32	echo_psn;
	u8	echo_path;
	u8	echo_flags;
	u16	peer_rx_seg;	/* the largest segment the peer's ACKs say it takes; 0 = mtu */
	/* Packets above the path MTU vanish without ICMP (spec, "Segments") */
	bool	pmtu_blackhole;
	u64	blackhole_ns;	/* when the verdict was made */
	u64	big_acked_ns;	/* last send of a packet above the path MTU acknowledged */
	u64	echo_arrival_ns;
	u32	rate_hint;	/* without cfg.share, set by the host: the peer's share, Mbit/s */
	u32	share_epoch;	/* our marker in cfg.share */
	u8	deliver_rr;
	u8	ack_rr;		/* path of the next ACK of a spread */
	u8	ack_copies;	/* ACKs of a spread still to send, one per path in turn */
	u64	ack_spread_ns;	/* when ACKs last went out on every path */
	u8	rx_mode;	/* enum mr_rx_mode */
	/* RC: the lowest RMSN not delivered; bit r % MR_RMSN_WIN: RMSN r delivered */
	u32	rmsn_una;
	u64	rmsn_early[MR_RMSN_WIN / 64];
	/* UC receiver (uc.c) */
	u32	uc_skip;	/* RMSNs that consumed no receive WQE (lost messages) */
	u32	uc_skip_bind;	/* uc_skip as new messages are bound to WQEs */
	u32	uc_rmsn_next;	/* RMSN after the last one delivered or given up */
	u32	uc_rmsn_msn;	/* MSN from which uc_rmsn_next counts */
	u64	uc_hole_ns;	/* since when a hole stands at cack; 0: none */

	struct mr_conn_stats stats;
	struct mr_rstream rs[];	/* cfg.n_streams of them */
};

/* Bytes to allocate for a connection with n_streams streams. */
size_t mr_conn_size(u8 n_streams);
int mr_conn_init(struct mr_conn *c, const struct mr_conn_cfg *cfg);
/*
 * The link's MTU changed: the largest segment we send (the MTU or a valid segment) and
 * take (0 or a valid segment), for messages started from now on. -EINVAL otherwise.
 */
int mr_conn_set_seg(struct mr_conn *c, u16 seg, u16 rx_seg);

/*
 * Verbs connection setup (Documentation/infiniband/metaroce.rst, "Setup through verbs
 * alone"): the receive side is configured at RTR (mr_conn_init() with cfg.tx_deferred:
 * tx_isn and peer_ctok not yet known, only responses sent), the send side at RTS with
 * this. A send direction that a response already started keeps its derived initial PSN
 * and token; only the retry counts and max_rd_atomic are taken then.
 */
void mr_conn_start_tx(struct mr_conn *c, u32 tx_isn, u32 peer_ctok, u8 retry_cnt, u8 rnr_retry,
		      u8 max_rd_atomic);
/*
 * The connection fails no sooner than fail_min_ns after its last progress, however
 * many RTOs expire before (verbs: (retry_cnt + 1) x the local ACK timeout). Call after
 * mr_conn_start_tx(); 0 (the default) fails after retry_cnt RTOs alone.
 */
void mr_conn_set_fail_time(struct mr_conn *c, u64 fail_min_ns);
/* The connection token of the packets snd_qpn sends to rcv_qpn from its first PSN snd_isn. */
u32 mr_ctok_derive(u32 rcv_qpn, u32 snd_qpn, u32 snd_isn);

/* The echo flags of an ACK that answers pkt, which arrived with CE when ce. */
static inline u8 mr_echo_flags(const struct mr_pkt *pkt, bool ce)
{
	return (ce ? MR_ECHO_CE : 0) | (pkt->flags & MR_F_RETX ? MR_ECHO_RETX : 0);
}

/*
 * The connection is dead: a retry or RNR limit, a fatal NAK, or responses to the
 * peer's READs and atomics that were never acknowledged (no send WQE carries that).
 */
static inline bool mr_conn_failed(const struct mr_conn *c)
{
	return c->failed;
}

/* Packets a payload of @len bytes takes in @seg-byte segments; zero bytes take one. */
static inline u32 mr_seg_pkts(u32 len, u32 seg)
{
	return len ? (len - 1) / seg + 1 : 1;
}

/* The segment of a message we start now: ours, if the peer takes it; at least the MTU. */
static inline u32 mr_conn_tx_seg(const struct mr_conn *c)
{
	if (c->pmtu_blackhole)
		return c->cfg.mtu;
	return min_t(u32, c->cfg.seg, max_t(u32, c->peer_rx_seg, c->cfg.mtu));
}

/* The segment size of a received data packet's message. */
static inline u32 mr_conn_rx_seg(const struct mr_conn *c, const struct mr_pkt *pkt)
{
	return pkt->seg ? pkt->seg * MR_SEG_UNIT : c->cfg.mtu;
}

/* Queue a message. -ENOSPC when MR_SENDQ_DEPTH messages are outstanding. */
int mr_conn_post(struct mr_conn *c, const struct mr_send_wr *wr);
/* The next packet to send now, if any. */
bool mr_conn_tx(struct mr_conn *c, u64 now, struct mr_tx_pkt *out);
/* Completed sends, in order per stream; after a failure, the error then flushes. */
bool mr_conn_poll_send(struct mr_conn *c, u64 *cookie, enum mr_wc_status *status);

enum mr_rx_class mr_conn_rx(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce,
			    struct mr_rx_res *res);
void mr_conn_rx_commit(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce);
/* Messages of the peer in stream order; READ_REQs are answered inside, not returned. */
bool mr_conn_deliver(struct mr_conn *c, struct mr_rx_done *d);
/* The host performed the delivered atomic d; orig is the value it found. */
void mr_conn_atomic_result(struct mr_conn *c, u32 resp_slot, u64 orig);
/*
 * The host cannot take data packet pkt (no receive WQE: MR_NAK_RNR with rnr_delay in
 * 10 us units; bad rkey or range: MR_NAK_REM_ACCESS; ...). Builds the NAK; every syndrome
 * but RNR fails the connection.
 */
void mr_conn_refuse(struct mr_conn *c, const struct mr_pkt *pkt, u8 syndrome, u16 rnr_delay,
		    struct mr_pkt *nak);
/*
 * The host cannot execute the peer's READ or atomic it accepted: its memory went away.
 * resp_slot is mr_tx_pkt.resp_slot of the READ_RESP or mr_rx_done.resp_slot of the
 * atomic. Builds the NAK that refuses the request (a fatal syndrome); the connection
 * fails.
 */
void mr_conn_refuse_resp(struct mr_conn *c, u32 resp_slot, u8 syndrome, struct mr_pkt *nak);

/*
 * UC: the host could not place data packet pkt (no receive WQE, bad rkey, too long):
 * its message is lost, the packet counts as received (nothing resends it).
 */
void mr_conn_uc_discard(struct mr_conn *c, u64 now, const struct mr_pkt *pkt, bool ce);

/* An ACK is owed now. */
bool mr_conn_ack_due(const struct mr_conn *c, u64 now);
void mr_conn_build_ack(struct mr_conn *c, u64 now, struct mr_pkt *ack);

/* When the host must call mr_conn_timer() (and retry mr_conn_tx()); U64_MAX: never. */
u64 mr_conn_deadline(const struct mr_conn *c);
/*
 * The earliest deadline that is not a timeout (tail probe, RTO, response timer), and
 * whether the connection has been without loss long enough that a host may take its
 * timeouts late (spec, "Timer precision").
 */
u64 mr_conn_firm_deadline(const struct mr_conn *c);
bool mr_conn_loss_quiet(const struct mr_conn *c, u64 now);
/*
 * mr_conn_deadline(), and in *latest how late a host whose timers may be slack_ns late
 * can take it: a quiet connection's timeout up to slack_ns, never past a firm deadline.
 */
u64 mr_conn_deadline_window(const struct mr_conn *c, u64 now, u64 slack_ns, u64 *latest);
void mr_conn_timer(struct mr_conn *c, u64 now);

#endif /* _METAROCE_PROTO_CONN_H */
