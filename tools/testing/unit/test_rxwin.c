// SPDX-License-Identifier: GPL-2.0
/*
 * Serial arithmetic and the receive window: wrap-around at 2^32, window edges,
 * duplicates, stale and beyond-window packets, SACK bitmap encoding.
 */
#include "unit.h"
#include "rxwin.h"
#include "seq.h"

static void test_seq_wrap(void **state)
{
	(void)state;
	assert_true(mr_seq_before(0xffffffff, 0));
	assert_true(mr_seq_after(0, 0xffffffff));
	assert_true(mr_seq_before(0xfffffff0, 0x10));
	assert_false(mr_seq_before(5, 5));
	assert_false(mr_seq_after(5, 5));
	assert_true(mr_seq_before(0, 0x7fffffff));
	assert_true(mr_seq_in(2, 0xfffffffe, 5));
	assert_false(mr_seq_in(3, 0xfffffffe, 5));
	assert_false(mr_seq_in(0xfffffffd, 0xfffffffe, 5));
	assert_int_equal(mr_seq_max(0xffffffff, 1), 1);
	assert_true(mr_seq16_after(0, 0xffff));
	assert_false(mr_seq16_after(0xffff, 0));
}

static void check_bits(const struct mr_rxwin *w, const u32 *set, unsigned int n)
{
	u64 sack[MR_SACK_WORDS], want[MR_SACK_WORDS] = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 off = set[i] - w->cack;

		assert_true(off < MR_SACK_BITS);
		want[off / 64] |= 1ULL << (off % 64);
	}
	mr_rxwin_sack(w, sack);
	assert_memory_equal(sack, want, sizeof(sack));
}

static void test_in_order_advances(void **state)
{
	struct mr_rxwin w;
	u32 i;

	(void)state;
	mr_rxwin_init(&w, 1000);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(mr_rxwin_check(&w, 1000 + i), MR_RX_NEW);
		assert_int_equal(mr_rxwin_record(&w, 1000 + i), 1);
	}
	assert_int_equal(w.cack, 2000);
	assert_int_equal(mr_rxwin_ooo(&w), 0);
	check_bits(&w, NULL, 0);
}

static void test_window_edges(void **state)
{
	struct mr_rxwin w;
	u32 set[2];

	(void)state;
	mr_rxwin_init(&w, 0);
	/* The last PSN inside the window is bit 255, the first outside is beyond. */
	assert_int_equal(mr_rxwin_check(&w, 255), MR_RX_NEW);
	assert_int_equal(mr_rxwin_check(&w, 256), MR_RX_BEYOND);
	assert_int_equal(mr_rxwin_check(&w, 0x7fffffff), MR_RX_BEYOND);
	assert_int_equal(mr_rxwin_check(&w, 0xffffffff), MR_RX_STALE);
	assert_int_equal(mr_rxwin_record(&w, 255), 0);
	assert_int_equal(mr_rxwin_record(&w, 256), 0);	/* ignored, not recorded */
	assert_int_equal(mr_rxwin_record(&w, 1), 0);
	set[0] = 1;
	set[1] = 255;
	check_bits(&w, set, 2);
	assert_int_equal(mr_rxwin_ooo(&w), 2);
	assert_int_equal(mr_rxwin_check(&w, 255), MR_RX_DUP);
	assert_int_equal(mr_rxwin_check(&w, 1), MR_RX_DUP);

	/* Filling 0 advances over 1 only; 255 is now bit 253. */
	assert_int_equal(mr_rxwin_record(&w, 0), 2);
	assert_int_equal(w.cack, 2);
	set[0] = 255;
	check_bits(&w, set, 1);
	assert_int_equal(mr_rxwin_check(&w, 257), MR_RX_NEW);
	assert_int_equal(mr_rxwin_check(&w, 258), MR_RX_BEYOND);
	assert_int_equal(mr_rxwin_check(&w, 1), MR_RX_STALE);
	assert_int_equal(mr_rxwin_check(&w, 0), MR_RX_STALE);
}

