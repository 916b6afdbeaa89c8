/*
 * symbols.c - samples to functions: the recorded mappings, each file's ELF program headers
 * (file offset to the file's own addresses) and its function symbols (.symtab, else
 * .dynsym), read with libelf.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error_int.h"
#include "ipcc/profile.h"

struct func {
	uint64_t start, size;
	char *name;
};

struct segment {
	uint64_t offset, vaddr, filesz;
};

struct object {
	const char *path; /* the profile's string */
	struct func *funcs;
	size_t nfuncs;
	struct segment seg[16];
	size_t nseg;
};

struct ipcc_symbols {
	const struct ipcc_profile *prof;
	struct object *obj; /* one per mapping, in the profile's order; path NULL if unreadable */
};

static int by_start(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Read one section's function symbols into o (appending). */
static void read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct object *o)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct func *f;

	if (!data || !n)
		return;
	f = realloc(o->funcs, (o->nfuncs + n) * sizeof(*f));
	if (!f)
		return;
	o->funcs = f;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_size || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !(f[o->nfuncs].name = strdup(name)))
			continue;
		f[o->nfuncs].start = sym.st_value;
		f[o->nfuncs].size = sym.st_size;
		o->nfuncs++;
	}
}

static void load_object(struct object *o, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t nph = 0;
	bool symtab = false;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		o->path = path;
		if (elf_getphdrnum(elf, &nph) == 0)
			for (size_t i = 0; i < nph && o->nseg < 16; i++) {
				GElf_Phdr ph;

				if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
					o->seg[o->nseg++] =
					    (struct segment){ ph.p_offset, ph.p_vaddr,
							      ph.p_filesz };
			}
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
				read_symtab(elf, scn, &sh, o);
				symtab = true;
			}
		}
		/* A stripped file still has its dynamic symbols. */
		while (!symtab && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
				read_symtab(elf, scn, &sh, o);
		}
		qsort(o->funcs, o->nfuncs, sizeof(*o->funcs), by_start);
	}
	elf_end(elf);
	close(fd);
}

int ipcc_symbols_new(const struct ipcc_profile *p, struct ipcc_symbols **out)
{
	struct ipcc_symbols *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->obj = calloc(p->nmmaps + 1, sizeof(*s->obj)))) {
		free(s);
		return err_set(IPCC_ENOMEM, "symbols");
	}
	s->prof = p;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(s->obj);
		free(s);
		return err_set(IPCC_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	}
	for (size_t i = 0; i < p->nmmaps; i++) {
		/* A file mapped several times (one per segment) is read once. */
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(p->mmaps[j].filename, p->mmaps[i].filename))
				break;
		if (j < i)
			s->obj[i] = s->obj[j], s->obj[i].funcs = NULL, s->obj[i].nfuncs = 0,
			s->obj[i].path = s->obj[j].path ? p->mmaps[i].filename : NULL;
		else
			load_object(&s->obj[i], p->mmaps[i].filename);
	}
	*out = s;
	return 0;
}

void ipcc_symbols_free(struct ipcc_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->prof->nmmaps; i++) {
		for (size_t k = 0; k < s->obj[i].nfuncs; k++)
			free(s->obj[i].funcs[k].name);
		free(s->obj[i].funcs);
	}
	free(s->obj);
	free(s);
}

/* The object whose functions a mapping's file has (the first mapping of that file). */
static const struct object *funcs_of(const struct ipcc_symbols *s, size_t i)
{
	for (size_t j = 0; j <= i; j++)
		if (!strcmp(s->prof->mmaps[j].filename, s->prof->mmaps[i].filename))
			return &s->obj[j];
	return &s->obj[i];
}

void ipcc_symbols_resolve(struct ipcc_symbols *s, const struct ipcc_sample *smp,
			  struct ipcc_symbol *out)
{
	const struct ipcc_profile *p = s->prof;
	size_t best = p->nmmaps;

	memset(out, 0, sizeof(*out));
	/* The latest mapping of this process (or, failing that, any) that holds the IP. */
	for (size_t i = 0; i < p->nmmaps; i++) {
		const struct ipcc_profile_mmap *m = &p->mmaps[i];

		if (smp->ip >= m->addr && smp->ip - m->addr < m->len &&
		    (best == p->nmmaps || m->pid == smp->pid))
			best = i;
	}
	if (best == p->nmmaps)
		return;
	out->file = p->mmaps[best].filename;
	{
		const struct object *o = funcs_of(s, best);
		uint64_t off = smp->ip - p->mmaps[best].addr + p->mmaps[best].pgoff;
		size_t lo = 0, hi = o->nfuncs;

		out->elf_addr = off;
		for (size_t k = 0; k < o->nseg; k++)
			if (off >= o->seg[k].offset && off - o->seg[k].offset < o->seg[k].filesz) {
				out->elf_addr = off - o->seg[k].offset + o->seg[k].vaddr;
				break;
			}
		/* The last function starting at or before the address. */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (o->funcs[mid].start <= out->elf_addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && out->elf_addr - o->funcs[lo - 1].start < o->funcs[lo - 1].size) {
			out->function = o->funcs[lo - 1].name;
			out->func_start = o->funcs[lo - 1].start;
			out->func_size = o->funcs[lo - 1].size;
		}
	}
}

int ipcc_symbols_read(struct ipcc_symbols *s, const char *file, uint64_t elf_addr, void *buf,
		      size_t len)
{
	for (size_t i = 0; i < s->prof->nmmaps; i++) {
		const struct object *o = funcs_of(s, i);
		FILE *f;

		if (strcmp(s->prof->mmaps[i].filename, file) != 0)
			continue;
		for (size_t k = 0; k < o->nseg; k++) {
			const struct segment *g = &o->seg[k];
			size_t got;

			if (elf_addr < g->vaddr || elf_addr - g->vaddr + len > g->filesz)
				continue;
			f = fopen(file, "rb");
			if (!f)
				return err_sys("cannot open %s", file);
			got = fseek(f, (long)(elf_addr - g->vaddr + g->offset), SEEK_SET) == 0
				  ? fread(buf, 1, len, f)
				  : 0;
			fclose(f);
			return got == len ? 0 : err_set(IPCC_ESYS, "cannot read %s", file);
		}
		break;
	}
	return err_set(IPCC_EINVAL, "no code of %s at %#llx", file, (unsigned long long)elf_addr);
}
