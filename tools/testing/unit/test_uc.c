// SPDX-License-Identifier: GPL-2.0
/*
 * Unreliable connected endpoints (proto/uc.c): A sends, B receives, over a lossless
 * or lossy in-memory wire that encodes and decodes every packet. B places each SEND
 * in the receive WQE the core names; every delivered message is checked byte for byte
 * and must complete the next WQE in order: lost messages consume none (IBTA UC). A
 * message placed in a later WQE (bound before an earlier one was found lost) is moved
 * down at delivery, as the kernel does.
 */
#include <stdlib.h>
#include "unit.h"
#include "conn.h"
#include "params.h"

#define US		1000ULL
#define MTU		1024
#define NMSG		250	/* below MR_SENDQ_DEPTH */
#define MSG_LEN		3000	/* three packets */
#define NWQE		512
#define ISN_A		0xfffffff0U	/* A's PSNs wrap */

struct uc_world {
	struct mr_conn *a, *b;
	u64	now;
	u32	posted;		/* A's messages posted */
	u32	sent_done;	/* A's send completions */
	u32	rwqes;		/* receive WQEs B has posted */
	u32	delivered;	/* B's receive completions */
	u32	last_msg;	/* message index of the last delivery, +1 */
	u8	buf[NWQE][MSG_LEN];
	u32	seed;
	u32	loss_pct;	/* random loss of A's data packets */
	u32	drop_psn;	/* this PSN of A's is lost; drop_psn_on: set */
	bool	drop_psn_on;
	u32	dropped;
	u32	moved;		/* deliveries whose payload was in a later WQE */
};

static u8 pattern(u32 msg, u32 off)
{
	return (u8)(msg * 31 + off * 7 + 1);
}

/* The largest segment A sends and B takes (0: the MTU). */
static u16 seg_a, rx_seg_b;

static struct mr_conn *uc_conn(u32 me, u32 peer, u32 isn_tx, u32 isn_rx, bool uc)
{
	struct mr_conn_cfg cfg = {
		.peer_qpn = peer, .peer_ctok = 0x1000 + peer, .local_ctok = 0x1000 + me,
		.tx_isn = isn_tx, .rx_isn = isn_rx, .mtu = MTU, .seg = me == 1 ? seg_a : 0,
		.rx_seg = me == 2 ? rx_seg_b : 0,
		.n_paths = 4, .peer_paths = 4,
		.n_streams = 1, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 4, .uc = uc,
	};
	struct mr_conn *c = calloc(1, mr_conn_size(1));

	assert_non_null(c);
	assert_int_equal(mr_conn_init(c, &cfg), 0);
	return c;
}

/* Encoded, sealed, checked and decoded: what the receiver gets. */
static void wire(const struct mr_pkt *h, struct mr_pkt *out)
{
	static u8 b[MR_HDR_MAX + MR_MAX_PAYLOAD + MR_ICRC_LEN];
	u32 hl = mr_pkt_encode(h, b, sizeof(b));

	assert_int_equal(hl, h->hdrlen);
	mr_pkt_icrc_put(b, hl + h->paylen);
	assert_int_equal(mr_pkt_decode(b, hl + h->paylen + MR_ICRC_LEN, out), MR_PERR_OK);
}

static u32 rnd(struct uc_world *w)
{
	w->seed = w->seed * 1103515245 + 12345;
	return (w->seed >> 8) % 100;
}

static void world_init(struct uc_world *w, u32 loss_pct, u32 rwqes)
{
	memset(w, 0, sizeof(*w));
	w->a = uc_conn(1, 2, ISN_A, 0x500, true);
	w->b = uc_conn(2, 1, 0x500, ISN_A, true);
	w->loss_pct = loss_pct;
	w->rwqes = rwqes;
	w->seed = 42;
}

static void world_free(struct uc_world *w)
{
	free(w->a);
	free(w->b);
}

static void post(struct uc_world *w, u32 n)
{
	while (n--) {
		struct mr_send_wr wr = {
			.cookie = w->posted, .opcode = MR_OP_SEND_IMM, .len = MSG_LEN,
			.imm_inv = w->posted,
		};

		assert_int_equal(mr_conn_post(w->a, &wr), 0);
		w->posted++;
	}
}

