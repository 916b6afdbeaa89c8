/*
 * own_text.c - the test program's own text mapping (own_text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcc/recording.h"
#include "own_text.h"

bool test_own_text(uint64_t ip, struct ipcc_sample_mmap *m, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8];
	unsigned long long lo, hi, off;
	bool found = false;

	while (f && fgets(line, sizeof(line), f)) {
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &pos) < 4)
			continue;
		if (ip >= lo && ip < hi && pos) {
			snprintf(path, len, "%s", line + pos);
			path[strcspn(path, "\n")] = '\0';
			*m = (struct ipcc_sample_mmap){ lo, hi - lo, off, (uint32_t)getpid(),
							0,  path };
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

struct ipcc_recording *test_own_recording(uint64_t ip, const uint64_t *at, size_t n)
{
	struct ipcc_sample_mmap m;
	char path[400], *buf = NULL;
	size_t len = 0;
	struct ipcc_recording *p = NULL;
	FILE *f;

	if (!test_own_text(ip, &m, path, sizeof(path)) || !(f = open_memstream(&buf, &len)))
		return NULL;
	ipcc_recording_write_header(f);
	ipcc_recording_write_mmap(f, &m);
	for (size_t k = 0; k < n; k++) {
		struct ipcc_sample s = { at[k], k, (uint32_t)getpid(), 0, 0, true };

		ipcc_recording_write_sample(f, &s);
	}
	fclose(f);
	if (ipcc_recording_parse(buf, len, &p))
		p = NULL;
	free(buf);
	return p;
}
