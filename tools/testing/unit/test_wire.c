// SPDX-License-Identifier: GPL-2.0
/*
 * Packet codec: round trips of every opcode, the ICRC, and rejection of every kind of
 * malformed packet with the error the specification names.
 */
#include "unit.h"
#include "pkt.h"

static const u8 all_ops[] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE, MR_OP_WRITE_IMM,
	MR_OP_READ_REQ, MR_OP_READ_RESP, MR_OP_CMP_SWAP, MR_OP_FETCH_ADD,
	MR_OP_ATOMIC_RESP, MR_OP_ATOMIC_WRITE, MR_OP_ACK, MR_OP_NAK, MR_OP_UD_SEND,
	MR_OP_UD_SEND_IMM,
};

static bool has_payload(u8 op)
{
	return op <= MR_OP_WRITE_IMM || op == MR_OP_READ_RESP || op == MR_OP_UD_SEND ||
	       op == MR_OP_UD_SEND_IMM;
}

/* A valid packet of opcode op; payload-carrying opcodes get 100 bytes. */
static void valid_pkt(u8 op, struct mr_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->dqpn = 0x123456;
	p->ctok = 0xdeadbeef;
	p->path = 63;
	if (op == MR_OP_ACK) {
		p->ack.cack = 0xfffffff0;
		p->ack.echo_psn = 0xfffffff5;
		p->ack.echo_path = 7;
		p->ack.echo_flags = MR_ECHO_CE | MR_ECHO_RETX;
		p->ack.ack_delay = 3;
		p->ack.ce_cnt = 65535;
		p->ack.rx_cnt = 2;
		p->ack.rate_hint = 100000;
		p->ack.rx_seg = 1376;
		p->ack.sack[0] = 0x8000000000000002ULL;
		p->ack.sack[3] = 0x8000000000000000ULL;	/* bit 255: the window's far edge */
		return;
	}
	if (op == MR_OP_NAK) {
		p->nak.cack = 5;
		p->nak.nak_psn = 9;
		p->nak.syndrome = MR_NAK_RNR;
		p->nak.rnr_delay = 100;
		return;
	}
	if (op == MR_OP_UD_SEND || op == MR_OP_UD_SEND_IMM) {
		p->flags = MR_F_SE;
		p->ctok = 0x80010000;	/* the Q_Key of QP1 */
		p->paylen = 256;
		p->ud.sqpn = 0xffffff;
		if (op == MR_OP_UD_SEND_IMM)
			p->ud.imm = 0xfeedf00d;
		return;
	}
	p->flags = MR_F_AR;
	p->seg = 1376 / MR_SEG_UNIT;	/* a 1500-byte link's segment */
	p->psn = 0xffffffff;
	p->stream = 15;
	p->msn = 0x80000001;
	if (has_payload(op)) {
		p->paylen = 100;
		p->moff = 4096;
		p->mlen = 4196;
	}
	switch (op) {
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		p->send.imm_inv = 0xcafe;
		fallthrough;
	case MR_OP_SEND:
		p->send.rmsn = 77;
		p->flags |= MR_F_SE;
		break;
	case MR_OP_WRITE_IMM:
		p->write.rmsn = 3;
		p->write.imm = 0x01020304;
		fallthrough;
	case MR_OP_WRITE:
		p->write.va = 0x7fff000011112222ULL;
		p->write.rkey = 0xabcdef01;
		break;
	case MR_OP_READ_REQ:
		p->mlen = 1 << 20;
		p->rreq.va = 0x1000;
		p->rreq.rkey = 42;
		break;
	case MR_OP_CMP_SWAP:
		p->atomic.compare = 0x1111;
		fallthrough;
	case MR_OP_FETCH_ADD:
	case MR_OP_ATOMIC_WRITE:
		p->mlen = 8;
		p->atomic.va = 0x2008;
		p->atomic.rkey = 43;
		p->atomic.swap_add = 0xffffffffffffffffULL;
		break;
	case MR_OP_ATOMIC_RESP:
		p->mlen = 8;
		p->orig = 0x0123456789abcdefULL;
		break;
	}
}

static u8 buf[MR_HDR_MAX + MR_MAX_PAYLOAD + MR_ICRC_LEN + 16];

