/*
 * skid_layout.c - where task-clock samples land in small loops, and whether it depends on
 * where the loop sits in memory. The skid kernels (ipcc skid) are fixed; these loops vary
 * one thing at a time: how many adds of one chain a copy holds, an independent add beside
 * them, a 3-cycle multiply for the add, and the loop's distance from a 64-byte boundary.
 * For each loop: the samples per instruction (those with 2% or more), the distance between
 * the run's two halves (its own noise) and the distance to the pipeline model under the
 * profile for this CPU. See docs/internals/skid.md ("What the placement depends on").
 *
 *   skid_layout [SECONDS]    CPU seconds of sampling per loop (default 1)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipcc/error.h"
#include "ipcc/model.h"
#include "ipcc/sample.h"
#include "ipcc/skid.h"

#define COPIES	 10
#define MAX_ROWS (COPIES * 4 + 2)

#define DECLARE(name)                                  \
	extern void sl_##name(uint64_t n, void *word); \
	extern const char sl_##name##_loop[], sl_##name##_end[]

DECLARE(add_chain_0);
DECLARE(add_chain_16);
DECLARE(add_chain_32);
DECLARE(add_pair_0);
DECLARE(add_other_0);
DECLARE(adds3_0);
DECLARE(adds_0);
DECLARE(adds_32);
DECLARE(imul_chain_0);
DECLARE(imul_chain_32);

struct loop {
	const char *name;
	const char *body; /* the same instructions as the .S file's macro, for the model */
	unsigned n;	  /* instructions in the body */
	void (*run)(uint64_t, void *);
	const char *start, *end;
};

#define LOOP(name, body, n)                                                  \
	{                                                                    \
#name, body, n, sl_##name, sl_##name##_loop, sl_##name##_end \
	}

static const char ADD_CHAIN[] = "add rax, 1\n";
static const char ADD_PAIR[] = "add rax, 1\nadd rax, 2\n";
static const char ADD_OTHER[] = "add rax, 1\nadd rsi, 2\n";
static const char ADDS3[] = "add rax, 1\nadd rax, 2\nadd rsi, 3\n";
static const char ADDS[] = "add rax, 1\nadd rax, 2\nadd rsi, 3\nadd r8, 4\n";
static const char IMUL_CHAIN[] = "imul rax, rax\n";

