// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE packet codec. Fields are read and written at fixed byte offsets with unaligned
 * big-endian accessors (platform.h): a UDP payload has no useful alignment, and wire structures are
 * never overlaid on packet memory.
 */
#include "pkt.h"

#define OPI_DATA	0x01	/* sequenced, has a message extension */
#define OPI_PAYLOAD	0x02	/* may carry payload */
#define OPI_SE		0x04	/* may carry MR_F_SE */
#define OPI_UD		0x08	/* datagram: unsequenced, one packet per message */
#define OPI_UC		0x10	/* may carry MR_F_UC */
#define OPI_SQ		0x20	/* of a send-queue message, not a response: may carry MR_F_LONE */
#define OPI_REQ		(OPI_DATA | OPI_SQ)	/* a request: SEND*, WRITE*, READ_REQ, atomics */

struct mr_opinfo {
	u8	hdrlen;
	u8	flags;
};

static const struct mr_opinfo mr_opinfo[] = {
	[MR_OP_SEND]		= { MR_HDR_SEND, OPI_REQ | OPI_PAYLOAD | OPI_SE | OPI_UC },
	[MR_OP_SEND_IMM]	= { MR_HDR_SEND, OPI_REQ | OPI_PAYLOAD | OPI_SE | OPI_UC },
	[MR_OP_SEND_INV]	= { MR_HDR_SEND, OPI_REQ | OPI_PAYLOAD | OPI_SE },
	[MR_OP_WRITE]		= { MR_HDR_WRITE, OPI_REQ | OPI_PAYLOAD | OPI_UC },
	[MR_OP_WRITE_IMM]	= { MR_HDR_WRITE, OPI_REQ | OPI_PAYLOAD | OPI_SE | OPI_UC },
	[MR_OP_READ_REQ]	= { MR_HDR_READ_REQ, OPI_REQ },
	[MR_OP_READ_RESP]	= { MR_HDR_READ_RESP, OPI_DATA | OPI_PAYLOAD },
	[MR_OP_CMP_SWAP]	= { MR_HDR_ATOMIC, OPI_REQ },
	[MR_OP_FETCH_ADD]	= { MR_HDR_ATOMIC, OPI_REQ },
	[MR_OP_ATOMIC_RESP]	= { MR_HDR_ATOMIC_RESP, OPI_DATA },
	[MR_OP_ATOMIC_WRITE]	= { MR_HDR_ATOMIC, OPI_REQ },
	[MR_OP_ACK]		= { MR_HDR_ACK, 0 },
	[MR_OP_NAK]		= { MR_HDR_NAK, 0 },
	[MR_OP_UD_SEND]		= { MR_HDR_UD, OPI_UD | OPI_PAYLOAD | OPI_SE },
	[MR_OP_UD_SEND_IMM]	= { MR_HDR_UD, OPI_UD | OPI_PAYLOAD | OPI_SE },
};

static const struct mr_opinfo *mr_opinfo_get(u8 opcode)
{
	if (opcode >= ARRAY_SIZE(mr_opinfo) || !mr_opinfo[opcode].hdrlen)
		return NULL;
	return &mr_opinfo[opcode];
}

u16 mr_pkt_hdrlen(u8 opcode)
{
	const struct mr_opinfo *oi = mr_opinfo_get(opcode);

	return oi ? oi->hdrlen : 0;
}

bool mr_op_is_data(u8 opcode)
{
	const struct mr_opinfo *oi = mr_opinfo_get(opcode);

	return oi && (oi->flags & OPI_DATA);
}

bool mr_op_from_sq(u8 opcode)
{
	const struct mr_opinfo *oi = mr_opinfo_get(opcode);

	return oi && (oi->flags & OPI_SQ);
}

bool mr_op_is_datagram(u8 opcode)
{
	const struct mr_opinfo *oi = mr_opinfo_get(opcode);

	return oi && (oi->flags & OPI_UD);
}

u32 mr_pkt_icrc(const void *buf, u32 len)
{
	return ~mr_crc32c(~0U, buf, len);
}

