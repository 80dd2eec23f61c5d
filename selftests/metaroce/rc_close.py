#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Helper for provider_pingpong.sh: one RC SEND whose receiver leaves RTS at once.

  rc_close.py server DEV GID_INDEX DIR
  rc_close.py client DEV GID_INDEX DIR err|reset

The client receives one 4 KiB SEND and moves its QP to the error state (what
rdma_disconnect does) or to RESET, then writes DIR/closed and keeps the QP until
the server is done. The server sends that SEND and reports its completion. With
the client's ACKs dropped until DIR/closed appears, the server's send completes
only if the closed QP's record answers its retransmissions
(Documentation/infiniband/metaroce.rst, "The last ACK").

Files in DIR exchange QP numbers and GIDs (NAME.tmp renamed to NAME, waited for).
Prints one line per step; exits 0 when the SEND completed successfully (server)
or the receive did and the state change was accepted (client).
"""

import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE

SIZE = 4096
WAIT_S = 30
# 4.096 us x 2^18 = 1.07 s local ACK timeout: with retry_cnt 7 the sender gives up
# about 8.6 s after its last progress, far past the 2 s a record lives, so the test
# shows the record's answer and not a slow give-up.
TIMEOUT = 18


def put(path, text):
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.rename(path + '.tmp', path)


def wait_file(path):
    end = time.monotonic() + WAIT_S
    while not os.path.exists(path):
        if time.monotonic() > end:
            sys.exit(f'{path}: not there after {WAIT_S} s')
        time.sleep(0.01)
    with open(path) as f:
        return f.read()


def poll(cq):
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        n, wcs = cq.poll(num_entries=1)
        if n:
            return wcs[0]
        time.sleep(0.001)
    return None


def connect(qp, gid_index, peer):
    qpn, gid = peer.split()
    attr = QPAttr()
    attr.port_num = 1
    attr.qp_access_flags = 0
    qp.to_init(attr)
    gr = GlobalRoute(dgid=GID(gid), sgid_index=gid_index, hop_limit=64)
    attr = QPAttr()
    attr.port_num = 1
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = int(qpn)
    attr.rq_psn = 0x1234
    attr.max_dest_rd_atomic = 1
    attr.min_rnr_timer = 12
    attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)
    qp.to_rtr(attr)
    attr.sq_psn = 0x1234
    attr.timeout = TIMEOUT
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.max_rd_atomic = 1
    qp.to_rts(attr)


def main():
    role, dev, gid_index, work = sys.argv[1:5]
    gid_index = int(gid_index)
    me, other = ('a', 'b') if role == 'server' else ('b', 'a')

    ctx = Context(name=dev)
    pd = PD(ctx)
    mr = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    cq = CQ(ctx, 8)
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    gid = ctx.query_gid(port_num=1, index=gid_index)
    put(f'{work}/{me}.info', f'{qp.qp_num} {gid}')
    connect(qp, gid_index, wait_file(f'{work}/{other}.info'))
    sge = SGE(mr.buf, SIZE, mr.lkey)

    if role == 'server':
        wait_file(f'{work}/b.ready')
        qp.post_send(SendWR(wr_id=2, opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge],
                            send_flags=e.IBV_SEND_SIGNALED))
        wc = poll(cq)
        put(f'{work}/a.done', '')
        if wc is None:
            print('send: no completion')
            return 1
        ok = wc.status == e.IBV_WC_SUCCESS
        print(f'send: status {wc.status} ({"success" if ok else "error"})')
        return 0 if ok else 1

    state = {'err': e.IBV_QPS_ERR, 'reset': e.IBV_QPS_RESET}[sys.argv[5]]
    qp.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[sge]))
    put(f'{work}/b.ready', '')
    wc = poll(cq)
    if wc is None or wc.status != e.IBV_WC_SUCCESS:
        print(f'recv: {"no completion" if wc is None else f"status {wc.status}"}')
        return 1
    print(f'recv: {wc.byte_len} bytes')
    attr = QPAttr()
    attr.qp_state = state
    qp.modify(attr, e.IBV_QP_STATE)
    print(f'QP moved to {sys.argv[5]}')
    put(f'{work}/closed', '')
    wait_file(f'{work}/a.done')
    return 0


if __name__ == '__main__':
    sys.exit(main())
