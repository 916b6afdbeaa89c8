/*
 * procfs_int.h - reading /proc/cpuinfo (private to src/).
 *
 * The path can be replaced for tests with the environment variable IPCC_PROC_CPUINFO, as
 * libpfm4 does with LIBPFM_PROC_CPUINFO.
 */
#ifndef IPCC_PROCFS_INT_H
#define IPCC_PROCFS_INT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Copy the value of the first "name : value" line of /proc/cpuinfo into buf (NUL-terminated,
 * truncated to len). Returns 0, IPCC_ENOTSUP when no line has that name, IPCC_ESYS when the
 * file cannot be read.
 */
int procfs_cpuinfo_field(const char *name, char *buf, size_t len);

/* Whether the space-separated list `words` holds `word` exactly. */
bool procfs_has_word(const char *words, const char *word);

#endif