void mr_pkt_icrc_put(void *buf, u32 len)
{
	mr_put_be32(mr_pkt_icrc(buf, len), (u8 *)buf + len);
}

bool mr_pkt_icrc_ok(const void *buf, u32 len)
{
	if (len < MR_ICRC_LEN)
		return false;
	len -= MR_ICRC_LEN;
	return mr_pkt_icrc(buf, len) == mr_get_be32((const u8 *)buf + len);
}

/* The message extension, common to every data packet. */
static enum mr_perr mr_decode_meth(const u8 *b, struct mr_pkt *pkt, const struct mr_opinfo *oi)
{
	pkt->msn = mr_get_be32(b + MR_OFF_METH);
	pkt->moff = mr_get_be32(b + MR_OFF_METH + 4);
	pkt->mlen = mr_get_be32(b + MR_OFF_METH + 8);

	if (pkt->mlen > MR_MAX_MSG_LEN)
		return MR_PERR_MSG;
	if ((u64)pkt->moff + pkt->paylen > pkt->mlen)
		return MR_PERR_MSG;
	/* Only a zero-length message has an empty packet. */
	if ((oi->flags & OPI_PAYLOAD) && !pkt->paylen && pkt->mlen)
		return MR_PERR_MSG;
	return MR_PERR_OK;
}

static enum mr_perr mr_decode_atomic_meth(const struct mr_pkt *pkt)
{
	if (pkt->moff || pkt->mlen != 8)
		return MR_PERR_MSG;
	return MR_PERR_OK;
}

static enum mr_perr mr_decode_ack(const u8 *b, struct mr_pkt_ack *ack)
{
	const u8 *e = b + MR_BTH_LEN;
	unsigned int i;

	ack->cack = mr_get_be32(e);
	ack->echo_psn = mr_get_be32(e + 4);
	ack->echo_path = e[8];
	ack->echo_flags = e[9];
	ack->ack_delay = mr_get_be16(e + 10);
	ack->ce_cnt = mr_get_be16(e + 12);
	ack->rx_cnt = mr_get_be16(e + 14);
	ack->rate_hint = mr_get_be32(e + 16);
	ack->rx_seg = mr_get_be16(e + 20);
	for (i = 0; i < MR_SACK_WORDS; i++)
		ack->sack[i] = mr_get_be64(e + 24 + 8 * i);

	if (mr_get_be16(e + 22))
		return MR_PERR_RSVD;
	if (ack->echo_path >= MR_MAX_PATHS || (ack->echo_flags & ~MR_ECHO_KNOWN))
		return MR_PERR_ACK;
	if (ack->rx_seg && !mr_seg_valid(ack->rx_seg))
		return MR_PERR_ACK;
	/* Bit 0 is cack itself, which by definition has not arrived. */
	if (ack->sack[0] & 1)
		return MR_PERR_ACK;
	return MR_PERR_OK;
}

static enum mr_perr mr_decode_nak(const u8 *b, struct mr_pkt_nak *nak)
{
	const u8 *e = b + MR_BTH_LEN;

	nak->cack = mr_get_be32(e);
	nak->nak_psn = mr_get_be32(e + 4);
	nak->syndrome = e[8];
	nak->rnr_delay = mr_get_be16(e + 10);

	if (e[9] || mr_get_be32(e + 12))
		return MR_PERR_RSVD;
	if (nak->syndrome < MR_NAK_RNR || nak->syndrome > MR_NAK_REM_OP)
		return MR_PERR_NAK;
	if (nak->syndrome != MR_NAK_RNR && nak->rnr_delay)
		return MR_PERR_NAK;
	return MR_PERR_OK;
}

/* Opcode extensions after the message extension. */
static enum mr_perr mr_decode_ext(const u8 *b, struct mr_pkt *pkt)
{
	const u8 *e = b + MR_OFF_EXT;

