// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE receive window and SACK bitmap.
 */
#include "rxwin.h"
#include "seq.h"

void mr_rxwin_init(struct mr_rxwin *w, u32 first_psn)
{
	memset(w, 0, sizeof(*w));
	w->cack = first_psn;
}

enum mr_rx_verdict mr_rxwin_check(const struct mr_rxwin *w, u32 psn)
{
	u32 off = psn - w->cack;

	if (mr_seq_before(psn, w->cack))
		return MR_RX_STALE;
	if (off >= MR_SACK_BITS)
		return MR_RX_BEYOND;
	if (w->bits[off / 64] & BIT_ULL(off % 64))
		return MR_RX_DUP;
	return MR_RX_NEW;
}

/* Shift the bitmap towards bit 0 by n bits, 0 < n <= MR_SACK_BITS. */
static void mr_rxwin_shift(struct mr_rxwin *w, unsigned int n)
{
	unsigned int words = n / 64, bits = n % 64, i;

	for (i = 0; i < MR_SACK_WORDS; i++) {
		unsigned int src = i + words;
		u64 v = 0;

		if (src < MR_SACK_WORDS) {
			v = w->bits[src] >> bits;
			if (bits && src + 1 < MR_SACK_WORDS)
				v |= w->bits[src + 1] << (64 - bits);
		}
		w->bits[i] = v;
	}
}

/* Number of consecutive set bits from bit 0. */
static unsigned int mr_rxwin_run(const struct mr_rxwin *w)
{
	unsigned int i, n = 0;

	for (i = 0; i < MR_SACK_WORDS; i++) {
		u64 inv = ~w->bits[i];

		if (inv)
			return n + __ffs64(inv);
		n += 64;
	}
	return n;
}

u32 mr_rxwin_record(struct mr_rxwin *w, u32 psn)
{
	u32 off = psn - w->cack;
	unsigned int run;

	if (off >= MR_SACK_BITS)
		return 0;
	w->bits[off / 64] |= BIT_ULL(off % 64);
	if (off)
		return 0;

	run = mr_rxwin_run(w);
	mr_rxwin_shift(w, run);
	w->cack += run;
	return run;
}

void mr_rxwin_sack(const struct mr_rxwin *w, u64 sack[MR_SACK_WORDS])
{
	unsigned int i;

	for (i = 0; i < MR_SACK_WORDS; i++)
		sack[i] = w->bits[i];
}

unsigned int mr_rxwin_ooo(const struct mr_rxwin *w)
{
	unsigned int i, n = 0;

	for (i = 0; i < MR_SACK_WORDS; i++)
		n += hweight64(w->bits[i]);
	return n;
}

/* PSNs received among the first n of the window, n <= MR_SACK_BITS. */
static unsigned int mr_rxwin_count(const struct mr_rxwin *w, unsigned int n)
{
	unsigned int i, cnt = 0;

	for (i = 0; i < MR_SACK_WORDS && n; i++) {
		u64 v = w->bits[i];

		if (n < 64)
			v &= BIT_ULL(n) - 1;
		cnt += hweight64(v);
		n -= min_t(unsigned int, n, 64);
	}
	return cnt;
}

u32 mr_rxwin_skip_to(struct mr_rxwin *w, u32 psn)
{
	u32 n = psn - w->cack, holes, run;

	if (!mr_seq_after(psn, w->cack))
		return 0;
	if (n >= MR_SACK_BITS) {
		holes = n - mr_rxwin_count(w, MR_SACK_BITS);
		memset(w->bits, 0, sizeof(w->bits));
	} else {
		holes = n - mr_rxwin_count(w, n);
		mr_rxwin_shift(w, n);
	}
	w->cack = psn;
	run = mr_rxwin_run(w);
	if (run) {
		mr_rxwin_shift(w, run);
		w->cack += run;
	}
	return holes;
}

u32 mr_rxwin_skip_hole(struct mr_rxwin *w)
{
	unsigned int i;

	for (i = 0; i < MR_SACK_WORDS; i++)
		if (w->bits[i])
			return mr_rxwin_skip_to(w, w->cack + i * 64 + __ffs64(w->bits[i]));
	return 0;
}
