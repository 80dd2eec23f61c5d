// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE receiver fair share.
 */
#include "share.h"

void mr_share_init(struct mr_share *s, u32 link_mbps, u64 now)
{
	memset(s, 0, sizeof(*s));
	s->link_mbps = link_mbps;
	s->epoch = 1;
	s->epoch_start_ns = now;
}

static void mr_share_roll(struct mr_share *s, u64 now)
{
	u64 age = now - s->epoch_start_ns;

	if (now < s->epoch_start_ns || age < MR_SHARE_WINDOW_NS)
		return;
	/* A whole window without a roll means the last one saw nobody. */
	s->prev = age < 2 * MR_SHARE_WINDOW_NS ? s->cur : 0;
	s->cur = 0;
	if (++s->epoch == 0)
		s->epoch = 1;	/* 0 is every connection's "never counted" */
	s->epoch_start_ns = now;
}

void mr_share_touch(struct mr_share *s, u32 *conn_epoch, u64 now)
{
	mr_share_roll(s, now);
	if (*conn_epoch == s->epoch)
		return;
	*conn_epoch = s->epoch;
	s->cur++;
}

u32 mr_share_hint(struct mr_share *s, u64 now)
{
	u32 active;

	mr_share_roll(s, now);
	active = max_t(u32, max_t(u32, s->cur, s->prev), 1);
	return s->link_mbps / active;
}
