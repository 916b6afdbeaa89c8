/*
 * copy_loop.c - a program for annotate_libc.sh that spends almost all of its time in libc's
 * memmove (whichever variant the CPU gets: __memmove_avx512_unaligned_erms, ..._avx_..., ...),
 * about 0.3 s of it (argv[1] scales it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Called through a volatile pointer, so that the compiler cannot inline the copy. */
static void *(*volatile copy)(void *, const void *, size_t) = memmove;

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 500000;
	size_t size = 64 * 1024;
	char *buf = calloc(1, size + 64);

	if (!buf)
		return 2;
	for (uint64_t i = 0; i < n; i++)
		copy(buf + (i & 1), buf + 1 - (i & 1), size);
	return buf[size / 2] & 1;
}
