// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE: the transport of an RC QP, between its rings and the protocol
 * core (proto/conn.c).
 *
 * Everything here runs in one context at a time per QP (metaroce_qp_drive()),
 * with bottom halves disabled: taking send WQEs from the ring (each is copied
 * and validated before use), handing packets to the datapath, placing
 * received payload in final memory, performing atomics, completing work
 * requests in verbs order and arming the one timer the core asks for. While
 * a QP waits for one message (metaroce_qp_sq_quiet()), a process ringing its
 * doorbell runs it in its system call, and a received packet that someone
 * waits for alone (metaroce_qp_rcv_now()) runs it in softirq after the batch
 * that brought it: no worker wakes up on the way of a round trip. Otherwise,
 * and for the timer and kernel posters, the work item runs it, once for many
 * doorbells and packets; it also takes over what a run leaves.
 */

#include <linux/highmem.h>
#include <linux/if_vlan.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <net/inet_ecn.h>

#include "metaroce.h"
#include "metaroce_trace.h"
#include "proto/conn.h"

/* Work done per run before it yields the CPU to the work item. */
#define METAROCE_WORK_BUDGET	64
/* Received packets a QP queues before it drops (the sender will retransmit). */
#define METAROCE_RXQ_MAX	2048
/* How long a due timer waits for queued packets to be read first. */
#define METAROCE_TIMER_DEFER_NS	(1 * NSEC_PER_MSEC)
/* Runs of the transport a doorbell does before it leaves the rest to the work item. */
#define METAROCE_RUN_ROUNDS	4
/*
 * How late a quiet connection's timeouts may fire (spec, "Timer precision"): a
 * tick, so that they run at the next timer interrupt of a busy CPU instead of
 * programming the timer device for each round trip.
 */
#define METAROCE_TIMEOUT_SLACK_NS	TICK_NSEC

struct metaroce_rx_cb {
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 ecn;
	int addr_ifindex;	/* metaroce_dp_rx_info.addr_ifindex */
};

static_assert(sizeof(struct metaroce_rx_cb) <= sizeof_field(struct sk_buff, cb));

static struct workqueue_struct *metaroce_wq;
static DEFINE_SPINLOCK(metaroce_atomic_lock);	/* atomics of all QPs, as rxe */

static struct metaroce_rx_cb *metaroce_rx_cb(struct sk_buff *skb)
{
	return (struct metaroce_rx_cb *)skb->cb;
}

void metaroce_qp_kick(struct metaroce_qp *qp)
{
	queue_work(metaroce_wq, &qp->work);
}

static bool metaroce_qp_run(struct metaroce_qp *qp);

/* qp->run_state */
enum {
	METAROCE_RUN_BUSY	= BIT(0),	/* a context runs the transport */
	METAROCE_RUN_AGAIN	= BIT(1),	/* and must look again before it stops */
	METAROCE_RUN_PAUSED	= BIT(2),	/* the verbs hold it still */
};

/*
 * Run the transport of @qp here and now, unless another context does (it
 * then looks again before it stops) or the verbs have paused it. After
 * @rounds runs with more to do, the work item takes over: a woken worker can
 * wait for a scheduler tick behind the process that polls for completions.
 */
static void metaroce_qp_drive(struct metaroce_qp *qp, int rounds)
{
	bool more, wake = false;

	spin_lock_bh(&qp->run_lock);
	if (qp->run_state & (METAROCE_RUN_BUSY | METAROCE_RUN_PAUSED)) {
		qp->run_state |= METAROCE_RUN_AGAIN;
		spin_unlock_bh(&qp->run_lock);
		return;
	}
	qp->run_state |= METAROCE_RUN_BUSY;
	spin_unlock_bh(&qp->run_lock);

	local_bh_disable();
	for (;;) {
		more = metaroce_qp_run(qp);
		metaroce_qp_stats_update(qp);
		spin_lock(&qp->run_lock);
		if (qp->run_state & METAROCE_RUN_AGAIN) {
			qp->run_state &= ~METAROCE_RUN_AGAIN;
			more = true;
		}
		if (qp->run_state & METAROCE_RUN_PAUSED) {
			/* resume kicks the work item */
			if (more)
				qp->run_state |= METAROCE_RUN_AGAIN;
			more = false;
			wake = true;
		}
		if (!more || --rounds <= 0) {
			qp->run_state &= ~METAROCE_RUN_BUSY;
			spin_unlock(&qp->run_lock);
			break;
		}
		spin_unlock(&qp->run_lock);
	}
	local_bh_enable();
	if (wake) {
		smp_mb();	/* BUSY clear before the waiter's check: wait_var_event() */
		wake_up_var(&qp->run_state);
	} else if (more) {
		metaroce_qp_kick(qp);
	}
}

/*
 * At most one send WQE posted and not completed: whoever waits for this QP
 * waits for one message, and a run now saves it a worker's wakeup. With more
 * outstanding, one run of the work item serves many doorbells and ACKs (a
 * run per doorbell or per receive batch halved 4 KiB ib_write_bw). Read
 * outside the run, the producer index written by the process: a hint only.
 */
static bool metaroce_qp_sq_quiet(struct metaroce_qp *qp)
{
	return READ_ONCE(qp->sq.ring->prod) - READ_ONCE(qp->sq_done) <= 1;
}

/*
 * Whether the process will look for the completion of the WQE it posted last:
 * only then is it worth a run in the doorbell's system call. Over veth or
 * loopback that run takes the whole round trip (the peer's receive and its
 * ACK run in softirqs at the end of it), so a process streaming unsignaled
 * WQEs that found the queue drained posted one per round trip, on one CPU,
 * until a late softirq broke the cycle (7% of a 4 KiB ib_write_bw's time,
 * at a third of its rate). The flags are the process's to rewrite: a hint.
 */
static bool metaroce_qp_sq_awaited(struct metaroce_qp *qp)
{
	const struct metaroce_send_wqe *e;

	if (qp->sig_all)
		return true;
	e = metaroce_queue_entry(&qp->sq, READ_ONCE(qp->sq.ring->prod) - 1);
	return READ_ONCE(e->send_flags) & METAROCE_SEND_SIGNALED;
}

/* A process rang the doorbell of its QP. */
void metaroce_qp_doorbell(struct metaroce_qp *qp)
{
	if (metaroce_qp_sq_quiet(qp) && metaroce_qp_sq_awaited(qp))
		metaroce_qp_drive(qp, METAROCE_RUN_ROUNDS);
	else
		metaroce_qp_kick(qp);
}

/*
 * Hold the transport of @qp still for the verbs (under qp->mutex): returns
 * once no context runs it; none starts until metaroce_qp_resume().
 */
void metaroce_qp_pause(struct metaroce_qp *qp)
{
	lockdep_assert_held(&qp->mutex);
	spin_lock_bh(&qp->run_lock);
	qp->run_state |= METAROCE_RUN_PAUSED;
	spin_unlock_bh(&qp->run_lock);
	wait_var_event(&qp->run_state,
		       !(READ_ONCE(qp->run_state) & METAROCE_RUN_BUSY));
}

void metaroce_qp_resume(struct metaroce_qp *qp)
{
	bool kick;

	spin_lock_bh(&qp->run_lock);
	kick = qp->run_state & METAROCE_RUN_AGAIN;
	qp->run_state &= ~(METAROCE_RUN_PAUSED | METAROCE_RUN_AGAIN);
	spin_unlock_bh(&qp->run_lock);
	if (kick)
		metaroce_qp_kick(qp);
}

/*
 * The timer fires at or before qp->timer_deadline: it wakes the work item
 * once that is due, moves itself on to it if it is later, and stops if the
 * transport no longer needs it. It moves on with hrtimer_start(), not by
 * setting its expiry and returning HRTIMER_RESTART: a run on another CPU may
 * have queued it again meanwhile (it was not queued while this ran).
 */
static enum hrtimer_restart metaroce_qp_timer(struct hrtimer *t)
{
	struct metaroce_qp *qp = container_of(t, struct metaroce_qp, timer);
	unsigned long flags;
	bool due;

	spin_lock_irqsave(&qp->timer_lock, flags);
	due = qp->timer_deadline <= ktime_get_ns();
	if (!due && qp->timer_deadline != U64_MAX)
		hrtimer_start_range_ns(t, ns_to_ktime(qp->timer_deadline),
				       qp->timer_latest - qp->timer_deadline, HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&qp->timer_lock, flags);
	if (due)
		metaroce_qp_kick(qp);
	return HRTIMER_NORESTART;
}

/*
 * Have the timer fire between @deadline and @latest (U64_MAX: never).
 * Starting an hrtimer that becomes the first to expire reprograms the CPU's
 * timer device, a trapped write in a virtual machine, and runs move the
 * deadline several times per round trip (in the test VM, 2-byte
 * ib_write_lat's typical was 130 us that way, 76 us this way). So a timer
 * queued to fire by @latest is left alone, as is one no longer needed: when
 * it fires it moves on to the deadline of that moment, or stops. Given room
 * up to @latest, an expired timer waits for the CPU's next timer interrupt
 * instead of programming the device.
 */
