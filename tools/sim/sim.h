/* SPDX-License-Identifier: GPL-2.0 */
/*
 * metaroce-sim: a deterministic, seeded packet-level simulator. Hosts with one NIC port,
 * a two-tier leaf-spine fabric whose leaves hash (src, dst, UDP source port) onto the
 * spines, output queues with ECN marking, lossy links and failing planes. Transport
 * endpoints (the MetaRoCE core, a go-back-N RoCEv2 model) run unchanged on top.
 *
 * Time is integer nanoseconds. Events with equal time run in the order they were
 * scheduled, and all randomness comes from one seeded generator, so a seed names a run.
 */
#ifndef _METAROCE_SIM_H
#define _METAROCE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_US		1000ULL
#define SIM_MS		1000000ULL
#define SIM_NEVER	UINT64_MAX

/* Bytes a frame costs on the wire besides its UDP payload: UDP, IPv4, Ethernet, FCS,
 * preamble and inter-frame gap. */
#define SIM_FRAME_OVERHEAD	(8 + 20 + 14 + 4 + 20)
#define SIM_PKT_CAP		(4096 + 256)

struct sim;

struct sim_pkt {
	struct sim_pkt	*next;
	uint32_t	src, dst;	/* hosts */
	uint32_t	flow;
	bool		to_sender;	/* for the flow's sending endpoint (ACK, NAK) */
	bool		ce;
	uint16_t	sport;		/* UDP source port: all ECMP sees of the transport */
	uint32_t	wire;		/* bytes on the wire */
	uint32_t	len;		/* bytes in data */
	uint8_t		data[SIM_PKT_CAP];
};

/* ---- event core (event.c) ---- */
enum sim_ev_type {
	SIM_EV_TXDONE,	/* a port finished serialising its head packet */
	SIM_EV_ARRIVE,	/* a packet reaches a node */
	SIM_EV_TIMER,	/* an endpoint's deadline */
	SIM_EV_FAIL,	/* a plane (spine) fails */
};

struct sim_ev {
	uint64_t	at;
	uint64_t	seq;	/* ties broken by scheduling order: determinism */
	uint8_t		type;
	uint32_t	a, b;
	struct sim_pkt	*pkt;
};

uint64_t sim_rand(struct sim *s);
/* true with probability ppm / 1e6 */
bool sim_chance(struct sim *s, uint32_t ppm);
void sim_schedule(struct sim *s, uint64_t at, uint8_t type, uint32_t a, uint32_t b,
		  struct sim_pkt *pkt);
bool sim_next_event(struct sim *s, struct sim_ev *ev);
struct sim_pkt *sim_pkt_alloc(struct sim *s);
void sim_pkt_free(struct sim *s, struct sim_pkt *p);

/* ---- links, ports, switches, fabric (net.c) ---- */
struct sim_port {
	uint32_t	to;		/* node at the far end */
	uint32_t	rate_mbps;
	uint64_t	prop_ns;
	uint32_t	buf_bytes;	/* tail drop above this */
	uint32_t	ecn_bytes;	/* CE-mark packets that find this much queued */
	uint32_t	loss_ppm;	/* random loss on the link (long-run mean) */
	uint32_t	burst;		/* mean loss burst, packets: Gilbert-Elliott if > 1 */
	bool		ge_bad;		/* Gilbert-Elliott: in the lossy state */
	uint64_t	ge_at;		/* ... as of this time */
	uint64_t	jitter_ns;	/* extra delay, uniform: packets overtake each other */
	uint32_t	dup_ppm;	/* duplicated on the link */
	bool		dead;
	bool		busy;
	struct sim_pkt	*head, *tail;
	uint32_t	qbytes;
	uint32_t	peak_bytes;
	uint64_t	marks, drops, lost, dups;
};

enum sim_node_kind { SIM_HOST, SIM_LEAF, SIM_SPINE };

struct sim_node {
	uint8_t		kind;
	bool		dead;
	uint32_t	idx;		/* host, leaf or spine number */
	uint32_t	nports;
	struct sim_port	*port;
};

