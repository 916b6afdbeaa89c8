/*
 * symbols_int.h - an ELF file's separate debug file (private to src/): found as gdb and perf
 * find it, for symbols.c (its symbol tables) and lines.c (its DWARF line tables).
 */
#ifndef IPCC_SYMBOLS_INT_H
#define IPCC_SYMBOLS_INT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What ties a file to its separate debug file. */
struct elf_ids {
	unsigned char build_id[64];
	size_t build_id_len;
	char debuglink[256]; /* "" if none */
	uint32_t crc;
};

/* The build ID note and the .gnu_debuglink section of elf, where it has them. */
void symbols_read_ids(Elf *elf, struct elf_ids *id);

/*
 * The separate debug file of the ELF file at path (whose ids are id), opened: by the build
 * ID under <root>/.build-id/xx/rest.debug, else by .gnu_debuglink beside the file, in its
 * .debug/ folder or under <root>/<its folder>/; <root> is $IPCC_DEBUG_ROOT or /usr/lib/debug.
 * A candidate counts only if it has the same build ID (or, without one, the CRC-32 that
 * .gnu_debuglink records) and want(elf, arg) returns true for it. Returns the first that
 * counts, its descriptor in *fd, both the caller's to elf_end() and close(); NULL (and
 * *fd = -1) if none does. elf_version() must have been called.
 */
Elf *symbols_debug_file(const char *path, const struct elf_ids *id,
			bool (*want)(Elf *elf, void *arg), void *arg, int *fd);

#endif
