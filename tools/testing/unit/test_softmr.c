// SPDX-License-Identifier: GPL-2.0
/*
 * libsoftmetaroce's message API end to end: two endpoints joined by a seeded in-memory
 * link that drops, delays and reorders datagrams. WRITE, WRITE_IMM, SEND (with and
 * without immediate, and with invalidate), READ, CMP_SWAP and FETCH_ADD, every byte
 * checked; remote access refused for a bad rkey, a range overrun and a missing
 * permission, and at execution for a region deregistered after the request was
 * accepted; RNR until the receiver posts a buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "softmetaroce.h"

#define US		1000ULL
#define MAXQ		4096
#define NPATHS		4
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct dgram {
	uint64_t at;
	int	to;
	bool	ce;
	uint32_t len;
	uint8_t	data[SMR_PKT_MAX];
};

struct side {
	struct smr_ep *ep;
	struct smr_wc wc[1024];
	int	nwc;
};

struct link {
	uint64_t now;
	uint64_t rng;
	uint32_t loss_ppm;
	uint64_t jitter_ns;
	struct side s[2];
	struct dgram *q;
	uint32_t nq;
	uint32_t sent, dropped;
};

static uint32_t rnd(struct link *l)
{
	l->rng ^= l->rng >> 12;
	l->rng ^= l->rng << 25;
	l->rng ^= l->rng >> 27;
	return (uint32_t)((l->rng * 0x2545f4914f6cdd1dULL) >> 32);
}

static uint8_t pattern(uint32_t tag, uint32_t off)
{
	return (uint8_t)(tag * 151 + off * 13 + (off >> 9));
}

static void fill(uint8_t *p, uint32_t len, uint32_t tag)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(tag, i);
}

static void check(const uint8_t *p, uint32_t len, uint32_t tag)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(tag, i))
			fail_msg("tag %u byte %u: %u, want %u", tag, i, p[i], pattern(tag, i));
}

static void link_init(struct link *l, uint64_t seed, uint32_t loss_ppm, uint64_t jitter_ns,
		      uint8_t rnr_retry)
{
	struct smr_cfg a = {
		.peer_qpn = 2, .peer_ctok = 0xb0b, .local_ctok = 0xa1a, .tx_isn = 0xfffffff0,
		.rx_isn = 77, .mtu = 1024, .n_paths = NPATHS, .peer_paths = NPATHS,
		.n_streams = 2, .retry_cnt = 7, .rnr_retry = rnr_retry, .max_rd_atomic = 4,
		.rnr_delay = 2,
	};
	struct smr_cfg b = a;

	memset(l, 0, sizeof(*l));
	l->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	l->loss_ppm = loss_ppm;
	l->jitter_ns = jitter_ns;
	l->q = calloc(MAXQ, sizeof(*l->q));
	assert_non_null(l->q);
	b.peer_qpn = 1;
	b.peer_ctok = 0xa1a;
	b.local_ctok = 0xb0b;
	b.tx_isn = 77;
	b.rx_isn = 0xfffffff0;
	l->s[0].ep = smr_ep_create(&a);
	l->s[1].ep = smr_ep_create(&b);
	assert_non_null(l->s[0].ep);
	assert_non_null(l->s[1].ep);
}

static void link_free(struct link *l)
{
	smr_ep_destroy(l->s[0].ep);
	smr_ep_destroy(l->s[1].ep);
	free(l->q);
}

static void side_tx(struct link *l, int k)
{
	static struct smr_pkt pkt;

	while (smr_tx(l->s[k].ep, l->now, &pkt)) {
		struct dgram *d;

		assert_true(pkt.len <= SMR_PKT_MAX);
		assert_true(pkt.path < NPATHS);
		l->sent++;
		if (rnd(l) % 1000000 < l->loss_ppm) {
			l->dropped++;
			continue;
		}
		assert_true(l->nq < MAXQ);
		d = &l->q[l->nq++];
		d->to = !k;
		d->len = pkt.len;
		d->ce = false;
		memcpy(d->data, pkt.data, pkt.len);
		/* each path its own delay; jitter on top reorders within and across paths */
		d->at = l->now + 5 * US + pkt.path * US + (l->jitter_ns ? rnd(l) % l->jitter_ns : 0);
	}
}