	switch (pkt->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		pkt->send.rmsn = mr_get_be32(e);
		pkt->send.imm_inv = mr_get_be32(e + 4);
		if (pkt->opcode == MR_OP_SEND && pkt->send.imm_inv)
			return MR_PERR_RSVD;
		return MR_PERR_OK;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		pkt->write.va = mr_get_be64(e);
		pkt->write.rkey = mr_get_be32(e + 8);
		pkt->write.rmsn = mr_get_be32(e + 12);
		pkt->write.imm = mr_get_be32(e + 16);
		if (mr_get_be32(e + 20))
			return MR_PERR_RSVD;
		if (pkt->opcode == MR_OP_WRITE && (pkt->write.rmsn || pkt->write.imm))
			return MR_PERR_RSVD;
		return MR_PERR_OK;
	case MR_OP_READ_REQ:
		/* Version 1 requests a read whole; moff is for later range re-requests. */
		if (pkt->moff)
			return MR_PERR_MSG;
		pkt->rreq.va = mr_get_be64(e);
		pkt->rreq.rkey = mr_get_be32(e + 8);
		if (mr_get_be32(e + 12))
			return MR_PERR_RSVD;
		return MR_PERR_OK;
	case MR_OP_READ_RESP:
		return MR_PERR_OK;
	case MR_OP_CMP_SWAP:
	case MR_OP_FETCH_ADD:
	case MR_OP_ATOMIC_WRITE:
		if (mr_decode_atomic_meth(pkt))
			return MR_PERR_MSG;
		pkt->atomic.va = mr_get_be64(e);
		pkt->atomic.rkey = mr_get_be32(e + 8);
		pkt->atomic.swap_add = mr_get_be64(e + 16);
		pkt->atomic.compare = mr_get_be64(e + 24);
		if (mr_get_be32(e + 12))
			return MR_PERR_RSVD;
		if (pkt->opcode != MR_OP_CMP_SWAP && pkt->atomic.compare)
			return MR_PERR_RSVD;
		if (pkt->atomic.va & 7)
			return MR_PERR_ALIGN;
		return MR_PERR_OK;
	case MR_OP_ATOMIC_RESP:
		if (mr_decode_atomic_meth(pkt))
			return MR_PERR_MSG;
		pkt->orig = mr_get_be64(e);
		return MR_PERR_OK;
	default:
		/* mr_pkt_decode() only calls this for data opcodes */
		return MR_PERR_OPCODE;
	}
}

enum mr_perr mr_pkt_decode(const void *buf, u32 len, struct mr_pkt *pkt)
{
	const struct mr_opinfo *oi;
	const u8 *b = buf;
	enum mr_perr err;

	memset(pkt, 0, sizeof(*pkt));
	if (len < MR_BTH_LEN + MR_ICRC_LEN)
		return MR_PERR_SHORT;
	if (b[0] != MR_WIRE_VERSION)
		return MR_PERR_VERSION;

	pkt->opcode = b[1];
	oi = mr_opinfo_get(pkt->opcode);
	if (!oi)
		return MR_PERR_OPCODE;

	pkt->flags = mr_get_be16(b + 2);
	if (pkt->flags & ~MR_F_KNOWN)
		return MR_PERR_FLAGS;
	if ((pkt->flags & MR_F_SE) && !(oi->flags & OPI_SE))
		return MR_PERR_FLAGS;
	if ((pkt->flags & MR_F_LONE) && !(oi->flags & OPI_SQ))
		return MR_PERR_FLAGS;
	/* UC carries SEND, SEND_IMM, WRITE and WRITE_IMM, first sends only. */
	if ((pkt->flags & MR_F_UC) &&
	    (!(oi->flags & OPI_UC) || (pkt->flags & (MR_F_RETX | MR_F_DISN))))
		return MR_PERR_FLAGS;
	/*
	 * ACK, NAK and datagrams are not sequenced: neither ack-request,
	 * retransmission nor a derived initial PSN applies.
	 */
	if (!(oi->flags & OPI_DATA) && (pkt->flags & ~MR_F_SE))
		return MR_PERR_FLAGS;

