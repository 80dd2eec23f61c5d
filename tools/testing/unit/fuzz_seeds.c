// SPDX-License-Identifier: GPL-2.0
/*
 * Writes one valid packet per opcode into the directory given, as the fuzzer's starting
 * corpus, so that it spends its time behind the first checks rather than finding them.
 */
#include <stdio.h>
#include "pkt.h"

int main(int argc, char **argv)
{
	static const u8 ops[] = {
		MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE, MR_OP_WRITE_IMM,
		MR_OP_READ_REQ, MR_OP_READ_RESP, MR_OP_CMP_SWAP, MR_OP_FETCH_ADD,
		MR_OP_ATOMIC_RESP, MR_OP_ACK, MR_OP_NAK,
	};
	static u8 buf[MR_HDR_MAX + 64 + MR_ICRC_LEN];
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct mr_pkt p = { .opcode = ops[i], .dqpn = 17, .ctok = 99, .path = 1 };
		char name[4096];
		size_t len;
		FILE *f;
		u32 hl;

		if (mr_op_is_data(p.opcode)) {
			p.psn = 1000 + i;
			p.stream = 1;
			p.msn = 3;
			p.mlen = 8;
			if (p.opcode <= MR_OP_WRITE_IMM || p.opcode == MR_OP_READ_RESP)
				p.paylen = 8;
		}
		if (p.opcode == MR_OP_CMP_SWAP || p.opcode == MR_OP_FETCH_ADD)
			p.atomic.va = 64;
		if (p.opcode == MR_OP_NAK)
			p.nak.syndrome = MR_NAK_RNR;
		if (p.opcode == MR_OP_ACK)
			p.ack.sack[0] = 6;
		hl = mr_pkt_encode(&p, buf, sizeof(buf));
		memset(buf + hl, 0xa5, p.paylen);
		mr_pkt_icrc_put(buf, hl + p.paylen);
		len = hl + p.paylen + MR_ICRC_LEN;
		snprintf(name, sizeof(name), "%s/seed-%02x", argv[1], p.opcode);
		f = fopen(name, "wb");
		if (!f || fwrite(buf, 1, len, f) != len) {
			perror(name);
			return 1;
		}
		fclose(f);
	}
	return 0;
}