static void side_poll(struct link *l, int k)
{
	struct side *s = &l->s[k];
	int n;

	do {
		assert_true(s->nwc < (int)(sizeof(s->wc) / sizeof(s->wc[0])));
		n = smr_poll(s->ep, s->wc + s->nwc, 1);
		s->nwc += n;
	} while (n);
}

/* Run until done(l) or the network is quiet and nothing is due, or the time limit. */
static void pump(struct link *l, bool (*done)(struct link *l), uint64_t limit)
{
	while (l->now < limit && !done(l)) {
		uint64_t next = UINT64_MAX, d;
		uint32_t i;
		int k;

		for (k = 0; k < 2; k++) {
			if (smr_deadline(l->s[k].ep) <= l->now)
				smr_timer(l->s[k].ep, l->now);
			side_tx(l, k);
		}
		for (;;) {
			uint32_t best = MAXQ;

			for (i = 0; i < l->nq; i++)
				if (l->q[i].at <= l->now &&
				    (best == MAXQ || l->q[i].at < l->q[best].at))
					best = i;
			if (best == MAXQ)
				break;
			smr_rx(l->s[l->q[best].to].ep, l->now, l->q[best].data, l->q[best].len,
			       l->q[best].ce);
			l->q[best] = l->q[--l->nq];
		}
		for (k = 0; k < 2; k++) {
			side_poll(l, k);
			side_tx(l, k);
			d = smr_deadline(l->s[k].ep);
			next = d < next ? d : next;
		}
		for (i = 0; i < l->nq; i++)
			next = l->q[i].at < next ? l->q[i].at : next;
		if (next == UINT64_MAX)
			break;
		l->now = next > l->now ? next : l->now + 1;
	}
}

static struct smr_wc *find_wc(struct side *s, uint64_t wr_id)
{
	int i;

	for (i = 0; i < s->nwc; i++)
		if (s->wc[i].wr_id == wr_id)
			return &s->wc[i];
	return NULL;
}

/* ------------------------------------------------------------------------------------ */

#define NWRITE		24
#define NSEND		24
#define NREAD		16
#define NFADD		20
#define REGION		(64 * 1024)
#define DST_VA		0x100000000ULL
#define SRC_VA		0x200000000ULL
#define CTR_VA		0x300000000ULL

static uint32_t g_expect_a, g_expect_b;

static bool all_done(struct link *l)
{
	return l->s[0].nwc >= (int)g_expect_a && l->s[1].nwc >= (int)g_expect_b;
}

