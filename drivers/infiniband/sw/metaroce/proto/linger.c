// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: the receive direction of a closed connection answers retransmissions of
 * what it had received (Documentation/infiniband/metaroce.rst, "The last ACK").
 */
#include "linger.h"

bool mr_conn_linger(const struct mr_conn *c, struct mr_linger *l)
{
	if (c->cfg.uc || c->rx_mode == MR_RXM_FRESH)
		return false;
	memset(l, 0, sizeof(*l));
	l->rx = c->rx;
	l->peer_qpn = c->cfg.peer_qpn;
	l->ctok = c->cfg.local_ctok;
	l->ce_cnt = c->ce_cnt;
	l->rx_cnt = c->rx_cnt;
	l->n_paths = c->cfg.n_paths;
	return true;
}

bool mr_linger_ack(const struct mr_linger *l, const struct mr_pkt *pkt, bool ce, u8 path,
		   struct mr_pkt *ack)
{
	enum mr_rx_verdict v;

	if (!mr_op_is_data(pkt->opcode) || mr_op_is_datagram(pkt->opcode) ||
	    (pkt->flags & MR_F_UC) || pkt->ctok != l->ctok)
		return false;
	/* Only what the connection had received: the rest it never will. */
	v = mr_rxwin_check(&l->rx, pkt->psn);
	if (v != MR_RX_DUP && v != MR_RX_STALE)
		return false;

	memset(ack, 0, sizeof(*ack));
	ack->opcode = MR_OP_ACK;
	ack->dqpn = l->peer_qpn;
	ack->ctok = l->ctok;
	ack->hdrlen = MR_HDR_ACK;
	ack->path = path;
	ack->ack.cack = l->rx.cack;
	ack->ack.echo_psn = pkt->psn;
	ack->ack.echo_path = pkt->path;
	ack->ack.echo_flags = mr_echo_flags(pkt, ce);
	ack->ack.ce_cnt = l->ce_cnt;
	ack->ack.rx_cnt = l->rx_cnt;
	mr_rxwin_sack(&l->rx, ack->ack.sack);
	return true;
}