/* Encode p with a payload pattern and ICRC; returns the UDP payload length. */
static u32 build(const struct mr_pkt *p)
{
	u32 hl = mr_pkt_encode(p, buf, sizeof(buf));

	assert_int_not_equal(hl, 0);
	memset(buf + hl, 0x5a, p->paylen);
	mr_pkt_icrc_put(buf, hl + p->paylen);
	return hl + p->paylen + MR_ICRC_LEN;
}

/* Re-seal the ICRC after a mutation so that only the intended check fails. */
static void reseal(u32 len)
{
	mr_pkt_icrc_put(buf, len - MR_ICRC_LEN);
}

static void test_crc32c_check_value(void **state)
{
	(void)state;
	/* The CRC-32C check value, as in the specification. */
	assert_int_equal(~mr_crc32c(~0U, "123456789", 9), 0xe3069283);
}

static void test_roundtrip_all_opcodes(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(all_ops); i++) {
		struct mr_pkt in, out;
		u32 len;

		valid_pkt(all_ops[i], &in);
		len = build(&in);
		assert_true(mr_pkt_icrc_ok(buf, len));
		assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
		in.hdrlen = mr_pkt_hdrlen(in.opcode);
		assert_int_equal(out.hdrlen, in.hdrlen);
		assert_memory_equal(&in, &out, sizeof(in));
	}
}

/* DISN (bit 3) is valid on every data packet, with the other flags, and nowhere else. */
static void test_disn_flag(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(all_ops); i++) {
		struct mr_pkt in, out;
		u32 len;

		valid_pkt(all_ops[i], &in);
		in.flags |= MR_F_DISN | (mr_op_is_data(in.opcode) ? MR_F_RETX : 0);
		len = build(&in);
		if (!mr_op_is_data(in.opcode)) {
			assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_FLAGS);
			continue;
		}
		assert_int_equal(buf[2], 0);
		assert_int_equal(buf[3] & 0x0a, 0x0a);
		assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
		in.hdrlen = mr_pkt_hdrlen(in.opcode);
		assert_memory_equal(&in, &out, sizeof(in));
	}
}

/*
 * LONE (bit 5) is valid on every packet of a send-queue message, with the other
 * flags, and on no response, ACK, NAK or datagram.
 */
static void test_lone_flag(void **state)
{
	unsigned int i, accepted = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(all_ops); i++) {
		bool sq = all_ops[i] != MR_OP_READ_RESP && all_ops[i] != MR_OP_ATOMIC_RESP &&
			  mr_op_is_data(all_ops[i]);
		struct mr_pkt in, out;
		u32 len;

		valid_pkt(all_ops[i], &in);
		in.flags |= MR_F_LONE;
		len = build(&in);
		assert_int_equal(mr_op_from_sq(in.opcode), sq);
		if (!sq) {
			assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_FLAGS);
			continue;
		}
		assert_int_equal(buf[3] & 0x20, 0x20);
		assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
		in.hdrlen = mr_pkt_hdrlen(in.opcode);
		assert_memory_equal(&in, &out, sizeof(in));
		accepted++;
	}
	assert_int_equal(accepted, 9);
}

static void test_header_sizes(void **state)
{
	(void)state;
	assert_int_equal(mr_pkt_hdrlen(MR_OP_SEND), 40);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_WRITE_IMM), 56);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_READ_REQ), 48);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_READ_RESP), 32);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_CMP_SWAP), 64);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_ATOMIC_RESP), 40);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_ATOMIC_WRITE), 64);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_ACK), 76);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_NAK), 36);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_UD_SEND), 28);
	assert_int_equal(mr_pkt_hdrlen(MR_OP_UD_SEND_IMM), 28);
	assert_int_equal(mr_pkt_hdrlen(0), 0);
	assert_int_equal(mr_pkt_hdrlen(0x0c), 0);
	assert_int_equal(mr_pkt_hdrlen(0xff), 0);
}