static void run_mix(uint64_t seed, uint32_t loss_ppm, uint64_t jitter_ns)
{
	static uint8_t dst[NWRITE][REGION / NWRITE], src[REGION], wsrc[NWRITE][2000];
	static uint8_t sbuf[NSEND][3000], rbuf[NSEND + 1][3000], rdbuf[NREAD][REGION / NREAD];
	static struct link l;
	uint64_t ctr[2] = { 0, 0 }, fres[NFADD], cres[2], sum = 0;
	uint32_t rk_dst, rk_src, rk_ctr, i, j, wlen[NWRITE], slen[NSEND];
	struct smr_send_wr wr, wimm;
	struct smr_wc *wc;

	link_init(&l, seed, loss_ppm, jitter_ns, 7);
	memset(dst, 0, sizeof(dst));
	memset(rbuf, 0, sizeof(rbuf));
	memset(rdbuf, 0, sizeof(rdbuf));
	fill(src, sizeof(src), 999);
	/* B exposes a WRITE target, a READ source and two 8-byte atomic counters */
	assert_int_equal(smr_reg_mr(l.s[1].ep, dst, DST_VA, sizeof(dst),
				    SMR_ACCESS_REMOTE_WRITE, &rk_dst), 0);
	assert_int_equal(smr_reg_mr(l.s[1].ep, src, SRC_VA, sizeof(src),
				    SMR_ACCESS_REMOTE_READ, &rk_src), 0);
	assert_int_equal(smr_reg_mr(l.s[1].ep, ctr, CTR_VA, sizeof(ctr),
				    SMR_ACCESS_REMOTE_ATOMIC, &rk_ctr), 0);
	assert_int_not_equal(rk_dst, rk_src);
	/* one receive WQE per SEND, and one for the WRITE_IMM */
	for (i = 0; i < NSEND + 1; i++)
		assert_int_equal(smr_post_recv(l.s[1].ep, 5000 + i, rbuf[i], sizeof(rbuf[i])), 0);

	/* A: WRITEs (the last, posted at the end, with immediate), SENDs, READs, atomics */
	for (i = 0; i < NWRITE; i++) {
		wlen[i] = 1 + rnd(&l) % sizeof(wsrc[i]);
		fill(wsrc[i], wlen[i], 100 + i);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = SMR_OP_WRITE;
		wr.stream = i % 2;
		wr.local = wsrc[i];
		wr.length = wlen[i];
		wr.remote_addr = DST_VA + (uint64_t)i * sizeof(dst[0]);
		wr.rkey = rk_dst;
		if (i == NWRITE - 1)
			wimm = wr;
		else
			assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);

		if (i < NSEND) {
			slen[i] = i == 3 ? 0 : 1 + rnd(&l) % sizeof(sbuf[i]);
			fill(sbuf[i], slen[i], 300 + i);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 1000 + i;
			wr.opcode = i % 3 ? SMR_OP_SEND : SMR_OP_SEND_IMM;
			wr.imm_data = 0xabc000 + i;
			wr.local = sbuf[i];
			wr.length = slen[i];
			assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
		}
		if (i < NREAD) {
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 2000 + i;
			wr.opcode = SMR_OP_READ;
			wr.stream = 1;
			wr.local = rdbuf[i];
			wr.length = sizeof(rdbuf[i]);
			wr.remote_addr = SRC_VA + (uint64_t)i * sizeof(rdbuf[i]);
			wr.rkey = rk_src;
			assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
		}
		if (i < NFADD) {
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = 3000 + i;
			wr.opcode = SMR_OP_FETCH_ADD;
			wr.local = &fres[i];
			wr.length = 8;
			wr.remote_addr = CTR_VA;
			wr.rkey = rk_ctr;
			wr.compare_add = i + 1;
			sum += i + 1;
			assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
		}
	}
	/* compare-and-swap on the second counter: the first matches, the second does not */
	for (i = 0; i < 2; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 4000 + i;
		wr.opcode = SMR_OP_CMP_SWAP;
		wr.local = &cres[i];
		wr.length = 8;
		wr.remote_addr = CTR_VA + 8;
		wr.rkey = rk_ctr;
		wr.compare_add = 0;
		wr.swap = 0x5555 + i;
		assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	}
	/* the WRITE_IMM takes the receive WQE after the SENDs' */
	wimm.opcode = SMR_OP_WRITE_IMM;
	wimm.imm_data = 0xfeed;
	assert_int_equal(smr_post_send(l.s[0].ep, &wimm), 0);
	g_expect_a = NWRITE + NSEND + NREAD + NFADD + 2;
	g_expect_b = NSEND + 1;	/* the SENDs and the WRITE_IMM */
	pump(&l, all_done, 2000000 * US);
	assert_int_equal(l.s[0].nwc, g_expect_a);
	assert_int_equal(l.s[1].nwc, g_expect_b);
	assert_false(smr_failed(l.s[0].ep));
	assert_false(smr_failed(l.s[1].ep));
	if (loss_ppm)
		assert_true(l.dropped > 0);
	print_message("# %u datagrams, %u dropped, done at %llu us\n", l.sent, l.dropped,
		      (unsigned long long)(l.now / US));

	/* every send completion is a success with its opcode and length */
	for (i = 0; i < (uint32_t)l.s[0].nwc; i++) {
		wc = &l.s[0].wc[i];
		assert_int_equal(wc->status, SMR_WC_SUCCESS);
		assert_false(wc->recv);
	}
	/* WRITEs: in place, byte for byte, and nothing beyond */
	for (i = 0; i < NWRITE; i++) {
		check(dst[i], wlen[i], 100 + i);
		for (j = wlen[i]; j < sizeof(dst[i]); j++)
			assert_int_equal(dst[i][j], 0);
		wc = find_wc(&l.s[0], i);
		assert_non_null(wc);
		assert_int_equal(wc->byte_len, wlen[i]);
	}
	/* SENDs: each receive buffer holds its message; immediates where sent */
	for (i = 0; i < NSEND; i++) {
		wc = find_wc(&l.s[1], 5000 + i);
		assert_non_null(wc);
		assert_true(wc->recv);
		assert_int_equal(wc->status, SMR_WC_SUCCESS);
		assert_int_equal(wc->byte_len, slen[i]);
		assert_int_equal(wc->opcode, i % 3 ? SMR_OP_RECV : SMR_OP_RECV_IMM);
		if (!(i % 3))
			assert_int_equal(wc->imm_data, 0xabc000 + i);
		check(rbuf[i], slen[i], 300 + i);
	}
	/* the WRITE_IMM consumed the next receive WQE, which reports it and its immediate */
	wc = find_wc(&l.s[1], 5000 + NSEND);
	assert_non_null(wc);
	assert_int_equal(wc->opcode, SMR_OP_RECV_WRITE_IMM);
	assert_int_equal(wc->imm_data, 0xfeed);
	assert_int_equal(wc->byte_len, wlen[NWRITE - 1]);
	assert_int_equal(find_wc(&l.s[0], NWRITE - 1)->opcode, SMR_OP_WRITE_IMM);
	/* READs: what B's region held */
	for (i = 0; i < NREAD; i++) {
		assert_memory_equal(rdbuf[i], src + i * sizeof(rdbuf[i]), sizeof(rdbuf[i]));
		assert_int_equal(find_wc(&l.s[0], 2000 + i)->opcode, SMR_OP_READ);
	}
	/* FETCH_ADDs: each performed once, in posting order (one stream) */
	assert_true(ctr[0] == sum);
	for (i = 0; i < NFADD; i++)
		assert_true(fres[i] == (uint64_t)i * (i + 1) / 2);
	assert_true(cres[0] == 0 && cres[1] == 0x5555 && ctr[1] == 0x5555);
	link_free(&l);
}

