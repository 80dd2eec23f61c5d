// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: per-device counters exported through rdma_hw_stats.
 */

#include "metaroce.h"

static const struct rdma_stat_desc metaroce_counter_descs[] = {
	[METAROCE_CNT_TX_PACKETS].name = "tx_packets",
	[METAROCE_CNT_RX_PACKETS].name = "rx_packets",
	[METAROCE_CNT_TX_BYTES].name = "tx_bytes",
	[METAROCE_CNT_RX_BYTES].name = "rx_bytes",
	[METAROCE_CNT_RETRANS_FAST].name = "retrans_fast",
	[METAROCE_CNT_RETRANS_TIMEOUT].name = "retrans_timeout",
	[METAROCE_CNT_SACK_TX].name = "sack_tx",
	[METAROCE_CNT_SACK_RX].name = "sack_rx",
	[METAROCE_CNT_RX_DUPLICATE].name = "rx_duplicate",
	[METAROCE_CNT_RX_OUT_OF_WINDOW].name = "rx_out_of_window",
	[METAROCE_CNT_ECN_MARKED_RX].name = "ecn_marked_rx",
	[METAROCE_CNT_ECN_ECHOED_TX].name = "ecn_echoed_tx",
	[METAROCE_CNT_PATH_CHANGES].name = "path_changes",
	[METAROCE_CNT_RX_MALFORMED].name = "rx_malformed_dropped",
	[METAROCE_CNT_RNR_NAK_TX].name = "rnr_nak_tx",
	[METAROCE_CNT_RNR_NAK_RX].name = "rnr_nak_rx",
	[METAROCE_CNT_DP_TX_PACKETS].name = "dp_tx_packets",
	[METAROCE_CNT_DP_TX_BYTES].name = "dp_tx_bytes",
	[METAROCE_CNT_DP_TX_DROPPED].name = "dp_tx_dropped",
	[METAROCE_CNT_DP_RX_PACKETS].name = "dp_rx_packets",
	[METAROCE_CNT_DP_RX_BYTES].name = "dp_rx_bytes",
	[METAROCE_CNT_RX_NO_CONN].name = "rx_no_conn_dropped",
	[METAROCE_CNT_RX_NOMEM].name = "rx_nomem_dropped",
	[METAROCE_CNT_RX_NO_WQE].name = "rx_no_wqe_dropped",
	[METAROCE_CNT_RX_BAD_QKEY].name = "rx_bad_qkey_dropped",
	[METAROCE_CNT_RX_ERR_SHORT].name = "rx_err_short",
	[METAROCE_CNT_RX_ERR_ICRC].name = "rx_err_icrc",
	[METAROCE_CNT_RX_ERR_VERSION].name = "rx_err_version",
	[METAROCE_CNT_RX_ERR_OPCODE].name = "rx_err_opcode",
	[METAROCE_CNT_RX_ERR_FLAGS].name = "rx_err_flags",
	[METAROCE_CNT_RX_ERR_QPN].name = "rx_err_qpn",
	[METAROCE_CNT_RX_ERR_TRUNC].name = "rx_err_trunc",
	[METAROCE_CNT_RX_ERR_LENGTH].name = "rx_err_length",
	[METAROCE_CNT_RX_ERR_PAYLEN].name = "rx_err_paylen",
	[METAROCE_CNT_RX_ERR_STREAM].name = "rx_err_stream",
	[METAROCE_CNT_RX_ERR_PATH].name = "rx_err_path",
	[METAROCE_CNT_RX_ERR_PSN].name = "rx_err_psn",
	[METAROCE_CNT_RX_ERR_MSG].name = "rx_err_msg",
	[METAROCE_CNT_RX_ERR_ALIGN].name = "rx_err_align",
	[METAROCE_CNT_RX_ERR_RSVD].name = "rx_err_rsvd",
	[METAROCE_CNT_RX_ERR_ACK].name = "rx_err_ack",
	[METAROCE_CNT_RX_ERR_NAK].name = "rx_err_nak",
	[METAROCE_CNT_PKTS_LOST].name = "pkts_lost",
	[METAROCE_CNT_RETRANS_PROBE].name = "retrans_probe",
	[METAROCE_CNT_RETRANS_RNR].name = "retrans_rnr",
	[METAROCE_CNT_LINGER_ACK_TX].name = "linger_ack_tx",
	[METAROCE_CNT_NAK_TX].name = "nak_tx",
	[METAROCE_CNT_NAK_RX].name = "nak_rx",
	[METAROCE_CNT_DP_TX_FRAGMENTED].name = "dp_tx_fragmented",
	[METAROCE_CNT_PMTU_BLACKHOLES].name = "pmtu_blackholes",
};

static_assert(ARRAY_SIZE(metaroce_counter_descs) == METAROCE_CNT_MAX);

void metaroce_counters_init(struct metaroce_counters *c)
{
	int i;

	for (i = 0; i < METAROCE_CNT_MAX; i++)
		atomic64_set(&c->val[i], 0);
}

u64 metaroce_counter_read(const struct metaroce_counters *c,
			  enum metaroce_counter idx)
{
	return atomic64_read(&c->val[idx]);
}

const char *metaroce_counter_name(enum metaroce_counter idx)
{
	return metaroce_counter_descs[idx].name;
}

/*
 * The counters are per device. They are offered both as device counters
 * (sysfs hw_counters) and as the counters of port 1, the only port, which is
 * what "rdma statistic show" reads: the two show the same values.
 */
static struct rdma_hw_stats *metaroce_alloc_stats(void)
{
	return rdma_alloc_hw_stats_struct(metaroce_counter_descs,
					  ARRAY_SIZE(metaroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

struct rdma_hw_stats *metaroce_alloc_hw_device_stats(struct ib_device *ibdev)
{
	return metaroce_alloc_stats();
}

struct rdma_hw_stats *metaroce_alloc_hw_port_stats(struct ib_device *ibdev,
						   u32 port)
{
	return metaroce_alloc_stats();
}

int metaroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			  u32 port, int index)
{
	struct metaroce_dev *mdev = to_mdev(ibdev);
	int i;

	if (port > METAROCE_PORT)
		return -EINVAL;

	for (i = 0; i < METAROCE_CNT_MAX; i++)
		stats->value[i] = metaroce_counter_read(&mdev->counters, i);

	return METAROCE_CNT_MAX;
}
