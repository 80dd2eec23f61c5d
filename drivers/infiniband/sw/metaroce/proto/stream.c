// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE per-stream message tracking.
 */
#include "stream.h"

void mr_stream_init(struct mr_stream *s, u32 first_msn)
{
	memset(s, 0, sizeof(*s));
	s->next = first_msn;
}

int mr_stream_add(struct mr_stream *s, u32 msn, u32 mlen, u32 len)
{
	struct mr_msg_slot *m;

	if (msn - s->next >= MR_STREAM_WIN)
		return -ERANGE;
	m = &s->slot[msn % MR_STREAM_WIN];
	if (!m->used) {
		m->used = true;
		m->mlen = mlen;
		m->got = 0;
		m->done = false;
		s->pending++;
	} else if (m->mlen != mlen) {
		return -EINVAL;
	}
	if (len > m->mlen - m->got || m->done)
		return -EINVAL;
	m->got += len;
	if (m->got == m->mlen)
		m->done = true;
	return 0;
}

bool mr_stream_peek(const struct mr_stream *s, u32 *msn)
{
	const struct mr_msg_slot *m = &s->slot[s->next % MR_STREAM_WIN];

	if (!m->used || !m->done)
		return false;
	*msn = s->next;
	return true;
}

bool mr_stream_deliver(struct mr_stream *s, u32 *msn, u32 *mlen)
{
	struct mr_msg_slot *m = &s->slot[s->next % MR_STREAM_WIN];

	if (!m->used || !m->done)
		return false;
	*msn = s->next;
	*mlen = m->mlen;
	memset(m, 0, sizeof(*m));
	s->next++;
	s->pending--;
	return true;
}