static void metaroce_qp_arm_timer(struct metaroce_qp *qp, u64 deadline, u64 latest)
{
	struct hrtimer *t = &qp->timer;
	unsigned long flags;

	spin_lock_irqsave(&qp->timer_lock, flags);
	qp->timer_deadline = deadline;
	qp->timer_latest = latest;
	/*
	 * Under the lock, a queued timer either stays queued or its callback
	 * waits here and reads the new deadline.
	 */
	if (deadline != U64_MAX &&
	    !(hrtimer_is_queued(t) && ktime_to_ns(hrtimer_get_expires(t)) <= latest))
		hrtimer_start_range_ns(t, ns_to_ktime(deadline), latest - deadline,
				       HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&qp->timer_lock, flags);
}

/*
 * The deadline of @qp's connection, and how late the timer may take it: a
 * timeout of a connection without recent loss, up to a tick, but never past
 * a deadline of scheduled work (spec, "Timer precision"). A precise tail
 * probe, which every round trip's ACK overtakes, still fired and was started
 * again once per round trip: 2-byte ib_write_lat's median was 86-121 us that
 * way and 65-78 us this way in the test VM (rxe 89-111).
 */
static void metaroce_qp_arm_conn_timer(struct metaroce_qp *qp, u64 now)
{
	u64 deadline, latest;

	deadline = mr_conn_deadline_window(qp->conn, now, METAROCE_TIMEOUT_SLACK_NS, &latest);
	metaroce_qp_arm_timer(qp, deadline, latest);
}

/* ------------------------------------------------------------------------
 * Memory: copies between a buffer and MRs, every access checked.
 */

/* Rights only a peer's access needs: its key may be a memory window's. */
#define METAROCE_REMOTE_ACCESS	(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * Copy @len bytes between @buf and [@addr, @addr + @len) of the MR (or, for
 * a remote @access, the MR or memory window) @key.
 */
static int metaroce_mr_copy(struct metaroce_qp *qp, u32 key, int access, u64 addr,
			    void *buf, u32 len, bool to_mr)
{
	struct metaroce_mr *mr;
	int ret;

	if (access & METAROCE_REMOTE_ACCESS)
		ret = metaroce_rkey_get(qp, key, access, addr, len, &mr);
	else
		ret = metaroce_mr_get(qp->mdev, key, qp->ibqp.pd, access, addr, len, &mr);
	if (ret)
		return ret;
	while (len) {
		struct page *page;
		unsigned int off;
		void *va;
		int n;

		n = metaroce_mr_page(mr, addr, &page, &off);
		if (n < 0) {
			ret = n;
			break;
		}
		n = min_t(u32, n, len);
		va = kmap_local_page(page);
		if (to_mr)
			memcpy(va + off, buf, n);
		else
			memcpy(buf, va + off, n);
		kunmap_local(va);
		addr += n;
		buf += n;
		len -= n;
	}
	metaroce_mr_put(mr);
	return ret;
}

/*
 * Copy @len bytes between @buf and the message described by an SGE list, at
 * message offset @off. Returns 0, -EMSGSIZE if the SGEs are too short, or
 * the MR look-up's error.
 */
static int metaroce_sgl_copy(struct metaroce_qp *qp, const struct metaroce_sge *sge,
			     u32 num_sge, u32 off, void *buf, u32 len, bool to_sgl)
{
	int access = to_sgl ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		u32 slen = sge[i].length, n;

		if (off >= slen) {
			off -= slen;
			continue;
		}
		n = min(slen - off, len);
		ret = metaroce_mr_copy(qp, sge[i].lkey, access, sge[i].addr + off, buf, n,
				       to_sgl);
		if (ret)
			return ret;
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}

static u64 metaroce_sgl_len(const struct metaroce_sge *sge, u32 num_sge)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		len += sge[i].length;
	return len;
}

static struct metaroce_sge *metaroce_swqe_sge(struct metaroce_qp *qp, u32 idx)
{
	return qp->sq_data + (size_t)(idx & (qp->sq.num - 1)) *
		(qp->sq.entry_size - sizeof(struct metaroce_send_wqe));
}

/* ------------------------------------------------------------------------
 * Completions
 */

static enum ib_wc_status metaroce_wc_status(enum mr_wc_status st)
{
	switch (st) {
	case MR_WC_SUCCESS:
		return IB_WC_SUCCESS;
	case MR_WC_RETRY_EXC:
		return IB_WC_RETRY_EXC_ERR;
	case MR_WC_RNR_RETRY_EXC:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case MR_WC_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case MR_WC_REM_INV_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case MR_WC_REM_OP:
		return IB_WC_REM_OP_ERR;
	case MR_WC_FLUSH:
		break;
	}
	return IB_WC_WR_FLUSH_ERR;
}

static enum ib_wc_opcode metaroce_wc_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case METAROCE_WR_ATOMIC_WRITE:
		return METAROCE_WC_ATOMIC_WRITE;
	case METAROCE_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/* Errors move the QP to the error state, as in IBTA RC. */
static void metaroce_qp_to_err(struct metaroce_qp *qp)
{
	if (qp->state == IB_QPS_ERR)
		return;
	metaroce_linger_add(qp);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	qp->attr.qp_state = IB_QPS_ERR;
	qp->flushing = true;
	if (qp->ibqp.event_handler) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = IB_EVENT_QP_FATAL,
		};

		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

static void metaroce_swqe_report(struct metaroce_qp *qp, const struct metaroce_swqe *w)
{
	struct ib_wc wc = {
		.wr_id = w->wr_id,
		.status = w->status,
		.opcode = metaroce_wc_opcode(w->opcode),
		.qp = &qp->ibqp,
		.byte_len = w->len,
	};

	if (w->signaled || w->status != IB_WC_SUCCESS)
		metaroce_cq_post(to_mcq(qp->ibqp.send_cq), &wc, false);
}

/*
 * Report the send WQEs that are done and free their slots, which go back in
 * ring order. One stream: completions in ring order (verbs). Several: in
 * order per stream only (spec, "Streams and ordering"), so a WQE is
 * reported once the earlier WQEs of its stream are; the scan is bounded by
 * the WQEs taken and not freed (MR_SENDQ_DEPTH messages plus local ones).
 */
static void metaroce_sq_complete(struct metaroce_qp *qp)
{
	u16 blocked = 0;
	u32 idx;

	for (idx = qp->sq_done; idx != qp->sq_copy; idx++) {
		struct metaroce_swqe *w = &qp->swqe[idx & (qp->sq.num - 1)];
		u16 sbit = BIT(w->stream);

		if (!w->done || (blocked & sbit)) {
			if (qp->n_streams == 1)
				break;
			blocked |= sbit;
			continue;
		}
		if (idx != qp->sq_done) {
			if (!w->reported) {
				w->reported = true;
				metaroce_swqe_report(qp, w);
			}
			continue;
		}
		w->done = false;
		/* Free the slot first: a consumer may post again on seeing the CQE. */
		qp->sq_done++;
		metaroce_queue_cons_release(&qp->sq, qp->sq_done);
		if (!w->reported)
			metaroce_swqe_report(qp, w);
		w->reported = false;
	}
}

static void metaroce_swqe_finish(struct metaroce_qp *qp, u32 idx, enum ib_wc_status st)
{
	struct metaroce_swqe *w = &qp->swqe[idx & (qp->sq.num - 1)];

	w->status = st;
	w->done = true;
	if (st != IB_WC_SUCCESS && st != IB_WC_WR_FLUSH_ERR)
		qp->sq_error = true;
}

/*
 * Completion of the receive WQE at ring index idx: rq_done, or with several
 * streams one after it (a later stream's message delivered first). Slots are
 * freed in ring order: an early one when rq_done reaches it.
 */
static void metaroce_rq_complete_at(struct metaroce_qp *qp, u32 idx,
				    const struct ib_wc *tmpl, bool solicited)
{
	struct metaroce_recv_wqe *ring_wqe = metaroce_queue_entry(&qp->rq, idx);
	struct ib_wc wc = *tmpl;

	wc.wr_id = READ_ONCE(ring_wqe->wr_id);
	wc.qp = &qp->ibqp;
	if (idx != qp->rq_done) {
		__set_bit(idx & (qp->rq.num - 1), qp->rq_early);
	} else {
		/* Free the slots first: a consumer may post again on seeing the CQE. */
		qp->rq_done++;
		while (qp->rq_early &&
		       __test_and_clear_bit(qp->rq_done & (qp->rq.num - 1), qp->rq_early))
			qp->rq_done++;
		metaroce_queue_cons_release(&qp->rq, qp->rq_done);
	}
	metaroce_cq_post(to_mcq(qp->ibqp.recv_cq), &wc, solicited);
}

static void metaroce_rq_complete(struct metaroce_qp *qp, const struct ib_wc *tmpl,
				 bool solicited)
{
	metaroce_rq_complete_at(qp, qp->rq_done, tmpl, solicited);
}