static void test_wire_layout_bytes(void **state)
{
	struct mr_pkt p;

	(void)state;
	valid_pkt(MR_OP_WRITE, &p);
	build(&p);
	/* Big-endian fields at the documented offsets. */
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[1], MR_OP_WRITE);
	assert_int_equal(buf[4], 86);		/* seg: 1376 bytes */
	assert_int_equal(buf[5], 0x12);
	assert_int_equal(buf[7], 0x56);
	assert_int_equal(buf[8], 0xde);
	assert_int_equal(buf[12], 0xff);
	assert_int_equal(buf[16], 15);
	assert_int_equal(buf[17], 63);
	assert_int_equal(buf[19], 100);
	assert_int_equal(buf[32], 0x7f);	/* va */
	assert_int_equal(buf[39], 0x22);
	assert_int_equal(buf[40], 0xab);	/* rkey */

	/* ATOMIC_WRITE: AETH with the data where swap_add is, compare zero. */
	valid_pkt(MR_OP_ATOMIC_WRITE, &p);
	p.atomic.swap_add = 0x0102030405060708ULL;
	build(&p);
	assert_int_equal(buf[1], 0x0b);
	assert_int_equal(buf[31], 8);		/* mlen */
	assert_int_equal(buf[39], 0x08);	/* va 0x2008 */
	assert_int_equal(buf[43], 43);		/* rkey */
	assert_int_equal(buf[48], 0x01);	/* data, big-endian */
	assert_int_equal(buf[55], 0x08);
	assert_int_equal(buf[56] | buf[63], 0);	/* compare */
}

static void test_icrc_detects_every_single_bit_flip(void **state)
{
	struct mr_pkt p;
	u32 len, bit;

	(void)state;
	valid_pkt(MR_OP_SEND, &p);
	len = build(&p);
	for (bit = 0; bit < len * 8; bit++) {
		buf[bit / 8] ^= 1u << (bit % 8);
		assert_false(mr_pkt_icrc_ok(buf, len));
		buf[bit / 8] ^= 1u << (bit % 8);
	}
	assert_true(mr_pkt_icrc_ok(buf, len));
	assert_false(mr_pkt_icrc_ok(buf, 3));
}

static void test_short_and_truncated(void **state)
{
	struct mr_pkt p, out;
	unsigned int i;
	u32 len, l;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(all_ops); i++) {
		valid_pkt(all_ops[i], &p);
		len = build(&p);
		for (l = 0; l < len; l++) {
			enum mr_perr e = mr_pkt_decode(buf, l, &out);

			if (l < MR_BTH_LEN + MR_ICRC_LEN)
				assert_int_equal(e, MR_PERR_SHORT);
			else if (l < (u32)mr_pkt_hdrlen(p.opcode) + MR_ICRC_LEN)
				assert_int_equal(e, MR_PERR_TRUNC);
			else
				assert_int_equal(e, MR_PERR_LENGTH);
		}
		/* A longer datagram than paylen says is refused as well. */
		assert_int_equal(mr_pkt_decode(buf, len + 1, &out), MR_PERR_LENGTH);
	}
}

struct bad_case {
	const char *what;
	u8 op;
	u32 off;	/* byte to overwrite */
	u32 width;	/* 1, 2, 4 or 8 */
	u64 val;
	enum mr_perr want;
};

