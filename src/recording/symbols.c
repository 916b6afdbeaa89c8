/*
 * symbols.c - samples to functions: the recorded mappings, each file's ELF program headers
 * (file offset to the file's own addresses) and its function symbols, read with libelf.
 *
 * Symbols come from the file's .symtab; a stripped file's from its separate debug file when
 * one is installed (found as gdb and perf find it: by the NT_GNU_BUILD_ID note under
 * <root>/.build-id/, else by .gnu_debuglink beside the file, in its .debug/ folder or under
 * <root>/<its folder>/; <root> is $IPCC_DEBUG_ROOT or /usr/lib/debug: symbols_debug_file(),
 * which lines.c shares through symbols_int.h), else from its .dynsym.
 * Functions are STT_FUNC and STT_GNU_IFUNC symbols, local ones included; one of size 0 ends
 * where the next begins. Of several at one address, the one perf would name is kept.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "error_int.h"
#include "ipcc/recording.h"
#include "symbols_int.h"

#define DEBUG_ROOT "/usr/lib/debug"

struct func {
	uint64_t start, size;
	char *name;
	char *demangled; /* NULL until asked for; then name itself when not a mangled name */
	unsigned char bind;
};

struct segment {
	uint64_t offset, vaddr, filesz;
};

struct object {
	const char *path; /* the recording's string; NULL if the file cannot be read as ELF */
	struct func *funcs;
	size_t nfuncs;
	struct segment seg[16];
	size_t nseg;
	char build_id[129]; /* the NT_GNU_BUILD_ID note in hexadecimal, or "" */
};

struct ipcc_symbols {
	const struct ipcc_recording *prof;
	struct object *obj; /* per mapping; only a file's first mapping's is filled */
	size_t *first;	    /* per mapping: the index of the first mapping of the same file */
};

/* By address, then the one perf would name last: the best of several at one address. */
static int by_start(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Whether x names an address better than y (perf's choose_best_symbol()): a sized symbol, a
 * non-weak one, a global one, fewer leading underscores, a longer name.
 */
static bool better(const struct func *x, const struct func *y)
{
	size_t ux = underscores(x->name), uy = underscores(y->name);

	if (!x->size != !y->size)
		return x->size != 0;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return y->bind == STB_WEAK;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL;
	if (ux != uy)
		return ux < uy;
	return strlen(x->name) > strlen(y->name);
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
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || !(f[o->nfuncs].name = strdup(name)))
			continue;
		f[o->nfuncs].start = sym.st_value;
		f[o->nfuncs].size = sym.st_size;
		f[o->nfuncs].demangled = NULL;
		f[o->nfuncs].bind = (unsigned char)GELF_ST_BIND(sym.st_info);
		o->nfuncs++;
	}
}

/* Read the symbol tables of type `type` of elf into o; whether it has one. */
static bool read_symtabs(Elf *elf, Elf64_Word type, struct object *o)
{
	Elf_Scn *scn = NULL;
	bool found = false;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == type) {
			read_symtab(elf, scn, &sh, o);
			found = true;
		}
	}
	return found;
}

/* Sort, keep the best name of each address, and end each size-0 function at the next. */
static void tidy_funcs(struct object *o)
{
	size_t n = 0;

	qsort(o->funcs, o->nfuncs, sizeof(*o->funcs), by_start);
	for (size_t i = 0; i < o->nfuncs; i++) {
		struct func *f = &o->funcs[i];

		if (n && o->funcs[n - 1].start == f->start) {
			struct func *kept = &o->funcs[n - 1];

			if (better(f, kept)) {
				free(kept->name);
				*kept = *f;
			} else {
				free(f->name);
			}
		} else {
			o->funcs[n++] = *f;
		}
	}
	o->nfuncs = n;
	for (size_t i = 0; i < n; i++) {
		struct func *f = &o->funcs[i];

		if (f->size)
			continue;
		if (i + 1 < n) {
			f->size = o->funcs[i + 1].start - f->start;
			continue;
		}
		for (size_t k = 0; k < o->nseg; k++)
			if (f->start >= o->seg[k].vaddr &&
			    f->start - o->seg[k].vaddr < o->seg[k].filesz)
				f->size = o->seg[k].vaddr + o->seg[k].filesz - f->start;
	}
}

void symbols_read_ids(Elf *elf, struct elf_ids *id)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(id, 0, sizeof(*id));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t off = 0, name_off, desc_off;

			while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
				    nh.n_descsz <= sizeof(id->build_id)) {
					memcpy(id->build_id, (const char *)data->d_buf + desc_off,
					       nh.n_descsz);
					id->build_id_len = nh.n_descsz;
				}
		} else if (name && !strcmp(name, ".gnu_debuglink")) {
			/* The file name, NUL, padding to 4 bytes, then its CRC-32. */
			size_t len = strnlen(data->d_buf, data->d_size);
			size_t crc_off = (len + 4) & ~(size_t)3;

			if (len < sizeof(id->debuglink) && crc_off + 4 <= data->d_size) {
				memcpy(id->debuglink, data->d_buf, len);
				id->debuglink[len] = '\0';
				memcpy(&id->crc, (const char *)data->d_buf + crc_off, 4);
			}
		}
	}
}

