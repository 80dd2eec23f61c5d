// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of uverbs_teardown.sh: opens a MetaRoCE device through libibverbs,
 * creates a PD and MRs, prints one "ok NAME" / "not ok NAME" line per check,
 * then "ready" and waits for end of input on stdin. Then it tries one more
 * verb, whose result it prints ("after: alloc_pd ok|failed"), and releases
 * everything. The exit status is 0 unless the setup failed.
 *
 * Usage: uverbs_holder DEVICE </path/to/fifo
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static int failed;

static void check(int ok, const char *name)
{
	printf("%s %s\n", ok ? "ok" : "not ok", name);
	failed |= !ok;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_mr *mr, *bad;
	struct ibv_pd *pd, *pd2;
	char *buf;
	int i, n;

	if (argc != 2)
		return 2;
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	check(ctx != NULL, "ibv_open_device");
	if (!ctx)
		return 1;

	pd = ibv_alloc_pd(ctx);
	check(pd != NULL, "ibv_alloc_pd");
	if (!pd)
		return 1;

	buf = aligned_alloc(4096, 3 * 4096);
	mr = ibv_reg_mr(pd, buf + 16, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	check(mr != NULL, "ibv_reg_mr, unaligned start, remote read/write");
	check(mr && mr->lkey == mr->rkey && mr->lkey != 0, "lkey == rkey, not 0");
	bad = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE);
	check(bad == NULL, "ibv_reg_mr, remote write without local write, refused");
	if (bad)
		ibv_dereg_mr(bad);
	printf("ready\n");
	fflush(stdout);

	while (getchar() != EOF)
		;

	pd2 = ibv_alloc_pd(ctx);
	printf("after: alloc_pd %s\n", pd2 ? "ok" : "failed");
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	fflush(stdout);
	return failed;
}