static const struct bad_case bad_cases[] = {
	{ "version 0", MR_OP_SEND, 0, 1, 0, MR_PERR_VERSION },
	{ "version 2", MR_OP_SEND, 0, 1, 2, MR_PERR_VERSION },
	{ "opcode 0", MR_OP_SEND, 1, 1, 0, MR_PERR_OPCODE },
	{ "opcode 0x0c", MR_OP_SEND, 1, 1, 0x0c, MR_PERR_OPCODE },
	{ "opcode 0x12", MR_OP_SEND, 1, 1, 0x12, MR_PERR_OPCODE },
	{ "opcode 0xff", MR_OP_SEND, 1, 1, 0xff, MR_PERR_OPCODE },
	{ "unknown flag", MR_OP_SEND, 2, 2, MR_F_AR | 0x0040, MR_PERR_FLAGS },
	{ "LONE on READ_RESP", MR_OP_READ_RESP, 2, 2, MR_F_LONE, MR_PERR_FLAGS },
	{ "LONE on ATOMIC_RESP", MR_OP_ATOMIC_RESP, 2, 2, MR_F_AR | MR_F_LONE, MR_PERR_FLAGS },
	{ "LONE on ACK", MR_OP_ACK, 2, 2, MR_F_LONE, MR_PERR_FLAGS },
	{ "LONE on UD_SEND", MR_OP_UD_SEND, 2, 2, MR_F_LONE, MR_PERR_FLAGS },
	{ "UC on READ_REQ", MR_OP_READ_REQ, 2, 2, MR_F_UC, MR_PERR_FLAGS },
	{ "UC on SEND_INV", MR_OP_SEND_INV, 2, 2, MR_F_UC, MR_PERR_FLAGS },
	{ "UC on FETCH_ADD", MR_OP_FETCH_ADD, 2, 2, MR_F_UC, MR_PERR_FLAGS },
	{ "UC with RETX", MR_OP_WRITE, 2, 2, MR_F_UC | MR_F_RETX, MR_PERR_FLAGS },
	{ "UC on ACK", MR_OP_ACK, 2, 2, MR_F_UC, MR_PERR_FLAGS },
	{ "UC on UD_SEND", MR_OP_UD_SEND, 2, 2, MR_F_UC, MR_PERR_FLAGS },
	{ "top flag", MR_OP_SEND, 2, 2, 0x8000, MR_PERR_FLAGS },
	{ "SE on WRITE", MR_OP_WRITE, 2, 2, MR_F_SE, MR_PERR_FLAGS },
	{ "SE on READ_REQ", MR_OP_READ_REQ, 2, 2, MR_F_SE, MR_PERR_FLAGS },
	{ "AR on ACK", MR_OP_ACK, 2, 2, MR_F_AR, MR_PERR_FLAGS },
	{ "RETX on NAK", MR_OP_NAK, 2, 2, MR_F_RETX, MR_PERR_FLAGS },
	{ "DISN on ACK", MR_OP_ACK, 2, 2, MR_F_DISN, MR_PERR_FLAGS },
	{ "DISN on NAK", MR_OP_NAK, 2, 2, MR_F_DISN, MR_PERR_FLAGS },
	{ "seg 1", MR_OP_SEND, 4, 1, 1, MR_PERR_PAYLEN },
	{ "seg 15", MR_OP_READ_RESP, 4, 1, 15, MR_PERR_PAYLEN },
	{ "seg in ACK", MR_OP_ACK, 4, 1, 0x80, MR_PERR_RSVD },
	{ "seg in NAK", MR_OP_NAK, 4, 1, 64, MR_PERR_RSVD },
	{ "seg in UD_SEND", MR_OP_UD_SEND, 4, 1, 86, MR_PERR_RSVD },
	{ "stream 16", MR_OP_SEND, 16, 1, 16, MR_PERR_STREAM },
	{ "stream 255", MR_OP_WRITE, 16, 1, 255, MR_PERR_STREAM },
	{ "stream in ACK", MR_OP_ACK, 16, 1, 1, MR_PERR_STREAM },
	{ "path 64", MR_OP_SEND, 17, 1, 64, MR_PERR_PATH },
	{ "path 255", MR_OP_NAK, 17, 1, 255, MR_PERR_PATH },
	{ "psn in ACK", MR_OP_ACK, 12, 4, 1, MR_PERR_PSN },
	{ "psn in NAK", MR_OP_NAK, 12, 4, 0x80000000, MR_PERR_PSN },
	{ "mlen > 2^31", MR_OP_SEND, 28, 4, 0x80000001, MR_PERR_MSG },
	{ "moff + paylen > mlen", MR_OP_SEND, 24, 4, 4097, MR_PERR_MSG },
	{ "moff wraps", MR_OP_WRITE, 24, 4, 0xffffffff, MR_PERR_MSG },
	{ "READ_REQ moff", MR_OP_READ_REQ, 24, 4, 8, MR_PERR_MSG },
	{ "atomic mlen 4", MR_OP_CMP_SWAP, 28, 4, 4, MR_PERR_MSG },
	{ "atomic moff", MR_OP_FETCH_ADD, 24, 4, 8, MR_PERR_MSG },
	{ "atomic resp mlen", MR_OP_ATOMIC_RESP, 28, 4, 16, MR_PERR_MSG },
	{ "atomic va", MR_OP_CMP_SWAP, 32, 8, 0x2004, MR_PERR_ALIGN },
	{ "atomic va odd", MR_OP_FETCH_ADD, 32, 8, 0x2001, MR_PERR_ALIGN },
	{ "SEND imm_inv", MR_OP_SEND, 36, 4, 1, MR_PERR_RSVD },
	{ "WRITE rmsn", MR_OP_WRITE, 44, 4, 1, MR_PERR_RSVD },
	{ "WRITE imm", MR_OP_WRITE, 48, 4, 1, MR_PERR_RSVD },
	{ "WETH rsvd", MR_OP_WRITE_IMM, 52, 4, 1, MR_PERR_RSVD },
	{ "RRETH rsvd", MR_OP_READ_REQ, 44, 4, 0x10000, MR_PERR_RSVD },
	{ "AETH rsvd", MR_OP_CMP_SWAP, 44, 4, 1, MR_PERR_RSVD },
	{ "FETCH_ADD compare", MR_OP_FETCH_ADD, 56, 8, 1, MR_PERR_RSVD },
	{ "ATOMIC_WRITE compare", MR_OP_ATOMIC_WRITE, 56, 8, 1, MR_PERR_RSVD },
	{ "ATOMIC_WRITE rsvd", MR_OP_ATOMIC_WRITE, 44, 4, 1, MR_PERR_RSVD },
	{ "ATOMIC_WRITE mlen 16", MR_OP_ATOMIC_WRITE, 28, 4, 16, MR_PERR_MSG },
	{ "ATOMIC_WRITE moff", MR_OP_ATOMIC_WRITE, 24, 4, 8, MR_PERR_MSG },
	{ "ATOMIC_WRITE va", MR_OP_ATOMIC_WRITE, 32, 8, 0x2004, MR_PERR_ALIGN },
	{ "SE on ATOMIC_WRITE", MR_OP_ATOMIC_WRITE, 2, 2, MR_F_SE, MR_PERR_FLAGS },
	{ "ACK rsvd", MR_OP_ACK, 42, 2, 1, MR_PERR_RSVD },
	{ "ACK rx_seg 100", MR_OP_ACK, 40, 2, 100, MR_PERR_ACK },
	{ "ACK rx_seg 1000", MR_OP_ACK, 40, 2, 1000, MR_PERR_ACK },
	{ "ACK rx_seg 4096", MR_OP_ACK, 40, 2, 4096, MR_PERR_ACK },
	{ "NAK rsvd0", MR_OP_NAK, 29, 1, 1, MR_PERR_RSVD },
	{ "NAK rsvd1", MR_OP_NAK, 32, 4, 1, MR_PERR_RSVD },
	{ "ACK sack bit 0", MR_OP_ACK, 44, 8, 0x8000000000000003ULL, MR_PERR_ACK },
	{ "ACK echo flag", MR_OP_ACK, 29, 1, 0x04, MR_PERR_ACK },
	{ "ACK echo path", MR_OP_ACK, 28, 1, 64, MR_PERR_ACK },
	{ "NAK syndrome 0", MR_OP_NAK, 28, 1, 0, MR_PERR_NAK },
	{ "NAK syndrome 5", MR_OP_NAK, 28, 1, 5, MR_PERR_NAK },
	{ "AR on UD_SEND", MR_OP_UD_SEND, 2, 2, MR_F_AR, MR_PERR_FLAGS },
	{ "RETX on UD_SEND_IMM", MR_OP_UD_SEND_IMM, 2, 2, MR_F_RETX, MR_PERR_FLAGS },
	{ "DISN on UD_SEND", MR_OP_UD_SEND, 2, 2, MR_F_SE | MR_F_DISN, MR_PERR_FLAGS },
	{ "psn in UD_SEND", MR_OP_UD_SEND, 12, 4, 1, MR_PERR_PSN },
	{ "stream in UD_SEND", MR_OP_UD_SEND, 16, 1, 1, MR_PERR_STREAM },
	{ "UD sqpn bit 24", MR_OP_UD_SEND, 20, 4, 0x01000000, MR_PERR_QPN },
	{ "UD_SEND imm", MR_OP_UD_SEND, 24, 4, 1, MR_PERR_RSVD },
	{ "opcode 0x22", MR_OP_UD_SEND, 1, 1, 0x22, MR_PERR_OPCODE },
};