static void test_word_boundaries(void **state)
{
	static const u32 offs[] = { 63, 64, 127, 128, 191, 192, 255 };
	struct mr_rxwin w;
	unsigned int i;

	(void)state;
	mr_rxwin_init(&w, 500);
	for (i = 0; i < ARRAY_SIZE(offs); i++)
		mr_rxwin_record(&w, 500 + offs[i]);
	{
		u32 set[ARRAY_SIZE(offs)];

		for (i = 0; i < ARRAY_SIZE(offs); i++)
			set[i] = 500 + offs[i];
		check_bits(&w, set, ARRAY_SIZE(offs));
	}
	/* Fill 1..62: then 0 advances cack to 564 (63 and 64 were in). */
	for (i = 1; i < 63; i++)
		mr_rxwin_record(&w, 500 + i);
	assert_int_equal(mr_rxwin_record(&w, 500), 65);
	assert_int_equal(w.cack, 565);
	{
		u32 set[] = { 627, 628, 691, 692, 755 };

		check_bits(&w, set, ARRAY_SIZE(set));
	}
}

static void test_full_window_then_advance(void **state)
{
	struct mr_rxwin w;
	u32 i;

	(void)state;
	mr_rxwin_init(&w, 0xffffff80);	/* crosses 2^32 */
	for (i = 1; i < MR_SACK_BITS; i++)
		mr_rxwin_record(&w, 0xffffff80 + i);
	assert_int_equal(mr_rxwin_ooo(&w), 255);
	assert_int_equal(mr_rxwin_check(&w, 0xffffff80 + 256), MR_RX_BEYOND);
	assert_int_equal(mr_rxwin_record(&w, 0xffffff80), 256);
	assert_int_equal(w.cack, 0x80);
	assert_int_equal(mr_rxwin_ooo(&w), 0);
	assert_int_equal(mr_rxwin_check(&w, 0x7f), MR_RX_STALE);
	assert_int_equal(mr_rxwin_check(&w, 0xffffffff), MR_RX_STALE);
	assert_int_equal(mr_rxwin_check(&w, 0x80 + 255), MR_RX_NEW);
}

static void test_reverse_order_across_wrap(void **state)
{
	struct mr_rxwin w;
	u32 i;

	(void)state;
	mr_rxwin_init(&w, 0xfffffff0);
	/* 64 packets in reverse: nothing advances until the first arrives. */
	for (i = 63; i > 0; i--) {
		assert_int_equal(mr_rxwin_check(&w, 0xfffffff0 + i), MR_RX_NEW);
		assert_int_equal(mr_rxwin_record(&w, 0xfffffff0 + i), 0);
		assert_int_equal(mr_rxwin_check(&w, 0xfffffff0 + i), MR_RX_DUP);
	}
	assert_int_equal(w.cack, 0xfffffff0);
	assert_int_equal(mr_rxwin_record(&w, 0xfffffff0), 64);
	assert_int_equal(w.cack, 0x30);
}

static void test_pseudorandom_against_model(void **state)
{
	/* Arrival order permuted within the window; compare with a plain array model. */
	static bool got[4608];
	struct mr_rxwin w;
	u32 base = 0xfffff000, cack = base, x = 12345, n = 0;

	(void)state;
	memset(got, 0, sizeof(got));
	mr_rxwin_init(&w, base);
	while (cack - base < 4000) {
		u32 off, psn;
		enum mr_rx_verdict v;

		x = x * 1103515245 + 12345;
		off = (x >> 8) % 300;	/* sometimes beyond the window */
		psn = cack + off - 20;	/* sometimes stale */
		v = mr_rxwin_check(&w, psn);
		if (mr_seq_before(psn, cack)) {
			assert_int_equal(v, MR_RX_STALE);
			continue;
		}
		if (psn - cack >= MR_SACK_BITS) {
			assert_int_equal(v, MR_RX_BEYOND);
			continue;
		}
		assert_int_equal(v, got[psn - base] ? MR_RX_DUP : MR_RX_NEW);
		if (v != MR_RX_NEW)
			continue;
		got[psn - base] = true;
		mr_rxwin_record(&w, psn);
		while (got[cack - base])
			cack++;
		assert_int_equal(w.cack, cack);
		n++;
	}
	assert_true(n >= 4000);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_seq_wrap),
	cmocka_unit_test(test_in_order_advances),
	cmocka_unit_test(test_window_edges),
	cmocka_unit_test(test_word_boundaries),
	cmocka_unit_test(test_full_window_then_advance),
	cmocka_unit_test(test_reverse_order_across_wrap),
	cmocka_unit_test(test_pseudorandom_against_model),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
