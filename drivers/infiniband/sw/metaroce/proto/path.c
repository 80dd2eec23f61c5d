// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE path health and selection.
 */
#include "path.h"
#include "params.h"

void mr_rtt_sample(struct mr_rtt *r, u64 rtt_ns)
{
	u64 err;

	if (!rtt_ns)
		rtt_ns = 1;	/* keep srtt == 0 meaning "no sample" */
	if (!r->srtt) {
		r->srtt = rtt_ns;
		r->rttvar = rtt_ns / 2;
		r->min = rtt_ns;
		return;
	}
	err = rtt_ns > r->srtt ? rtt_ns - r->srtt : r->srtt - rtt_ns;
	r->rttvar = r->rttvar - (r->rttvar >> 2) + (err >> 2);
	r->srtt = r->srtt - (r->srtt >> 3) + (rtt_ns >> 3);
	if (rtt_ns < r->min)
		r->min = rtt_ns;
}

void mr_paths_init(struct mr_paths *ps, u8 n)
{
	unsigned int i;

	memset(ps, 0, sizeof(*ps));
	ps->n = clamp_t(u8, n, 1, MR_MAX_PATHS);
	ps->since_probe = MR_PATH_PROBE_GAP;
	ps->seg = U16_MAX;
	for (i = 0; i < ps->n; i++) {
		ps->p[i].up = true;
		ps->p[i].weight = MR_PATH_W_MAX;
		ps->p[i].probe_ival_ns = MR_PATH_PROBE_NS;
	}
}

static void mr_path_revive(struct mr_path *p)
{
	p->up = true;
	p->probing = false;
	p->weight = MR_PATH_W_UP;
	p->credit = 0;
	p->consec_losses = 0;
	p->lost_len = 0;
	p->probe_ival_ns = MR_PATH_PROBE_NS;
}

u64 mr_paths_min_srtt(const struct mr_paths *ps)
{
	u64 fastest = U64_MAX;
	unsigned int i;

	for (i = 0; i < ps->n; i++)
		if (ps->p[i].up && ps->p[i].rtt.srtt)
			fastest = min_t(u64, fastest, ps->p[i].rtt.srtt);
	return fastest == U64_MAX ? 0 : fastest;
}

static bool mr_path_slow(const struct mr_paths *ps, const struct mr_path *p)
{
	u64 fastest = mr_paths_min_srtt(ps);

	return p->rtt.srtt && fastest && p->rtt.srtt > fastest * MR_PATH_SLOW_FACTOR;
}

/*
 * Does an answered packet of len bytes of payload prove that the retired path carries
 * what it would get? Not if it is smaller than what the path lost and than the segment
 * in use: a link narrower than the segments passes a message's short last packet.
 */
static bool mr_path_proven(const struct mr_paths *ps, const struct mr_path *p, u16 len)
{
	return len >= min_t(u16, p->lost_len, ps->seg);
}

static void mr_paths_revive(struct mr_paths *ps, u8 path)
{
	mr_path_revive(&ps->p[path]);
	ps->stat_revived++;
	if (ps->on_change)
		ps->on_change(ps->change_arg, path, true);
}

void mr_paths_on_echo(struct mr_paths *ps, u8 path, u64 rtt_ns, bool ce, u16 len)
{
	struct mr_path *p;

	if (path >= ps->n)
		return;
	p = &ps->p[path];
	/* A probe (or a late packet) got through. */
	if (!p->up && mr_path_proven(ps, p, len))
		mr_paths_revive(ps, path);
	p->consec_losses = 0;

	if (rtt_ns) {
		mr_rtt_sample(&p->rtt, rtt_ns);
		mr_rtt_sample(&ps->conn, rtt_ns);
	}

	/* CE EWMA with gain 1/8, in MR_FP_ONE units. */
	p->ce_frac -= p->ce_frac >> MR_PATH_CE_SHIFT;
	if (ce) {
		p->ce_frac += MR_FP_ONE >> MR_PATH_CE_SHIFT;
		p->stat_ce++;
	}

	/*
	 * A marked path sheds load before the connection's window is cut. So does a path
	 * much slower than the fastest: its packets hold back the cumulative ack and fill
	 * the 256-packet window with the others' packets waiting behind them.
	 */
	if (ce || mr_path_slow(ps, p))
		p->weight -= p->weight / 4;
	else
		p->weight += MR_PATH_W_INC;
	p->weight = clamp_t(u32, p->weight, MR_PATH_W_MIN, MR_PATH_W_MAX);
}