static void test_ops_clean(void **state)
{
	(void)state;
	run_mix(1, 0, 0);
}

static void test_ops_lossy_reordering(void **state)
{
	(void)state;
	run_mix(2, 30000, 4 * US);	/* 3% loss both ways, 4 us of jitter */
}

static void test_ops_heavy_loss(void **state)
{
	(void)state;
	run_mix(3, 100000, 8 * US);	/* 10% */
}

/* ------------------------------------------------------------------------------------ */

static bool a_has_one(struct link *l)
{
	return l->s[0].nwc >= 1;
}

/* One operation from A against B's region; returns A's completion status. */
static enum smr_wc_status one_op(enum smr_opcode op, uint64_t va, uint32_t len,
				 unsigned int access, bool bad_rkey, struct link *l)
{
	static uint8_t region[4096], local[4096];
	struct smr_send_wr wr;
	uint32_t rkey;

	link_init(l, 4, 0, 0, 7);
	assert_int_equal(smr_reg_mr(l->s[1].ep, region, 0x1000, sizeof(region), access, &rkey),
			 0);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 42;
	wr.opcode = op;
	wr.local = local;
	wr.length = len;
	wr.remote_addr = va;
	wr.rkey = bad_rkey ? rkey ^ 0x100 : rkey;
	assert_int_equal(smr_post_send(l->s[0].ep, &wr), 0);
	pump(l, a_has_one, 1000 * 1000 * US);
	assert_int_equal(l->s[0].nwc, 1);
	assert_int_equal(l->s[0].wc[0].wr_id, 42);
	return l->s[0].wc[0].status;
}

static void test_remote_access_checked(void **state)
{
	static struct link l;
	struct smr_stats st;

	(void)state;
	/* all allowed: success */
	assert_int_equal(one_op(SMR_OP_WRITE, 0x1000, 4096, SMR_ACCESS_REMOTE_WRITE, false, &l),
			 SMR_WC_SUCCESS);
	link_free(&l);
	/* a stale or foreign rkey */
	assert_int_equal(one_op(SMR_OP_WRITE, 0x1000, 100, SMR_ACCESS_REMOTE_WRITE, true, &l),
			 SMR_WC_REM_ACCESS);
	smr_get_stats(l.s[1].ep, &st);
	assert_true(st.rx_refused >= 1);
	assert_true(smr_failed(l.s[1].ep));
	link_free(&l);
	/* one byte past the end of the region */
	assert_int_equal(one_op(SMR_OP_WRITE, 0x1001, 4096, SMR_ACCESS_REMOTE_WRITE, false, &l),
			 SMR_WC_REM_ACCESS);
	link_free(&l);
	/* below its start */
	assert_int_equal(one_op(SMR_OP_READ, 0xfff, 16, SMR_ACCESS_REMOTE_READ, false, &l),
			 SMR_WC_REM_ACCESS);
	link_free(&l);
	/* a READ of a region registered for WRITE only, and the reverse */
	assert_int_equal(one_op(SMR_OP_READ, 0x1000, 16, SMR_ACCESS_REMOTE_WRITE, false, &l),
			 SMR_WC_REM_ACCESS);
	link_free(&l);
	assert_int_equal(one_op(SMR_OP_WRITE, 0x1000, 16, SMR_ACCESS_REMOTE_READ, false, &l),
			 SMR_WC_REM_ACCESS);
	link_free(&l);
	/* an atomic needs the atomic permission */
	assert_int_equal(one_op(SMR_OP_FETCH_ADD, 0x1000, 8, SMR_ACCESS_REMOTE_WRITE |
				SMR_ACCESS_REMOTE_READ, false, &l), SMR_WC_REM_ACCESS);
	link_free(&l);
	assert_int_equal(one_op(SMR_OP_FETCH_ADD, 0x1ff8, 8, SMR_ACCESS_REMOTE_ATOMIC, false,
				&l), SMR_WC_SUCCESS);
	link_free(&l);
}

