/*
 * test_symbols.c - samples to functions (src/symbols.c) on small ELF files this test writes
 * with libelf: local, IFUNC and size-0 functions; aliases named as perf names them; a
 * segment whose addresses are not its file offsets; a stripped file's symbols from its
 * separate debug file, found by build ID under $IPCC_DEBUG_ROOT or by .gnu_debuglink beside
 * it, in its .debug/ folder or under the root, and not from a debug file of another build;
 * demangled names; one file string for every mapping of a file.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ipcc/recording.h"
#include "test.h"

/* Every file's one PT_LOAD: file offset 0x1000 at address 0x201000 (p_vaddr != p_offset). */
#define SEG_OFFSET 0x1000u
#define SEG_VADDR  0x201000u
#define SEG_SIZE   0x1000u
#define MAP_ADDR   0x7f0000001000ull /* where the recording maps it */

struct fake_sym {
	const char *name;
	uint64_t offset, size; /* offset into the segment */
	unsigned char type, bind;
};

struct fake_elf {
	const unsigned char *build_id; /* NULL: no NT_GNU_BUILD_ID note */
	size_t build_id_len;
	const char *debuglink; /* NULL: no .gnu_debuglink */
	uint32_t crc;
	Elf64_Word symtab; /* SHT_SYMTAB, SHT_DYNSYM, or 0: none */
	const struct fake_sym *syms;
	size_t nsyms;
};

static const unsigned char build_id[20] = { 0xab, 0xcd, 1,  2,	3,  4,	5,  6,	7,  8,
					    9,	  10,	11, 12, 13, 14, 15, 16, 17, 18 };
static const unsigned char other_build_id[20] = { 0xab, 0xcd, 0xff };

static Elf_Scn *add_section(Elf *e, const char *name, size_t *shstr_len, char *shstr,
			    Elf64_Word type, void *buf, size_t size, Elf_Type dtype)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = elf_newdata(scn);
	Elf64_Shdr *sh = elf64_getshdr(scn);

	d->d_buf = buf;
	d->d_size = size;
	d->d_type = dtype;
	d->d_align = dtype == ELF_T_SYM ? 8 : 4;
	d->d_version = EV_CURRENT;
	sh->sh_name = (Elf64_Word)*shstr_len;
	sh->sh_type = type;
	strcpy(shstr + *shstr_len, name);
	*shstr_len += strlen(name) + 1;
	return scn;
}

