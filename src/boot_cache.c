/*
 * boot_cache.c - small files kept for the rest of the boot (boot_cache_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot_cache_int.h"

static int cache_dir(char *buf, size_t len)
{
	const char *dir = getenv("IPCC_CACHE_DIR"), *home;

	if (dir)
		return *dir && strcmp(dir, "off") != 0 && snprintf(buf, len, "%s", dir) < (int)len
			   ? 0
			   : -1;
	if ((dir = getenv("XDG_CACHE_HOME")) != NULL && *dir == '/')
		return snprintf(buf, len, "%s/ipcc", dir) < (int)len ? 0 : -1;
	if ((home = getenv("HOME")) != NULL && *home == '/')
		return snprintf(buf, len, "%s/.cache/ipcc", home) < (int)len ? 0 : -1;
	return -1;
}

int boot_cache_path(const char *name, char *buf, size_t len)
{
	char dir[400];

	if (cache_dir(dir, sizeof(dir)))
		return -1;
	return snprintf(buf, len, "%s/%s", dir, name) < (int)len ? 0 : -1;
}

int boot_cache_id(char *buf, size_t len)
{
	const char *root = getenv("IPCC_PROCFS_ROOT");
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/random/boot_id", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, " \t\n")] = '\0';
	return *buf ? 0 : -1;
}

/* mkdir -p for the cache folder (its last components may be missing). */
static int make_dir(char *dir)
{
	char *slash;
	int ret;

	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	slash = strrchr(dir, '/');
	if (errno != ENOENT || !slash || slash == dir)
		return -1;
	*slash = '\0';
	ret = make_dir(dir);
	*slash = '/';
	return ret || (mkdir(dir, 0700) != 0 && errno != EEXIST) ? -1 : 0;
}

void boot_cache_replace(const char *name, const char *text)
{
	char dir[400], path[512], tmp[540];
	FILE *out;
	int fd;

	if (cache_dir(dir, sizeof(dir)) || make_dir(dir))
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s-XXXXXX", dir, name);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		unlink(tmp);
		return;
	}
	fputs(text, out);
	if (fclose(out) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
}
