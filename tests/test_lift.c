/*
 * test_lift.c - hot loops: this program's own nested loops, found in its machine code from a
 * recording whose samples fall on them, nested, hottest first, chosen to cover the samples.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "ipcc/lift.h"
#include "ipcc/recording.h"
#include "ipcc/sample.h"
#include "own_text.h"
#include "test.h"

/* Two nested loops and a single one after them; noinline keeps them in one function. */
uint64_t lift_test_nested(uint64_t n, volatile uint64_t *sink);

__attribute__((noinline)) uint64_t lift_test_nested(uint64_t n, volatile uint64_t *sink)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++) {
		for (uint64_t j = 0; j < n; j++)
			s += *sink ^ j;
		*sink = s;
	}
	for (uint64_t k = 0; k < n; k++)
		*sink += k;
	return s;
}

TEST(nested_loops_are_found_hottest_first)
{
	struct ipcc_sample_mmap m;
	char path[400], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ipcc_recording *p;
	struct ipcc_symbols *syms;
	struct ipcc_symbol y;
	struct ipcc_loops loops;
	uint64_t fn = (uint64_t)(uintptr_t)lift_test_nested;
	int inner = -1, outer = -1;

	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	if (!test_own_text((uint64_t)(uintptr_t)lift_test_nested, &m, path, sizeof(path))) {
		CHECK(!"this program's text mapping in /proc/self/maps");
		return TEST_OK;
	}
	/* One sample on every byte of the function: each loop holds its body's share. */
	ipcc_recording_write_header(f);
	ipcc_recording_write_mmap(f, &m);
	{
		struct ipcc_sample s = { fn, 0, (uint32_t)getpid(), 0, 0, true };

		ipcc_recording_write_sample(f, &s);
		fflush(f);
	}
	fclose(f);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), 0);
	CHECK_EQ(int, ipcc_symbols_new(p, &syms), 0);
	ipcc_symbols_resolve(syms, &p->samples[0], &y);
	CHECK(y.function && !strcmp(y.function, "lift_test_nested"));
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	free(buf);
	/* the symbol table gives this program's own function its size: nothing to skip */
	CHECK(y.func_size > 0);
	if (!y.function || !y.func_size)
		return TEST_OK;

	buf = NULL;
	f = open_memstream(&buf, &len);
	ipcc_recording_write_header(f);
	ipcc_recording_write_mmap(f, &m);
	for (uint64_t a = 0; a < y.func_size; a++) {
		struct ipcc_sample s = { fn + a, 0, (uint32_t)getpid(), 0, 0, true };

		ipcc_recording_write_sample(f, &s);
	}
	fclose(f);
	CHECK_EQ(int, ipcc_recording_parse(buf, len, &p), 0);
	CHECK_EQ(int, ipcc_symbols_new(p, &syms), 0);
	CHECK_EQ(int, ipcc_loops_find(p, syms, &(struct ipcc_loops_opts){ 10, 0.99 }, &loops), 0);
	printf("%zu loops in %u functions, %zu chosen, covering %.3f\n", loops.n, loops.nfunctions,
	       loops.nselected, loops.covered);
	for (size_t k = 0; k < loops.n; k++) {
		const struct ipcc_loop *l = &loops.loop[k];

		printf("  %s +%#llx-%#llx: %llu samples, parent %d, depth %u%s\n", l->function,
		       (unsigned long long)(l->start - l->function_start),
		       (unsigned long long)(l->end - l->function_start),
		       (unsigned long long)l->samples, l->parent, l->depth,
		       l->selected ? ", chosen" : "");
		CHECK(l->start >= l->function_start && l->end <= l->function_start + y.func_size);
		CHECK(l->start < l->end);
		if (k)
			CHECK(l->samples <= loops.loop[k - 1].samples);
		if (l->depth >= 1 && inner < 0)
			inner = (int)k;
	}
	/* At least the inner loop inside the outer one, and a loop after them. */
	CHECK(loops.n >= 3);
	CHECK(inner >= 0);
	if (inner >= 0) {
		outer = loops.loop[inner].parent;
		CHECK(outer >= 0);
		if (outer >= 0) {
			CHECK(loops.loop[outer].start <= loops.loop[inner].start);
			CHECK(loops.loop[outer].end >= loops.loop[inner].end);
			CHECK(loops.loop[outer].samples > loops.loop[inner].samples);
		}
	}
	CHECK(loops.nselected >= 1 && loops.nselected <= 10);
	CHECK(loops.covered > 0 && loops.covered <= 1);
	ipcc_loops_release(&loops);

	/* One loop at most, then: the one holding the most samples. */
	CHECK_EQ(int, ipcc_loops_find(p, syms, &(struct ipcc_loops_opts){ 1, 0.99 }, &loops), 0);
	CHECK_EQ(u64, loops.nselected, 1);
	CHECK(loops.loop[0].selected);
	ipcc_loops_release(&loops);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	free(buf);
	return TEST_OK;
}
