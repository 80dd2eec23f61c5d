/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TAP output and the provider's location, shared by the provider's host test
 * programs. Each program includes this once.
 */
#ifndef METAROCE_TESTS_TAP_H
#define METAROCE_TESTS_TAP_H

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int tap_failed, tap_count;

/* One test point; diag (may be NULL) explains a failure. */
static void tap(int ok, const char *name, const char *diag)
{
	tap_count++;
	printf("%sok %d - %s\n", ok ? "" : "not ", tap_count, name);
	if (!ok) {
		tap_failed++;
		if (diag)
			printf("  # %s\n", diag);
	}
}

/*
 * $METAROCE_PROVIDER_LIB, or else ../lib/libmetaroce-rdmav34.so next to this
 * program's directory (build/unit/ -> build/lib/).
 */
static const char *provider_path(char *buf, size_t len)
{
	const char *env = getenv("METAROCE_PROVIDER_LIB");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return NULL;
	exe[n] = '\0';
	snprintf(buf, len, "%s/../lib/libmetaroce-rdmav34.so", dirname(exe));
	return buf;
}

#endif /* METAROCE_TESTS_TAP_H */