static bool b_has_one(struct link *l)
{
	return l->s[0].nwc >= 1 && l->s[1].nwc >= 1;
}

/*
 * A SEND before the receiver has a buffer: refused with RNR, retried after the delay,
 * and placed once the buffer is posted. A SEND_INV then revokes a region: a WRITE with
 * its rkey afterwards is refused.
 */
static void test_rnr_and_send_invalidate(void **state)
{
	static struct link l;
	uint8_t msg[1500], rbuf[2000], region[64];
	struct smr_send_wr wr;
	struct smr_stats st;
	uint32_t rkey;

	(void)state;
	link_init(&l, 5, 0, 0, 7);
	fill(msg, sizeof(msg), 7);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = SMR_OP_SEND;
	wr.local = msg;
	wr.length = sizeof(msg);
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	pump(&l, b_has_one, 200 * US);
	assert_int_equal(l.s[0].nwc, 0);
	smr_get_stats(l.s[1].ep, &st);
	assert_true(st.rx_refused >= 2);	/* refused, retried, refused again */
	assert_int_equal(smr_post_recv(l.s[1].ep, 77, rbuf, sizeof(rbuf)), 0);
	pump(&l, b_has_one, 10000 * US);
	assert_int_equal(l.s[0].wc[0].status, SMR_WC_SUCCESS);
	assert_int_equal(l.s[1].wc[0].wr_id, 77);
	assert_int_equal(l.s[1].wc[0].byte_len, sizeof(msg));
	check(rbuf, sizeof(msg), 7);

	/* SEND_INV of B's region, then a WRITE to it */
	assert_int_equal(smr_reg_mr(l.s[1].ep, region, 0, sizeof(region),
				    SMR_ACCESS_REMOTE_WRITE, &rkey), 0);
	assert_int_equal(smr_post_recv(l.s[1].ep, 78, rbuf, sizeof(rbuf)), 0);
	l.s[0].nwc = 0;
	l.s[1].nwc = 0;
	wr.wr_id = 2;
	wr.opcode = SMR_OP_SEND_INV;
	wr.invalidate_rkey = rkey;
	wr.length = 10;
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	pump(&l, b_has_one, 10000 * US);
	assert_int_equal(l.s[1].wc[0].opcode, SMR_OP_RECV_INV);
	assert_int_equal(l.s[1].wc[0].invalidated, rkey);
	assert_int_equal(smr_dereg_mr(l.s[1].ep, rkey), -ENOENT);
	l.s[0].nwc = 0;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = SMR_OP_WRITE;
	wr.local = msg;
	wr.length = 8;
	wr.rkey = rkey;
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	pump(&l, a_has_one, 10000 * US);
	assert_int_equal(l.s[0].wc[0].status, SMR_WC_REM_ACCESS);
	link_free(&l);
}

static bool a_has_two(struct link *l)
{
	return l->s[0].nwc >= 2;
}

/*
 * A READ or atomic waits behind a SEND that meets no receive buffer (RNR); meanwhile B
 * deregisters the region it was accepted for. When it finally executes, B refuses it:
 * A's WQE ends in a remote access error, not in zeros taken for data.
 */