/* In the error state every WQE completes with a flush error. */
static void metaroce_qp_flush(struct metaroce_qp *qp)
{
	struct ib_wc wc = { .status = IB_WC_WR_FLUSH_ERR, .opcode = IB_WC_RECV };
	u32 prod;

	while (qp->sq_copy != metaroce_queue_prod_acquire(&qp->sq) &&
	       qp->sq_copy - qp->sq_done < qp->sq.num) {
		struct metaroce_send_wqe *e = metaroce_queue_entry(&qp->sq, qp->sq_copy);
		struct metaroce_swqe *w = &qp->swqe[qp->sq_copy & (qp->sq.num - 1)];

		memset(w, 0, sizeof(*w));
		w->wr_id = READ_ONCE(e->wr_id);
		w->opcode = READ_ONCE(e->opcode);
		w->signaled = true;
		qp->sq_copy++;
	}
	for (prod = qp->sq_done; prod != qp->sq_copy; prod++) {
		struct metaroce_swqe *w = &qp->swqe[prod & (qp->sq.num - 1)];

		if (!w->done) {
			w->status = IB_WC_WR_FLUSH_ERR;
			w->done = true;
		}
	}
	metaroce_sq_complete(qp);

	if (qp->srq) {
		metaroce_srq_qp_flush(qp);
		return;
	}
	/* Those completed early (several streams) are done and freed on the way. */
	prod = metaroce_queue_prod_acquire(&qp->rq);
	while (qp->rq_done != prod && prod - qp->rq_done <= qp->rq.num)
		metaroce_rq_complete(qp, &wc, false);
}

/* ------------------------------------------------------------------------
 * Send: taking WQEs from the ring
 */

static u8 metaroce_mr_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_SEND:
		return MR_OP_SEND;
	case IB_WR_SEND_WITH_IMM:
		return MR_OP_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return MR_OP_SEND_INV;
	case IB_WR_RDMA_WRITE:
		return MR_OP_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return MR_OP_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return MR_OP_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return MR_OP_CMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return MR_OP_FETCH_ADD;
	case METAROCE_WR_ATOMIC_WRITE:
		return MR_OP_ATOMIC_WRITE;
	}
	return 0;
}

/* Check every SGE of a send WQE once, so that a bad lkey fails its own WQE. */
static int metaroce_check_sgl(struct metaroce_qp *qp, const struct metaroce_sge *sge,
			      u32 num_sge, int access)
{
	struct metaroce_mr *mr;
	u32 i;
	int ret;

	for (i = 0; i < num_sge; i++) {
		ret = metaroce_mr_get(qp->mdev, sge[i].lkey, qp->ibqp.pd, access,
				      sge[i].addr, sge[i].length, &mr);
		if (ret)
			return ret;
		metaroce_mr_put(mr);
	}
	return 0;
}

/* A local operation (LOCAL_INV, BIND_MW, REG_MR) runs when the queue reaches it. */
static enum ib_wc_status metaroce_local_op(struct metaroce_qp *qp,
					   const struct metaroce_send_wqe *e)
{
	struct metaroce_mr *mr;

	if (e->opcode == IB_WR_LOCAL_INV)
		return metaroce_mw_invalidate(qp, e->imm_inv) ?
			IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;
	if (e->opcode == IB_WR_BIND_MW)
		return metaroce_mw_bind(qp, e) ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS;

	mr = to_mmr((struct ib_mr *)(uintptr_t)e->wr.atomic.remote_addr);
	if (mr->pd != qp->ibqp.pd ||
	    metaroce_mr_fast_reg(mr, e->wr.atomic.rkey, (int)e->wr.atomic.compare_add))
		return IB_WC_MW_BIND_ERR;
	return IB_WC_SUCCESS;
}

/*
 * Copy and validate the WQE at sq_copy and hand it to the connection.
 * Returns false when nothing more can be taken now.
 */
static bool metaroce_sq_take_one(struct metaroce_qp *qp)
{
	u32 idx = qp->sq_copy, slot = idx & (qp->sq.num - 1);
	struct metaroce_send_wqe *ring = metaroce_queue_entry(&qp->sq, idx);
	struct metaroce_sge *sge = metaroce_swqe_sge(qp, idx);
	struct metaroce_swqe *w = &qp->swqe[slot];
	u32 room = qp->sq.entry_size - sizeof(*ring);
	struct metaroce_send_wqe e;
	struct mr_send_wr mw = {};
	enum ib_wc_status st = IB_WC_SUCCESS;
	u64 len = 0;

	if (idx == metaroce_queue_prod_acquire(&qp->sq) ||
	    idx - qp->sq_done >= qp->sq.num)
		return false;
	if (qp->conn->sq_head - qp->conn->sq_tail >= MR_SENDQ_DEPTH)
		return false;

	/* One copy of the header: the process may be rewriting the ring. */
	memcpy(&e, ring, sizeof(e));
	memset(w, 0, sizeof(*w));
	w->wr_id = e.wr_id;
	w->opcode = e.opcode;
	w->signaled = qp->sig_all || (e.send_flags & METAROCE_SEND_SIGNALED);
	qp->sq_copy++;

	/*
	 * A stream the QP does not have: the provider refuses it at post time,
	 * so only a process writing the ring itself gets here.
	 */
	if (e.stream >= qp->n_streams) {
		st = IB_WC_LOC_QP_OP_ERR;
		goto done;
	}
	w->stream = e.stream;

	if (e.opcode == IB_WR_LOCAL_INV || e.opcode == IB_WR_BIND_MW ||
	    (e.opcode == METAROCE_WR_REG_MR && !qp->user)) {
		st = metaroce_local_op(qp, &e);
		goto done;
	}

	mw.opcode = metaroce_mr_opcode(e.opcode);
	if (!mw.opcode) {
		st = IB_WC_LOC_QP_OP_ERR;
		goto done;
	}
	if (mw.opcode == MR_OP_ATOMIC_WRITE) {
		/* Its 8 bytes are in the WQE: no SGE, no inline data. */
		if ((e.send_flags & METAROCE_SEND_INLINE) || e.num_sge) {
			st = IB_WC_LOC_LEN_ERR;
			goto done;
		}
		len = 8;
	} else if (e.send_flags & METAROCE_SEND_INLINE) {
		if (e.inline_len > room || e.inline_len > qp->max_inline ||
		    mw.opcode == MR_OP_READ_REQ || mw.opcode == MR_OP_CMP_SWAP ||
		    mw.opcode == MR_OP_FETCH_ADD) {
			st = IB_WC_LOC_LEN_ERR;
			goto done;
		}
		memcpy(sge, ring + 1, e.inline_len);
		w->inline_data = true;
		len = e.inline_len;
	} else {
		if (e.num_sge > qp->max_send_sge) {
			st = IB_WC_LOC_LEN_ERR;
			goto done;
		}
		memcpy(sge, ring + 1, e.num_sge * sizeof(*sge));
		w->num_sge = e.num_sge;
		len = metaroce_sgl_len(sge, e.num_sge);
		if (metaroce_check_sgl(qp, sge, e.num_sge,
				       mw.opcode == MR_OP_READ_REQ ||
				       mw.opcode == MR_OP_CMP_SWAP ||
				       mw.opcode == MR_OP_FETCH_ADD ?
				       IB_ACCESS_LOCAL_WRITE : 0)) {
			st = IB_WC_LOC_PROT_ERR;
			goto done;
		}
	}
	if (len > METAROCE_MAX_MSG_SIZE) {
		st = IB_WC_LOC_LEN_ERR;
		goto done;
	}

	mw.cookie = idx;
	mw.stream = e.stream;
	mw.len = len;
	mw.solicited = e.send_flags & METAROCE_SEND_SOLICITED;
	switch (mw.opcode) {
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
	case MR_OP_WRITE_IMM:
		mw.imm_inv = e.imm_inv;
		break;
	}
	switch (mw.opcode) {
	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
	case MR_OP_READ_REQ:
		mw.va = e.wr.rdma.remote_addr;
		mw.rkey = e.wr.rdma.rkey;
		break;
	case MR_OP_CMP_SWAP:
	case MR_OP_FETCH_ADD:
		if (len < 8) {
			st = IB_WC_LOC_LEN_ERR;
			goto done;
		}
		mw.len = 8;
		mw.va = e.wr.atomic.remote_addr;
		mw.rkey = e.wr.atomic.rkey;
		mw.swap_add = mw.opcode == MR_OP_CMP_SWAP ? e.wr.atomic.swap :
			e.wr.atomic.compare_add;
		mw.compare = mw.opcode == MR_OP_CMP_SWAP ? e.wr.atomic.compare_add : 0;
		break;
	case MR_OP_ATOMIC_WRITE:
		mw.len = 8;
		mw.va = e.wr.atomic.remote_addr;
		mw.rkey = e.wr.atomic.rkey;
		/* The bytes in memory order: the wire's big-endian value. */
		mw.swap_add = be64_to_cpu((__force __be64)e.wr.atomic.swap);
		break;
	}
	if (mw.solicited && mw.opcode != MR_OP_SEND && mw.opcode != MR_OP_SEND_IMM &&
	    mw.opcode != MR_OP_SEND_INV && mw.opcode != MR_OP_WRITE_IMM)
		mw.solicited = false;
	w->len = mw.len;
	if (mr_conn_post(qp->conn, &mw)) {
		st = IB_WC_LOC_QP_OP_ERR;
		goto done;
	}
	return true;

done:
	metaroce_swqe_finish(qp, idx, st);
	return st == IB_WC_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Transmit
 */

/* Hand a sealed packet to the datapath, on the UDP source port of its path. */
static void metaroce_dp_send(struct metaroce_qp *qp, struct sk_buff *skb,
			     struct metaroce_dp_dest *dest, const struct mr_pkt *h)
{
	struct metaroce_datapath *dp = qp->mdev->dp;

	dest->sport = htons(metaroce_qp_sport(qp, h->path));
	/* The runs of a QP, which alone send through its routes, are serialised. */
	dest->route = qp->routes && h->path < qp->n_paths ? &qp->routes[h->path] : NULL;
	metaroce_count(&qp->mdev->counters, METAROCE_CNT_TX_PACKETS);
	metaroce_count_add(&qp->mdev->counters, METAROCE_CNT_TX_BYTES, h->paylen);
	dp->ops->xmit(dp, skb, dest);
}

/* A packet with @h's headers and room for its payload and ICRC. */
struct sk_buff *metaroce_pkt_new(const struct mr_pkt *h)
{
	u32 hl = mr_pkt_hdrlen(h->opcode), len = hl + h->paylen;
	struct sk_buff *skb;

	if (!hl)
		return ERR_PTR(-EINVAL);
	skb = alloc_skb(metaroce_dp_headroom() + len + MR_ICRC_LEN, GFP_ATOMIC);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	skb_reserve(skb, metaroce_dp_headroom());
	if (mr_pkt_encode(h, skb_put(skb, len + MR_ICRC_LEN), hl) != hl) {
		kfree_skb(skb);
		return ERR_PTR(-EINVAL);
	}
	return skb;
}

static int metaroce_xmit(struct metaroce_qp *qp, const struct mr_tx_pkt *tp)
{
	struct metaroce_datapath *dp = qp->mdev->dp;
	const struct mr_pkt *h = &tp->hdr;
	u32 hl = mr_pkt_hdrlen(h->opcode);
	struct metaroce_dp_dest dest;
	struct sk_buff *skb;
	u8 *p;
	int ret = 0;

	if (!dp)
		return -ENODEV;
	skb = metaroce_pkt_new(h);
	if (IS_ERR(skb))
		return PTR_ERR(skb);
	p = skb->data;

	if (h->paylen) {
		if (h->opcode == MR_OP_READ_RESP) {
			ret = metaroce_mr_copy(qp, tp->src_rkey, IB_ACCESS_REMOTE_READ,
					       tp->src_va, p + hl, h->paylen, false);
		} else {
			u32 idx = (u32)tp->cookie;
			struct metaroce_swqe *w = &qp->swqe[idx & (qp->sq.num - 1)];
			struct metaroce_sge *sge = metaroce_swqe_sge(qp, idx);

			if (w->inline_data) {
				if (tp->moff > w->len || h->paylen > w->len - tp->moff)
					ret = -EMSGSIZE;
				else
					memcpy(p + hl, (u8 *)sge + tp->moff, h->paylen);
			} else {
				ret = metaroce_sgl_copy(qp, sge, w->num_sge, tp->moff,
							p + hl, h->paylen, false);
			}
		}
		if (ret) {
			/* Memory went away under a message in flight: send no made-up bytes. */
			kfree_skb(skb);
			return ret;
		}
	}
	mr_pkt_icrc_put(p, skb->len - MR_ICRC_LEN);

	dest = qp->dest;
	dest.frag_ok = qp->conn && qp->conn->pmtu_blackhole;
	metaroce_dp_send(qp, skb, &dest, h);
	return ret;
}

static void metaroce_xmit_ctl(struct metaroce_qp *qp, const struct mr_pkt *h)
{
	struct mr_tx_pkt tp = { .hdr = *h };

	if (h->opcode == MR_OP_ACK) {
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_SACK_TX);
		if (h->ack.echo_flags & MR_ECHO_CE)
			metaroce_count(&qp->mdev->counters, METAROCE_CNT_ECN_ECHOED_TX);
	}
	metaroce_xmit(qp, &tp);
}

