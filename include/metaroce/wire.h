/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE wire format, version 1.
 *
 * This header is the normative layout of every MetaRoCE header; the prose is in
 * Documentation/infiniband/metaroce.rst. All multi-byte fields are big-endian. The
 * structures are never overlaid on a receive buffer: a UDP payload is not aligned, so the
 * codec (proto/pkt.c) reads and writes fields at the byte offsets below with unaligned
 * accessors. The structures exist so that the offsets and sizes are checked by
 * the compiler against one another.
 *
 * A packet is: IPv4 or IPv6, UDP (destination port MR_UDP_PORT by default), the base
 * header (struct mr_bth), the extension headers the opcode calls for, the payload, and a
 * 4-byte ICRC (CRC32C over base header, extensions and payload).
 */
#ifndef _METAROCE_WIRE_H
#define _METAROCE_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <metaroce/compat-user.h>
#endif

#define MR_WIRE_VERSION		1

/* Not an IANA assignment; chosen next to RoCEv2's 4791 and configurable per device. */
#define MR_UDP_PORT		4793

/* Opcodes (struct mr_bth.opcode). Values not listed are invalid. */
enum mr_opcode {
	MR_OP_SEND		= 0x01,
	MR_OP_SEND_IMM		= 0x02,
	MR_OP_SEND_INV		= 0x03,
	MR_OP_WRITE		= 0x04,
	MR_OP_WRITE_IMM		= 0x05,
	MR_OP_READ_REQ		= 0x06,
	MR_OP_READ_RESP		= 0x07,
	MR_OP_CMP_SWAP		= 0x08,
	MR_OP_FETCH_ADD		= 0x09,
	MR_OP_ATOMIC_RESP	= 0x0a,
	MR_OP_ATOMIC_WRITE	= 0x0b,	/* IBTA 1.5 atomic write: AETH, answered by ATOMIC_RESP */
	MR_OP_ACK		= 0x10,
	MR_OP_NAK		= 0x11,
	MR_OP_UD_SEND		= 0x20,	/* datagram: UD and GSI QPs */
	MR_OP_UD_SEND_IMM	= 0x21,
};

/* Base header flags (struct mr_bth.flags). Bits not listed must be zero. */
#define MR_F_AR			0x0001	/* ack requested now: last packet of a message, probes */
#define MR_F_RETX		0x0002	/* retransmission; its RTT sample is ambiguous */
#define MR_F_SE			0x0004	/* solicited event; SEND* and WRITE_IMM only */
#define MR_F_DISN		0x0008	/* data of a direction started from a derived initial PSN */
#define MR_F_UC			0x0010	/* unreliable connected: SEND*, WRITE* but SEND_INV */
#define MR_F_LONE		0x0020	/* the sender's only outstanding message: it waits for it */
#define MR_F_KNOWN		(MR_F_AR | MR_F_RETX | MR_F_SE | MR_F_DISN | MR_F_UC | MR_F_LONE)

/* Limits a version 1 implementation must honour. */
#define MR_MAX_STREAMS		16	/* streams per connection (M) */
#define MR_MAX_PATHS		64	/* paths per connection (N) */
#define MR_MAX_PAYLOAD		4096	/* bytes of payload in one packet */
#define MR_MAX_MSG_LEN		0x80000000u	/* 2 GiB, the verbs maximum */
#define MR_QPN_MASK		0x00ffffffu	/* QP numbers are 24 bits */
/*
 * The byte above the destination QP number: the segment size of a data packet's message
 * in units of MR_SEG_UNIT, or 0 for the connection's path MTU; zero in other packets.
 */
#define MR_SEG_SHIFT		24
#define MR_SEG_UNIT		16
#define MR_SEG_MIN		256	/* bytes, seg 16 */
#define MR_SEG_MAX		4080	/* bytes, seg 255 */
#define MR_SACK_BITS		256	/* receive window and selective-ack bitmap, packets */
#define MR_SACK_WORDS		(MR_SACK_BITS / 64)
#define MR_ICRC_LEN		4

