// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host test: load libmetaroce the way libibverbs does (dlopen, RTLD_NOW) so
 * that every symbol it imports must resolve against the installed
 * libibverbs and libc, and check that it exports nothing by name.
 *
 * The library is taken from $METAROCE_PROVIDER_LIB, or else from
 * ../lib/libmetaroce-rdmav34.so next to this program's directory.
 * Output is TAP; the exit status is non-zero if any test fails.
 */

#include <dlfcn.h>
#include <string.h>

#include "tap.h"

static int planned;

/* Names a careless build would export; none may be visible. */
static const char *const private_names[] = {
	"verbs_provider_metaroce",
	"metaroce_dev_ops",
	"metaroce_ctx_ops",
	"metaroce_register_driver",
	"metaroce_alloc_context",
	"metaroce_match_device",
	"metaroce_alloc_device",
};

int main(void)
{
	char buf[PATH_MAX + 64];
	const char *path;
	void *handle;
	size_t i;

	planned = 3 + ARRAY_SIZE(private_names);
	printf("TAP version 13\n1..%d\n", planned);

	path = provider_path(buf, sizeof(buf));
	tap(path && access(path, R_OK) == 0, "provider library is readable",
	    path ? path : "cannot locate the provider");

	handle = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	tap(handle != NULL,
	    "dlopen(RTLD_NOW) resolves every symbol against libibverbs and libc",
	    handle ? NULL : dlerror());

	for (i = 0; i < ARRAY_SIZE(private_names); i++) {
		char name[128];
		int hidden = 1;

		if (handle) {
			dlerror();
			hidden = dlsym(handle, private_names[i]) == NULL;
		}
		snprintf(name, sizeof(name), "%s is not exported",
			 private_names[i]);
		tap(handle && hidden, name, NULL);
	}

	tap(handle && dlclose(handle) == 0, "dlclose", NULL);

	return tap_failed || tap_count != planned ? 1 : 0;
}