/* Keep a fatal NAK to answer the peer's retransmissions with (it may be lost). */
static void metaroce_keep_fatal_nak(struct metaroce_qp *qp, const struct mr_pkt *nak)
{
	if (!qp->fatal_nak)
		qp->fatal_nak = kmemdup(nak, sizeof(*nak), GFP_ATOMIC);
	WRITE_ONCE(qp->has_fatal_nak, !!qp->fatal_nak);
}

static void metaroce_xmit_fatal_nak(struct metaroce_qp *qp, const struct mr_pkt *nak)
{
	metaroce_xmit_ctl(qp, nak);
	metaroce_count(&qp->mdev->counters, METAROCE_CNT_NAK_TX);
}

/* Refused for good: the NAK, kept to answer the peer's later packets with, and ERR. */
static void metaroce_refuse_fatal(struct metaroce_qp *qp, const struct mr_pkt *nak)
{
	metaroce_xmit_fatal_nak(qp, nak);
	metaroce_keep_fatal_nak(qp, nak);
	metaroce_qp_to_err(qp);
}

/*
 * A READ or atomic of the peer that we accepted cannot be executed: its MR or window
 * went away since. Refuse the request (spec, "NAK extension").
 */
static void metaroce_refuse_resp(struct metaroce_qp *qp, u32 resp_slot)
{
	struct mr_pkt nak;

	mr_conn_refuse_resp(qp->conn, resp_slot, MR_NAK_REM_ACCESS, &nak);
	/* No retransmission of the acknowledged request asks again: once on every path. */
	for (nak.path = 1; nak.path < qp->n_paths; nak.path++)
		metaroce_xmit_fatal_nak(qp, &nak);
	nak.path = 0;
	metaroce_refuse_fatal(qp, &nak);
}

/* Returns the number of packets sent; stops at @budget. */
static int metaroce_qp_tx(struct metaroce_qp *qp, u64 now, int budget)
{
	struct mr_conn *c = qp->conn;
	struct mr_tx_pkt tp;
	int sent = 0;

	while (sent < budget) {
		if (mr_conn_ack_due(c, now)) {
			struct mr_pkt ack;

			mr_conn_build_ack(c, now, &ack);
			metaroce_xmit_ctl(qp, &ack);
			sent++;
			continue;
		}
		if (!mr_conn_tx(c, now, &tp))
			break;
		if (metaroce_xmit(qp, &tp)) {
			if (tp.hdr.opcode == MR_OP_READ_RESP) {
				metaroce_refuse_resp(qp, tp.resp_slot);
			} else {
				/* A WQE whose memory went away: local protection error. */
				metaroce_swqe_finish(qp, (u32)tp.cookie, IB_WC_LOC_PROT_ERR);
				metaroce_qp_to_err(qp);
			}
			break;
		}
		sent++;
	}
	return sent;
}

/* ------------------------------------------------------------------------
 * Receive
 */

static int metaroce_errno_nak(int err)
{
	return err == -EMSGSIZE ? MR_NAK_INV_REQ : MR_NAK_REM_ACCESS;
}

/* A SEND to an SRQ QP: into the WQE bound to its RMSN (srq.c). */
static int metaroce_rx_place_srq(struct metaroce_qp *qp, const struct mr_pkt *pkt,
				 const u8 *payload)
{
	const struct metaroce_sge *sge;
	u32 num_sge;
	int ret;

	ret = metaroce_srq_bind(qp, pkt->send.rmsn, &sge, &num_sge);
	if (ret)
		return ret;
	if (pkt->mlen > metaroce_sgl_len(sge, num_sge))
		ret = -EMSGSIZE;
	else
		ret = metaroce_sgl_copy(qp, sge, num_sge, pkt->moff, (void *)payload,
					pkt->paylen, true);
	return ret ? metaroce_errno_nak(ret) : 0;
}

/*
 * Place one data packet the core accepted (MR_RXC_PLACE). Returns 0 or the
 * NAK syndrome; *rnr_delay for MR_NAK_RNR.
 */