/* A segment size in bytes that seg can state. */
static inline bool mr_seg_valid(unsigned int bytes)
{
	return bytes >= MR_SEG_MIN && bytes <= MR_SEG_MAX && !(bytes % MR_SEG_UNIT);
}

/* Base transport header: every packet starts with it. */
struct mr_bth {
	u8	version;	/* MR_WIRE_VERSION */
	u8	opcode;		/* enum mr_opcode */
	__be16	flags;		/* MR_F_* */
	__be32	dqpn;		/* 31:24 the segment size (MR_SEG_*), 23:0 destination QP */
	__be32	ctok;		/* connection token agreed at setup; stale incarnations fail it */
	__be32	psn;		/* packet sequence number; zero in ACK and NAK */
	u8	stream;		/* stream id, < M; zero in ACK and NAK */
	u8	path;		/* path id the packet was sent on, < N */
	__be16	paylen;		/* payload bytes between the headers and the ICRC */
};

/* Message extension: every data packet (all opcodes below MR_OP_ACK). */
struct mr_meth {
	__be32	msn;		/* message sequence number within the stream */
	__be32	moff;		/* byte offset of this payload within the message */
	__be32	mlen;		/* total message length in bytes */
};

/* SEND, SEND_IMM, SEND_INV. */
struct mr_seth {
	__be32	rmsn;		/* receive message number: which receive WQE this message uses */
	__be32	imm_inv;	/* immediate (SEND_IMM), rkey to invalidate (SEND_INV), else 0 */
};

/* WRITE, WRITE_IMM. */
struct mr_weth {
	__be64	va;		/* remote address of this packet's first payload byte */
	__be32	rkey;
	__be32	rmsn;		/* WRITE_IMM: receive message number; WRITE: 0 */
	__be32	imm;		/* WRITE_IMM: immediate data; WRITE: 0 */
	__be32	rsvd;		/* 0 */
};

/* READ_REQ: reads [va, va + mlen - moff) into the requester's buffer at offset moff. */
struct mr_rreth {
	__be64	va;
	__be32	rkey;
	__be32	rsvd;		/* 0 */
};

/* CMP_SWAP, FETCH_ADD: one aligned 8-byte operand at va. */
struct mr_aeth {
	__be64	va;		/* 8-byte aligned */
	__be32	rkey;
	__be32	rsvd;		/* 0 */
	__be64	swap_add;	/* swap value (CMP_SWAP) or addend (FETCH_ADD) */
	__be64	compare;	/* CMP_SWAP: compare value; FETCH_ADD: 0 */
};

/* ATOMIC_RESP. */
struct mr_aresp {
	__be64	orig;		/* value at va before the operation */
};

/* Echo flags (struct mr_ack.echo_flags). */
#define MR_ECHO_CE		0x01	/* the echoed packet arrived with ECN CE */
#define MR_ECHO_RETX		0x02	/* the echoed packet carried MR_F_RETX */
#define MR_ECHO_KNOWN		(MR_ECHO_CE | MR_ECHO_RETX)

/* ACK: cumulative + selective acknowledgment, ECN echo, rate hint. */
struct mr_ack {
	__be32	cack;		/* every PSN before cack was received */
	__be32	echo_psn;	/* PSN of the data packet that triggered this ACK */
	u8	echo_path;	/* its path id */
	u8	echo_flags;	/* MR_ECHO_* */
	__be16	ack_delay;	/* microseconds between its arrival and this ACK */
	__be16	ce_cnt;		/* data packets received with CE, running count mod 2^16 */
	__be16	rx_cnt;		/* data packets received, running count mod 2^16 */
	__be32	rate_hint;	/* receiver's fair share for this sender, Mbit/s; 0 = none */
	__be16	rx_seg;		/* largest segment the receiver takes, bytes; 0 = path MTU */
	__be16	rsvd;		/* 0 */
	__be64	sack[MR_SACK_WORDS];	/* bit i (word i / 64, bit i % 64) = PSN cack + i */
};

/* NAK syndromes (struct mr_nak.syndrome). */
enum mr_nak_syndrome {
	MR_NAK_RNR		= 1,	/* no receive WQE for rmsn yet: retry after rnr_delay */
	MR_NAK_REM_ACCESS	= 2,	/* rkey, bounds or permission check failed: fatal */
	MR_NAK_INV_REQ		= 3,	/* inconsistent or unsupported request: fatal */
	MR_NAK_REM_OP		= 4,	/* responder could not perform the operation: fatal */
};

