// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzers' starting corpus, so that they spend their time behind the first
 * checks rather than finding them. "pkt": one valid packet per opcode and file.
 * "conn": the same packets numbered for fuzz_conn's connection, each behind a 2-byte
 * length, one per file and all of them in one more file.
 */
#include <stdio.h>
#include <string.h>
#include "pkt.h"

static int write_file(const char *name, const void *p, size_t len)
{
	FILE *f = fopen(name, "wb");

	if (!f || fwrite(p, 1, len, f) != len) {
		perror(name);
		if (f)
			fclose(f);
		return 1;
	}
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const u8 ops[] = {
		MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE, MR_OP_WRITE_IMM,
		MR_OP_READ_REQ, MR_OP_READ_RESP, MR_OP_CMP_SWAP, MR_OP_FETCH_ADD,
		MR_OP_ATOMIC_RESP, MR_OP_ACK, MR_OP_NAK, MR_OP_UD_SEND, MR_OP_UD_SEND_IMM,
	};
	static u8 buf[MR_HDR_MAX + 64 + MR_ICRC_LEN];
	static u8 all[ARRAY_SIZE(ops) * (sizeof(buf) + 2)];
	size_t all_len = 0;
	unsigned int i;
	bool conn;

	if (argc != 3 || (strcmp(argv[2], "pkt") && strcmp(argv[2], "conn"))) {
		fprintf(stderr, "usage: %s DIR pkt|conn\n", argv[0]);
		return 2;
	}
	conn = !strcmp(argv[2], "conn");
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct mr_pkt p = { .opcode = ops[i], .dqpn = 17, .ctok = 99, .path = 1 };
		char name[4096];
		size_t len;
		u32 hl;

		if (mr_op_is_data(p.opcode)) {
			p.psn = conn ? i : 1000 + i;
			p.stream = 1;
			p.msn = conn ? i : 3;
			p.mlen = 8;
			/* half of them with a segment of their own (spec, "Segments") */
			p.seg = i % 2 ? 1376 / MR_SEG_UNIT : 0;
			if (p.opcode <= MR_OP_WRITE_IMM || p.opcode == MR_OP_READ_RESP)
				p.paylen = 8;
		}
		if (p.opcode == MR_OP_CMP_SWAP || p.opcode == MR_OP_FETCH_ADD)
			p.atomic.va = 64;
		if (mr_op_is_datagram(p.opcode)) {
			p.paylen = 8;
			p.ud.sqpn = 5;
			p.ud.imm = p.opcode == MR_OP_UD_SEND_IMM ? 7 : 0;
		}
		if (p.opcode == MR_OP_NAK) {
			p.nak.syndrome = MR_NAK_RNR;
			p.nak.cack = conn ? 0xfffffff1 : 0;
			p.nak.nak_psn = conn ? 0xfffffff1 : 0;
		}
		if (p.opcode == MR_OP_ACK) {
			p.ack.sack[0] = 6;
			p.ack.cack = conn ? 0xfffffff0 : 0;
		}
		hl = mr_pkt_encode(&p, buf, sizeof(buf));
		memset(buf + hl, 0xa5, p.paylen);
		mr_pkt_icrc_put(buf, hl + p.paylen);
		len = hl + p.paylen + MR_ICRC_LEN;
		snprintf(name, sizeof(name), "%s/seed-%02x", argv[1], p.opcode);
		if (conn) {
			/* length-prefixed, and appended to the all-in-one seed */
			memmove(buf + 2, buf, len);
			buf[0] = len >> 8;
			buf[1] = len;
			len += 2;
			memcpy(all + all_len, buf, len);
			all_len += len;
		}
		if (write_file(name, buf, len))
			return 1;
	}
	if (conn) {
		char name[4096];

		snprintf(name, sizeof(name), "%s/seed-all", argv[1]);
		if (write_file(name, all, all_len))
			return 1;
	}
	return 0;
}