static int metaroce_rx_place(struct metaroce_qp *qp, const struct mr_pkt *pkt,
			     const u8 *payload, const struct mr_rx_res *res)
{
	int access = qp->attr.qp_access_flags;
	struct metaroce_recv_wqe rwqe;
	int right;
	struct metaroce_sge *sge = qp->rx_sge;
	u32 idx, prod;
	int ret;

	switch (pkt->opcode) {
	case MR_OP_SEND:
	case MR_OP_SEND_IMM:
	case MR_OP_SEND_INV:
		if (qp->srq)
			return metaroce_rx_place_srq(qp, pkt, payload);
		idx = qp->rq_base + res->rwqe;
		prod = metaroce_queue_prod_acquire(&qp->rq);
		/* Not posted yet (or the RMSN is far off): receiver not ready. */
		if ((s32)(prod - idx) <= 0 || idx - qp->rq_done >= qp->rq.num)
			return MR_NAK_RNR;
		memcpy(&rwqe, metaroce_queue_entry(&qp->rq, idx), sizeof(rwqe));
		if (rwqe.num_sge > qp->max_recv_sge)
			return MR_NAK_INV_REQ;
		memcpy(sge, metaroce_queue_entry(&qp->rq, idx) + sizeof(rwqe),
		       rwqe.num_sge * sizeof(*sge));
		if (pkt->mlen > metaroce_sgl_len(sge, rwqe.num_sge))
			ret = -EMSGSIZE;
		else
			ret = metaroce_sgl_copy(qp, sge, rwqe.num_sge, pkt->moff,
						(void *)payload, pkt->paylen, true);
		return ret ? metaroce_errno_nak(ret) : 0;

	case MR_OP_WRITE:
	case MR_OP_WRITE_IMM:
		if (pkt->opcode == MR_OP_WRITE_IMM && qp->srq) {
			ret = metaroce_srq_bind(qp, pkt->write.rmsn, NULL, NULL);
			if (ret)
				return ret;
		} else if (pkt->opcode == MR_OP_WRITE_IMM) {
			idx = qp->rq_base + res->rwqe;
			prod = metaroce_queue_prod_acquire(&qp->rq);
			if ((s32)(prod - idx) <= 0 || idx - qp->rq_done >= qp->rq.num)
				return MR_NAK_RNR;
		}
		if (!(access & IB_ACCESS_REMOTE_WRITE))
			return MR_NAK_REM_ACCESS;
		/* The whole message must fit: checked on every packet. */
		ret = metaroce_mr_copy(qp, pkt->write.rkey, IB_ACCESS_REMOTE_WRITE,
				       pkt->write.va, (void *)payload, pkt->paylen, true);
		return ret ? MR_NAK_REM_ACCESS : 0;

	case MR_OP_READ_REQ:
		if (!(access & IB_ACCESS_REMOTE_READ))
			return MR_NAK_REM_ACCESS;
		{
			struct metaroce_mr *mr;

			ret = metaroce_rkey_get(qp, pkt->rreq.rkey, IB_ACCESS_REMOTE_READ,
						pkt->rreq.va, pkt->mlen, &mr);
			if (ret)
				return MR_NAK_REM_ACCESS;
			metaroce_mr_put(mr);
		}
		return 0;

	case MR_OP_CMP_SWAP:
	case MR_OP_FETCH_ADD:
	case MR_OP_ATOMIC_WRITE:
		/* An atomic write needs write rights (IBTA 1.5), the others atomic. */
		right = pkt->opcode == MR_OP_ATOMIC_WRITE ? IB_ACCESS_REMOTE_WRITE :
			IB_ACCESS_REMOTE_ATOMIC;
		if (!(access & right))
			return MR_NAK_REM_ACCESS;
		{
			struct metaroce_mr *mr;

			if (pkt->atomic.va & 7)
				return MR_NAK_INV_REQ;
			ret = metaroce_rkey_get(qp, pkt->atomic.rkey, right, pkt->atomic.va,
						8, &mr);
			if (ret)
				return MR_NAK_REM_ACCESS;
			metaroce_mr_put(mr);
		}
		return 0;

	case MR_OP_READ_RESP:
	case MR_OP_ATOMIC_RESP: {
		u32 widx = (u32)res->cookie;
		struct metaroce_swqe *w = &qp->swqe[widx & (qp->sq.num - 1)];
		u64 orig = pkt->orig;

		sge = metaroce_swqe_sge(qp, widx);
		if (w->opcode == METAROCE_WR_ATOMIC_WRITE)
			ret = 0;	/* nothing to return: the response says it is done */
		else if (pkt->opcode == MR_OP_ATOMIC_RESP)
			ret = metaroce_sgl_copy(qp, sge, w->num_sge, 0, &orig, 8, true);
		else
			ret = metaroce_sgl_copy(qp, sge, w->num_sge, pkt->moff,
						(void *)payload, pkt->paylen, true);
		/* Our own buffer is bad: nothing to tell the peer; fail the WQE. */
		if (ret) {
			metaroce_swqe_finish(qp, widx, IB_WC_LOC_PROT_ERR);
			metaroce_qp_to_err(qp);
		}
		return 0;
	}
	}
	return MR_NAK_INV_REQ;
}

/*
 * Execute an atomic in stream order; the ATOMIC_RESP carries *orig. The rkey was
 * checked when the request arrived and is checked again: it may have been
 * deregistered or invalidated since.
 */
static int metaroce_do_atomic(struct metaroce_qp *qp, const struct mr_rx_done *d, u64 *orig)
{
	int right = d->opcode == MR_OP_ATOMIC_WRITE ? IB_ACCESS_REMOTE_WRITE :
		IB_ACCESS_REMOTE_ATOMIC;
	struct metaroce_mr *mr;
	struct page *page;
	unsigned int off;
	void *va;
	u64 *p;
	int ret;

	ret = metaroce_rkey_get(qp, d->rkey, right, d->va, 8, &mr);
	if (ret)
		return ret;
	/* 8-byte aligned: the page holds all 8 bytes. */
	ret = metaroce_mr_page(mr, d->va, &page, &off);
	if (ret >= 8) {
		va = kmap_local_page(page);
		p = va + off;
		spin_lock_bh(&metaroce_atomic_lock);
		*orig = *p;
		if (d->opcode == MR_OP_ATOMIC_WRITE)
			/* One 8-byte store: the bytes in their wire order. */
			WRITE_ONCE(*(__be64 *)p, cpu_to_be64(d->swap_add));
		else if (d->opcode == MR_OP_FETCH_ADD)
			*p = *orig + d->swap_add;
		else if (*orig == d->compare)
			*p = d->swap_add;
		spin_unlock_bh(&metaroce_atomic_lock);
		kunmap_local(va);
	}
	metaroce_mr_put(mr);
	return ret < 0 ? ret : ret < 8 ? -EFAULT : 0;
}

/*
 * UC: a SEND placed in a later receive WQE than the one it completes (it was
 * bound before an earlier message was found lost): move its payload down.
 * Both WQEs are posted and not completed; the core writes into neither now.
 */
static int metaroce_uc_move(struct metaroce_qp *qp, u32 from, u32 to, u32 len)
{
	struct metaroce_recv_wqe sw, dw;
	struct metaroce_sge *src, *dst;
	u8 *fe = metaroce_queue_entry(&qp->rq, qp->rq_base + from);
	u8 *te = metaroce_queue_entry(&qp->rq, qp->rq_base + to);
	void *buf;
	u32 off, n;
	int ret = -ENOMEM;

	src = kmalloc_array(qp->max_recv_sge, sizeof(*src), GFP_ATOMIC);
	dst = kmalloc_array(qp->max_recv_sge, sizeof(*dst), GFP_ATOMIC);
	buf = kmalloc(PAGE_SIZE, GFP_ATOMIC);
	if (!src || !dst || !buf)
		goto out;
	/* One copy of each descriptor: the process may be rewriting the ring. */
	memcpy(&sw, fe, sizeof(sw));
	memcpy(&dw, te, sizeof(dw));
	ret = -EMSGSIZE;
	if (sw.num_sge > qp->max_recv_sge || dw.num_sge > qp->max_recv_sge)
		goto out;
	memcpy(src, fe + sizeof(sw), sw.num_sge * sizeof(*src));
	memcpy(dst, te + sizeof(dw), dw.num_sge * sizeof(*dst));
	if (len > metaroce_sgl_len(dst, dw.num_sge))
		goto out;
	for (off = 0, ret = 0; off < len && !ret; off += n) {
		n = min_t(u32, len - off, PAGE_SIZE);
		ret = metaroce_sgl_copy(qp, src, sw.num_sge, off, buf, n, false);
		if (!ret)
			ret = metaroce_sgl_copy(qp, dst, dw.num_sge, off, buf, n, true);
	}
out:
	kfree(buf);
	kfree(dst);
	kfree(src);
	return ret;
}

