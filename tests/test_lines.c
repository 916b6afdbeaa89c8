/*
 * test_lines.c - code addresses to source lines (src/lines.c) in a small C program this test
 * compiles with `cc -g -O0`: a function's addresses name its line; a file stripped of its
 * DWARF, or not ELF, finds nothing without failing; a stripped file finds its lines in its
 * separate debug file by build ID under $IPCC_DEBUG_ROOT or by .gnu_debuglink, and not in
 * one of another build; no descriptor stays open; a missing file is IPCC_ESYS.
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcc/error.h"
#include "ipcc/lines.h"
#include "recording/symbols_int.h"
#include "test.h"

/* The program: triad() is all on line 3, main() starts on line 5. */
static const char prog_c[] = "/* prog.c - the program test_lines compiles */\n"
			     "\n"
			     "int triad(int x) { return 3 * x; }\n"
			     "\n"
			     "int main(void)\n"
			     "{\n"
			     "\treturn triad(1) - 3;\n"
			     "}\n";

/* Run the shell command fmt (with "%s" for the folder, any number of times); whether it did. */
static bool run(const char *fmt)
{
	char cmd[4096], *o = cmd;

	for (const char *p = fmt; *p && o < cmd + sizeof(cmd) - sizeof(test_tmpdir) - 1; p++)
		if (p[0] == '%' && p[1] == 's') {
			o += snprintf(o, sizeof(test_tmpdir), "%s", test_tmpdir);
			p++;
		} else {
			*o++ = *p;
		}
	*o = '\0';
	return system(cmd) == 0;
}

/*
 * A folder with prog.c built into prog (with DWARF and a build ID) and noid (the same without
 * a build ID); false if they cannot be.
 */
static bool build_prog(void)
{
	FILE *f;

	if (!test_tmpdir_make("lines"))
		return false;
	f = fopen(test_tmp_path("prog.c"), "w");
	if (!f)
		return false;
	fputs(prog_c, f);
	fclose(f);
	if (run("cc -g -O0 -Wl,--build-id -o '%s/prog' '%s/prog.c' 2>/dev/null && "
		"cc -g -O0 -Wl,--build-id=none -o '%s/noid' '%s/prog.c'"))
		return true;
	test_tmpdir_remove();
	return false;
}

/* The address and size of function `name` in the .symtab of the ELF file at path. */
static bool func_addr(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && !found; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (n = elf_strptr(e, sh.sh_link, sym.st_name)) && !strcmp(n, name) &&
			    GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
				*addr = sym.st_value;
				*size = sym.st_size;
				found = true;
			}
		}
	}
	elf_end(e);
	close(fd);
	return found;
}

/* The build ID of the ELF file at path, as the .build-id path "xx/rest.debug". */
static bool build_id_path(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	struct elf_ids id = { .build_id_len = 0 };
	int n;

	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e)
		symbols_read_ids(e, &id);
	elf_end(e);
	close(fd);
	if (id.build_id_len < 2)
		return false;
	n = snprintf(buf, len, "%02x/", id.build_id[0]);
	for (size_t i = 1; i < id.build_id_len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%02x", id.build_id[i]);
	snprintf(buf + n, len - (size_t)n, ".debug");
	return true;
}

/* The number of open descriptors. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The line of address `addr` in the file at path ("" if none), and whether it has tables. */
static bool line_of(const char *path, uint64_t addr, char *buf, size_t len)
{
	struct ipcc_lines *l;
	bool present;

	buf[0] = 'x';
	CHECK_EQ(int, ipcc_lines_open(path, &l), 0);
	if (!l)
		return false;
	present = ipcc_lines_present(l);
	CHECK_EQ(int, ipcc_lines_find(l, addr, buf, len), buf[0] != '\0');
	ipcc_lines_close(l);
	return present;
}

