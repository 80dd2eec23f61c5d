/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libsoftmetaroce message API: one MetaRoCE connection endpoint in userspace, over the
 * protocol core of metaroce.ko (drivers/infiniband/sw/metaroce/proto, compiled into
 * this library unchanged).
 *
 * The endpoint owns what the kernel's QP would own around the core: memory regions
 * (rkey -> buffer, with range and access checks on every remote access), the receive
 * queue, placement of incoming payload, atomics, and a completion queue. It owns no
 * socket and no clock: the caller moves packets (byte buffers, each tagged with the
 * path it must leave on) and passes the time, in nanoseconds, to every call that needs
 * it. Typical loop:
 *
 *	smr_post_send() / smr_post_recv() as work arrives;
 *	while (smr_tx(ep, now, &pkt)) send pkt.data, pkt.len on path pkt.path;
 *	for each datagram received: smr_rx(ep, now, buf, len, ce);
 *	when now >= smr_deadline(ep): smr_timer(ep, now);
 *	smr_poll() for completions.
 *
 * Not thread-safe: one caller per endpoint at a time.
 */
#ifndef _SOFTMETAROCE_H
#define _SOFTMETAROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest datagram (UDP payload) the endpoint produces or accepts. */
#define SMR_PKT_MAX	(76 + 4096 + 4)	/* biggest header, payload, ICRC */
#define SMR_MAX_MR	64		/* memory regions per endpoint */
#define SMR_RQ_DEPTH	256		/* receive WQEs posted and not completed */
#define SMR_SQ_DEPTH	256		/* send WQEs posted and not completed */

struct smr_ep;

struct smr_cfg {
	uint32_t peer_qpn;	/* the peer's QP number (24 bits) */
	uint32_t peer_ctok;	/* token the peer expects in our packets */
	uint32_t local_ctok;	/* token we expect in the peer's packets */
	uint32_t tx_isn;	/* our first PSN */
	uint32_t rx_isn;	/* the peer's first PSN */
	uint16_t mtu;		/* payload bytes per packet, 256..4096 */
	uint8_t n_paths;	/* our paths, 1..64 */
	uint8_t peer_paths;	/* the peer's paths */
	uint8_t n_streams;	/* 1..16 */
	uint8_t retry_cnt;	/* 0..7 */
	uint8_t rnr_retry;	/* 0..7, 7 = for ever */
	uint8_t max_rd_atomic;	/* READs and atomics in progress each way */
	uint16_t rnr_delay;	/* what our RNR NAKs ask the peer to wait, 10 us units */
};

enum smr_access {
	SMR_ACCESS_REMOTE_WRITE		= 1 << 0,
	SMR_ACCESS_REMOTE_READ		= 1 << 1,
	SMR_ACCESS_REMOTE_ATOMIC	= 1 << 2,
};

enum smr_opcode {
	SMR_OP_SEND = 1,
	SMR_OP_SEND_IMM,
	SMR_OP_SEND_INV,
	SMR_OP_WRITE,
	SMR_OP_WRITE_IMM,
	SMR_OP_READ,
	SMR_OP_CMP_SWAP,
	SMR_OP_FETCH_ADD,
	/* receive completions only */
	SMR_OP_RECV,
	SMR_OP_RECV_IMM,	/* SEND_IMM */
	SMR_OP_RECV_INV,	/* SEND_INV: invalidated holds the rkey the peer invalidated */
	SMR_OP_RECV_WRITE_IMM,	/* WRITE_IMM: the data is in place; byte_len is its length */
};

enum smr_wc_status {
	SMR_WC_SUCCESS = 0,
	SMR_WC_RETRY_EXC,	/* the peer did not answer within retry_cnt timeouts */
	SMR_WC_RNR_RETRY_EXC,	/* the peer had no receive WQE within rnr_retry tries */
	SMR_WC_REM_ACCESS,	/* the peer refused an rkey, range or permission */
	SMR_WC_REM_INV_REQ,	/* the peer found the request invalid (e.g. too long) */
	SMR_WC_REM_OP,		/* the peer could not perform the operation */
	SMR_WC_FLUSH,		/* the endpoint failed before this WQE completed */
};

