/*
 * recording.h - recordings: what `ipcc record` writes and `ipcc annotate` reads, and the
 * symbols and lines that samples resolve to.
 *
 * A recording is little-endian, versioned, and documented in docs/internals/sample.md:
 *   header  "IPCCPROF" (8 bytes), u32 version (1), u32 reserved (0)
 *   records u32 type, u32 size (of the whole record, a multiple of 8), then the body:
 *     1 MMAP    u32 pid, u32 reserved, u64 addr, u64 len, u64 pgoff, file name, NUL-padded
 *     2 SAMPLE  u64 ip, u64 time_ns, u32 pid, u32 tid, u32 cpu, u32 user (0 or 1)
 *     3 SUMMARY u64 samples, lost, throttles, period, freq, then the event name, NUL-padded
 * Unknown record types are skipped by their size, so a reader of version 1 can read files
 * with more record types; a new layout of an existing type is a new version.
 *
 * The caller owns a recording and frees it with ipcc_recording_free().
 */
#ifndef IPCC_RECORDING_H
#define IPCC_RECORDING_H

#include <stdint.h>
#include <stdio.h>

#include "ipcc/sample.h"

#define IPCC_RECORDING_VERSION 1

struct ipcc_recording_mmap {
	uint32_t pid;
	uint64_t addr, len, pgoff;
	char *filename;
};

struct ipcc_recording_summary {
	uint64_t samples, lost, throttles;
	uint64_t period, freq; /* as asked for: one of them is 0 */
	char event[64];
};

struct ipcc_recording {
	struct ipcc_recording_mmap *mmaps;
	size_t nmmaps;
	struct ipcc_sample *samples;
	size_t nsamples;
	struct ipcc_recording_summary summary;
	int has_summary;
};

/* Writing: the header, then records as they come. Each returns 0 or IPCC_ESYS. */
int ipcc_recording_write_header(FILE *f);
int ipcc_recording_write_mmap(FILE *f, const struct ipcc_sample_mmap *m);
int ipcc_recording_write_sample(FILE *f, const struct ipcc_sample *s);
int ipcc_recording_write_summary(FILE *f, const struct ipcc_recording_summary *s);

/*
 * Read a whole recording from `data` (size bytes). A truncated or corrupt file is IPCC_EINVAL
 * with the offset and the reason in ipcc_last_error(); *out is then NULL.
 */
int ipcc_recording_parse(const void *data, size_t size, struct ipcc_recording **out);

/* Read the file at `path`. */
int ipcc_recording_load(const char *path, struct ipcc_recording **out);

void ipcc_recording_free(struct ipcc_recording *p);

/*
 * Where an address is: the mapping's file, the function (or NULL), the offset in the file.
 * The strings belong to the recording and the symbols; `file` is the same pointer for every
 * mapping of one file, and `function` the same for every address in one function.
 */
struct ipcc_symbol {
	const char *file;      /* NULL: in no recorded mapping */
	const char *function;  /* as in the symbol table (mangled); NULL: no symbol covers it */
	const char *demangled; /* function as C++ or Rust writes it, else function itself */
	uint64_t func_start;   /* the function's address in the file's own (ELF) addresses */
	uint64_t func_size;
	uint64_t elf_addr; /* the sample's address in the file's own addresses */
	const struct ipcc_recording_mmap *mmap; /* the mapping the address is in, or NULL */
};

struct ipcc_symbols;

/*
 * Symbols for the recording's mappings, read from each file's ELF symbol tables (libelf): its
 * .symtab; if it has none, its separate debug file's (by build ID under
 * $IPCC_DEBUG_ROOT/.build-id/, default /usr/lib/debug, or by .gnu_debuglink); else its .dynsym.
 */
int ipcc_symbols_new(const struct ipcc_recording *p, struct ipcc_symbols **out);
void ipcc_symbols_free(struct ipcc_symbols *s);

/* Resolve sample s's IP. */
void ipcc_symbols_resolve(struct ipcc_symbols *s, const struct ipcc_sample *smp,
			  struct ipcc_symbol *out);

/* `file`'s build ID (its NT_GNU_BUILD_ID note) in lower-case hexadecimal, or NULL if none. */
const char *ipcc_symbols_build_id(struct ipcc_symbols *s, const char *file);

/*
 * The function `name` of `file` (as the symbol table spells it, or demangled): its start in
 * the file's own addresses and its size. IPCC_EINVAL with a message if there is none.
 */
int ipcc_symbols_find(struct ipcc_symbols *s, const char *file, const char *name, uint64_t *start,
		      uint64_t *size);

/*
 * Copy *len bytes of `file`'s code at its own address elf_addr into buf; where the code's
 * segment ends sooner, *len is cut to what it holds (a 64-byte line at the end of .text).
 */
int ipcc_symbols_read(struct ipcc_symbols *s, const char *file, uint64_t elf_addr, void *buf,
		      size_t *len);

#endif
