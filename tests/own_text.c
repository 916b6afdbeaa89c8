/*
 * own_text.c - the test program's own text mapping (own_text.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