void mr_paths_retire(struct mr_paths *ps, u64 now, u8 path)
{
	struct mr_path *p;

	if (path >= ps->n)
		return;
	p = &ps->p[path];
	if (!p->up)
		return;
	p->up = false;
	p->probing = false;
	p->probe_at_ns = now + p->probe_ival_ns;
	ps->stat_retired++;
	if (ps->on_change)
		ps->on_change(ps->change_arg, path, false);
}

void mr_paths_on_acked(struct mr_paths *ps, u8 path, u64 sent_ns, u16 len)
{
	struct mr_path *p;

	if (path >= ps->n)
		return;
	p = &ps->p[path];
	p->loss_rate -= p->loss_rate >> MR_PATH_LOSS_SHIFT;
	/* It delivers: losses since its last echo need not be consecutive (batched ACKs). */
	p->consec_losses = 0;
	/*
	 * The probe arrived. Its ACK need not echo it: a receiver that read more
	 * packets before answering echoes the last of them, and a retired path
	 * waiting for that echo stayed retired for good. Too small to prove the
	 * path, it ends without a verdict: the next probe is due at once.
	 */
	if (!p->up && p->probing && sent_ns >= p->probe_at_ns) {
		if (mr_path_proven(ps, p, len))
			mr_paths_revive(ps, path);
		else
			p->probing = false;
	}
}

/*
 * Is path's loss rate clearly worse than the others'? Above 0 and at least
 * MR_PATH_FAIL_RATIO times that of at least half of the other up paths (true when there
 * are none). Loss the paths share (the first hop, a host link) raises them all alike; a
 * failing path climbs alone, or with the minority of paths that fail with it.
 */
static bool mr_path_worst(const struct mr_paths *ps, u8 path)
{
	u64 rate = ps->p[path].loss_rate;
	unsigned int i, n = 0, below = 0;

	for (i = 0; i < ps->n; i++) {
		if (i == path || !ps->p[i].up)
			continue;
		n++;
		if ((u64)ps->p[i].loss_rate * MR_PATH_FAIL_RATIO <= rate)
			below++;
	}
	return !n || (rate && 2 * below >= n);
}

void mr_paths_on_rto(struct mr_paths *ps, u64 now, u64 outstanding)
{
	unsigned int i, n_up = 0, n_out = 0;
	u64 retire = 0;

	for (i = 0; i < ps->n; i++) {
		if (!ps->p[i].up)
			continue;
		n_up++;
		if (outstanding & BIT_ULL(i))
			n_out++;
	}
	/*
	 * A timeout that spares most paths points at the ones that timed out, lossy or
	 * only slow (a deep queue on their route): retire them all. One that hit most paths
	 * is shared, or total: retire only those clearly worse than the rest. Decide over
	 * the paths as they stand, then retire.
	 */
	for (i = 0; i < ps->n; i++)
		if ((outstanding & BIT_ULL(i)) && ps->p[i].up &&
		    (2 * n_out <= n_up || mr_path_worst(ps, i)))
			retire |= BIT_ULL(i);
	for (i = 0; i < ps->n; i++)
		if (retire & BIT_ULL(i))
			mr_paths_retire(ps, now, i);
}