	pkt->dqpn = mr_get_be32(b + 4);
	pkt->seg = pkt->dqpn >> MR_SEG_SHIFT;
	pkt->dqpn &= MR_QPN_MASK;
	pkt->ctok = mr_get_be32(b + 8);
	pkt->psn = mr_get_be32(b + 12);
	pkt->stream = b[16];
	pkt->path = b[17];
	pkt->paylen = mr_get_be16(b + 18);
	pkt->hdrlen = oi->hdrlen;

	if (len < (u32)oi->hdrlen + MR_ICRC_LEN)
		return MR_PERR_TRUNC;
	if (pkt->paylen != len - oi->hdrlen - MR_ICRC_LEN)
		return MR_PERR_LENGTH;
	if (pkt->paylen > MR_MAX_PAYLOAD || (pkt->paylen && !(oi->flags & OPI_PAYLOAD)))
		return MR_PERR_PAYLEN;
	if (pkt->stream >= MR_MAX_STREAMS || (pkt->stream && !(oi->flags & OPI_DATA)))
		return MR_PERR_STREAM;
	if (pkt->path >= MR_MAX_PATHS)
		return MR_PERR_PATH;

	if (!(oi->flags & OPI_DATA)) {
		if (pkt->psn)
			return MR_PERR_PSN;
		/* Only data packets are cut into segments. */
		if (pkt->seg)
			return MR_PERR_RSVD;
	}
	if (pkt->opcode == MR_OP_ACK)
		return mr_decode_ack(b, &pkt->ack);
	if (pkt->opcode == MR_OP_NAK)
		return mr_decode_nak(b, &pkt->nak);
	if (oi->flags & OPI_UD) {
		pkt->ud.sqpn = mr_get_be32(b + MR_BTH_LEN);
		pkt->ud.imm = mr_get_be32(b + MR_BTH_LEN + 4);
		if (pkt->ud.sqpn & ~MR_QPN_MASK)
			return MR_PERR_QPN;
		if (pkt->opcode == MR_OP_UD_SEND && pkt->ud.imm)
			return MR_PERR_RSVD;
		return MR_PERR_OK;
	}

	if (pkt->seg && pkt->seg < MR_SEG_MIN / MR_SEG_UNIT)
		return MR_PERR_PAYLEN;
	err = mr_decode_meth(b, pkt, oi);
	if (err)
		return err;
	return mr_decode_ext(b, pkt);
}