struct sim_fabric_cfg {
	uint32_t	hosts;
	uint32_t	hosts_per_leaf;
	uint32_t	spines;		/* planes */
	uint32_t	host_mbps;
	uint32_t	uplink_mbps;	/* 0: hosts_per_leaf * host_mbps / spines (non-blocking) */
	uint64_t	prop_ns;	/* per link */
	uint32_t	buf_bytes;	/* per switch output port */
	uint32_t	ecn_bytes;
	/* impairments of every host uplink: each packet meets them once */
	uint32_t	loss_ppm;	/* random loss */
	uint32_t	burst;		/* mean loss burst length in packets; <= 1: independent */
	uint64_t	jitter_ns;	/* reordering: uniform extra delay */
	uint32_t	dup_ppm;	/* duplication */
	int32_t		dead_spine;	/* -1: none */
	uint32_t	dead_spines;	/* how many fail, from dead_spine on; 0 counts as 1 */
	uint64_t	dead_at;
};

void sim_net_build(struct sim *s, const struct sim_fabric_cfg *cfg);
void sim_net_free(struct sim *s);
/* Queue p on node n's port; drops (tail, dead link) are counted here. */
void sim_port_send(struct sim *s, uint32_t n, uint32_t port, struct sim_pkt *p);
void sim_net_txdone(struct sim *s, uint32_t n, uint32_t port);
void sim_net_arrive(struct sim *s, uint32_t n, struct sim_pkt *p);
void sim_net_fail_spine(struct sim *s, uint32_t spine);
uint32_t sim_ecmp_hash(uint32_t seed, uint32_t src, uint32_t dst, uint16_t sport);

/* ---- endpoints and hosts (host.c) ---- */
struct sim_flow;
struct sim_ep;

struct sim_ep_ops {
	/* The next packet to put on the NIC, or NULL; ctl: only an ACK or NAK owed now. */
	struct sim_pkt *(*pull)(struct sim *s, struct sim_ep *e, bool ctl);
	void (*rx)(struct sim *s, struct sim_ep *e, struct sim_pkt *p);
	uint64_t (*deadline)(struct sim_ep *e);
	void (*timer)(struct sim *s, struct sim_ep *e);
	void (*destroy)(struct sim_ep *e);
};

struct sim_ep {
	const struct sim_ep_ops *ops;
	struct sim_flow	*flow;
	uint32_t	host, peer;
	bool		sender;
	uint16_t	sport_base;
	uint32_t	id;		/* index in sim.ep */
	uint64_t	timer_at;
	uint32_t	timer_gen;
	void		*priv;
};

struct sim_host {
	uint32_t	nep;
	uint32_t	cap;
	uint32_t	rr;
	struct sim_ep	**ep;
};

void sim_host_add(struct sim *s, struct sim_ep *e);
/* Something changed at e: re-arm its timer and let the NIC pull. */
void sim_ep_kick(struct sim *s, struct sim_ep *e);
void sim_host_pull(struct sim *s, uint32_t h);
void sim_host_rx(struct sim *s, uint32_t h, struct sim_pkt *p);
void sim_ep_timer(struct sim *s, uint32_t ep_id, uint32_t gen);
/* Frame p for the wire from e to its peer. */
void sim_ep_frame(struct sim_ep *e, struct sim_pkt *p, uint16_t sport, uint32_t extra_wire);

/* ---- flows and their verification (flow.c) ---- */
struct sim_flow {
	uint32_t	id;
	uint32_t	src, dst;
	uint32_t	nmsg;
	uint32_t	msg_len;
	uint32_t	depth;		/* messages posted and not completed, at most */
	/*
	 * Ring collectives: message k (k > 0) may be posted only once the upstream flow,
	 * which delivers into this flow's sender, has delivered k messages; the flow whose
	 * sender our deliveries unblock is downstream. -1: none.
	 */
	int32_t		upstream, downstream;
	/* sender side */
	uint32_t	posted, completed;
	uint64_t	*post_at;
	uint64_t	last_done;
	bool		failed;
	/* receiver side: what was placed, checked against the pattern as it lands */
	uint64_t	placed_bytes;
	uint64_t	placed_offsum;	/* sum of the offsets of placed bytes: coverage */
	uint32_t	delivered;
	uint64_t	bad_bytes;
	/* counters the endpoint adapters keep */
	uint64_t	data_pkts, retx, spurious, probes, rto;
	struct sim_ep	*ep[2];		/* sender, receiver */
};

