/*
 * clock_cache.c - TCFREQ calibrations kept for the rest of the boot. A calibration against
 * CLOCK_MONOTONIC_RAW takes ~10 ms; a second process in the same boot, on the same CPU, reads
 * the figure from one line of a file instead. The line holds the key it is valid for: the
 * kernel's boot id and the CPU's signature (clock_arch_signature: vendor, family, model,
 * stepping and the TSC's invariance). A line that does not parse, or is for another key, is
 * ignored and replaced; the file is replaced whole (a temporary file, then rename), so
 * concurrent writers leave one of their lines, never a mix.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock_int.h"
#include "error_int.h"

#define CACHE_MAGIC "ipcc-tcfreq-1"

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

/* "<boot id> <signature>", the key a cached figure is valid for. */
static int cache_key(char *buf, size_t len)
{
	const char *root = getenv("IPCC_PROCFS_ROOT");
	char path[512], boot[64] = "", sig[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/sys/kernel/random/boot_id", root ? root : "");
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(boot, sizeof(boot), f))
		boot[0] = '\0';
	fclose(f);
	boot[strcspn(boot, " \t\n")] = '\0';
	if (!*boot)
		return -1;
	clock_arch_signature(sig, sizeof(sig));
	return snprintf(buf, len, "%s %s", boot, sig) < (int)len ? 0 : -1;
}

int clock_cache_parse(const char *line, const char *key, struct ipcc_freq *out)
{
	size_t magic = strlen(CACHE_MAGIC), klen = strlen(key);
	double hz, ppm;
	char end;

	if (strncmp(line, CACHE_MAGIC " ", magic + 1) != 0)
		return err_set(IPCC_EINVAL, "not an ipcc TCFREQ cache line");
	line += magic + 1;
	if (strncmp(line, key, klen) != 0 || line[klen] != ' ')
		return err_set(IPCC_EINVAL, "cached for another boot or CPU");
	if (sscanf(line + klen, " hz=%lf ppm=%lf%c", &hz, &ppm, &end) != 3 || end != '\n' ||
	    !(hz >= 1e6 && hz <= 1e11) || !(ppm >= 0 && ppm <= CLOCK_CACHE_MAX_PPM))
		return err_set(IPCC_EINVAL, "a malformed TCFREQ cache line");
	*out = (struct ipcc_freq){ .hz = hz,
				   .khz = (uint64_t)(hz / 1000.0 + 0.5),
				   .source = IPCC_FREQ_CACHED,
				   .ppm = ppm };
	return 0;
}

int clock_cache_read(struct ipcc_freq *out)
{
	char dir[400], path[512], key[256], line[512];
	FILE *f;
	int ret;

	if (cache_dir(dir, sizeof(dir)) || cache_key(key, sizeof(key)))
		return err_set(IPCC_ENOTSUP, "no TCFREQ cache here");
	snprintf(path, sizeof(path), "%s/tcfreq", dir);
	f = fopen(path, "re");
	if (!f)
		return err_set(IPCC_ENOTSUP, "no TCFREQ cache at %s", path);
	ret = fgets(line, sizeof(line), f) ? clock_cache_parse(line, key, out)
					   : err_set(IPCC_EINVAL, "an empty TCFREQ cache");
	fclose(f);
	return ret;
}

/* mkdir -p for the cache directory (at most its last two components are missing). */
static int make_dir(char *dir)
{
	char *slash;

	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return 0;
	slash = strrchr(dir, '/');
	if (errno != ENOENT || !slash || slash == dir)
		return -1;
	*slash = '\0';
	int ret = make_dir(dir);
	*slash = '/';
	return ret || (mkdir(dir, 0700) != 0 && errno != EEXIST) ? -1 : 0;
}

void clock_cache_write(const struct ipcc_freq *f)
{
	char dir[400], path[512], tmp[540], key[256];
	FILE *out;
	int fd;

	if (cache_dir(dir, sizeof(dir)) || cache_key(key, sizeof(key)) || make_dir(dir))
		return;
	snprintf(path, sizeof(path), "%s/tcfreq", dir);
	snprintf(tmp, sizeof(tmp), "%s/.tcfreq-XXXXXX", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(out, CACHE_MAGIC " %s hz=%.3f ppm=%.3f\n", key, f->hz, f->ppm);
	if (fclose(out) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
}