static void put(u32 off, u32 width, u64 v)
{
	u32 i;

	for (i = 0; i < width; i++)
		buf[off + i] = v >> (8 * (width - 1 - i));
}

static void test_malformed_fields(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct mr_pkt p, out;
		enum mr_perr e;
		u32 len;

		valid_pkt(c->op, &p);
		len = build(&p);
		put(c->off, c->width, c->val);
		reseal(len);
		e = mr_pkt_decode(buf, len, &out);
		if (e != c->want)
			fail_msg("%s: got %s, want %s", c->what, mr_perr_name(e),
				 mr_perr_name(c->want));
	}
}

static void test_payload_rules(void **state)
{
	struct mr_pkt p, out;
	u32 len;

	(void)state;
	/* Payload on an opcode without one. */
	valid_pkt(MR_OP_READ_REQ, &p);
	p.paylen = 4;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_PAYLEN);

	valid_pkt(MR_OP_ACK, &p);
	p.paylen = 1;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_PAYLEN);

	/* ATOMIC_WRITE carries its 8 bytes in the AETH, never as payload. */
	valid_pkt(MR_OP_ATOMIC_WRITE, &p);
	p.paylen = 8;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_PAYLEN);

	/* Above 4096 bytes. */
	valid_pkt(MR_OP_SEND, &p);
	p.paylen = MR_MAX_PAYLOAD + 1;
	p.moff = 0;
	p.mlen = 1 << 20;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_PAYLEN);

	/* Exactly 4096 and exactly reaching mlen is fine. */
	p.paylen = MR_MAX_PAYLOAD;
	p.moff = (1 << 20) - MR_MAX_PAYLOAD;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);

	/* An empty packet is only valid for a zero-length message. */
	valid_pkt(MR_OP_WRITE, &p);
	p.paylen = 0;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_MSG);
	p.moff = 0;
	p.mlen = 0;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);

	/* The largest message, 2^31 bytes, last packet. */
	valid_pkt(MR_OP_READ_RESP, &p);
	p.mlen = MR_MAX_MSG_LEN;
	p.moff = MR_MAX_MSG_LEN - 100;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
}