/* Write f as a 64-bit ELF shared object at path; 0 on success. */
static int write_elf(const char *path, const struct fake_elf *f)
{
	static unsigned char text[SEG_SIZE];
	unsigned char note[64], link[128];
	char shstr[256] = "", strtab[1024] = "";
	size_t shstr_len = 1, strtab_len = 1;
	Elf64_Sym syms[32] = { { 0 } };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	Elf *e;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf_Scn *text_scn, *sym_scn, *str_scn, *shstr_scn;
	int ok;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_WRITE, NULL)))
		return -1;
	eh = elf64_newehdr(e);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	ph = elf64_newphdr(e, 1);
	memset(text, 0x90, sizeof(text));
	text_scn = add_section(e, ".text", &shstr_len, shstr, SHT_PROGBITS, text, sizeof(text),
			       ELF_T_BYTE);
	elf64_getshdr(text_scn)->sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	elf64_getshdr(text_scn)->sh_addr = SEG_VADDR;
	if (f->build_id) {
		Elf64_Nhdr nh = { 4, (Elf64_Word)f->build_id_len, NT_GNU_BUILD_ID };

		memcpy(note, &nh, sizeof(nh));
		memcpy(note + sizeof(nh), "GNU", 4);
		memcpy(note + sizeof(nh) + 4, f->build_id, f->build_id_len);
		add_section(e, ".note.gnu.build-id", &shstr_len, shstr, SHT_NOTE, note,
			    sizeof(nh) + 4 + ((f->build_id_len + 3) & ~3u), ELF_T_BYTE);
	}
	if (f->debuglink) {
		size_t len = strlen(f->debuglink), crc_off = (len + 4) & ~(size_t)3;

		memset(link, 0, sizeof(link));
		memcpy(link, f->debuglink, len);
		memcpy(link + crc_off, &f->crc, 4);
		add_section(e, ".gnu_debuglink", &shstr_len, shstr, SHT_PROGBITS, link, crc_off + 4,
			    ELF_T_BYTE);
	}
	if (f->symtab) {
		for (size_t i = 0; i < f->nsyms; i++) {
			const struct fake_sym *s = &f->syms[i];

			syms[i + 1] = (Elf64_Sym){ .st_name = (Elf64_Word)strtab_len,
						   .st_info = ELF64_ST_INFO(s->bind, s->type),
						   .st_shndx = (Elf64_Section)elf_ndxscn(text_scn),
						   .st_value = SEG_VADDR + s->offset,
						   .st_size = s->size };
			strcpy(strtab + strtab_len, s->name);
			strtab_len += strlen(s->name) + 1;
		}
		sym_scn = add_section(e, f->symtab == SHT_SYMTAB ? ".symtab" : ".dynsym",
				      &shstr_len, shstr, f->symtab, syms,
				      (f->nsyms + 1) * sizeof(Elf64_Sym), ELF_T_SYM);
		str_scn =
		    add_section(e, f->symtab == SHT_SYMTAB ? ".strtab" : ".dynstr", &shstr_len,
				shstr, SHT_STRTAB, strtab, strtab_len, ELF_T_BYTE);
		elf64_getshdr(sym_scn)->sh_link = (Elf64_Word)elf_ndxscn(str_scn);
		elf64_getshdr(sym_scn)->sh_entsize = sizeof(Elf64_Sym);
	}
	shstr_scn =
	    add_section(e, ".shstrtab", &shstr_len, shstr, SHT_STRTAB, shstr, 0, ELF_T_BYTE);
	elf_getdata(shstr_scn, NULL)->d_size = shstr_len;
	eh->e_shstrndx = (Elf64_Half)elf_ndxscn(shstr_scn);
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD,
			    .p_flags = PF_R | PF_X,
			    .p_offset = SEG_OFFSET,
			    .p_vaddr = SEG_VADDR,
			    .p_paddr = SEG_VADDR,
			    .p_filesz = SEG_SIZE,
			    .p_memsz = SEG_SIZE,
			    .p_align = 0x1000 };
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
	ok = elf_update(e, ELF_C_WRITE) >= 0;
	elf_end(e);
	close(fd);
	return ok ? 0 : -1;
}

/* The CRC-32 .gnu_debuglink records for the file at path. */
static uint32_t crc_of(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char buf[4096];
	uLong crc = crc32(0L, Z_NULL, 0);
	size_t got;

	while (f && (got = fread(buf, 1, sizeof(buf), f)) > 0)
		crc = crc32(crc, buf, (uInt)got);
	if (f)
		fclose(f);
	return (uint32_t)crc;
}

/*
 * A recording of `file` mapped at MAP_ADDR (twice: by two processes) with one sample at each
 * of the segment offsets `at`; resolve each into out[].
 */
static void resolve(const char *file, const uint64_t *at, size_t n, struct ipcc_symbol *out,
		    struct ipcc_recording **pp, struct ipcc_symbols **sp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ipcc_sample_mmap m = { .addr = MAP_ADDR,
				      .len = SEG_SIZE,
				      .pgoff = SEG_OFFSET,
				      .pid = 7,
				      .tid = 7,
				      .filename = file };

	ipcc_recording_write_header(f);
	ipcc_recording_write_mmap(f, &m);
	m.pid = m.tid = 8;
	ipcc_recording_write_mmap(f, &m);
	for (size_t i = 0; i < n; i++) {
		struct ipcc_sample s = { MAP_ADDR + at[i], i, 7 + (uint32_t)(i & 1), 7, 0, true };

		ipcc_recording_write_sample(f, &s);
	}
	fclose(f);
	*pp = NULL;
	*sp = NULL;
	CHECK_EQ(int, ipcc_recording_parse(buf, len, pp), 0);
	free(buf);
	if (!*pp)
		return;
	CHECK_EQ(int, ipcc_symbols_new(*pp, sp), 0);
	for (size_t i = 0; *sp && i < n; i++)
		ipcc_symbols_resolve(*sp, &(*pp)->samples[i], &out[i]);
}