/* Messages the core delivers in order: receive completions, atomics. */
static void metaroce_rx_deliver(struct metaroce_qp *qp)
{
	struct mr_rx_done d;
	u32 idx;

	while (mr_conn_deliver(qp->conn, &d)) {
		struct ib_wc wc = { .status = IB_WC_SUCCESS, .byte_len = d.mlen };
		u64 orig = 0;

		switch (d.opcode) {
		case MR_OP_CMP_SWAP:
		case MR_OP_FETCH_ADD:
		case MR_OP_ATOMIC_WRITE:
			if (metaroce_do_atomic(qp, &d, &orig)) {
				metaroce_refuse_resp(qp, d.resp_slot);
				return;
			}
			/* ARESP orig is zero for an atomic write. */
			mr_conn_atomic_result(qp->conn, d.resp_slot,
					      d.opcode == MR_OP_ATOMIC_WRITE ? 0 : orig);
			continue;
		case MR_OP_WRITE:
			continue;
		case MR_OP_SEND_IMM:
			wc.wc_flags = IB_WC_WITH_IMM;
			wc.ex.imm_data = (__force __be32)d.imm_inv;
			wc.opcode = IB_WC_RECV;
			break;
		case MR_OP_SEND_INV:
			wc.wc_flags = IB_WC_WITH_INVALIDATE;
			wc.ex.invalidate_rkey = d.imm_inv;
			wc.opcode = IB_WC_RECV;
			if (metaroce_mw_invalidate(qp, d.imm_inv))
				wc.status = IB_WC_REM_INV_REQ_ERR;
			break;
		case MR_OP_WRITE_IMM:
			wc.wc_flags = IB_WC_WITH_IMM;
			wc.ex.imm_data = (__force __be32)d.imm_inv;
			wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
			break;
		default:
			wc.opcode = IB_WC_RECV;
			break;
		}
		if (qp->srq) {
			/* Cannot fail with one stream; never complete the wrong WQE. */
			if (metaroce_srq_complete(qp, d.rmsn, &wc, d.se)) {
				metaroce_qp_to_err(qp);
				return;
			}
			continue;
		}
		/*
		 * One stream delivers in RMSN order. Several deliver in order per
		 * stream only, so a WQE after rq_done may complete first; never
		 * one outside the posted window or twice.
		 */
		idx = qp->rq_base + d.rmsn;
		if (idx != qp->rq_done &&
		    (!qp->rq_early || idx - qp->rq_done >= qp->rq.num ||
		     (s32)(metaroce_queue_prod_acquire(&qp->rq) - idx) <= 0 ||
		     test_bit(idx & (qp->rq.num - 1), qp->rq_early))) {
			metaroce_qp_to_err(qp);
			return;
		}
		if (qp->conn->cfg.uc && d.opcode != MR_OP_WRITE_IMM && d.rwqe != d.rmsn) {
			int ret = metaroce_uc_move(qp, d.rwqe, d.rmsn, d.mlen);

			if (ret) {
				wc.status = ret == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					IB_WC_LOC_PROT_ERR;
				metaroce_rq_complete_at(qp, idx, &wc, d.se);
				metaroce_qp_to_err(qp);
				return;
			}
		}
		metaroce_rq_complete_at(qp, idx, &wc, d.se);
	}
}

static void metaroce_rx_one(struct metaroce_qp *qp, struct sk_buff *skb, u64 now)
{
	struct metaroce_rx_cb *cb = metaroce_rx_cb(skb);
	bool ce = cb->ecn == INET_ECN_CE;
	struct mr_rx_res res;
	bool consumed = false;
	struct mr_pkt pkt;
	int syn;

	/* Checked in softirq already; decode again rather than carry it. */
	if (mr_pkt_decode(skb->data, skb->len, &pkt) != MR_PERR_OK)
		goto out;
	/* The peer's address is part of the connection. */
	if (!ipv6_addr_equal(&cb->saddr, &qp->dest.daddr)) {
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_NO_CONN);
		goto out;
	}

	switch (mr_conn_rx(qp->conn, now, &pkt, ce, &res)) {
	case MR_RXC_PLACE:
		syn = metaroce_rx_place(qp, &pkt, skb->data + pkt.hdrlen, &res);
		if (!syn) {
			consumed = true;
			mr_conn_rx_commit(qp->conn, now, &pkt, ce);
			metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_PACKETS);
			metaroce_count_add(&qp->mdev->counters, METAROCE_CNT_RX_BYTES,
					   pkt.paylen);
			break;
		}
		/* UC: no NAK, the message is lost (spec, "Unreliable connected QPs"). */
		if (qp->conn->cfg.uc) {
			mr_conn_uc_discard(qp->conn, now, &pkt, ce);
			metaroce_count(&qp->mdev->counters, syn == MR_NAK_RNR ?
				       METAROCE_CNT_RX_NO_WQE : METAROCE_CNT_RX_OUT_OF_WINDOW);
			break;
		}
		mr_conn_refuse(qp->conn, &pkt, syn,
			       syn == MR_NAK_RNR ? max_t(u16, qp->attr.min_rnr_timer, 1) : 0,
			       &res.nak);
		if (syn == MR_NAK_RNR) {
			metaroce_xmit_ctl(qp, &res.nak);
			metaroce_count(&qp->mdev->counters, METAROCE_CNT_RNR_NAK_TX);
		} else {
			metaroce_refuse_fatal(qp, &res.nak);
		}
		break;
	case MR_RXC_FATAL:
		metaroce_refuse_fatal(qp, &res.nak);
		break;
	case MR_RXC_DUP:
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_DUPLICATE);
		break;
	case MR_RXC_DONE:
		consumed = true;
		if (pkt.opcode == MR_OP_ACK)
			metaroce_count(&qp->mdev->counters, METAROCE_CNT_SACK_RX);
		else if (pkt.nak.syndrome == MR_NAK_RNR)
			metaroce_count(&qp->mdev->counters, METAROCE_CNT_RNR_NAK_RX);
		else if (pkt.opcode == MR_OP_NAK)
			metaroce_count(&qp->mdev->counters, METAROCE_CNT_NAK_RX);
		break;
	case MR_RXC_DROP:
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_OUT_OF_WINDOW);
		break;
	}
	metaroce_rx_deliver(qp);
out:
	/* Drop monitors count kfree_skb(): only a packet that was of no use. */
	if (consumed)
		consume_skb(skb);
	else
		kfree_skb(skb);
}

/*
 * Whether a received packet is worth a run in softirq after its batch rather
 * than the work item's: only if someone waits for it alone. A request says
 * so itself (MR_F_LONE); an ACK or a response, only if it can complete the
 * one message we wait for. Otherwise the worker serves the stream on a CPU
 * of its own: over veth the softirq runs on the sender's CPU, and both ends
 * of a stream there cost 64 KiB ib_write_bw 4 to 9% in the test VM.
 */
static bool metaroce_qp_rcv_now(struct metaroce_qp *qp, const struct mr_pkt *pkt)
{
	if (!metaroce_qp_sq_quiet(qp))
		return false;
	if (mr_op_from_sq(pkt->opcode))
		return pkt->flags & MR_F_LONE;
	return true;
}

/* Softirq: find the QP and queue the packet for its run after this batch. */
void metaroce_qp_rcv(struct metaroce_dev *mdev, struct sk_buff *skb,
		     const struct mr_pkt *pkt,
		     const struct metaroce_dp_rx_info *info)
{
	struct metaroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&mdev->qp_xa, pkt->dqpn);
	/*
	 * In the error state only a QP that refused fatally listens: see below.
	 * For any other, a record of a closed connection may answer.
	 */
	if (!qp || READ_ONCE(qp->dying) || READ_ONCE(qp->state) < IB_QPS_RTR ||
	    (READ_ONCE(qp->state) == IB_QPS_ERR && !READ_ONCE(qp->has_fatal_nak))) {
		rcu_read_unlock();
		if (metaroce_linger_rcv(mdev, pkt, info)) {
			consume_skb(skb);
			return;
		}
		metaroce_count(&mdev->counters, METAROCE_CNT_RX_NO_CONN);
		kfree_skb(skb);
		return;
	}
	if (skb_queue_len(&qp->rxq) >= METAROCE_RXQ_MAX) {
		rcu_read_unlock();
		metaroce_count(&mdev->counters, METAROCE_CNT_RX_NOMEM);
		kfree_skb(skb);
		return;
	}
	metaroce_rx_cb(skb)->saddr = info->saddr;
	metaroce_rx_cb(skb)->daddr = info->daddr;
	metaroce_rx_cb(skb)->ecn = info->ecn;
	metaroce_rx_cb(skb)->addr_ifindex = info->addr_ifindex;
	skb_queue_tail(&qp->rxq, skb);
	if (metaroce_qp_rcv_now(qp, pkt))
		metaroce_bh_schedule(&qp->rx_bh);
	else
		metaroce_qp_kick(qp);
	rcu_read_unlock();
}

/* ------------------------------------------------------------------------
 * Datagrams: UD and GSI QPs (Documentation/infiniband/metaroce.rst,
 * "Datagrams"). One packet per message, no connection, nothing kept.
 */

static void metaroce_ah_dest(const struct metaroce_ah *ah, struct metaroce_dp_dest *d)
{
	memset(d, 0, sizeof(*d));
	if (ah->net_type == RDMA_NETWORK_IPV4) {
		ipv6_addr_set_v4mapped(ah->saddr.v4.sin_addr.s_addr, &d->saddr);
		ipv6_addr_set_v4mapped(ah->daddr.v4.sin_addr.s_addr, &d->daddr);
	} else {
		d->saddr = ah->saddr.v6.sin6_addr;
		d->daddr = ah->daddr.v6.sin6_addr;
	}
	d->tos = ah->traffic_class & ~INET_ECN_MASK;
	d->hop_limit = ah->hop_limit;
	d->flow_label = cpu_to_be32(ah->flow_label) & IPV6_FLOWLABEL_MASK;
	d->ifindex = ah->ifindex;
}