/* seg: any of 16..255 in a data packet, 0 for the path MTU; nothing in other packets. */
static void test_seg_field(void **state)
{
	struct mr_pkt p, out;
	u32 len;

	(void)state;
	valid_pkt(MR_OP_WRITE, &p);
	p.seg = 0;
	len = build(&p);
	assert_int_equal(buf[4], 0);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
	assert_int_equal(out.seg, 0);
	assert_int_equal(out.dqpn, 0x123456);
	p.seg = MR_SEG_MIN / MR_SEG_UNIT;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
	assert_int_equal(out.seg, 16);
	p.seg = MR_SEG_MAX / MR_SEG_UNIT;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
	assert_int_equal(out.seg, 255);
	assert_int_equal(out.dqpn, 0x123456);

	/* The encoder leaves it out of packets that are not data. */
	valid_pkt(MR_OP_ACK, &p);
	p.seg = 86;
	len = build(&p);
	assert_int_equal(buf[4], 0);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);

	/* An ACK tells the largest segment its sender takes, 0 for the path MTU. */
	assert_int_equal(buf[40] << 8 | buf[41], 1376);
	assert_int_equal(out.ack.rx_seg, 1376);
	p.ack.rx_seg = MR_SEG_MAX;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
	assert_int_equal(out.ack.rx_seg, MR_SEG_MAX);
	p.ack.rx_seg = 0;
	len = build(&p);
	assert_int_equal(mr_pkt_decode(buf, len, &out), MR_PERR_OK);
	assert_int_equal(out.ack.rx_seg, 0);
}

static void test_encode_refuses(void **state)
{
	struct mr_pkt p;

	(void)state;
	valid_pkt(MR_OP_ACK, &p);
	assert_int_equal(mr_pkt_encode(&p, buf, MR_HDR_ACK - 1), 0);
	assert_int_equal(mr_pkt_encode(&p, buf, MR_HDR_ACK), MR_HDR_ACK);
	p.opcode = 0x22;
	assert_int_equal(mr_pkt_encode(&p, buf, sizeof(buf)), 0);
	assert_string_equal(mr_perr_name(MR_PERR_ICRC), "icrc");
	assert_string_equal(mr_perr_name(MR_PERR_NUM), "unknown");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_crc32c_check_value),
	cmocka_unit_test(test_roundtrip_all_opcodes),
	cmocka_unit_test(test_disn_flag),
	cmocka_unit_test(test_lone_flag),
	cmocka_unit_test(test_header_sizes),
	cmocka_unit_test(test_wire_layout_bytes),
	cmocka_unit_test(test_icrc_detects_every_single_bit_flip),
	cmocka_unit_test(test_short_and_truncated),
	cmocka_unit_test(test_malformed_fields),
	cmocka_unit_test(test_payload_rules),
	cmocka_unit_test(test_seg_field),
	cmocka_unit_test(test_encode_refuses),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
