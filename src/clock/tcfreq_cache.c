/*
 * clock/tcfreq_cache.c - TCFREQ calibrations kept for the rest of the boot. A calibration against
 * CLOCK_MONOTONIC_RAW takes ~10 ms; a second process in the same boot, on the same CPU, reads
 * the figure from one line of a file instead. The line holds the key it is valid for: the
 * kernel's boot id and the CPU's signature (clock_arch_signature: vendor, family, model,
 * stepping and the TSC's invariance). A line that does not parse, or is for another key, is
 * ignored and replaced; the file is replaced whole (a temporary file, then rename), so
 * concurrent writers leave one of their lines, never a mix.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define RUNNING_UNDER_VALGRIND (RUNNING_ON_VALGRIND != 0)
#else
#define RUNNING_UNDER_VALGRIND false
#endif

#include "boot_cache_int.h"
#include "clock_int.h"
#include "error_int.h"

#define CACHE_MAGIC "ipcc-tcfreq-1"

/* "<boot id> <signature>", the key a cached figure is valid for. */
static int cache_key(char *buf, size_t len)
{
	char boot[64], sig[128];

	if (boot_cache_id(boot, sizeof(boot)))
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
	char path[512], key[256], line[512];
	FILE *f;
	int ret;

	if (boot_cache_path("tcfreq", path, sizeof(path)) || cache_key(key, sizeof(key)))
		return err_set(IPCC_ENOTSUP, "no TCFREQ cache here");
	f = fopen(path, "re");
	if (!f)
		return err_set(IPCC_ENOTSUP, "no TCFREQ cache at %s", path);
	ret = fgets(line, sizeof(line), f) ? clock_cache_parse(line, key, out)
					   : err_set(IPCC_EINVAL, "an empty TCFREQ cache");
	fclose(f);
	return ret;
}

bool clock_under_valgrind(void)
{
	return RUNNING_UNDER_VALGRIND;
}

/*
 * Not from under Valgrind, whose CPU (its CPUID, its clock's pace) is not this machine's: its
 * figure would replace the machine's own for every other program this boot.
 */
void clock_cache_write(const struct ipcc_freq *f)
{
	char key[256], line[512];

	if (clock_under_valgrind() || cache_key(key, sizeof(key)))
		return;
	snprintf(line, sizeof(line), CACHE_MAGIC " %s hz=%.3f ppm=%.3f\n", key, f->hz, f->ppm);
	boot_cache_replace("tcfreq", line);
}