static enum ib_wc_status metaroce_ud_send(struct metaroce_qp *qp,
					  const struct metaroce_send_wqe *e,
					  const struct metaroce_sge *sge)
{
	struct metaroce_dp_dest dest;
	struct mr_pkt h = {};
	struct sk_buff *skb;
	u64 len, ah_ptr;
	u32 mtu;
	u8 *p;
	int ret;

	if (!qp->mdev->dp)
		return IB_WC_GENERAL_ERR;
	if (e->opcode != IB_WR_SEND && e->opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	if (qp->user) {
		/* A process names its AH by number; it must be on the QP's PD. */
		struct metaroce_ah ah;

		if (metaroce_ah_lookup(qp->mdev, e->wr.ud.ah_num, qp->ibqp.pd, &ah))
			return IB_WC_LOC_QP_OP_ERR;
		metaroce_ah_dest(&ah, &dest);
	} else {
		memcpy(&ah_ptr, e->reserved, sizeof(ah_ptr));
		metaroce_ah_dest(to_mah((struct ib_ah *)(uintptr_t)ah_ptr), &dest);
	}

	mtu = metaroce_out_payload_mtu(qp->mdev, dest.ifindex);
	len = (e->send_flags & METAROCE_SEND_INLINE) ? e->inline_len :
		metaroce_sgl_len(sge, e->num_sge);
	if (len > mtu || len > MR_MAX_PAYLOAD)
		return IB_WC_LOC_LEN_ERR;

	h.opcode = e->opcode == IB_WR_SEND ? MR_OP_UD_SEND : MR_OP_UD_SEND_IMM;
	h.flags = (e->send_flags & METAROCE_SEND_SOLICITED) ? MR_F_SE : 0;
	h.dqpn = e->wr.ud.remote_qpn & MR_QPN_MASK;
	/* IBTA: a Q_Key with the high bit set means the QP's own. */
	h.ctok = (e->wr.ud.remote_qkey & 0x80000000) ? qp->attr.qkey : e->wr.ud.remote_qkey;
	h.paylen = len;
	h.ud.sqpn = qp->ibqp.qp_num;
	h.ud.imm = e->opcode == IB_WR_SEND_WITH_IMM ? e->imm_inv : 0;

	skb = alloc_skb(metaroce_dp_headroom() + MR_HDR_UD + len + MR_ICRC_LEN, GFP_ATOMIC);
	if (!skb)
		return IB_WC_GENERAL_ERR;
	skb_reserve(skb, metaroce_dp_headroom());
	p = skb_put(skb, MR_HDR_UD + len + MR_ICRC_LEN);
	mr_pkt_encode(&h, p, MR_HDR_UD);
	if (e->send_flags & METAROCE_SEND_INLINE) {
		memcpy(p + MR_HDR_UD, sge, len);
	} else {
		ret = metaroce_sgl_copy(qp, sge, e->num_sge, 0, p + MR_HDR_UD, len, false);
		if (ret) {
			kfree_skb(skb);
			return IB_WC_LOC_PROT_ERR;
		}
	}
	mr_pkt_icrc_put(p, MR_HDR_UD + len);
	metaroce_dp_send(qp, skb, &dest, &h);
	return IB_WC_SUCCESS;
}

/*
 * Take, send and complete up to @budget datagrams posted to the send ring.
 * The process can post a whole ring (up to METAROCE_MAX_QP_WR) before one
 * doorbell; a run sends its budget and the work item the rest, so that a
 * run with bottom halves disabled stays short. Returns true if WQEs remain.
 */
static bool metaroce_ud_sq_run(struct metaroce_qp *qp, int budget)
{
	u32 room = qp->sq.entry_size - sizeof(struct metaroce_send_wqe);
	int sent = 0;

	while (sent < budget &&
	       qp->sq_copy != metaroce_queue_prod_acquire(&qp->sq) &&
	       qp->sq_copy - qp->sq_done < qp->sq.num) {
		u32 idx = qp->sq_copy;
		struct metaroce_send_wqe *ring = metaroce_queue_entry(&qp->sq, idx);
		struct metaroce_sge *sge = metaroce_swqe_sge(qp, idx);
		struct metaroce_swqe *w = &qp->swqe[idx & (qp->sq.num - 1)];
		enum ib_wc_status st;
		struct metaroce_send_wqe e;

		memcpy(&e, ring, sizeof(e));
		memset(w, 0, sizeof(*w));
		w->wr_id = e.wr_id;
		w->opcode = e.opcode;
		w->signaled = qp->sig_all || (e.send_flags & METAROCE_SEND_SIGNALED);
		qp->sq_copy++;

		if (e.send_flags & METAROCE_SEND_INLINE ? e.inline_len > room :
		    e.num_sge > qp->max_send_sge) {
			st = IB_WC_LOC_LEN_ERR;
		} else {
			memcpy(sge, ring + 1, e.send_flags & METAROCE_SEND_INLINE ?
			       e.inline_len : e.num_sge * sizeof(*sge));
			st = metaroce_ud_send(qp, &e, sge);
		}
		metaroce_swqe_finish(qp, idx, st);
		if (st != IB_WC_SUCCESS)
			break;
		sent++;
	}
	metaroce_sq_complete(qp);
	return sent >= budget && qp->sq_copy != metaroce_queue_prod_acquire(&qp->sq);
}

/* The 40-byte GRH area of a RoCE v2 UD receive: IPv6 header, or IPv4 at 20. */
static void metaroce_ud_grh(const struct metaroce_rx_cb *cb, u32 len, u8 *grh,
			    u8 *net_type)
{
	memset(grh, 0, 40);
	if (ipv6_addr_v4mapped(&cb->saddr)) {
		struct iphdr *ip = (struct iphdr *)(grh + 20);

		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(sizeof(*ip) + sizeof(struct udphdr) + len);
		ip->frag_off = htons(IP_DF);
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->saddr = cb->saddr.s6_addr32[3];
		ip->daddr = cb->daddr.s6_addr32[3];
		ip_send_check(ip);
		*net_type = RDMA_NETWORK_IPV4;
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;

		ip6->version = 6;
		ip6->payload_len = htons(sizeof(struct udphdr) + len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		ip6->saddr = cb->saddr;
		ip6->daddr = cb->daddr;
		*net_type = RDMA_NETWORK_IPV6;
	}
}

static void metaroce_ud_rx_one(struct metaroce_qp *qp, struct sk_buff *skb)
{
	struct metaroce_rx_cb *cb = metaroce_rx_cb(skb);
	struct metaroce_recv_wqe rwqe;
	struct metaroce_sge *sge = qp->rx_sge;
	struct ib_wc wc = {};
	struct mr_pkt pkt;
	u8 grh[40], net_type;
	u16 vlan_id;
	u32 prod;

	if (mr_pkt_decode(skb->data, skb->len, &pkt) != MR_PERR_OK ||
	    !mr_op_is_datagram(pkt.opcode)) {
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_NO_CONN);
		goto out;
	}
	if (pkt.ctok != qp->attr.qkey) {
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_BAD_QKEY);
		goto out;
	}
	prod = metaroce_queue_prod_acquire(&qp->rq);
	if (prod == qp->rq_done || prod - qp->rq_done > qp->rq.num) {
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_NO_WQE);
		goto out;
	}

	memcpy(&rwqe, metaroce_queue_entry(&qp->rq, qp->rq_done), sizeof(rwqe));
	wc.status = IB_WC_SUCCESS;
	if (rwqe.num_sge > qp->max_recv_sge) {
		wc.status = IB_WC_LOC_LEN_ERR;
		goto complete;
	}
	memcpy(sge, metaroce_queue_entry(&qp->rq, qp->rq_done) + sizeof(rwqe),
	       rwqe.num_sge * sizeof(*sge));

	metaroce_ud_grh(cb, pkt.hdrlen + pkt.paylen + MR_ICRC_LEN, grh, &net_type);
	if (metaroce_sgl_len(sge, rwqe.num_sge) < sizeof(grh) + pkt.paylen) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else if (metaroce_sgl_copy(qp, sge, rwqe.num_sge, 0, grh, sizeof(grh), true) ||
		   metaroce_sgl_copy(qp, sge, rwqe.num_sge, sizeof(grh),
				     skb->data + pkt.hdrlen, pkt.paylen, true)) {
		wc.status = IB_WC_LOC_PROT_ERR;
	}
	wc.byte_len = sizeof(grh) + pkt.paylen;
	wc.src_qp = pkt.ud.sqpn;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.network_hdr_type = net_type;
	/* ib_core finds the GID the datagram was sent to by address and VLAN. */
	vlan_id = metaroce_gid_vlan_id(qp->mdev, &cb->daddr, cb->addr_ifindex);
	if (vlan_id < VLAN_N_VID) {
		wc.wc_flags |= IB_WC_WITH_VLAN;
		wc.vlan_id = vlan_id;
	}
	if (pkt.opcode == MR_OP_UD_SEND_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = (__force __be32)pkt.ud.imm;
	}
	wc.port_num = METAROCE_PORT;
	metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_PACKETS);
	metaroce_count_add(&qp->mdev->counters, METAROCE_CNT_RX_BYTES, pkt.paylen);
