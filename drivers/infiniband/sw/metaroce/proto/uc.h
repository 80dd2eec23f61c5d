/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unreliable connected receive side of a connection (conn.c calls these when
 * cfg.uc is set). Documentation/infiniband/metaroce.rst, "Unreliable connected QPs".
 */
#ifndef _METAROCE_PROTO_UC_H
#define _METAROCE_PROTO_UC_H

#include "conn.h"

static inline bool mr_uc_op_ok(u8 opcode)
{
	return opcode == MR_OP_SEND || opcode == MR_OP_SEND_IMM || opcode == MR_OP_WRITE ||
	       opcode == MR_OP_WRITE_IMM;
}

/*
 * Message checks of a new data packet: MR_RXC_PLACE (res->rwqe set for a packet that
 * consumes a receive WQE), or MR_RXC_DROP when it is not to be placed; then
 * *discard says whether it still counts as received (mr_conn_uc_discard()).
 */
enum mr_rx_class mr_uc_rx(struct mr_conn *c, const struct mr_pkt *pkt, struct mr_rx_res *res,
			  bool *discard);
/* Could a conforming sender have given pkt its RMSN (spec, "Streams and ordering")? */
bool mr_uc_rmsn_ok(const struct mr_conn *c, const struct mr_pkt *pkt);
/* May pkt, which mr_uc_rx() passed, still be placed? */
bool mr_uc_commit_ok(const struct mr_conn *c, const struct mr_pkt *pkt);
/* The first packet of a message was placed or discarded: remember where it lies. */
void mr_uc_bind(struct mr_conn *c, const struct mr_pkt *pkt, struct mr_rmsg *info);
/* A packet beyond the window: the holes it leaves behind are lost. */
void mr_uc_slide(struct mr_conn *c, u64 now, u32 psn);
/* Restart or stop the hole clock after the window changed. */
void mr_uc_hole_clock(struct mr_conn *c, u64 now);
bool mr_uc_deliver(struct mr_conn *c, struct mr_rx_done *d);
u64 mr_uc_deadline(const struct mr_conn *c);
void mr_uc_timer(struct mr_conn *c, u64 now);

#endif /* _METAROCE_PROTO_UC_H */
