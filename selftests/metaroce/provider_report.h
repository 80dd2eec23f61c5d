/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PASS/FAIL lines of the provider test programs (provider_ex.c, provider_mw.c,
 * provider_dv.c), which their .sh scripts turn into KTAP points. Each program is
 * one translation unit: the state below is its own.
 */
#ifndef METAROCE_PROVIDER_REPORT_H
#define METAROCE_PROVIDER_REPORT_H

#include <stdio.h>
#include <stdlib.h>

static int failed;
static char why[2048];	/* the reason of the next FAIL, filled by the caller */

static void check(int ok, const char *name)
{
	if (ok) {
		printf("PASS %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		failed++;
	}
	fflush(stdout);
	why[0] = '\0';
}

static void die(const char *name)
{
	check(0, name);
	exit(1);
}

#endif
