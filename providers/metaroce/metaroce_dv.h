/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MetaRoCE direct verbs: what plain verbs cannot say about a MetaRoCE QP.
 *
 * A MetaRoCE RC QP is a connection that sprays its packets over N paths
 * (UDP source ports) and carries M ordered streams
 * (Documentation/infiniband/metaroce.rst, "Connections, paths and streams").
 * Plain verbs give N from the device (module parameter "paths") and M = 1,
 * which is verbs RC ordering. This header lets a program choose both per QP,
 * put each work request on a stream, and read the statistics of each path.
 *
 * With M > 1, messages are delivered and complete in order within a stream
 * and independently across streams: send completions are in posting order
 * per stream, receive completions in order per stream, and receive WQEs are
 * still consumed in posting order (a SEND takes the next one whatever its
 * stream), so the receive completion of a later stream's SEND can precede
 * that of an earlier WQE. A receive slot is free for posting again once
 * every earlier-posted receive WQE has completed. Both ends of a connection
 * must be created with the same M (exchange it with the QP numbers); a
 * packet on a stream the receiver does not have is dropped. N is each
 * sender's own and need not match.
 *
 * Functions return 0 or an errno value (and set errno where a pointer is
 * returned). Link with -lmetaroce (the provider library).
 */
#ifndef METAROCE_DV_H
#define METAROCE_DV_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

#define METAROCE_DV_MAX_PATHS		64
#define METAROCE_DV_MAX_STREAMS		16

/* Whether @device is a MetaRoCE device, served by this library. */
bool metaroce_dv_is_supported(struct ibv_device *device);

enum metaroce_dv_qp_init_attr_mask {
	METAROCE_DV_QP_INIT_ATTR_MASK_NUM_PATHS = 1 << 0,
	METAROCE_DV_QP_INIT_ATTR_MASK_NUM_STREAMS = 1 << 1,
};

struct metaroce_dv_qp_init_attr {
	uint64_t comp_mask;	/* enum metaroce_dv_qp_init_attr_mask */
	uint8_t num_paths;	/* 1..METAROCE_DV_MAX_PATHS; default: the device's */
	uint8_t num_streams;	/* 1..METAROCE_DV_MAX_STREAMS; default: 1 */
};

/*
 * ibv_create_qp_ex() with the paths and streams of @dv_attr (NULL: the
 * defaults). Several paths or streams need an RC QP (EOPNOTSUPP otherwise),
 * several streams a QP without an SRQ (EOPNOTSUPP). Unknown comp_mask bits:
 * EOPNOTSUPP; values out of range: EINVAL.
 */
struct ibv_qp *metaroce_dv_create_qp(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *qp_attr,
				     struct metaroce_dv_qp_init_attr *dv_attr);

struct metaroce_dv_qp_attr {
	uint64_t comp_mask;	/* none defined yet: 0 */
	uint8_t num_paths;
	uint8_t num_streams;
};

/* Paths and streams of @qp. @inlen: sizeof(*attr), for later growth. */
int metaroce_dv_query_qp(struct ibv_qp *qp, struct metaroce_dv_qp_attr *attr,
			 uint32_t inlen);

/*
 * ibv_post_send() with every work request of the list on @stream. A stream
 * the QP does not have: EINVAL, *bad_wr = wr, nothing posted. ibv_post_send()
 * itself posts on stream 0.
 */
int metaroce_dv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  uint8_t stream, struct ibv_send_wr **bad_wr);

/*
 * ibv_wr_* users: put the work request just built (after ibv_wr_send() and
 * friends, before the next one) on @stream; stream 0 otherwise. A stream the
 * QP does not have fails the batch: ibv_wr_complete() returns EINVAL.
 */
void metaroce_dv_wr_set_stream(struct ibv_qp_ex *qpx, uint8_t stream);

enum metaroce_dv_path_state {
	METAROCE_DV_PATH_IDLE = 0,	/* the QP has not reached RTR */
	METAROCE_DV_PATH_ACTIVE = 1,	/* in service */
	METAROCE_DV_PATH_RETIRED = 2,	/* out of service: too lossy, probed */
};

/*
 * One path of the QP's sending direction, for its current connection (the
 * counters start at zero when the QP enters RTR).
 */
struct metaroce_dv_path_stats {
	uint16_t udp_sport;	/* UDP source port */
	uint8_t state;		/* enum metaroce_dv_path_state */
	uint64_t tx_pkts;	/* data packets sent on it, retransmissions included */
	uint64_t tx_retx;	/* retransmissions and loss probes sent on it */
	uint64_t lost;		/* its packets declared lost */
	uint64_t ecn_marks;	/* acknowledgements that echoed a CE mark */
	uint64_t srtt_ns;	/* smoothed RTT; 0 before the first sample */
};

/*
 * The statistics of the paths of RC QP @qp, read without a system call (the
 * kernel keeps them in a read-only page mapped at creation): the first
 * min(@max_paths, N) entries of @stats are written and *@num_paths is set
 * to N. *@tx_pkts, if not NULL, is the QP's data packets sent, which the
 * paths' tx_pkts add up to. EOPNOTSUPP for a QP that is not RC.
 */
int metaroce_dv_query_path_stats(struct ibv_qp *qp,
				 struct metaroce_dv_path_stats *stats,
				 uint32_t max_paths, uint32_t *num_paths,
				 uint64_t *tx_pkts);

#ifdef __cplusplus
}
#endif

#endif /* METAROCE_DV_H */
