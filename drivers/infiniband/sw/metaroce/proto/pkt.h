/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE packet codec: wire bytes <-> struct mr_pkt (host byte order).
 *
 * mr_pkt_decode() performs every check that needs nothing but the packet itself
 * (Documentation/infiniband/metaroce.rst, "Validation") and names the first failed check.
 * Checks against connection state (QP, token, window, keys) are the caller's.
 */
#ifndef _METAROCE_PROTO_PKT_H
#define _METAROCE_PROTO_PKT_H

#include "platform.h"

/* Why a packet was refused; one receive counter each. */
enum mr_perr {
	MR_PERR_OK = 0,
	MR_PERR_SHORT,		/* shorter than base header + ICRC */
	MR_PERR_ICRC,		/* ICRC mismatch */
	MR_PERR_VERSION,	/* unknown version */
	MR_PERR_OPCODE,		/* unknown opcode */
	MR_PERR_FLAGS,		/* unknown flag, or SE where not allowed */
	MR_PERR_QPN,		/* datagram sqpn bits 31:24 set */
	MR_PERR_TRUNC,		/* shorter than the opcode's headers + ICRC */
	MR_PERR_LENGTH,		/* paylen disagrees with the datagram length */
	MR_PERR_PAYLEN,		/* payload too long or where none is allowed; seg below 256 */
	MR_PERR_STREAM,		/* stream id out of range, or set in ACK/NAK */
	MR_PERR_PATH,		/* path id out of range */
	MR_PERR_PSN,		/* PSN set in ACK/NAK */
	MR_PERR_MSG,		/* msn/moff/mlen inconsistent */
	MR_PERR_ALIGN,		/* atomic address not 8-byte aligned */
	MR_PERR_RSVD,		/* reserved or must-be-zero field set */
	MR_PERR_ACK,		/* malformed ACK extension */
	MR_PERR_NAK,		/* malformed NAK extension */
	MR_PERR_NUM
};

struct mr_pkt_send {
	u32	rmsn;
	u32	imm_inv;
};

struct mr_pkt_write {
	u64	va;
	u32	rkey;
	u32	rmsn;
	u32	imm;
};

struct mr_pkt_rreq {
	u64	va;
	u32	rkey;
};

struct mr_pkt_atomic {
	u64	va;
	u32	rkey;
	u64	swap_add;	/* ATOMIC_WRITE: the 8 bytes, as a big-endian u64 */
	u64	compare;	/* CMP_SWAP only; zero otherwise */
};

struct mr_pkt_ack {
	u32	cack;
	u32	echo_psn;
	u8	echo_path;
	u8	echo_flags;
	u16	ack_delay;
	u16	ce_cnt;
	u16	rx_cnt;
	u32	rate_hint;
	u16	rx_seg;
	u64	sack[MR_SACK_WORDS];
};

struct mr_pkt_ud {
	u32	sqpn;
	u32	imm;
};

struct mr_pkt_nak {
	u32	cack;
	u32	nak_psn;
	u8	syndrome;
	u16	rnr_delay;
};

/* A decoded packet. Only the members the opcode defines are meaningful. */
struct mr_pkt {
	u8	opcode;
	u16	flags;
	u8	seg;		/* segment size / MR_SEG_UNIT; 0: the path MTU */
	u32	dqpn;
	u32	ctok;
	u32	psn;
	u8	stream;
	u8	path;
	u16	paylen;
	u16	hdrlen;		/* payload starts at this offset */
	u32	msn;		/* message extension, data packets only */
	u32	moff;
	u32	mlen;
	union {
		struct mr_pkt_send	send;
		struct mr_pkt_write	write;
		struct mr_pkt_rreq	rreq;
		struct mr_pkt_atomic	atomic;
		u64			orig;	/* ATOMIC_RESP */
		struct mr_pkt_ack	ack;
		struct mr_pkt_nak	nak;
		struct mr_pkt_ud	ud;	/* UD_SEND, UD_SEND_IMM: ctok is the Q_Key */
	};
};

/* Header length of an opcode, 0 if the opcode is invalid. */
u16 mr_pkt_hdrlen(u8 opcode);
bool mr_op_is_data(u8 opcode);
/* A packet of a message from the sender's send queue: a request, not a response. */
bool mr_op_from_sq(u8 opcode);
bool mr_op_is_datagram(u8 opcode);

/*
 * Decode a UDP payload of len bytes (headers, payload, ICRC). The ICRC is not checked
 * here: see mr_pkt_icrc_ok(), which the receive path runs first.
 */
enum mr_perr mr_pkt_decode(const void *buf, u32 len, struct mr_pkt *pkt);

/*
 * Encode pkt's headers into buf (cap bytes). Reserved fields are written as zero.
 * Returns the header length, or 0 if the opcode is invalid or buf is too small.
 */
u32 mr_pkt_encode(const struct mr_pkt *pkt, void *buf, u32 cap);

/* ICRC over the first len bytes of buf (everything before the ICRC). */
u32 mr_pkt_icrc(const void *buf, u32 len);
/* Write the ICRC after the first len bytes of buf; the buffer needs len + 4 bytes. */
void mr_pkt_icrc_put(void *buf, u32 len);
/* Check the ICRC of a whole UDP payload of len bytes. */
bool mr_pkt_icrc_ok(const void *buf, u32 len);

const char *mr_perr_name(enum mr_perr err);

#endif /* _METAROCE_PROTO_PKT_H */
