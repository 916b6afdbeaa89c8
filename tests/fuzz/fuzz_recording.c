/*
 * fuzz_recording.c - a libFuzzer target for the recording reader: any bytes in, a recording
 * or an error out, never a crash or a read outside the input. CTest runs it for a bounded
 * time in the sanitizer build (fuzz.recording).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipcc_recording *p;
	/* Most inputs should get past the magic and the version. */
	uint8_t *buf = malloc(size + 16);

	if (!buf)
		return 0;
	memcpy(buf, "IPCCPROF\1\0\0\0\0\0\0\0", 16);
	memcpy(buf + 16, data, size);
	if (ipcc_recording_parse(buf, size + 16, &p) == 0) {
		for (size_t i = 0; i < p->nmmaps; i++)
			if (strlen(p->mmaps[i].filename) > size)
				abort();
		ipcc_recording_free(p);
	}
	free(buf);
	return 0;
}
