// SPDX-License-Identifier: GPL-2.0
/*
 * Stream ordering: messages complete in any order but are delivered in MSN order within
 * a stream; streams do not block each other; inconsistent and out-of-window input is
 * refused.
 */
#include "unit.h"
#include "stream.h"

static void test_in_order_within_stream(void **state)
{
	struct mr_stream s;
	u32 msn, mlen;

	(void)state;
	mr_stream_init(&s, 0);
	assert_false(mr_stream_deliver(&s, &msn, &mlen));
	/* message 1 (two packets) completes before message 0 */
	assert_int_equal(mr_stream_add(&s, 1, 8192, 4096), 0);
	assert_int_equal(mr_stream_add(&s, 1, 8192, 4096), 0);
	assert_false(mr_stream_deliver(&s, &msn, &mlen));
	/* message 0: three packets, last one short, arriving out of order */
	assert_int_equal(mr_stream_add(&s, 0, 9000, 808), 0);
	assert_false(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(mr_stream_add(&s, 0, 9000, 4096), 0);
	assert_false(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(mr_stream_add(&s, 0, 9000, 4096), 0);
	assert_true(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(msn, 0);
	assert_int_equal(mlen, 9000);
	assert_true(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(msn, 1);
	assert_false(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(s.pending, 0);
}

static void test_streams_are_independent(void **state)
{
	struct mr_stream a, b;
	u32 msn, mlen;

	(void)state;
	mr_stream_init(&a, 0);
	mr_stream_init(&b, 0);
	/* stream a waits for its message 0; stream b is not held up by it */
	assert_int_equal(mr_stream_add(&a, 1, 100, 100), 0);
	assert_int_equal(mr_stream_add(&b, 0, 100, 100), 0);
	assert_false(mr_stream_deliver(&a, &msn, &mlen));
	assert_true(mr_stream_deliver(&b, &msn, &mlen));
	assert_int_equal(msn, 0);
}

static void test_zero_length_message(void **state)
{
	struct mr_stream s;
	u32 msn, mlen;

	(void)state;
	mr_stream_init(&s, 7);
	assert_int_equal(mr_stream_add(&s, 7, 0, 0), 0);
	assert_true(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(msn, 7);
	assert_int_equal(mlen, 0);
	/* a second empty packet for the same, already complete message is refused */
	assert_int_equal(mr_stream_add(&s, 8, 0, 0), 0);
	assert_int_equal(mr_stream_add(&s, 8, 0, 0), -EINVAL);
}

static void test_inconsistent_and_out_of_window(void **state)
{
	struct mr_stream s;
	u32 msn, mlen;

	(void)state;
	mr_stream_init(&s, 0xfffffff0);
	/* mlen differs between packets of one message */
	assert_int_equal(mr_stream_add(&s, 0xfffffff0, 8192, 4096), 0);
	assert_int_equal(mr_stream_add(&s, 0xfffffff0, 8193, 4096), -EINVAL);
	/* more bytes than the message has */
	assert_int_equal(mr_stream_add(&s, 0xfffffff0, 8192, 4097), -EINVAL);
	assert_int_equal(mr_stream_add(&s, 0xfffffff0, 8192, 4096), 0);
	assert_int_equal(mr_stream_add(&s, 0xfffffff0, 8192, 1), -EINVAL);
	/* window edges, across the MSN wrap */
	assert_int_equal(mr_stream_add(&s, 0xfffffff0 + MR_STREAM_WIN - 1, 1, 1), 0);
	assert_int_equal(mr_stream_add(&s, 0xfffffff0 + MR_STREAM_WIN, 1, 1), -ERANGE);
	assert_int_equal(mr_stream_add(&s, 0xffffffef, 1, 1), -ERANGE);	/* stale */
	assert_true(mr_stream_deliver(&s, &msn, &mlen));
	assert_int_equal(msn, 0xfffffff0);
	/* delivered messages are stale now */
	assert_int_equal(mr_stream_add(&s, 0xfffffff0, 8192, 1), -ERANGE);
}

static void test_many_messages_wrap_in_order(void **state)
{
	struct mr_stream s;
	u32 msn, mlen, i, next = 0xffffff00, x = 1;

	(void)state;
	mr_stream_init(&s, 0xffffff00);
	/* 2048 one-packet messages, completed in scrambled order within blocks of 64 */
	for (i = 0; i < 2048; i += 64) {
		u32 j;

		for (j = 0; j < 64; j++) {
			u32 k = (j * 37 + x) % 64;	/* 37 is coprime to 64: a permutation */

			assert_int_equal(mr_stream_add(&s, 0xffffff00 + i + k, 10, 10), 0);
		}
		x += 5;
		while (mr_stream_deliver(&s, &msn, &mlen)) {
			assert_int_equal(msn, next);
			next++;
		}
		assert_int_equal(next, 0xffffff00 + i + 64);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_in_order_within_stream),
	cmocka_unit_test(test_streams_are_independent),
	cmocka_unit_test(test_zero_length_message),
	cmocka_unit_test(test_inconsistent_and_out_of_window),
	cmocka_unit_test(test_many_messages_wrap_in_order),
};

int main(void)
{
	return mr_unit_run(__FILE__, tests, ARRAY_SIZE(tests));
}