TEST(function_addresses_name_their_source_line)
{
	struct ipcc_lines *l;
	uint64_t triad, triad_size, main_addr, main_size;
	char buf[64];
	bool same = true;

	if (!build_prog())
		SKIP("no C compiler (cc) to build the program with");
	CHECK(func_addr(test_tmp_path("prog"), "triad", &triad, &triad_size));
	CHECK(func_addr(test_tmp_path("prog"), "main", &main_addr, &main_size));
	CHECK_EQ(int, ipcc_lines_open(test_tmp_path("prog"), &l), 0);
	CHECK(l && ipcc_lines_present(l));
	if (!l) {
		test_tmpdir_remove();
		return TEST_OK;
	}
	CHECK(ipcc_lines_find(l, triad, buf, sizeof(buf)));
	CHECK_STR(buf, "prog.c:3");
	/* Every byte of triad() is line 3, whichever order the lookups come in. */
	for (uint64_t a = triad + triad_size; a-- > triad;)
		if (!ipcc_lines_find(l, a, buf, sizeof(buf)) || strcmp(buf, "prog.c:3") != 0)
			same = false;
	CHECK(same);
	/* main() begins at its name's line or its brace's, as compilers differ. */
	CHECK(ipcc_lines_find(l, main_addr, buf, sizeof(buf)));
	CHECK(!strcmp(buf, "prog.c:5") || !strcmp(buf, "prog.c:6"));
	CHECK(ipcc_lines_find(l, main_addr + main_size - 1, buf, sizeof(buf)));
	CHECK(!strcmp(buf, "prog.c:7") || !strcmp(buf, "prog.c:8"));
	/* Outside the program's code: no line. */
	buf[0] = 'x';
	CHECK(!ipcc_lines_find(l, 0, buf, sizeof(buf)));
	CHECK_STR(buf, "");
	buf[0] = 'x';
	CHECK(!ipcc_lines_find(l, UINT64_MAX, buf, sizeof(buf)));
	CHECK_STR(buf, "");
	/* A short buffer holds what fits. */
	CHECK(ipcc_lines_find(l, triad, buf, 5));
	CHECK_STR(buf, "prog");
	ipcc_lines_close(l);
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(file_without_dwarf_finds_nothing)
{
	uint64_t triad, size;
	char buf[64];

	if (!build_prog())
		SKIP("no C compiler (cc) to build the program with");
	CHECK(func_addr(test_tmp_path("prog"), "triad", &triad, &size));
	if (!run("strip -g -o '%s/nodebug' '%s/prog'")) {
		test_tmpdir_remove();
		SKIP("no strip (binutils)");
	}
	setenv("IPCC_DEBUG_ROOT", test_tmp_path("none"), 1);
	CHECK(!line_of(test_tmp_path("nodebug"), triad, buf, sizeof(buf)));
	CHECK_STR(buf, "");
	/* Not ELF at all: the same. */
	CHECK(!line_of(test_tmp_path("prog.c"), triad, buf, sizeof(buf)));
	CHECK_STR(buf, "");
	unsetenv("IPCC_DEBUG_ROOT");
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(stripped_file_finds_lines_in_its_debug_file_by_build_id)
{
	uint64_t triad, size;
	char id[160], buf[256];

	if (!build_prog())
		SKIP("no C compiler (cc) to build the program with");
	CHECK(func_addr(test_tmp_path("prog"), "triad", &triad, &size));
	CHECK(build_id_path(test_tmp_path("prog"), id, sizeof(id)));
	if (!run("objcopy --only-keep-debug '%s/prog' '%s/prog.debug' && "
		 "strip -g -o '%s/stripped' '%s/prog' && mkdir -p '%s/root/.build-id'")) {
		test_tmpdir_remove();
		SKIP("no objcopy or strip (binutils)");
	}
	setenv("IPCC_DEBUG_ROOT", test_tmp_path("root"), 1);
	/* No debug file yet. */
	CHECK(!line_of(test_tmp_path("stripped"), triad, buf, sizeof(buf)));
	CHECK_STR(buf, "");
	id[2] = '\0';
	snprintf(buf, sizeof(buf), "root/.build-id/%s", id);
	mkdir(test_tmp_path(buf), 0755);
	id[2] = '/';
	snprintf(buf, sizeof(buf), "root/.build-id/%s", id);
	CHECK_EQ(int, rename(test_tmp_path("prog.debug"), test_tmp_path(buf)), 0);
	CHECK(line_of(test_tmp_path("stripped"), triad, buf, sizeof(buf)));
	CHECK_STR(buf, "prog.c:3");
	unsetenv("IPCC_DEBUG_ROOT");
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(stripped_file_finds_lines_in_its_debug_file_by_debuglink)
{
	uint64_t triad, size;
	char buf[64];

	if (!build_prog())
		SKIP("no C compiler (cc) to build the program with");
	CHECK(func_addr(test_tmp_path("noid"), "triad", &triad, &size));
	/* No build ID, so the CRC-32 of .gnu_debuglink decides. */
	if (!run("cd '%s' && objcopy --only-keep-debug noid prog.debug && "
		 "strip -g -o stripped noid && "
		 "objcopy --add-gnu-debuglink=prog.debug stripped && mkdir .debug && "
		 "mv prog.debug .debug/")) {
		test_tmpdir_remove();
		SKIP("no objcopy or strip (binutils)");
	}
	setenv("IPCC_DEBUG_ROOT", test_tmp_path("none"), 1);
	CHECK(line_of(test_tmp_path("stripped"), triad, buf, sizeof(buf)));
	CHECK_STR(buf, "prog.c:3");
	/* A debug file of another build (another CRC-32) is not used. */
	CHECK(run("cd '%s' && echo >>.debug/prog.debug"));
	CHECK(!line_of(test_tmp_path("stripped"), triad, buf, sizeof(buf)));
	CHECK_STR(buf, "");
	unsetenv("IPCC_DEBUG_ROOT");
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(no_descriptor_stays_open)
{
	uint64_t triad, size;
	char buf[256], id[160];
	int before;

	if (!build_prog())
		SKIP("no C compiler (cc) to build the program with");
	CHECK(func_addr(test_tmp_path("prog"), "triad", &triad, &size));
	CHECK(build_id_path(test_tmp_path("prog"), id, sizeof(id)));
	if (!run("cd '%s' && objcopy --only-keep-debug prog prog.debug && "
		 "strip -g -o stripped prog && mkdir .build-id && cp prog.debug link.debug && "
		 "strip -g -o nodebug noid && objcopy --add-gnu-debuglink=link.debug nodebug && "
		 "echo >>link.debug")) {
		test_tmpdir_remove();
		SKIP("no objcopy or strip (binutils)");
	}
	setenv("IPCC_DEBUG_ROOT", test_tmpdir, 1);
	snprintf(buf, sizeof(buf), ".build-id/%.2s", id);
	mkdir(test_tmp_path(buf), 0755);
	snprintf(buf, sizeof(buf), ".build-id/%s", id);
	CHECK_EQ(int, link(test_tmp_path("prog.debug"), test_tmp_path(buf)), 0);
	before = open_fds();
	for (int i = 0; i < 3; i++) {
		struct ipcc_lines *l;

		/* Its own tables, its debug file's, none (a debug file of another CRC), not ELF. */
		CHECK(line_of(test_tmp_path("prog"), triad, buf, sizeof(buf)));
		CHECK(line_of(test_tmp_path("stripped"), triad, buf, sizeof(buf)));
		CHECK(!line_of(test_tmp_path("nodebug"), triad, buf, sizeof(buf)));
		CHECK(!line_of(test_tmp_path("prog.c"), triad, buf, sizeof(buf)));
		CHECK_EQ(int, ipcc_lines_open(test_tmp_path("missing"), &l), IPCC_ESYS);
	}
	CHECK_EQ(int, open_fds(), before);
	unsetenv("IPCC_DEBUG_ROOT");
	test_tmpdir_remove();
	return TEST_OK;
}

TEST(missing_file_is_esys)
{
	struct ipcc_lines *l = (struct ipcc_lines *)&l;

	CHECK_EQ(int, ipcc_lines_open("/nonexistent/ipcc-test-lines", &l), IPCC_ESYS);
	CHECK(l == NULL);
	ipcc_lines_close(NULL);
	return TEST_OK;
}