/* The CRC-32 of the whole file at fd (the one .gnu_debuglink records), or ~crc on failure. */
static uint32_t file_crc(int fd, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t got;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return ~want;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)got);
	return got < 0 ? ~want : (uint32_t)crc;
}

/*
 * Open the file at path, if it is the debug file of the file with ids `id` (the same build
 * ID, or without one the CRC .gnu_debuglink gives) and want() takes it: its Elf, *fd its
 * descriptor. NULL if not.
 */
static Elf *open_debug_file(const char *path, const struct elf_ids *id,
			    bool (*want)(Elf *elf, void *arg), void *arg, int *fd)
{
	Elf *elf;
	bool ok = false;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		struct elf_ids dbg;

		symbols_read_ids(elf, &dbg);
		if (id->build_id_len)
			ok = dbg.build_id_len == id->build_id_len &&
			     !memcmp(dbg.build_id, id->build_id, id->build_id_len);
		else
			ok = file_crc(*fd, id->crc) == id->crc;
		ok = ok && want(elf, arg);
	}
	if (ok)
		return elf;
	elf_end(elf);
	close(*fd);
	*fd = -1;
	return NULL;
}

Elf *symbols_debug_file(const char *path, const struct elf_ids *id,
			bool (*want)(Elf *elf, void *arg), void *arg, int *fd)
{
	const char *root = getenv("IPCC_DEBUG_ROOT");
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0;
	char try[4096];
	Elf *elf;

	*fd = -1;
	if (!root || !*root)
		root = DEBUG_ROOT;
	if (id->build_id_len >= 2) {
		int n = snprintf(try, sizeof(try), "%s/.build-id/%02x/", root, id->build_id[0]);

		for (size_t i = 1; i < id->build_id_len && n > 0 && (size_t)n < sizeof(try); i++)
			n += snprintf(try + n, sizeof(try) - (size_t)n, "%02x", id->build_id[i]);
		if (n > 0 && (size_t)n < sizeof(try) &&
		    (size_t)snprintf(try + n, sizeof(try) - (size_t)n, ".debug") <
			sizeof(try) - (size_t)n &&
		    (elf = open_debug_file(try, id, want, arg, fd)))
			return elf;
	}
	if (!id->debuglink[0] || !slash)
		return NULL;
	if ((size_t)snprintf(try, sizeof(try), "%.*s/%s", dirlen, path, id->debuglink) <
		sizeof(try) &&
	    strcmp(try, path) != 0 && (elf = open_debug_file(try, id, want, arg, fd)))
		return elf;
	if ((size_t)snprintf(try, sizeof(try), "%.*s/.debug/%s", dirlen, path, id->debuglink) <
		sizeof(try) &&
	    (elf = open_debug_file(try, id, want, arg, fd)))
		return elf;
	if ((size_t)snprintf(try, sizeof(try), "%s%.*s/%s", root, dirlen, path, id->debuglink) <
	    sizeof(try))
		return open_debug_file(try, id, want, arg, fd);
	return NULL;
}

/* symbols_debug_file()'s want: read the debug file's function symbols, if it has a .symtab. */
static bool want_symtab(Elf *elf, void *o)
{
	return read_symtabs(elf, SHT_SYMTAB, o);
}

/* Find the separate debug file of the file at path (with ids id) and read its symbols. */
static bool load_debug_symbols(struct object *o, const char *path, const struct elf_ids *id)
{
	int fd;
	Elf *elf = symbols_debug_file(path, id, want_symtab, o, &fd);

	if (!elf)
		return false;
	elf_end(elf);
	close(fd);
	return true;
}

static void load_object(struct object *o, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	size_t nph = 0;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		struct elf_ids id;

		o->path = path;
		if (elf_getphdrnum(elf, &nph) == 0)
			for (size_t i = 0; i < nph && o->nseg < 16; i++) {
				GElf_Phdr ph;

				if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
					o->seg[o->nseg++] =
					    (struct segment){ ph.p_offset, ph.p_vaddr,
							      ph.p_filesz };
			}
		symbols_read_ids(elf, &id);
		for (size_t i = 0; i < id.build_id_len; i++)
			snprintf(o->build_id + 2 * i, 3, "%02x", id.build_id[i]);
		/* A stripped file: its debug file's symbols, else its dynamic ones. */
		if (!read_symtabs(elf, SHT_SYMTAB, o) && !load_debug_symbols(o, path, &id))
			read_symtabs(elf, SHT_DYNSYM, o);
		tidy_funcs(o);
	}
	elf_end(elf);
	close(fd);
}