/* B receives one of A's data packets: placed into its WQE, or refused and discarded. */
static void b_rx(struct uc_world *w, const struct mr_pkt *p)
{
	struct mr_rx_res res;
	u32 i;

	switch (mr_conn_rx(w->b, w->now, p, false, &res)) {
	case MR_RXC_PLACE:
		if (res.rwqe >= w->rwqes) {	/* no receive WQE: the message is lost */
			mr_conn_uc_discard(w->b, w->now, p, false);
			break;
		}
		assert_true(p->moff + p->paylen <= MSG_LEN);
		for (i = 0; i < p->paylen; i++)
			w->buf[res.rwqe][p->moff + i] = pattern(p->send.imm_inv, p->moff + i);
		mr_conn_rx_commit(w->b, w->now, p, false);
		break;
	case MR_RXC_FATAL:
		fail_msg("a UC receiver never fails the connection");
		break;
	default:
		break;
	}
}

static void b_deliver(struct uc_world *w)
{
	struct mr_rx_done d;
	u32 i;

	while (mr_conn_deliver(w->b, &d)) {
		assert_int_equal(d.opcode, MR_OP_SEND_IMM);
		assert_int_equal(d.mlen, MSG_LEN);
		/* The next WQE, whatever was lost before; messages in order. */
		assert_int_equal(d.rmsn, w->delivered);
		assert_true(d.imm_inv >= w->last_msg);
		if (d.rwqe != d.rmsn) {
			assert_true(d.rwqe > d.rmsn);
			memcpy(w->buf[d.rmsn], w->buf[d.rwqe], MSG_LEN);
			w->moved++;
		}
		for (i = 0; i < MSG_LEN; i++)
			assert_int_equal(w->buf[d.rmsn][i], pattern(d.imm_inv, i));
		memset(w->buf[d.rmsn], 0, MSG_LEN);
		w->last_msg = d.imm_inv + 1;
		w->delivered++;
	}
}

/* One step of 10 us: A sends, B receives and acknowledges, timers, completions. */
static void step(struct uc_world *w)
{
	struct mr_tx_pkt tp;
	struct mr_pkt p, ack;
	struct mr_rx_res res;
	enum mr_wc_status st;
	u64 cookie;

	while (mr_conn_tx(w->a, w->now, &tp)) {
		assert_false(tp.hdr.flags & MR_F_RETX);	/* UC resends nothing */
		assert_true(tp.hdr.flags & MR_F_UC);
		tp.hdr.send.imm_inv = (u32)tp.cookie;
		if ((w->drop_psn_on && tp.hdr.psn == w->drop_psn) ||
		    (w->loss_pct && rnd(w) < w->loss_pct)) {
			w->dropped++;
			continue;
		}
		wire(&tp.hdr, &p);
		b_rx(w, &p);
	}
	b_deliver(w);
	while (mr_conn_ack_due(w->b, w->now)) {
		mr_conn_build_ack(w->b, w->now, &ack);
		wire(&ack, &p);
		assert_int_equal(mr_conn_rx(w->a, w->now, &p, false, &res), MR_RXC_DONE);
	}
	if (mr_conn_deadline(w->a) <= w->now)
		mr_conn_timer(w->a, w->now);
	if (mr_conn_deadline(w->b) <= w->now)
		mr_conn_timer(w->b, w->now);
	b_deliver(w);
	while (mr_conn_poll_send(w->a, &cookie, &st)) {
		assert_int_equal(st, MR_WC_SUCCESS);
		assert_int_equal(cookie, w->sent_done);
		w->sent_done++;
	}
	w->now += 10 * US;
}

static void run_until_idle(struct uc_world *w, u64 limit)
{
	while (w->now < limit) {
		step(w);
		/* Done: everything sent, nothing waiting at B beyond the hole timer. */
		if (w->sent_done == w->posted && mr_conn_deadline(w->b) == U64_MAX &&
		    w->a->tx.una == w->a->tx.nxt)
			return;
	}
	fail_msg("UC stream did not finish: sent %u/%u delivered %u", w->sent_done, w->posted,
		 w->delivered);
}

