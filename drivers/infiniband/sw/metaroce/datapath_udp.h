/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: the software datapath (datapath_udp.c), UDP over the netdev.
 */

#ifndef METAROCE_DATAPATH_UDP_H
#define METAROCE_DATAPATH_UDP_H

#include "datapath.h"

extern const struct metaroce_datapath_ops metaroce_udp_dp_ops;

#endif /* METAROCE_DATAPATH_UDP_H */
