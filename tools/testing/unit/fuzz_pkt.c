// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the packet parser. Besides "no crash, no undefined behaviour, no
 * out-of-bounds read" it checks that whatever mr_pkt_decode() accepts re-encodes to the
 * same header bytes: every field is either decoded or checked to be zero.
 */
#include <stdlib.h>
#include "pkt.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 out[MR_HDR_MAX];
	struct mr_pkt pkt;
	u32 hl;

	if (size > MR_HDR_MAX + MR_MAX_PAYLOAD + 64)
		return 0;
	(void)mr_pkt_icrc_ok(data, size);
	if (mr_pkt_decode(data, size, &pkt) != MR_PERR_OK)
		return 0;

	if (pkt.hdrlen + pkt.paylen + MR_ICRC_LEN != size)
		abort();
	hl = mr_pkt_encode(&pkt, out, sizeof(out));
	if (hl != pkt.hdrlen || memcmp(out, data, hl))
		abort();
	return 0;
}