uint8_t sim_pattern(uint32_t flow, uint64_t off);
void sim_flow_fill(const struct sim_flow *f, uint64_t off, uint8_t *buf, uint32_t len);
/* The receiver placed len bytes at off: check them and account for them. */
void sim_flow_place(struct sim_flow *f, uint64_t off, const uint8_t *buf, uint32_t len);
void sim_flow_complete(struct sim *s, struct sim_flow *f, uint32_t msg);
bool sim_flow_verified(const struct sim_flow *f);
/* The receiver delivered a whole message, in order. */
void sim_flow_delivered(struct sim *s, struct sim_flow *f);
/* The transport gave up on the flow (retries exhausted). */
void sim_flow_fail(struct sim *s, struct sim_flow *f);

/* ---- the simulation ---- */
enum sim_proto { SIM_METAROCE, SIM_GBN };

struct sim_cfg {
	uint64_t	seed;
	enum sim_proto	proto;
	struct sim_fabric_cfg fab;
	uint32_t	mr_paths;	/* MetaRoCE paths per connection (N) */
	uint64_t	gbn_rto_ns;	/* go-back-N local ACK timeout */
	uint64_t	limit_ns;	/* stop here even if flows are unfinished */
};

struct sim {
	struct sim_cfg	cfg;
	uint64_t	now;
	uint64_t	rng;
	/* event heap */
	struct sim_ev	*heap;
	uint32_t	nheap, capheap;
	uint64_t	seq;
	uint64_t	nevents;
	struct sim_pkt	*freelist;
	/* network */
	uint32_t	nnodes, nleaves;
	struct sim_node	*node;
	struct sim_host	*host;
	/* endpoints and flows */
	struct sim_ep	**ep;
	uint32_t	nep, capep;
	struct sim_flow	*flow;
	uint32_t	nflows, capflows;
	uint32_t	flows_done;
	void		*proto;		/* the endpoint adapter's per-run state */
	uint64_t	*fct;		/* per completed message, ns */
	uint64_t	nfct, capfct;
};

struct sim_result {
	uint64_t	bytes;		/* delivered and verified */
	uint64_t	elapsed_ns;	/* first post to last completion (or the limit) */
	double		goodput_gbps;
	uint64_t	data_pkts, retx, spurious, probes, rto;
	uint64_t	ecn_marks, drops, lost, peak_queue;
	uint64_t	fct_p50_ns, fct_p99_ns;
	uint32_t	flows, flows_done, flows_failed;
	/*
	 * Every byte placed had the value of its offset; every completed flow had each of
	 * its bytes placed exactly once. Flows cut short are counted in flows_done.
	 */
	bool		verified;
};

void sim_init(struct sim *s, const struct sim_cfg *cfg);
void sim_free(struct sim *s);
/* A flow of nmsg WRITEs of msg_len bytes, at most depth outstanding, from time 0. */
struct sim_flow *sim_add_flow(struct sim *s, uint32_t src, uint32_t dst, uint32_t nmsg,
			      uint32_t msg_len, uint32_t depth);
/* The sender may post its next message now: record the post time. */
bool sim_flow_may_post(struct sim *s, struct sim_flow *f);
/* Create the endpoints for every flow added, run to completion or the limit. */
void sim_run(struct sim *s, struct sim_result *r);

/* endpoint adapters */
void sim_mr_attach(struct sim *s, struct sim_flow *f);
void sim_gbn_attach(struct sim *s, struct sim_flow *f);

#endif /* _METAROCE_SIM_H */