complete:
	wc.opcode = IB_WC_RECV;
	metaroce_rq_complete(qp, &wc, pkt.flags & MR_F_SE);
	if (wc.status != IB_WC_SUCCESS)
		metaroce_qp_to_err(qp);
	/* It took a receive WQE, whatever the status: not a drop. */
	consume_skb(skb);
	return;
out:
	kfree_skb(skb);
}

static bool metaroce_ud_run(struct metaroce_qp *qp)
{
	int budget = METAROCE_WORK_BUDGET;
	bool more_tx = false;
	struct sk_buff *skb;

	while (budget > 0 && (skb = skb_dequeue(&qp->rxq))) {
		metaroce_ud_rx_one(qp, skb);
		budget--;
	}
	/* Received datagrams do not starve the sends: at least 8 a run, as RC. */
	if (qp->state == IB_QPS_RTS)
		more_tx = metaroce_ud_sq_run(qp, max(budget, 8));
	if (qp->sq_error)
		metaroce_qp_to_err(qp);
	return budget <= 0 || more_tx || !skb_queue_empty(&qp->rxq);
}

/* ------------------------------------------------------------------------
 * One run of the transport, and the contexts that run it
 */

static void metaroce_qp_send_completions(struct metaroce_qp *qp)
{
	enum mr_wc_status st;
	u64 cookie;

	while (mr_conn_poll_send(qp->conn, &cookie, &st)) {
		struct metaroce_swqe *w = &qp->swqe[(u32)cookie & (qp->sq.num - 1)];

		/* A WQE already failed locally keeps its status. */
		if (!w->done)
			metaroce_swqe_finish(qp, (u32)cookie, metaroce_wc_status(st));
		if (st != MR_WC_SUCCESS)
			metaroce_qp_to_err(qp);
	}
}

/* One run; returns true if there is more to do right away. */
static bool metaroce_qp_run(struct metaroce_qp *qp)
{
	int budget = METAROCE_WORK_BUDGET;
	struct sk_buff *skb;
	u64 now, deadline;
	int state, rx, tx;

	now = ktime_get_ns();
	state = qp->state;
	if (state == IB_QPS_ERR || qp->flushing) {
		/*
		 * A NAK can be lost: a responder that refused for good answers
		 * every later data packet of the peer with it again (spec,
		 * "NAKs"), so that the requester sees the error, not a timeout.
		 */
		while (budget > 0 && (skb = skb_dequeue(&qp->rxq))) {
			struct mr_pkt pkt;

			if (qp->has_fatal_nak &&
			    mr_pkt_decode(skb->data, skb->len, &pkt) == MR_PERR_OK &&
			    mr_op_is_data(pkt.opcode) && pkt.ctok == qp->conn->cfg.local_ctok) {
				metaroce_xmit_fatal_nak(qp, qp->fatal_nak);
			} else {
				metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_NO_CONN);
			}
			kfree_skb(skb);
			budget--;
		}
		metaroce_qp_flush(qp);
		return budget <= 0;
	}
	if (state != IB_QPS_RTR && state != IB_QPS_RTS) {
		metaroce_rxq_purge(qp);
		return false;
	}
	if (!metaroce_qp_connected(qp))
		return metaroce_ud_run(qp);
	if (!qp->conn) {
		metaroce_rxq_purge(qp);
		return false;
	}
	metaroce_qp_follow_mtu(qp);

	/*
	 * ACKs first, then newly posted WQEs: an ACK judges a stalled sender (spec)
	 * by what was taken before. Taking first makes that verdict rarer: no
	 * faster when measured, and more holes were left to the tail-loss probe.
	 */
	while (budget > 0 && (skb = skb_dequeue(&qp->rxq))) {
		metaroce_rx_one(qp, skb, now);
		budget--;
	}
	rx = METAROCE_WORK_BUDGET - budget;
	/* Received packets can have failed the QP. */
	if (qp->state == IB_QPS_ERR)
		return true;

	/* In RTR the core sends ACK, NAK and READ/atomic responses only. */
	if (state == IB_QPS_RTS)
		while (!qp->sq_error && metaroce_sq_take_one(qp))
			;
	/*
	 * ACKs still queued (the work item ran late: a loaded host) may
	 * acknowledge what the timer would declare lost: read them first, for a
	 * while (a peer that floods us must not stop our timer).
	 */
	deadline = mr_conn_deadline(qp->conn);
	if (deadline <= now && (skb_queue_empty(&qp->rxq) ||
				deadline + METAROCE_TIMER_DEFER_NS <= now))
		mr_conn_timer(qp->conn, now);
	tx = metaroce_qp_tx(qp, now, max(budget, 8));
	budget -= tx;
	trace_metaroce_qp_run(&qp->ibqp, rx, tx, skb_queue_len(&qp->rxq), qp->conn);
	if (state == IB_QPS_RTS)
		metaroce_qp_send_completions(qp);
	/*
	 * Send WQEs took the error first; a responder that gave up on its responses
	 * may have none, yet its QP is as dead (QP_FATAL tells the consumer).
	 */
	if (mr_conn_failed(qp->conn))
		metaroce_qp_to_err(qp);
	metaroce_rx_deliver(qp);
	metaroce_sq_complete(qp);
	if (qp->sq_error)
		metaroce_qp_to_err(qp);
	if (qp->state == IB_QPS_ERR)
		return true;

	if (budget <= 0 || !skb_queue_empty(&qp->rxq))
		return true;
	/*
	 * Never spin, not even for a short gap: a run that requeues itself keeps
	 * its CPU from the softirq and the process it waits for.
	 */
	metaroce_qp_arm_conn_timer(qp, now);
	return false;
}

static void metaroce_qp_work(struct work_struct *work)
{
	struct metaroce_qp *qp = container_of(work, struct metaroce_qp, work);

	/* One run, then requeued behind the CPU's other work if there is more. */
	metaroce_qp_drive(qp, 1);
}

/*
 * Softirq, after the network's receive batch: the runs read all that the
 * batch brought for the QP (one ACK for all of it) and send what its ACKs
 * opened, without waking a worker; a few rounds, as the doorbell, so that a
 * window freed by an ACK is refilled here rather than by a queued worker.
 */
static void metaroce_qp_rx_bh(struct metaroce_bh *bh)
{
	struct metaroce_qp *qp = container_of(bh, struct metaroce_qp, rx_bh);

	metaroce_qp_drive(qp, METAROCE_RUN_ROUNDS);
}

void metaroce_qp_transport_init(struct metaroce_qp *qp)
{
	metaroce_bh_init(&qp->rx_bh, metaroce_qp_rx_bh);
	skb_queue_head_init(&qp->rxq);
	spin_lock_init(&qp->run_lock);
	INIT_WORK(&qp->work, metaroce_qp_work);
	hrtimer_init(&qp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	qp->timer.function = metaroce_qp_timer;
	spin_lock_init(&qp->timer_lock);
	qp->timer_deadline = U64_MAX;
	qp->timer_latest = U64_MAX;
}

/*
 * Called once the QP is unreachable from the receive path (destroy_qp);
 * afterwards nothing of the transport runs for it.
 */
void metaroce_qp_transport_stop(struct metaroce_qp *qp)
{
	mutex_lock(&qp->mutex);
	WRITE_ONCE(qp->dying, true);
	metaroce_qp_pause(qp);		/* for good */
	metaroce_linger_add(qp);
	mutex_unlock(&qp->mutex);
	/* Receivers that found the QP before it left the xarray are done. */
	synchronize_rcu();
	metaroce_qp_arm_timer(qp, U64_MAX, U64_MAX);
	hrtimer_cancel(&qp->timer);
	cancel_work_sync(&qp->work);
	metaroce_bh_kill(&qp->rx_bh);
	hrtimer_cancel(&qp->timer);
	metaroce_rxq_purge(qp);
}

/*
 * Drop what a QP had queued but will not read (it left RTR/RTS, or is going
 * away): packets for no connection, as the receive path counts them.
 */
void metaroce_rxq_purge(struct metaroce_qp *qp)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&qp->rxq))) {
		metaroce_count(&qp->mdev->counters, METAROCE_CNT_RX_NO_CONN);
		kfree_skb(skb);
	}
}

int metaroce_transport_init(void)
{
	/*
	 * Unbound: a per-CPU work item queued where the doorbell rang waits
	 * behind the process that rang it, which busy-polls its CQ on that CPU
	 * (4 KiB ib_write_bw halved on the runs where both met). Now that the
	 * doorbell and the softirq do most runs, the work item is the rarer
	 * path and its cross-CPU wakeup is cheap beside such a wait. Not
	 * WQ_HIGHPRI: a busy QP requeues itself, and a nice -20 worker that does
	 * so starves the tasks of its CPU (the consumer waiting for completions).
	 */
	metaroce_wq = alloc_workqueue("metaroce", WQ_UNBOUND, 0);
	return metaroce_wq ? 0 : -ENOMEM;
}

void metaroce_transport_exit(void)
{
	destroy_workqueue(metaroce_wq);
}