/* A clean wire delivers every message intact, in WQE order, nothing resent. */
static void test_uc_clean(void **state)
{
	static struct uc_world w;

	world_init(&w, 0, NWQE);
	post(&w, 200);
	run_until_idle(&w, 2000 * 1000 * US);
	assert_int_equal(w.sent_done, 200);
	assert_int_equal(w.delivered, 200);
	assert_int_equal(w.b->stats.uc_msgs_lost, 0);
	assert_int_equal(w.a->stats.tx_retx + w.a->stats.tx_probes, 0);
	world_free(&w);
}

/*
 * Loss of one packet mid-message loses that message only; the next one completes its
 * WQE. The 16 messages placed before the loss was known are moved down one WQE.
 */
static void test_uc_loss_mid_message(void **state)
{
	static struct uc_world w;

	world_init(&w, 0, NWQE);
	w.drop_psn_on = true;
	w.drop_psn = ISN_A + 3 * 3 + 1;	/* message 3, second packet */
	post(&w, 20);
	run_until_idle(&w, 2000 * 1000 * US);
	assert_int_equal(w.dropped, 1);
	assert_int_equal(w.sent_done, 20);
	assert_int_equal(w.delivered, 19);
	assert_int_equal(w.b->stats.uc_msgs_lost, 1);
	assert_int_equal(w.b->stats.uc_holes, 1);
	assert_int_equal(w.last_msg, 20);
	assert_int_equal(w.moved, 16);
	/* It took the hole timer, no retransmission, to give up. */
	assert_true(w.now >= MR_UC_HOLE_NS);
	assert_int_equal(w.a->stats.tx_retx + w.a->stats.tx_probes, 0);
	world_free(&w);
}

/* 10% random loss: no hang, intact data in order, some messages lost, others delivered. */
static void test_uc_random_loss(void **state)
{
	static struct uc_world w;

	world_init(&w, 10, NWQE);
	post(&w, NMSG);
	run_until_idle(&w, 20000 * 1000 * US);
	assert_int_equal(w.sent_done, NMSG);
	assert_true(w.dropped > 0);
	assert_true(w.delivered > NMSG / 2);
	assert_true(w.delivered < NMSG);
	assert_int_equal(w.delivered + w.b->stats.uc_msgs_lost, NMSG);
	assert_int_equal(w.a->stats.tx_retx + w.a->stats.tx_probes, 0);
	world_free(&w);
}

/*
 * The same in 1504-byte segments, which B takes, two packets a message instead of three:
 * the receiver finds a message's first and last PSN from the segment each packet states.
 */
static void test_uc_random_loss_segments(void **state)
{
	static struct uc_world w;

	seg_a = 1504;
	rx_seg_b = 1504;
	world_init(&w, 10, NWQE);
	seg_a = 0;	/* only these two connections */
	rx_seg_b = 0;
	post(&w, NMSG);
	run_until_idle(&w, 20000 * 1000 * US);
	assert_int_equal(w.sent_done, NMSG);
	assert_true(w.dropped > 0);
	/* Those started before B's first ACK told A its segment took three. */
	assert_true(w.a->stats.tx_pkts > 2 * NMSG);
	assert_true(w.a->stats.tx_pkts < 2 * NMSG + NMSG / 10);
	assert_true(w.delivered > NMSG / 2);
	assert_true(w.delivered < NMSG);
	assert_int_equal(w.delivered + w.b->stats.uc_msgs_lost, NMSG);
	world_free(&w);
}

/* No receive WQE: the message is discarded, and the next one takes WQE 0. */
static void test_uc_no_wqe_then_next(void **state)
{
	static struct uc_world w;

	world_init(&w, 0, 0);
	post(&w, 1);
	run_until_idle(&w, 100 * 1000 * US);
	assert_int_equal(w.delivered, 0);
	assert_int_equal(w.b->stats.uc_msgs_lost, 1);
	assert_int_equal(w.b->stats.uc_discarded, 3);
	w.rwqes = 1;
	post(&w, 1);
	run_until_idle(&w, w.now + 100 * 1000 * US);
	assert_int_equal(w.delivered, 1);
	assert_int_equal(w.last_msg, 2);
	world_free(&w);
}