struct smr_send_wr {
	uint64_t wr_id;
	enum smr_opcode opcode;	/* SMR_OP_SEND .. SMR_OP_FETCH_ADD */
	uint8_t stream;		/* completion order is per stream */
	bool solicited;
	/*
	 * SEND*, WRITE*: the bytes to send. READ: where the answer goes. Atomics: 8 bytes
	 * where the remote value before the operation goes. Must stay valid until the
	 * completion is polled.
	 */
	void *local;
	uint32_t length;	/* atomics: 8 */
	uint64_t remote_addr;	/* WRITE*, READ, atomics (8-byte aligned) */
	uint32_t rkey;		/* WRITE*, READ, atomics */
	uint32_t imm_data;	/* SEND_IMM, WRITE_IMM */
	uint32_t invalidate_rkey;	/* SEND_INV */
	uint64_t compare_add;	/* CMP_SWAP: compare; FETCH_ADD: addend */
	uint64_t swap;		/* CMP_SWAP */
};

struct smr_wc {
	uint64_t wr_id;
	enum smr_wc_status status;
	enum smr_opcode opcode;
	uint32_t byte_len;
	uint32_t imm_data;	/* SMR_OP_RECV_IMM, SMR_OP_RECV_WRITE_IMM */
	uint32_t invalidated;	/* SMR_OP_RECV_INV */
	bool recv;		/* a receive completion (else a send completion) */
};

/* A datagram to transmit: len bytes of data, to leave on path (the UDP source port). */
struct smr_pkt {
	uint8_t path;
	uint32_t len;
	uint8_t data[SMR_PKT_MAX];
};

/* Counters beyond the core's, for the host's statistics. */
struct smr_stats {
	uint64_t rx_bad_crc;	/* ICRC mismatch */
	uint64_t rx_bad_hdr;	/* refused by the packet decoder */
	uint64_t rx_refused;	/* data refused with a NAK: rkey, range, access, RNR, length */
	uint64_t nak_dropped;	/* NAKs not sent: the control queue was full */
};

/* NULL if cfg is invalid or memory is short. */
struct smr_ep *smr_ep_create(const struct smr_cfg *cfg);
void smr_ep_destroy(struct smr_ep *ep);

/*
 * Register len bytes at buf as remote addresses va .. va + len - 1 with access (enum
 * smr_access bits). 0 and *rkey, or -ENOSPC (table full) or -EINVAL.
 */
int smr_reg_mr(struct smr_ep *ep, void *buf, uint64_t va, uint64_t len, unsigned int access,
	       uint32_t *rkey);
/* 0, or -ENOENT. Remote accesses with the rkey fail from now on. */
int smr_dereg_mr(struct smr_ep *ep, uint32_t rkey);

/* 0, or -ENOSPC (SMR_SQ_DEPTH outstanding), -EINVAL, -EOPNOTSUPP, -EIO (failed). */
int smr_post_send(struct smr_ep *ep, const struct smr_send_wr *wr);
/* A receive buffer for the peer's next SEND or WRITE_IMM. 0, or -ENOSPC. */
int smr_post_recv(struct smr_ep *ep, uint64_t wr_id, void *buf, uint32_t len);

/* The next datagram to send now: true and *out filled, or false. */
bool smr_tx(struct smr_ep *ep, uint64_t now, struct smr_pkt *out);
/*
 * A datagram arrived (ce: it carried an ECN CE mark). 0 if it was taken or was a
 * duplicate; -EBADMSG if it failed the ICRC or decoding; -EPERM if the core refused it
 * (token, window, ...) or the endpoint refused its data (a NAK is queued for smr_tx());
 * -EPROTO if it broke the protocol (the endpoint has failed).
 */
int smr_rx(struct smr_ep *ep, uint64_t now, const void *buf, uint32_t len, bool ce);

/* When smr_timer() must run (and smr_tx() be tried again); UINT64_MAX: never. */
uint64_t smr_deadline(const struct smr_ep *ep);
void smr_timer(struct smr_ep *ep, uint64_t now);

/* Up to n completions into wc; returns how many. */
int smr_poll(struct smr_ep *ep, struct smr_wc *wc, int n);

bool smr_failed(const struct smr_ep *ep);
void smr_get_stats(const struct smr_ep *ep, struct smr_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* _SOFTMETAROCE_H */
