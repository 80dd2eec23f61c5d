// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the connection engine: the input is a sequence of packets, each
 * a 2-byte length and that many bytes. Whatever the decoder accepts is fed to a live
 * connection (with the right token, so that the state machine is reached) that has
 * messages of every kind queued; the host side places, delivers, performs atomics,
 * transmits, acknowledges and runs timers as a real host would. Beyond memory safety and
 * undefined behaviour, the window and queue invariants are checked after every packet.
 * An input whose first byte has bit 7 set runs an unreliable connected endpoint instead
 * (UC operations only; every other placeable packet is refused and discarded).
 */
#include <stdlib.h>
#include "conn.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static void check(const struct mr_conn *c)
{
	u32 outstanding = c->tx.nxt - c->tx.una;

	if (outstanding > MR_SACK_BITS || c->tx.in_flight + c->tx.nlost > outstanding ||
	    c->sq_head - c->sq_tail > MR_SENDQ_DEPTH ||
	    c->rq_head - c->rq_tail > MR_RESPQ_DEPTH ||
	    c->rd_out > c->cfg.max_rd_atomic || c->rsp_out > c->cfg.max_rd_atomic ||
	    mr_cc_window(&c->cc, c->paths.conn.srtt) > MR_CWND_MAX)
		abort();
	/* UC: new messages never bind below where messages complete. */
	if (c->cfg.uc && (s32)(c->uc_skip - c->uc_skip_bind) < 0)
		abort();
}

static void host_step(struct mr_conn *c, u64 now)
{
	struct mr_rx_done d;
	struct mr_tx_pkt tp;
	enum mr_wc_status st;
	struct mr_pkt ack;
	u64 cookie;
	int n = 0;

	while (mr_conn_deliver(c, &d)) {
		if (d.opcode == MR_OP_CMP_SWAP || d.opcode == MR_OP_FETCH_ADD)
			mr_conn_atomic_result(c, d.resp_slot, now);
		/* UC: a payload is only ever moved down, never up. */
		if (c->cfg.uc && d.opcode != MR_OP_WRITE && (s32)(d.rwqe - d.rmsn) < 0)
			abort();
	}
	if (mr_conn_deadline(c) <= now)
		mr_conn_timer(c, now);
	while (n++ < 64 && mr_conn_tx(c, now, &tp))
		if (tp.hdr.paylen > c->cfg.seg || tp.hdr.hdrlen != mr_pkt_hdrlen(tp.hdr.opcode) ||
		    (c->cfg.uc && (!(tp.hdr.flags & MR_F_UC) || (tp.hdr.flags & MR_F_RETX))))
			abort();
	if (mr_conn_ack_due(c, now))
		mr_conn_build_ack(c, now, &ack);
	while (mr_conn_poll_send(c, &cookie, &st))
		;
	check(c);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct mr_conn_cfg cfg = {
		.peer_qpn = 2, .peer_ctok = 0x22, .local_ctok = 0x11, .tx_isn = 0xfffffff0,
		.rx_isn = 0, .mtu = 1024, .seg = 1376, .n_paths = 4, .peer_paths = 4, .n_streams = 2,
		.retry_cnt = 7, .rnr_retry = 3, .max_rd_atomic = 2,
	};
	static const u8 ops[] = {
		MR_OP_SEND, MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_FETCH_ADD, MR_OP_SEND_IMM,
		MR_OP_CMP_SWAP, MR_OP_WRITE, MR_OP_SEND_INV,
	};
	static const u8 uc_ops[] = { MR_OP_SEND, MR_OP_WRITE_IMM, MR_OP_SEND_IMM, MR_OP_WRITE };
	struct mr_conn *c = calloc(1, mr_conn_size(cfg.n_streams));
	u64 now = 1000;
	unsigned int i;

	cfg.uc = size && (data[0] & 0x80);

	if (!c || mr_conn_init(c, &cfg))
		abort();
	for (i = 0; i < 24; i++) {
		struct mr_send_wr wr = {
			.cookie = i, .stream = i % 2,
			.opcode = cfg.uc ? uc_ops[i % ARRAY_SIZE(uc_ops)] : ops[i % ARRAY_SIZE(ops)],
			.len = i * 700, .va = 0x10000, .rkey = 5,
		};

		if (wr.opcode == MR_OP_CMP_SWAP || wr.opcode == MR_OP_FETCH_ADD)
			wr.len = 8;
		if (mr_conn_post(c, &wr))
			abort();
	}
	host_step(c, now);

	while (size >= 3) {
		u32 len = (u32)data[0] << 8 | data[1];
		struct mr_rx_res res;
		struct mr_pkt pkt;

		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		/* each packet also advances time by its first byte, in microseconds */
		now += 1000ULL * (len ? data[0] : 1);
		if (mr_pkt_decode(data, len, &pkt) == MR_PERR_OK) {
			/* the right token, so that fuzzing reaches past the check */
			pkt.ctok = pkt.opcode == MR_OP_ACK || pkt.opcode == MR_OP_NAK ?
				   cfg.peer_ctok : cfg.local_ctok;
			bool place = mr_conn_rx(c, now, &pkt, len & 1, &res) == MR_RXC_PLACE;

			if (place && cfg.uc && (len & 2))	/* the host could not place it */
				mr_conn_uc_discard(c, now, &pkt, len & 1);
			else if (place)
				mr_conn_rx_commit(c, now, &pkt, len & 1);
		}
		data += len;
		size -= len;
		host_step(c, now);
	}
	/* let every timer run out */
	for (i = 0; i < 64 && mr_conn_deadline(c) != U64_MAX; i++) {
		now = mr_conn_deadline(c) > now ? mr_conn_deadline(c) : now + 1;
		host_step(c, now);
	}
	free(c);
	return 0;
}