/* A packet far beyond the window pushes it on: what it passes over is lost. */
static void test_uc_beyond_window_slides(void **state)
{
	struct mr_conn *b = uc_conn(2, 1, 0x500, 100, true);
	struct mr_rx_res res;
	struct mr_rx_done d;
	struct mr_pkt p = {
		.opcode = MR_OP_SEND, .flags = MR_F_UC, .dqpn = 2, .ctok = 0x1002, .psn = 100,
		.hdrlen = MR_HDR_SEND, .msn = 0, .mlen = 2 * MTU, .paylen = MTU,
	};

	/* First packet of message 0 only; then message 1 at PSN 100 + 300. */
	assert_int_equal(mr_conn_rx(b, 0, &p, false, &res), MR_RXC_PLACE);
	assert_int_equal(res.rwqe, 0);
	mr_conn_rx_commit(b, 0, &p, false);
	assert_false(mr_conn_deliver(b, &d));
	p.psn = 400;
	p.msn = 1;
	p.send.rmsn = 1;
	p.mlen = MTU;
	assert_int_equal(mr_conn_rx(b, 0, &p, false, &res), MR_RXC_PLACE);
	/* Message 0 was lost: message 1 takes WQE 0. */
	assert_int_equal(res.rwqe, 0);
	mr_conn_rx_commit(b, 0, &p, false);
	assert_true(mr_conn_deliver(b, &d));
	assert_int_equal(d.msn, 1);
	assert_int_equal(d.rmsn, 0);
	assert_int_equal(b->stats.uc_msgs_lost, 1);
	/* The window ends at the packet: PSNs between may still come. */
	assert_int_equal(b->rx.cack, 400 - (MR_SACK_BITS - 1));
	free(b);
}

/* UC and RC do not mix; UC refuses what IBTA UC lacks. */
static void test_uc_checks(void **state)
{
	struct mr_conn *uc = uc_conn(2, 1, 0x500, 100, true);
	struct mr_conn *rc = uc_conn(2, 1, 0x500, 100, false);
	struct mr_send_wr wr = { .opcode = MR_OP_READ_REQ, .len = 8, .rkey = 1 };
	struct mr_pkt p = {
		.opcode = MR_OP_SEND, .flags = MR_F_UC, .dqpn = 2, .ctok = 0x1002, .psn = 100,
		.hdrlen = MR_HDR_SEND, .mlen = 10, .paylen = 10,
	};
	static u8 b[MR_HDR_MAX + MR_ICRC_LEN + 16];
	struct mr_pkt nak, out;
	struct mr_rx_res res;
	u32 hl;

	assert_int_equal(mr_conn_post(uc, &wr), -EOPNOTSUPP);
	wr.opcode = MR_OP_FETCH_ADD;
	assert_int_equal(mr_conn_post(uc, &wr), -EOPNOTSUPP);
	wr.opcode = MR_OP_SEND_INV;
	assert_int_equal(mr_conn_post(uc, &wr), -EOPNOTSUPP);
	wr.opcode = MR_OP_WRITE;
	assert_int_equal(mr_conn_post(uc, &wr), 0);

	/* UC data to an RC connection, RC data to a UC one, a NAK to UC: dropped. */
	assert_int_equal(mr_conn_rx(rc, 0, &p, false, &res), MR_RXC_DROP);
	assert_int_equal(rc->stats.rx_bad_type, 1);
	p.flags = 0;
	assert_int_equal(mr_conn_rx(uc, 0, &p, false, &res), MR_RXC_DROP);
	assert_int_equal(uc->stats.rx_bad_type, 1);
	mr_conn_refuse(rc, &p, MR_NAK_RNR, 1, &nak);
	nak.ctok = 0x1001;
	assert_int_equal(mr_conn_rx(uc, 0, &nak, false, &res), MR_RXC_DROP);
	assert_int_equal(uc->stats.rx_bad_type, 2);
	p.flags = MR_F_UC;
	assert_int_equal(mr_conn_rx(uc, 0, &p, false, &res), MR_RXC_PLACE);

	/* The flag on anything but SEND, SEND_IMM, WRITE, WRITE_IMM, or with RETX: malformed. */
	hl = mr_pkt_encode(&p, b, sizeof(b));
	mr_pkt_icrc_put(b, hl + p.paylen);
	assert_int_equal(mr_pkt_decode(b, hl + p.paylen + MR_ICRC_LEN, &out), MR_PERR_OK);
	assert_true(out.flags & MR_F_UC);
	p.flags = MR_F_UC | MR_F_RETX;
	hl = mr_pkt_encode(&p, b, sizeof(b));
	mr_pkt_icrc_put(b, hl + p.paylen);
	assert_int_equal(mr_pkt_decode(b, hl + p.paylen + MR_ICRC_LEN, &out), MR_PERR_FLAGS);
	p.opcode = MR_OP_SEND_INV;
	p.flags = MR_F_UC;
	hl = mr_pkt_encode(&p, b, sizeof(b));
	mr_pkt_icrc_put(b, hl + p.paylen);
	assert_int_equal(mr_pkt_decode(b, hl + p.paylen + MR_ICRC_LEN, &out), MR_PERR_FLAGS);
	free(uc);
	free(rc);
}

