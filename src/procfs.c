/*
 * procfs.c - reading /proc/cpuinfo.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "procfs_int.h"

static const char *cpuinfo_path(void)
{
	const char *path = getenv("IPCC_PROC_CPUINFO");

	return path && *path ? path : "/proc/cpuinfo";
}

int procfs_cpuinfo_field(const char *name, char *buf, size_t len)
{
	const char *path = cpuinfo_path();
	size_t name_len = strlen(name);
	char *line = NULL;
	size_t cap = 0;
	int ret = IPCC_ENOTSUP;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return err_sys("cannot open %s", path);
	while (getline(&line, &cap, f) > 0) {
		char *p = line;

		if (strncmp(p, name, name_len) != 0)
			continue;
		p += name_len;
		p += strspn(p, " \t");
		if (*p != ':')
			continue;
		p++;
		p += strspn(p, " \t");
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		ret = 0;
		break;
	}
	free(line);
	fclose(f);
	if (ret)
		return err_set(ret, "%s has no '%s' line", path, name);
	return 0;
}

bool procfs_has_word(const char *words, const char *word)
{
	size_t n = strlen(word);
	const char *p = words;

	while ((p = strstr(p, word)) != NULL) {
		bool starts = p == words || p[-1] == ' ' || p[-1] == '\t';
		bool ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';

		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}