/* A retired path's probe failed: wait longer before the next one. */
static void mr_path_probe_failed(struct mr_path *p, u64 now)
{
	p->probing = false;
	p->probe_ival_ns = min_t(u64, p->probe_ival_ns * 2, MR_PATH_PROBE_MAX_NS);
	p->probe_at_ns = now + p->probe_ival_ns;
}

static void mr_path_lost(struct mr_paths *ps, u64 now, u8 path, bool shed, u16 len)
{
	struct mr_path *p;

	if (path >= ps->n)
		return;
	p = &ps->p[path];
	p->lost_len = max_t(u16, p->lost_len, len);
	p->losses++;
	p->loss_rate += (MR_FP_ONE - p->loss_rate) >> MR_PATH_LOSS_SHIFT;
	if (!p->up) {
		if (p->probing)
			mr_path_probe_failed(p, now);
		return;
	}
	if (shed)
		p->weight = max_t(u32, p->weight / 2, MR_PATH_W_MIN);
	if (p->consec_losses < U8_MAX)
		p->consec_losses++;
	if (p->consec_losses >= MR_PATH_FAIL_LOSSES && mr_path_worst(ps, path))
		mr_paths_retire(ps, now, path);
}

void mr_paths_on_loss(struct mr_paths *ps, u64 now, u8 path, u16 len)
{
	mr_path_lost(ps, now, path, true, len);
}

void mr_paths_on_rto_loss(struct mr_paths *ps, u8 path, u16 len)
{
	if (path < ps->n)
		ps->p[path].lost_len = max_t(u16, ps->p[path].lost_len, len);
}

/*
 * Towards retiring the path, not against its weight: a sparse sender's weights hardly
 * matter, and where loss is random these verdicts (lost ACKs count too) skewed the spray.
 */
void mr_paths_on_probe_loss(struct mr_paths *ps, u64 now, u8 path, u16 len)
{
	mr_path_lost(ps, now, path, false, len);
}

unsigned int mr_paths_up(const struct mr_paths *ps)
{
	unsigned int i, n = 0;

	for (i = 0; i < ps->n; i++)
		n += ps->p[i].up;
	return n;
}

/* A retired path whose probe is due, or -1. Called once for each packet sent. */
static int mr_paths_probe_due(struct mr_paths *ps, u64 now)
{
	unsigned int i;
	int due = -1;

	for (i = 0; i < ps->n; i++) {
		struct mr_path *p = &ps->p[i];

		/*
		 * Neither answered nor declared lost within its interval: failed. A probe
		 * that is a retransmission can be overtaken by another copy of its packet,
		 * whose answer settles the packet and says nothing about this path.
		 */
		if (!p->up && p->probing && now - p->probe_at_ns >= p->probe_ival_ns)
			mr_path_probe_failed(p, now);
		/* The longest due first: dead paths at the longest interval starve no one. */
		if (!p->up && !p->probing && now >= p->probe_at_ns &&
		    (due < 0 || p->probe_at_ns < ps->p[due].probe_at_ns))
			due = i;
	}
	/*
	 * A probe of a dead path costs a sparse sender (one message in flight) the wait
	 * for a tail-loss probe, and with many retired paths and short intervals nearly
	 * every message of a slow ping-pong became a probe: at most one in
	 * MR_PATH_PROBE_GAP packets, however many paths are due.
	 */
	if (ps->since_probe < MR_PATH_PROBE_GAP) {
		ps->since_probe++;
		return -1;
	}
	if (due < 0)
		return -1;
	ps->since_probe = 0;
	ps->p[due].probing = true;
	ps->p[due].probe_at_ns = now;	/* when it went: only later packets answer it */
	return due;
}

/* Smooth weighted round-robin over up paths, skipping avoid (or -1). */
static int mr_paths_swrr(struct mr_paths *ps, int avoid)
{
	s64 total = 0;
	int best = -1;
	unsigned int i;

	for (i = 0; i < ps->n; i++) {
		struct mr_path *p = &ps->p[i];

		if (!p->up || (int)i == avoid)
			continue;
		p->credit += p->weight;
		total += p->weight;
		if (best < 0 || p->credit > ps->p[best].credit)
			best = i;
	}
	if (best >= 0)
		ps->p[best].credit -= total;
	return best;
}