static void mr_encode_ext(const struct mr_pkt *pkt, u8 *b)
{
	u8 *e = b + MR_OFF_EXT;
	unsigned int i;

	switch (pkt->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		mr_put_be32(pkt->send.rmsn, e);
		mr_put_be32(pkt->send.imm_inv, e + 4);
		break;
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		mr_put_be64(pkt->write.va, e);
		mr_put_be32(pkt->write.rkey, e + 8);
		mr_put_be32(pkt->write.rmsn, e + 12);
		mr_put_be32(pkt->write.imm, e + 16);
		mr_put_be32(0, e + 20);
		break;
	case MR_OP_READ_REQ:
		mr_put_be64(pkt->rreq.va, e);
		mr_put_be32(pkt->rreq.rkey, e + 8);
		mr_put_be32(0, e + 12);
		break;
	case MR_OP_CMP_SWAP:
	case MR_OP_FETCH_ADD:
	case MR_OP_ATOMIC_WRITE:
		mr_put_be64(pkt->atomic.va, e);
		mr_put_be32(pkt->atomic.rkey, e + 8);
		mr_put_be32(0, e + 12);
		mr_put_be64(pkt->atomic.swap_add, e + 16);
		mr_put_be64(pkt->atomic.compare, e + 24);
		break;
	case MR_OP_ATOMIC_RESP:
		mr_put_be64(pkt->orig, e);
		break;
	case MR_OP_ACK:
		e = b + MR_BTH_LEN;
		mr_put_be32(pkt->ack.cack, e);
		mr_put_be32(pkt->ack.echo_psn, e + 4);
		e[8] = pkt->ack.echo_path;
		e[9] = pkt->ack.echo_flags;
		mr_put_be16(pkt->ack.ack_delay, e + 10);
		mr_put_be16(pkt->ack.ce_cnt, e + 12);
		mr_put_be16(pkt->ack.rx_cnt, e + 14);
		mr_put_be32(pkt->ack.rate_hint, e + 16);
		mr_put_be16(pkt->ack.rx_seg, e + 20);
		mr_put_be16(0, e + 22);
		for (i = 0; i < MR_SACK_WORDS; i++)
			mr_put_be64(pkt->ack.sack[i], e + 24 + 8 * i);
		break;
	case MR_OP_UD_SEND:
	case MR_OP_UD_SEND_IMM:
		mr_put_be32(pkt->ud.sqpn & MR_QPN_MASK, b + MR_BTH_LEN);
		mr_put_be32(pkt->ud.imm, b + MR_BTH_LEN + 4);
		break;
	case MR_OP_NAK:
		e = b + MR_BTH_LEN;
		mr_put_be32(pkt->nak.cack, e);
		mr_put_be32(pkt->nak.nak_psn, e + 4);
		e[8] = pkt->nak.syndrome;
		e[9] = 0;
		mr_put_be16(pkt->nak.rnr_delay, e + 10);
		mr_put_be32(0, e + 12);
		break;
	default: /* READ_RESP has no extension beyond METH */
		break;
	}
}

u32 mr_pkt_encode(const struct mr_pkt *pkt, void *buf, u32 cap)
{
	const struct mr_opinfo *oi = mr_opinfo_get(pkt->opcode);
	u8 *b = buf;

	if (!oi || cap < oi->hdrlen)
		return 0;

	b[0] = MR_WIRE_VERSION;
	b[1] = pkt->opcode;
	mr_put_be16(pkt->flags, b + 2);
	mr_put_be32((pkt->dqpn & MR_QPN_MASK) |
		    (oi->flags & OPI_DATA ? (u32)pkt->seg << MR_SEG_SHIFT : 0), b + 4);
	mr_put_be32(pkt->ctok, b + 8);
	mr_put_be32(pkt->psn, b + 12);
	b[16] = pkt->stream;
	b[17] = pkt->path;
	mr_put_be16(pkt->paylen, b + 18);
	if (oi->flags & OPI_DATA) {
		mr_put_be32(pkt->msn, b + MR_OFF_METH);
		mr_put_be32(pkt->moff, b + MR_OFF_METH + 4);
		mr_put_be32(pkt->mlen, b + MR_OFF_METH + 8);
	}
	mr_encode_ext(pkt, b);
	return oi->hdrlen;
}

static const char * const mr_perr_names[MR_PERR_NUM] = {
	[MR_PERR_OK]		= "ok",
	[MR_PERR_SHORT]		= "short",
	[MR_PERR_ICRC]		= "icrc",
	[MR_PERR_VERSION]	= "version",
	[MR_PERR_OPCODE]	= "opcode",
	[MR_PERR_FLAGS]		= "flags",
	[MR_PERR_QPN]		= "qpn",
	[MR_PERR_TRUNC]		= "truncated",
	[MR_PERR_LENGTH]	= "length",
	[MR_PERR_PAYLEN]	= "paylen",
	[MR_PERR_STREAM]	= "stream",
	[MR_PERR_PATH]		= "path",
	[MR_PERR_PSN]		= "psn",
	[MR_PERR_MSG]		= "msg",
	[MR_PERR_ALIGN]		= "align",
	[MR_PERR_RSVD]		= "reserved",
	[MR_PERR_ACK]		= "ack",
	[MR_PERR_NAK]		= "nak",
};

const char *mr_perr_name(enum mr_perr err)
{
	if ((unsigned int)err >= MR_PERR_NUM)
		return "unknown";
	return mr_perr_names[err];
}