/*
 * RMSNs grow by at most one per message (spec, "Streams and ordering"): a packet whose
 * RMSN no conforming sender could have given it is dropped and counted, and neither
 * binds a receive WQE nor moves what the receiver expects.
 */
static void test_uc_rmsn_range(void **state)
{
	struct mr_conn *c = uc_conn(2, 1, 0x500, 100, true);
	struct mr_pkt p = {
		.opcode = MR_OP_SEND, .flags = MR_F_UC, .dqpn = 2, .ctok = 0x1002, .psn = 100,
		.hdrlen = MR_HDR_SEND, .mlen = 10, .paylen = 10,
	};
	struct mr_rx_done d;
	struct mr_rx_res res;

	(void)state;
	/* message 0 cannot carry RMSN 1, nor one before the first */
	p.send.rmsn = 1;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_DROP);
	p.send.rmsn = 0xffffffff;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_DROP);
	assert_int_equal(c->stats.rx_inconsistent, 2);
	assert_int_equal(c->stats.uc_discarded, 0);
	/* message 5 may carry RMSN 5 at most: 6 is refused; 4 is placed in WQE 4 */
	p.msn = 5;
	p.psn = 105;
	p.send.rmsn = 6;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_DROP);
	assert_int_equal(c->stats.rx_inconsistent, 3);
	p.send.rmsn = 4;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_PLACE);
	assert_int_equal(res.rwqe, 4);
	mr_conn_rx_commit(c, 0, &p, false);
	/* message 0 with RMSN 0 arrives and is delivered; 5 waits for 1..4 */
	p.msn = 0;
	p.psn = 100;
	p.send.rmsn = 0;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_PLACE);
	mr_conn_rx_commit(c, 0, &p, false);
	assert_true(mr_conn_deliver(c, &d));
	assert_int_equal(d.rmsn, 0);
	assert_false(mr_conn_deliver(c, &d));
	/* RMSN 0 again, as message 1: before the next one, dropped */
	p.msn = 1;
	p.psn = 101;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_DROP);
	assert_int_equal(c->stats.rx_inconsistent, 4);
	/* a WRITE carries none: message 1 is one, so 2 may carry RMSN 2 at most */
	p.opcode = MR_OP_WRITE;
	p.hdrlen = MR_HDR_WRITE;
	p.send.rmsn = 0;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_PLACE);
	mr_conn_rx_commit(c, 0, &p, false);
	assert_true(mr_conn_deliver(c, &d));
	p.opcode = MR_OP_SEND;
	p.hdrlen = MR_HDR_SEND;
	p.msn = 2;
	p.psn = 102;
	p.send.rmsn = 3;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_DROP);
	assert_int_equal(c->stats.rx_inconsistent, 5);
	p.send.rmsn = 1;
	assert_int_equal(mr_conn_rx(c, 0, &p, false, &res), MR_RXC_PLACE);
	assert_int_equal(c->stats.uc_discarded, 0);
	assert_int_equal(c->stats.uc_msgs_lost, 0);
	free(c);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_uc_clean),
	cmocka_unit_test(test_uc_loss_mid_message),
	cmocka_unit_test(test_uc_random_loss),
	cmocka_unit_test(test_uc_random_loss_segments),
	cmocka_unit_test(test_uc_no_wqe_then_next),
	cmocka_unit_test(test_uc_beyond_window_slides),
	cmocka_unit_test(test_uc_checks),
	cmocka_unit_test(test_uc_rmsn_range),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
