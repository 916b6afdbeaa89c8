/*
 * hot_loop.c - a CPU-bound program for the record/annotate tests: almost all of its time
 * is in hot_loop(), about 0.3 s of it (argv[1] scales it).
 */
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) static uint64_t hot_loop(uint64_t n)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + i;
	return x;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000000;

	return (int)(hot_loop(n) & 1);
}