static const struct loop loops[] = {
	LOOP(add_chain_0, ADD_CHAIN, 1),
	LOOP(add_chain_16, ADD_CHAIN, 1),
	LOOP(add_chain_32, ADD_CHAIN, 1),
	LOOP(add_pair_0, ADD_PAIR, 2),
	LOOP(add_other_0, ADD_OTHER, 2),
	LOOP(adds3_0, ADDS3, 3),
	LOOP(adds_0, ADDS, 4),
	LOOP(adds_32, ADDS, 4),
	LOOP(imul_chain_0, IMUL_CHAIN, 1),
	LOOP(imul_chain_32, IMUL_CHAIN, 1),
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct tally {
	const struct loop *l;
	unsigned nrows;
	uint64_t samples[MAX_ROWS], half[2][MAX_ROWS], outside;
	int part; /* the half being run */
};

/* Instruction i starts at byte 4i; the loop's jne is the last row. */
static void on_sample(void *arg, const struct ipcc_sample *s)
{
	struct tally *t = arg;
	uint64_t lo = (uint64_t)(uintptr_t)t->l->start, hi = (uint64_t)(uintptr_t)t->l->end;
	uint64_t off = s->ip - lo, jne = 4ull * (t->nrows - 1);
	unsigned row;

	if (s->ip < lo || s->ip >= hi || (off != jne && (off % 4 || off > jne))) {
		t->outside++;
		return;
	}
	row = (unsigned)(off / 4);
	t->samples[row]++;
	t->half[t->part][row]++;
}

static double halves_apart(const struct tally *t)
{
	uint64_t n[2] = { 0, 0 };
	double d = 0;

	for (unsigned i = 0; i < t->nrows; i++)
		n[0] += t->half[0][i], n[1] += t->half[1][i];
	if (!n[0] || !n[1])
		return -1;
	for (unsigned i = 0; i < t->nrows; i++) {
		double a = (double)t->half[0][i] / (double)n[0];
		double b = (double)t->half[1][i] / (double)n[1];

		d += a > b ? a - b : b - a;
	}
	return d / 2;
}

static int measure(const struct loop *l, double seconds, struct tally *t)
{
	static uint64_t word;
	struct ipcc_sampler_opts so = { .period = 100000 };
	struct ipcc_sample_handler h = { .sample = on_sample, .arg = t };
	struct ipcc_sampler *s;
	double t0;

	memset(t, 0, sizeof(*t));
	t->l = l;
	t->nrows = COPIES * l->n + 2;
	word = (uint64_t)(uintptr_t)&word;
	if (ipcc_sampler_new(&so, &s))
		return -1;
	if (ipcc_sampler_enable(s)) {
		ipcc_sampler_free(s);
		return -1;
	}
	t0 = now();
	for (double e = 0; e < seconds; e = now() - t0) {
		t->part = e < seconds / 2 ? 0 : 1;
		l->run(20000, &word); /* about a millisecond */
		if (ipcc_sampler_drain(s, &h) < 0)
			break;
	}
	ipcc_sampler_disable(s);
	ipcc_sampler_drain(s, &h);
	ipcc_sampler_free(s);
	return 0;
}

/* The distance to the model, or -1 when there is no profile or it cannot run. */
static double model_distance(const struct tally *t, const struct ipcc_model_profile *p)
{
	struct ipcc_skid_row rows[MAX_ROWS];
	struct ipcc_skid_result r = { .rows = rows, .nrows = t->nrows };
	char text[512];
	uint64_t total = 0;

	snprintf(text, sizeof(text), "top:\n%%rep %d\n%s%%endrep\nsub rdi, 1\njnz top\n", COPIES,
		 t->l->body);
	for (unsigned i = 0; i < t->nrows; i++)
		total += t->samples[i];
	if (!total)
		return -1;
	memset(rows, 0, sizeof(rows));
	for (unsigned i = 0; i < t->nrows; i++) {
		rows[i].offset = 4 * i;
		rows[i].samples = t->samples[i];
		rows[i].measured = (double)t->samples[i] / (double)total;
	}
	r.samples = total;
	if (ipcc_skid_compare(&r, text, p))
		return -1;
	return r.distance;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	struct ipcc_model_profile prof;
	bool have_profile = ipcc_model_profile("auto", &prof) == 0;
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (argc > 2 || !(seconds > 0)) {
		fprintf(stderr, "usage: skid_layout [SECONDS > 0]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(loops) / sizeof(loops[0]); i++) {
		const struct loop *l = &loops[i];
		size_t len = (size_t)(l->end - l->start), body = 4u * (COPIES * l->n + 1);

		if (len != body + 2 && len != body + 6) { /* jne rel8 or rel32 */
			fprintf(stderr, "skid_layout: %s is %zu bytes, not 4-byte instructions\n",
				l->name, len);
			return 1;
		}
	}
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		cpu = -1;
	printf("skid_layout: task-clock samples every 100 us, %g s per loop, pinned to CPU %d; "
	       "model: %s\n",
	       seconds, cpu, have_profile ? prof.name : "none for this CPU");
	printf("loop of 10 copies + sub, jne   at+  samples  halves  model  samples per "
	       "instruction (index:share, >= 0.02)\n");
	for (size_t i = 0; i < sizeof(loops) / sizeof(loops[0]); i++) {
		const struct loop *l = &loops[i];
		struct tally t;
		char body[64], *c;
		uint64_t total = 0;
		double apart, dist;

		if (measure(l, seconds, &t)) {
			fprintf(stderr, "skid_layout: %s\n", ipcc_last_error());
			return 1;
		}
		for (unsigned k = 0; k < t.nrows; k++)
			total += t.samples[k];
		snprintf(body, sizeof(body), "%s", l->body);
		for (c = body; (c = strchr(c, '\n'));)
			*c = c[1] ? ';' : '\0';
		apart = halves_apart(&t);
		dist = have_profile ? model_distance(&t, &prof) : -1;
		printf("%-30s %4u %8llu  %6.3f  ", body, (unsigned)((uintptr_t)l->start % 64),
		       (unsigned long long)total, apart);
		if (dist >= 0)
			printf("%5.3f ", dist);
		else
			printf("    - ");
		for (unsigned k = 0; k < t.nrows && total; k++)
			if ((double)t.samples[k] / (double)total >= 0.02)
				printf(" %u:%.2f", k, (double)t.samples[k] / (double)total);
		printf("\n");
	}
	return 0;
}
