/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common includes for the host unit tests of the MetaRoCE protocol core. Every test
 * program prints TAP on its own and exits non-zero if a test fails.
 */
#ifndef _METAROCE_UNIT_H
#define _METAROCE_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/* Run a group of tests with TAP on stdout (no environment needed); 1 if any failed. */
static inline int mr_unit_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL) ? 1 : 0;
}

/* xorshift64*: the same draws on every host, for tests that need random fates. */
static inline uint32_t mr_unit_rand(unsigned long long *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (uint32_t)((*state * 0x2545f4914f6cdd1dULL) >> 32);
}

#endif /* _METAROCE_UNIT_H */
