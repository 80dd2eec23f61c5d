// SPDX-License-Identifier: GPL-2.0
/*
 * Receiver fair share: the hint divides the link among the connections active in the
 * last one to two windows, counts each connection once, and recovers when they go idle.
 */
#include "unit.h"
#include "share.h"

#define W	MR_SHARE_WINDOW_NS

static void test_no_one_active_gets_the_link(void **state)
{
	struct mr_share s;

	(void)state;
	mr_share_init(&s, 100000, 5);
	assert_int_equal(mr_share_hint(&s, 5), 100000);
	mr_share_init(&s, 0, 5);
	assert_int_equal(mr_share_hint(&s, 5), 0);	/* unknown link: no hint */
}

static void test_incast_divides_the_link(void **state)
{
	u32 epochs[10] = { 0 };
	struct mr_share s;
	u32 i, k;

	(void)state;
	mr_share_init(&s, 100000, 0);
	/* ten senders, each with many packets in the window: counted once each */
	for (k = 0; k < 5; k++)
		for (i = 0; i < 10; i++)
			mr_share_touch(&s, &epochs[i], 10 + k);
	assert_int_equal(s.cur, 10);
	assert_int_equal(mr_share_hint(&s, 20), 10000);
	/* the next window starts empty but remembers the last: still a tenth */
	assert_int_equal(mr_share_hint(&s, W + 1), 10000);
	/* only three keep sending: after a full window of that, a third each */
	for (i = 0; i < 3; i++)
		mr_share_touch(&s, &epochs[i], W + 2);
	assert_int_equal(mr_share_hint(&s, W + 3), 10000);
	for (i = 0; i < 3; i++)
		mr_share_touch(&s, &epochs[i], 2 * W + 5);
	assert_int_equal(mr_share_hint(&s, 2 * W + 6), 33333);
	/* everyone idle for two windows: the whole link again */
	assert_int_equal(mr_share_hint(&s, 5 * W), 100000);
}

static void test_clock_going_backwards_is_harmless(void **state)
{
	u32 e = 0;
	struct mr_share s;

	(void)state;
	mr_share_init(&s, 1000, 10 * W);
	mr_share_touch(&s, &e, 10 * W);
	mr_share_touch(&s, &e, 3 * W);	/* earlier than the window start */
	assert_int_equal(s.cur, 1);
	assert_int_equal(mr_share_hint(&s, W), 1000);
}

static void test_epoch_wrap_never_hits_zero(void **state)
{
	u32 e = 0;
	struct mr_share s;

	(void)state;
	mr_share_init(&s, 1000, 0);
	s.epoch = 0xffffffff;
	mr_share_touch(&s, &e, W);	/* rolls over to 1, skipping 0 */
	assert_int_equal(s.epoch, 1);
	assert_int_equal(e, 1);
	assert_int_equal(s.cur, 1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_no_one_active_gets_the_link),
	cmocka_unit_test(test_incast_divides_the_link),
	cmocka_unit_test(test_clock_going_backwards_is_harmless),
	cmocka_unit_test(test_epoch_wrap_never_hits_zero),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