static void release(struct ipcc_recording *p, struct ipcc_symbols *s)
{
	ipcc_symbols_free(s);
	ipcc_recording_free(p);
}

static const char *name_of(const struct ipcc_symbol *y)
{
	return y->function ? y->function : "(none)";
}

TEST(local_ifunc_and_sizeless_functions_are_found)
{
	static const struct fake_sym syms[] = {
		{ "global_f", 0x10, 0x10, STT_FUNC, STB_GLOBAL },
		{ "local_f", 0x20, 0x10, STT_FUNC, STB_LOCAL },
		{ "ifunc_f", 0x30, 0x10, STT_GNU_IFUNC, STB_GLOBAL },
		{ "sizeless_f", 0x40, 0, STT_FUNC, STB_LOCAL },
		{ "next_f", 0x60, 0x10, STT_FUNC, STB_GLOBAL },
		{ "data", 0x70, 0x10, STT_OBJECT, STB_GLOBAL },
		{ "last_sizeless", 0x800, 0, STT_FUNC, STB_LOCAL },
	};
	struct fake_elf f = { .symtab = SHT_SYMTAB, .syms = syms, .nsyms = 7 };
	static const uint64_t at[] = { 0x15, 0x25, 0x35, 0x5f, 0x65, 0x75, 0xfff };
	struct ipcc_symbol y[7];
	struct ipcc_recording *p;
	struct ipcc_symbols *s;

	if (!test_tmpdir_make("symbols"))
		SKIP("cannot make a folder under /tmp");
	CHECK_EQ(int, write_elf(test_tmp_path("lib.so"), &f), 0);
	resolve(test_tmp_path("lib.so"), at, 7, y, &p, &s);
	CHECK_STR(name_of(&y[0]), "global_f");
	CHECK_STR(name_of(&y[1]), "local_f");
	CHECK_STR(name_of(&y[2]), "ifunc_f");
	/* Size 0: up to the next function; the last one to the end of its segment. */
	CHECK_STR(name_of(&y[3]), "sizeless_f");
	CHECK_EQ(u64, y[3].func_size, 0x20);
	CHECK_STR(name_of(&y[4]), "next_f");
	CHECK_STR(name_of(&y[6]), "last_sizeless");
	/* No function: the file and the address in the file's own addresses, not its offset. */
	CHECK(y[5].function == NULL && y[5].file != NULL);
	CHECK_EQ(u64, y[5].elf_addr, SEG_VADDR + 0x75);
	CHECK_EQ(u64, y[1].func_start, SEG_VADDR + 0x20);
	/* Both processes' mappings of the file give the same string. */
	CHECK(y[0].file == y[1].file);
	release(p, s);
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(aliases_are_named_as_perf_names_them)
{
	static const struct fake_sym syms[] = {
		{ "__memcpy_avx_unaligned", 0x100, 0x40, STT_FUNC, STB_LOCAL },
		{ "__memmove_avx_unaligned", 0x100, 0x40, STT_FUNC, STB_LOCAL },
		{ "weak_name", 0x200, 0x40, STT_FUNC, STB_WEAK },
		{ "strong_name", 0x200, 0x40, STT_FUNC, STB_GLOBAL },
		{ "sized", 0x300, 0x40, STT_FUNC, STB_LOCAL },
		{ "unsized", 0x300, 0, STT_FUNC, STB_GLOBAL },
	};
	struct fake_elf f = { .symtab = SHT_SYMTAB, .syms = syms, .nsyms = 6 };
	static const uint64_t at[] = { 0x110, 0x210, 0x310 };
	struct ipcc_symbol y[3];
	struct ipcc_recording *p;
	struct ipcc_symbols *s;

	if (!test_tmpdir_make("symbols"))
		SKIP("cannot make a folder under /tmp");
	CHECK_EQ(int, write_elf(test_tmp_path("lib.so"), &f), 0);
	resolve(test_tmp_path("lib.so"), at, 3, y, &p, &s);
	CHECK_STR(name_of(&y[0]), "__memmove_avx_unaligned");
	CHECK_STR(name_of(&y[1]), "strong_name");
	CHECK_STR(name_of(&y[2]), "sized");
	release(p, s);
	test_tmpdir_remove();
	return TEST_OK;
}

/* The symbols of a stripped library and of its debug file. */
static const struct fake_sym exported[] = {
	{ "exported", 0x10, 0x10, STT_FUNC, STB_GLOBAL },
};
static const struct fake_sym all_syms[] = {
	{ "exported", 0x10, 0x10, STT_FUNC, STB_GLOBAL },
	{ "hidden_local", 0x20, 0x10, STT_FUNC, STB_LOCAL },
};
static const uint64_t in_hidden[] = { 0x15, 0x25 };

/* Resolve in_hidden in `lib` with IPCC_DEBUG_ROOT=root; the name the second sample gets. */
static const char *hidden_name(const char *lib, const char *root, char *buf, size_t len)
{
	struct ipcc_symbol y[2];
	struct ipcc_recording *p;
	struct ipcc_symbols *s;

	setenv("IPCC_DEBUG_ROOT", root, 1);
	resolve(lib, in_hidden, 2, y, &p, &s);
	snprintf(buf, len, "%s", s ? name_of(&y[1]) : "(error)");
	CHECK(!s || (y[0].function && !strcmp(y[0].function, "exported")));
	release(p, s);
	unsetenv("IPCC_DEBUG_ROOT");
	return buf;
}

TEST(stripped_file_uses_its_debug_file_by_build_id)
{
	struct fake_elf lib = { .build_id = build_id,
				.build_id_len = sizeof(build_id),
				.symtab = SHT_DYNSYM,
				.syms = exported,
				.nsyms = 1 };
	struct fake_elf dbg = { .build_id = build_id,
				.build_id_len = sizeof(build_id),
				.symtab = SHT_SYMTAB,
				.syms = all_syms,
				.nsyms = 2 };
	char name[64];

	if (!test_tmpdir_make("symbols"))
		SKIP("cannot make a folder under /tmp");
	CHECK_EQ(int, write_elf(test_tmp_path("lib.so"), &lib), 0);
	/* No debug file: the dynamic symbols only. */
	CHECK_STR(hidden_name(test_tmp_path("lib.so"), test_tmpdir, name, sizeof(name)), "(none)");
	mkdir(test_tmp_path(".build-id"), 0755);
	mkdir(test_tmp_path(".build-id/ab"), 0755);
	CHECK_EQ(
	    int,
	    write_elf(test_tmp_path(".build-id/ab/cd0102030405060708090a0b0c0d0e0f101112.debug"),
		      &dbg),
	    0);
	CHECK_STR(hidden_name(test_tmp_path("lib.so"), test_tmpdir, name, sizeof(name)),
		  "hidden_local");
	/* A debug file of another build at that path is not used. */
	dbg.build_id = other_build_id;
	CHECK_EQ(
	    int,
	    write_elf(test_tmp_path(".build-id/ab/cd0102030405060708090a0b0c0d0e0f101112.debug"),
		      &dbg),
	    0);
	CHECK_STR(hidden_name(test_tmp_path("lib.so"), test_tmpdir, name, sizeof(name)), "(none)");
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(stripped_file_uses_its_debug_file_by_debuglink)
{
	struct fake_elf dbg = { .symtab = SHT_SYMTAB, .syms = all_syms, .nsyms = 2 };
	struct fake_elf lib = {
		.debuglink = "lib.debug", .symtab = SHT_DYNSYM, .syms = exported, .nsyms = 1
	};
	char name[64], dir[600], rooted[700];

	if (!test_tmpdir_make("symbols"))
		SKIP("cannot make a folder under /tmp");
	mkdir(test_tmp_path("lib"), 0755);
	mkdir(test_tmp_path("lib/.debug"), 0755);
	mkdir(test_tmp_path("root"), 0755);
	CHECK_EQ(int, write_elf(test_tmp_path("lib.debug"), &dbg), 0);
	lib.crc = crc_of(test_tmp_path("lib.debug"));
	CHECK_EQ(int, write_elf(test_tmp_path("lib/lib.so"), &lib), 0);
	/* Beside the file, in its .debug/ folder, under the root followed by its folder. */
	CHECK_EQ(int, rename(test_tmp_path("lib.debug"), test_tmp_path("lib/lib.debug")), 0);
	CHECK_STR(
	    hidden_name(test_tmp_path("lib/lib.so"), test_tmp_path("root"), name, sizeof(name)),
	    "hidden_local");
	CHECK_EQ(int, rename(test_tmp_path("lib/lib.debug"), test_tmp_path("lib/.debug/lib.debug")),
		 0);
	CHECK_STR(
	    hidden_name(test_tmp_path("lib/lib.so"), test_tmp_path("root"), name, sizeof(name)),
	    "hidden_local");
	snprintf(dir, sizeof(dir), "%s/root%s", test_tmpdir, test_tmpdir);
	for (char *c = dir + strlen(test_tmpdir) + 6; (c = strchr(c, '/')); c++) {
		*c = '\0';
		mkdir(dir, 0755);
		*c = '/';
	}
	mkdir(dir, 0755);
	strcat(dir, "/lib");
	mkdir(dir, 0755);
	snprintf(rooted, sizeof(rooted), "%s/lib.debug", dir);
	CHECK_EQ(int, rename(test_tmp_path("lib/.debug/lib.debug"), rooted), 0);
	CHECK_STR(
	    hidden_name(test_tmp_path("lib/lib.so"), test_tmp_path("root"), name, sizeof(name)),
	    "hidden_local");
	/* A debug file whose CRC is not the link's is not used. */
	lib.crc ^= 1;
	CHECK_EQ(int, write_elf(test_tmp_path("lib/lib.so"), &lib), 0);
	CHECK_STR(
	    hidden_name(test_tmp_path("lib/lib.so"), test_tmp_path("root"), name, sizeof(name)),
	    "(none)");
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(mangled_names_are_demangled)
{
	static const struct fake_sym syms[] = {
		{ "_ZN2ns1fEi", 0x10, 0x10, STT_FUNC, STB_GLOBAL },
		{ "plain_c", 0x20, 0x10, STT_FUNC, STB_GLOBAL },
	};
	struct fake_elf f = { .symtab = SHT_SYMTAB, .syms = syms, .nsyms = 2 };
	static const uint64_t at[] = { 0x15, 0x25, 0x16 };
	struct ipcc_symbol y[3];
	struct ipcc_recording *p;
	struct ipcc_symbols *s;

	if (!test_tmpdir_make("symbols"))
		SKIP("cannot make a folder under /tmp");
	CHECK_EQ(int, write_elf(test_tmp_path("lib.so"), &f), 0);
	resolve(test_tmp_path("lib.so"), at, 3, y, &p, &s);
	CHECK_STR(name_of(&y[0]), "_ZN2ns1fEi");
	CHECK(y[0].demangled && !strcmp(y[0].demangled, "ns::f(int)"));
	CHECK(y[1].demangled == y[1].function);
	/* One string per function, however many samples. */
	CHECK(y[2].function == y[0].function && y[2].demangled == y[0].demangled);
	release(p, s);
	test_tmpdir_remove();
	return TEST_OK;
}