struct mr_nak {
	__be32	cack;		/* as in ACK */
	__be32	nak_psn;	/* the packet that was refused */
	u8	syndrome;	/* enum mr_nak_syndrome */
	u8	rsvd0;		/* 0 */
	__be16	rnr_delay;	/* RNR: retry after this many 10 us units; else 0 */
	__be32	rsvd1;		/* 0 */
};

/* UD_SEND, UD_SEND_IMM: the datagram extension. The BTH's ctok carries the Q_Key. */
struct mr_deth {
	__be32	sqpn;		/* source QP number; bits 31:24 are zero */
	__be32	imm;		/* UD_SEND_IMM: immediate data; UD_SEND: 0 */
};

/* Byte offsets within the MetaRoCE header (from the start of struct mr_bth). */
#define MR_BTH_LEN		20
#define MR_METH_LEN		12
#define MR_SETH_LEN		8
#define MR_WETH_LEN		24
#define MR_RRETH_LEN		16
#define MR_AETH_LEN		32
#define MR_ARESP_LEN		8
#define MR_ACK_LEN		56
#define MR_NAK_LEN		16
#define MR_DETH_LEN		8

#define MR_OFF_METH		MR_BTH_LEN
#define MR_OFF_EXT		(MR_BTH_LEN + MR_METH_LEN)	/* opcode extension of data */

/* Total header length per opcode (base + extensions), excluding payload and ICRC. */
#define MR_HDR_SEND		(MR_OFF_EXT + MR_SETH_LEN)	/* 40 */
#define MR_HDR_WRITE		(MR_OFF_EXT + MR_WETH_LEN)	/* 56 */
#define MR_HDR_READ_REQ		(MR_OFF_EXT + MR_RRETH_LEN)	/* 48 */
#define MR_HDR_READ_RESP	(MR_OFF_EXT)			/* 32 */
#define MR_HDR_ATOMIC		(MR_OFF_EXT + MR_AETH_LEN)	/* 64 */
#define MR_HDR_ATOMIC_RESP	(MR_OFF_EXT + MR_ARESP_LEN)	/* 40 */
#define MR_HDR_ACK		(MR_BTH_LEN + MR_ACK_LEN)	/* 76 */
#define MR_HDR_NAK		(MR_BTH_LEN + MR_NAK_LEN)	/* 36 */
#define MR_HDR_UD		(MR_BTH_LEN + MR_DETH_LEN)	/* 28 */
#define MR_HDR_MAX		MR_HDR_ACK

static_assert(sizeof(struct mr_bth) == MR_BTH_LEN);
static_assert(sizeof(struct mr_meth) == MR_METH_LEN);
static_assert(sizeof(struct mr_seth) == MR_SETH_LEN);
static_assert(sizeof(struct mr_weth) == MR_WETH_LEN);
static_assert(sizeof(struct mr_rreth) == MR_RRETH_LEN);
static_assert(sizeof(struct mr_aeth) == MR_AETH_LEN);
static_assert(sizeof(struct mr_aresp) == MR_ARESP_LEN);
static_assert(sizeof(struct mr_ack) == MR_ACK_LEN);
static_assert(sizeof(struct mr_nak) == MR_NAK_LEN);
static_assert(sizeof(struct mr_deth) == MR_DETH_LEN);
static_assert(offsetof(struct mr_bth, psn) == 12);
static_assert(offsetof(struct mr_bth, paylen) == 18);
static_assert(offsetof(struct mr_weth, rkey) == 8);
static_assert(offsetof(struct mr_aeth, compare) == 24);
static_assert(offsetof(struct mr_ack, rate_hint) == 16);
static_assert(offsetof(struct mr_ack, sack) == 24);
static_assert(offsetof(struct mr_nak, rnr_delay) == 10);
static_assert(MR_SACK_BITS % 64 == 0);

#endif /* _METAROCE_WIRE_H */