static void memory_gone_before_execution(enum smr_opcode op, uint32_t len)
{
	static struct link l;
	uint8_t msg[100], rbuf[200], local[6000];
	static uint8_t region[8192];
	struct smr_send_wr wr;
	uint32_t rkey;

	link_init(&l, 9, 0, 0, 7);
	fill(region, sizeof(region), 3);
	assert_int_equal(smr_reg_mr(l.s[1].ep, region, 0x1000, sizeof(region),
				    SMR_ACCESS_REMOTE_READ | SMR_ACCESS_REMOTE_ATOMIC, &rkey), 0);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = SMR_OP_SEND;
	wr.local = msg;
	wr.length = sizeof(msg);
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	wr.wr_id = 2;
	wr.opcode = op;
	wr.local = local;
	wr.length = len;
	wr.remote_addr = 0x1000;
	wr.rkey = rkey;
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	pump(&l, a_has_one, 200 * US);
	assert_int_equal(l.s[0].nwc, 0);
	assert_false(smr_failed(l.s[1].ep));

	assert_int_equal(smr_dereg_mr(l.s[1].ep, rkey), 0);
	assert_int_equal(smr_post_recv(l.s[1].ep, 77, rbuf, sizeof(rbuf)), 0);
	pump(&l, a_has_two, 10000 * US);
	assert_int_equal(l.s[0].nwc, 2);
	assert_int_equal(l.s[0].wc[0].wr_id, 1);
	assert_int_equal(l.s[0].wc[0].status, SMR_WC_SUCCESS);
	assert_int_equal(l.s[0].wc[1].wr_id, 2);
	assert_int_equal(l.s[0].wc[1].status, SMR_WC_REM_ACCESS);
	assert_true(smr_failed(l.s[1].ep));
	check(region, sizeof(region), 3);	/* the atomic did not run */
	link_free(&l);
}

static void test_memory_gone_before_execution(void **state)
{
	(void)state;
	memory_gone_before_execution(SMR_OP_READ, 6000);
	memory_gone_before_execution(SMR_OP_FETCH_ADD, 8);
}

static void test_api_checks(void **state)
{
	static struct link l;
	struct smr_cfg bad = { .mtu = 1024, .n_paths = 1, .peer_paths = 1, .n_streams = 0 };
	uint8_t buf[8];
	struct smr_send_wr wr;
	uint32_t rkey, i;

	(void)state;
	assert_null(smr_ep_create(&bad));
	bad.n_streams = 1;
	bad.mtu = 100;	/* below the core's minimum */
	assert_null(smr_ep_create(&bad));
	link_init(&l, 6, 0, 0, 7);
	assert_int_equal(smr_reg_mr(l.s[0].ep, buf, 0, 8, 0x80, &rkey), -EINVAL);
	assert_int_equal(smr_reg_mr(l.s[0].ep, buf, UINT64_MAX, 8, 0, &rkey), -EINVAL);
	for (i = 0; i < SMR_MAX_MR; i++)
		assert_int_equal(smr_reg_mr(l.s[0].ep, buf, 0, 8, 0, &rkey), 0);
	assert_int_equal(smr_reg_mr(l.s[0].ep, buf, 0, 8, 0, &rkey), -ENOSPC);
	assert_int_equal(smr_dereg_mr(l.s[0].ep, rkey), 0);
	assert_int_equal(smr_dereg_mr(l.s[0].ep, rkey), -ENOENT);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = SMR_OP_RECV;
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), -EOPNOTSUPP);
	wr.opcode = SMR_OP_SEND;
	wr.length = 8;
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), -EINVAL);	/* no buffer */
	wr.opcode = SMR_OP_FETCH_ADD;
	wr.local = buf;
	wr.length = 4;
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), -EINVAL);	/* not 8 bytes */
	/* the send queue holds SMR_SQ_DEPTH WQEs */
	wr.opcode = SMR_OP_SEND;
	for (i = 0; i < SMR_SQ_DEPTH; i++)
		assert_int_equal(smr_post_send(l.s[0].ep, &wr), 0);
	assert_int_equal(smr_post_send(l.s[0].ep, &wr), -ENOSPC);
	for (i = 0; i < SMR_RQ_DEPTH; i++)
		assert_int_equal(smr_post_recv(l.s[1].ep, i, buf, 8), 0);
	assert_int_equal(smr_post_recv(l.s[1].ep, i, buf, 8), -ENOSPC);
	link_free(&l);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_ops_clean),
	cmocka_unit_test(test_ops_lossy_reordering),
	cmocka_unit_test(test_ops_heavy_loss),
	cmocka_unit_test(test_remote_access_checked),
	cmocka_unit_test(test_rnr_and_send_invalidate),
	cmocka_unit_test(test_memory_gone_before_execution),
	cmocka_unit_test(test_api_checks),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
