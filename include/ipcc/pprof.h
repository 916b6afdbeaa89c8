/*
 * pprof.h - a profile file as a pprof Profile (google/pprof's profile.proto, gzip-compressed):
 * what `go tool pprof`, Pyroscope, Parca and the other engines that read pprof take.
 *
 * One pprof sample per place (address, process, thread) with the number of samples there and,
 * where the event's period is known, the events (nanoseconds for task-clock and cpu-clock)
 * they stand for; a location per address, with its mapping (file, offsets, build ID) and its
 * function (demangled name, and the symbol table's as system_name); the summary (event,
 * rate or period, lost samples, throttling) as comments. No stacks: ipcc record samples the
 * IP alone, so each sample has one location. No source lines: functions come from the ELF
 * symbol tables (src/symbols.c).
 *
 * The encoded bytes belong to the caller, who frees them with free().
 */
#ifndef IPCC_PPROF_H
#define IPCC_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "ipcc/recording.h"

struct ipcc_pprof_opts {
	int64_t time_nanos; /* when the recording started, ns since the epoch; 0: unknown */
};

/*
 * Encode recording p, its samples resolved with syms (made from p), as a gzip-compressed pprof
 * Profile: *out (malloc'd) and *len. IPCC_ENOMEM, or IPCC_ESYS if zlib fails.
 */
int ipcc_pprof_encode(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		      const struct ipcc_pprof_opts *o, void **out, size_t *len);

/*
 * Encode and write to `path`: a temporary file beside it, renamed over it once whole, so a
 * failure leaves no file behind. IPCC_ESYS with the path and the reason.
 */
int ipcc_pprof_write(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		     const struct ipcc_pprof_opts *o, const char *path);

#endif