u8 mr_paths_pick(struct mr_paths *ps, u64 now)
{
	int i = mr_paths_probe_due(ps, now);

	if (i >= 0)
		return i;
	i = mr_paths_swrr(ps, -1);
	if (i >= 0)
		return i;
	/* Nothing is up: keep trying every path in turn; the RTO decides. */
	i = ps->rr;
	ps->rr = (ps->rr + 1) % ps->n;
	return i;
}

/* The healthiest up path other than avoid: highest weight, then lowest smoothed RTT. */
static int mr_paths_healthiest(const struct mr_paths *ps, int avoid)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < ps->n; i++) {
		const struct mr_path *p = &ps->p[i];
		const struct mr_path *b;

		if (!p->up || (int)i == avoid)
			continue;
		if (best < 0) {
			best = i;
			continue;
		}
		b = &ps->p[best];
		if (p->weight > b->weight ||
		    (p->weight == b->weight && p->rtt.srtt < b->rtt.srtt))
			best = i;
	}
	return best;
}

u8 mr_paths_pick_retx(struct mr_paths *ps, u64 now, u8 avoid)
{
	int probe = mr_paths_probe_due(ps, now);
	int best;

	/* A retransmission is a good probe: it is wanted whether or not the path works. */
	if (probe >= 0 && probe != avoid)
		return probe;
	if (probe >= 0)
		ps->p[probe].probing = false;
	best = mr_paths_healthiest(ps, avoid);
	return best >= 0 ? best : mr_paths_pick(ps, now);
}

u8 mr_paths_pick_tlp(struct mr_paths *ps, u64 now, u8 avoid)
{
	int best = mr_paths_healthiest(ps, avoid);

	if (best >= 0)
		return best;
	/* No other up path: its own, if up; with none up, as a new packet would go. */
	if (avoid < ps->n && ps->p[avoid].up)
		return avoid;
	return mr_paths_pick(ps, now);
}

u8 mr_paths_pick_ack(const struct mr_paths *ps, u8 path)
{
	unsigned int i;

	path %= ps->n;
	for (i = 0; i < ps->n; i++, path = (path + 1) % ps->n)
		if (ps->p[path].up)
			return path;
	return path;	/* none up: back where it started, the echoed number */
}

/*
 * How much later than the fastest packet a packet's ACK may come back without being lost:
 * the slowest plausible RTT of an up path (srtt + 4 rttvar; the variance also carries the
 * spread of the reverse paths the ACKs take) minus the fastest RTT seen, plus a quarter
 * of that fastest RTT for jitter, plus the receiver's ACK delay (subtracted from the RTT
 * samples but not from the time an ACK takes). Capped at 2 srtt + ACK delay.
 */
u64 mr_paths_reo_wnd(const struct mr_paths *ps)
{
	u64 hi = 0, wnd, cap;
	bool unknown = false;
	unsigned int i;

	cap = max_t(u64, 2 * ps->conn.srtt, MR_REO_MIN_NS) + MR_ACK_DELAY_NS;
	for (i = 0; i < ps->n; i++) {
		const struct mr_path *p = &ps->p[i];

		if (!p->up)
			continue;
		if (!p->rtt.srtt) {
			unknown = true;
			continue;
		}
		hi = max_t(u64, hi, p->rtt.srtt + 4 * p->rtt.rttvar);
	}
	/* Until every path has been measured the spread is unknown: be patient. */
	if (unknown || !ps->conn.srtt)
		return cap;
	wnd = ps->conn.min / 4 + (hi > ps->conn.min ? hi - ps->conn.min : 0);
	wnd = max_t(u64, wnd, MR_REO_MIN_NS) + MR_ACK_DELAY_NS;
	return min_t(u64, wnd, cap);
}
