/*
 * lines.h - code addresses to source lines, from a file's DWARF line tables (elfutils' libdw).
 *
 * The tables are the ELF file's own, or those of its separate debug file when the file has
 * none, found as the symbols find one (recording.h): by build ID under
 * $IPCC_DEBUG_ROOT/.build-id/ (default /usr/lib/debug), else by .gnu_debuglink. A file
 * without DWARF is not an error: every lookup in it finds nothing.
 *
 * The caller owns a struct ipcc_lines; it holds the file open until ipcc_lines_close().
 */
#ifndef IPCC_LINES_H
#define IPCC_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ipcc_lines;

/*
 * Open the line tables of the ELF file at `path` (or of its separate debug file). Returns 0
 * and *out, even when neither has DWARF (or the file is not ELF); IPCC_ESYS when path cannot
 * be opened, IPCC_ENOMEM; *out is then NULL.
 */
int ipcc_lines_open(const char *path, struct ipcc_lines **out);

/*
 * The source line of `addr`, an address in the file's own (ELF) addresses as struct
 * ipcc_symbol's elf_addr is, as "BASENAME:LINE" ("triad.c:12") into buf (truncated to len).
 * Returns true if found; false, with buf "", when the file has no line for it.
 */
bool ipcc_lines_find(struct ipcc_lines *l, uint64_t addr, char *buf, size_t len);

/* Whether any DWARF line table was found. */
bool ipcc_lines_present(const struct ipcc_lines *l);

/* Close the file and free l; NULL is a no-op. */
void ipcc_lines_close(struct ipcc_lines *l);

#endif
