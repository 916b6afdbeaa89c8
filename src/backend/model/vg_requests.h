/*
 * vg_requests.h - the client requests between libipcc's regions (src/region.c) and ipcc's
 * Valgrind tool (vg_tool.c). Include valgrind.h (or, in the tool, pub_tool_clreq.h) first.
 *
 * Each carries the region's name (a NUL-terminated string) in its first argument; the tool
 * answers 1, and a program not under the tool gets the default, 0.
 */
#ifndef IPCC_VG_REQUESTS_H
#define IPCC_VG_REQUESTS_H

enum {
	IPCC_VG_REGION_BEGIN = VG_USERREQ_TOOL_BASE('I', 'P'),
	IPCC_VG_REGION_END,
};

#endif
