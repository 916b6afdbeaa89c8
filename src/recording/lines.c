/*
 * lines.c - code addresses to source lines: the DWARF line tables of a file, or of its
 * separate debug file (symbols_int.h finds it), read with elfutils' libdw.
 *
 * Opening reads only each compilation unit's DIE: the address ranges it covers (DW_AT_low_pc
 * and DW_AT_high_pc, or DW_AT_ranges), sorted into one table. A lookup finds the unit by
 * binary search in it (the last lookup's unit first, as callers ask about nearby addresses
 * in turn) and the row in the unit's line table, which libdw reads on first use and keeps.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error_int.h"
#include "ipcc/lines.h"
#include "symbols_int.h"

/* Addresses [lo, hi) of one unit. */
struct range {
	uint64_t lo, hi;
	Dwarf_Die cu;
};

struct ipcc_lines {
	int fd; /* -1 when there are no line tables: nothing is held open */
	Elf *elf;
	Dwarf *dw;
	struct range *ranges; /* by lo */
	size_t nranges;
	size_t last; /* the range of the last hit */
	bool present;
};

/* Whether elf has a DWARF line table section with contents (a debug file's, not a stub). */
static bool has_lines(Elf *elf, void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	(void)arg;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_line") || !strcmp(name, ".zdebug_line")))
			return true;
	}
	return false;
}

static int by_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges of every unit that has a line table; IPCC_ENOMEM. */
static int read_ranges(struct ipcc_lines *l)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t cap = 0;

	while (dwarf_get_units(l->dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		/* A unit of an unknown version has no DIE (addr NULL). */
		if (!cudie.addr || !dwarf_hasattr(&cudie, DW_AT_stmt_list))
			continue;
		l->present = true;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (l->nranges == cap) {
				struct range *r;

				cap = cap ? 2 * cap : 64;
				r = realloc(l->ranges, cap * sizeof(*r));
				if (!r)
					return err_set(IPCC_ENOMEM, "lines");
				l->ranges = r;
			}
			l->ranges[l->nranges++] = (struct range){ lo, hi, cudie };
		}
	}
	if (l->nranges)
		qsort(l->ranges, l->nranges, sizeof(*l->ranges), by_lo);
	return 0;
}

/* Give up the file: lookups find nothing. */
static void drop(struct ipcc_lines *l)
{
	dwarf_end(l->dw);
	elf_end(l->elf);
	if (l->fd >= 0)
		close(l->fd);
	free(l->ranges);
	l->dw = NULL;
	l->elf = NULL;
	l->fd = -1;
	l->ranges = NULL;
	l->nranges = 0;
	l->present = false;
}

int ipcc_lines_open(const char *path, struct ipcc_lines **out)
{
	struct ipcc_lines *l = calloc(1, sizeof(*l));
	int r;

	*out = NULL;
	if (!l)
		return err_set(IPCC_ENOMEM, "lines");
	l->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (l->fd < 0) {
		free(l);
		return err_sys("cannot open %s", path);
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(l->fd);
		free(l);
		return err_set(IPCC_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	}
	l->elf = elf_begin(l->fd, ELF_C_READ, NULL);
	if (!l->elf || elf_kind(l->elf) != ELF_K_ELF) {
		drop(l);
		*out = l;
		return 0;
	}
	if (!has_lines(l->elf, NULL)) {
		/* A stripped file: its debug file's tables, if one is installed. */
		struct elf_ids id;
		int fd;
		Elf *dbg;

		symbols_read_ids(l->elf, &id);
		dbg = symbols_debug_file(path, &id, has_lines, NULL, &fd);
		elf_end(l->elf);
		close(l->fd);
		l->elf = dbg;
		l->fd = fd;
		if (!dbg) {
			drop(l);
			*out = l;
			return 0;
		}
	}
	l->dw = dwarf_begin_elf(l->elf, DWARF_C_READ, NULL);
	if (!l->dw) {
		drop(l);
		*out = l;
		return 0;
	}
	r = read_ranges(l);
	if (r < 0) {
		drop(l);
		free(l);
		return r;
	}
	*out = l;
	return 0;
}

/* The range that holds addr, or NULL. */
static const struct range *find_range(struct ipcc_lines *l, uint64_t addr)
{
	size_t lo = 0, hi = l->nranges;

	if (l->last < l->nranges && addr >= l->ranges[l->last].lo && addr < l->ranges[l->last].hi)
		return &l->ranges[l->last];
	/* The last range starting at or before addr. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= l->ranges[lo - 1].hi)
		return NULL;
	l->last = lo - 1;
	return &l->ranges[lo - 1];
}

bool ipcc_lines_find(struct ipcc_lines *l, uint64_t addr, char *buf, size_t len)
{
	const struct range *r = find_range(l, addr);
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *src, *slash;
	int lineno;

	if (len)
		buf[0] = '\0';
	if (!r)
		return false;
	cu = r->cu;
	line = dwarf_getsrc_die(&cu, addr);
	/* Line 0: code that no source line is the reason for. */
	if (!line || dwarf_lineno(line, &lineno) != 0 || lineno <= 0 ||
	    !(src = dwarf_linesrc(line, NULL, NULL)))
		return false;
	slash = strrchr(src, '/');
	if (len)
		snprintf(buf, len, "%s:%d", slash ? slash + 1 : src, lineno);
	return true;
}

bool ipcc_lines_present(const struct ipcc_lines *l)
{
	return l->present;
}

void ipcc_lines_close(struct ipcc_lines *l)
{
	if (!l)
		return;
	drop(l);
	free(l);
}