int ipcc_symbols_new(const struct ipcc_recording *p, struct ipcc_symbols **out)
{
	struct ipcc_symbols *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->obj = calloc(p->nmmaps + 1, sizeof(*s->obj))) ||
	    !(s->first = calloc(p->nmmaps + 1, sizeof(*s->first)))) {
		if (s)
			free(s->obj);
		free(s);
		return err_set(IPCC_ENOMEM, "symbols");
	}
	s->prof = p;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(s->first);
		free(s->obj);
		free(s);
		return err_set(IPCC_ENOTSUP, "libelf: %s", elf_errmsg(-1));
	}
	for (size_t i = 0; i < p->nmmaps; i++) {
		/* A file mapped several times (one per segment, or per process) is read once. */
		size_t j;

		for (j = 0; j < i; j++)
			if (s->first[j] == j && !strcmp(p->mmaps[j].filename, p->mmaps[i].filename))
				break;
		s->first[i] = j;
		if (j == i)
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
		for (size_t k = 0; k < s->obj[i].nfuncs; k++) {
			if (s->obj[i].funcs[k].demangled != s->obj[i].funcs[k].name)
				free(s->obj[i].funcs[k].demangled);
			free(s->obj[i].funcs[k].name);
		}
		free(s->obj[i].funcs);
	}
	free(s->first);
	free(s->obj);
	free(s);
}

/* The C++ (or Rust) name a mangled one stands for, or the name itself. */
static const char *demangled(struct func *f)
{
	if (!f->demangled) {
		f->demangled = cplus_demangle(f->name, DMGL_PARAMS | DMGL_ANSI);
		if (!f->demangled)
			f->demangled = f->name;
	}
	return f->demangled;
}

void ipcc_symbols_resolve(struct ipcc_symbols *s, const struct ipcc_sample *smp,
			  struct ipcc_symbol *out)
{
	const struct ipcc_recording *p = s->prof;
	size_t best = p->nmmaps;

	memset(out, 0, sizeof(*out));
	/* The latest mapping of this process (or, failing that, any) that holds the IP. */
	for (size_t i = 0; i < p->nmmaps; i++) {
		const struct ipcc_recording_mmap *m = &p->mmaps[i];

		if (smp->ip >= m->addr && smp->ip - m->addr < m->len &&
		    (best == p->nmmaps || m->pid == smp->pid))
			best = i;
	}
	if (best == p->nmmaps)
		return;
	/* One string per file, whichever mapping the sample is in. */
	out->file = p->mmaps[s->first[best]].filename;
	out->mmap = &p->mmaps[best];
	{
		struct object *o = &s->obj[s->first[best]];
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
			out->demangled = demangled(&o->funcs[lo - 1]);
			out->func_start = o->funcs[lo - 1].start;
			out->func_size = o->funcs[lo - 1].size;
		}
	}
}

const char *ipcc_symbols_build_id(struct ipcc_symbols *s, const char *file)
{
	for (size_t i = 0; i < s->prof->nmmaps; i++)
		if (!strcmp(s->prof->mmaps[i].filename, file))
			return s->obj[s->first[i]].build_id[0] ? s->obj[s->first[i]].build_id
							       : NULL;
	return NULL;
}

int ipcc_symbols_find(struct ipcc_symbols *s, const char *file, const char *name, uint64_t *start,
		      uint64_t *size)
{
	for (size_t i = 0; i < s->prof->nmmaps; i++) {
		struct object *o = &s->obj[s->first[i]];

		if (strcmp(s->prof->mmaps[i].filename, file) != 0)
			continue;
		for (size_t k = 0; k < o->nfuncs; k++)
			if (!strcmp(o->funcs[k].name, name) ||
			    !strcmp(demangled(&o->funcs[k]), name)) {
				*start = o->funcs[k].start;
				*size = o->funcs[k].size;
				return 0;
			}
		if (!o->path)
			return err_set(IPCC_EINVAL, "%s: not an ELF file", file);
		break;
	}
	return err_set(IPCC_EINVAL, "%s: no function '%s'", file, name);
}

int ipcc_symbols_read(struct ipcc_symbols *s, const char *file, uint64_t elf_addr, void *buf,
		      size_t *len)
{
	for (size_t i = 0; i < s->prof->nmmaps; i++) {
		const struct object *o = &s->obj[s->first[i]];
		FILE *f;

		if (strcmp(s->prof->mmaps[i].filename, file) != 0)
			continue;
		for (size_t k = 0; k < o->nseg; k++) {
			const struct segment *g = &o->seg[k];
			size_t got;

			if (elf_addr < g->vaddr || elf_addr - g->vaddr >= g->filesz)
				continue;
			/* A range (a 64-byte line) that runs past the segment's end is cut there. */
			if (elf_addr - g->vaddr + *len > g->filesz)
				*len = (size_t)(g->filesz - (elf_addr - g->vaddr));
			f = fopen(file, "rb");
			if (!f)
				return err_sys("cannot open %s", file);
			got = fseek(f, (long)(elf_addr - g->vaddr + g->offset), SEEK_SET) == 0
				  ? fread(buf, 1, *len, f)
				  : 0;
			fclose(f);
			return got == *len ? 0 : err_set(IPCC_ESYS, "cannot read %s", file);
		}
		break;
	}
	return err_set(IPCC_EINVAL, "no code of %s at %#llx", file, (unsigned long long)elf_addr);
}
