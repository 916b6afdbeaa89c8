/*
 * test_explain.c - the model meets a recording: a loop of this program's own code (written in
 * assembly, so that no compiler or sanitizer changes it) and samples placed on it by hand:
 * shares measured and predicted, samples moved back to the load that held retirement, the
 * two halves' distance, and a loop without samples left out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipcc/explain.h"
#include "ipcc/recording.h"
#include "ipcc/sample.h"
#include "own_text.h"
#include "test.h"

/* A pointer chase with independent work after the load: the load holds retirement. */
__asm__(".text\n"
	".globl explain_test_chase\n"
	".type explain_test_chase, @function\n"
	"explain_test_chase:\n"
	"	mov %rdi, %rcx\n"
	".globl explain_test_load\n"
	"explain_test_load:\n"
	"1:	mov (%rax), %rax\n"
	".globl explain_test_after_load\n"
	"explain_test_after_load:\n"
	"	add $1, %rdx\n"
	"	xor %rdx, %rsi\n"
	".globl explain_test_last\n"
	"explain_test_last:\n"
	"	dec %rcx\n"
	"	jne 1b\n"
	"	ret\n"
	".size explain_test_chase, . - explain_test_chase\n");

extern char explain_test_chase[], explain_test_load[], explain_test_after_load[],
    explain_test_last[];

/* A profile of this program with n samples: at[k] for the k-th (NULL without a mapping). */
static struct ipcc_recording *profile_of(const uint64_t *at, size_t n)
{
	return test_own_recording((uint64_t)(uintptr_t)explain_test_chase, at, n);
}

/* Explain profile p with the zen3 profile (samples land after the selected instruction). */
static int explain(struct ipcc_recording *p, struct ipcc_symbols **syms, struct ipcc_explain *x)
{
	static struct ipcc_model_profile prof;

	if (ipcc_model_profile("zen3", &prof) || ipcc_symbols_new(p, syms))
		return -1;
	return ipcc_explain(p, *syms, &(struct ipcc_explain_opts){ 1, 0.9, &prof, 0 }, x);
}

/* The row of loop e for this program's address a, or NULL. */
static const struct ipcc_explain_row *row(const struct ipcc_explain_loop *e, const char *a)
{
	uint64_t elf = e->loop.function_start + (uint64_t)(a - explain_test_chase);

	for (unsigned k = 0; k < e->nrows; k++)
		if (e->rows[k].address == elf)
			return &e->rows[k];
	return NULL;
}

TEST(samples_after_a_load_move_back_onto_it)
{
	uint64_t at[100];
	struct ipcc_recording *p;
	struct ipcc_symbols *syms = NULL;
	struct ipcc_explain x;
	const struct ipcc_explain_row *load, *after;

	/* 90 samples just after the load, 10 on the loop's last instructions. */
	for (int k = 0; k < 100; k++)
		at[k] = (uint64_t)(uintptr_t)(k < 90 ? explain_test_after_load : explain_test_last);
	p = profile_of(at, 100);
	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	CHECK(p != NULL);
	if (!p)
		return TEST_OK;
	CHECK_EQ(int, explain(p, &syms, &x), 0);
	CHECK_EQ(u64, x.n, 1);
	CHECK_EQ(int, x.loop[0].status, 0);
	CHECK_EQ(u64, x.loop[0].samples, 100);
	CHECK_EQ(u64, x.loop[0].nrows, 5); /* mov, add, xor, dec, jne */
	load = row(&x.loop[0], explain_test_load);
	after = row(&x.loop[0], explain_test_after_load);
	CHECK(load && after);
	CHECK(strstr(load->text, "mov rax, qword ptr [rax]") != NULL);
	CHECK(load->selected);
	CHECK_EQ(dbl, after->measured, 0.90);
	/* The model: the load holds retirement, samples land on the add after it. */
	CHECK(after->predicted > 0.8);
	CHECK(x.loop[0].distance < 0.2);
	/* De-skidded, the load holds the 90 that landed after it, and nothing stays there. */
	CHECK(load->deskid >= 0.90);
	CHECK_EQ(dbl, after->deskid, 0.0);
	CHECK(x.loop[0].deskid_moved >= 0.90);
	CHECK(x.loop[0].cycles_per_iteration >= 4); /* at least the load's latency */
	ipcc_explain_release(&x);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	return TEST_OK;
}

TEST(halves_that_differ_are_measured_apart)
{
	uint64_t at[200];
	struct ipcc_recording *p;
	struct ipcc_symbols *syms = NULL;
	struct ipcc_explain x;

	/* The first 100 samples on one instruction, the next 100 on another: distance 1. */
	for (int k = 0; k < 200; k++)
		at[k] =
		    (uint64_t)(uintptr_t)(k < 100 ? explain_test_after_load : explain_test_last);
	p = profile_of(at, 200);
	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	CHECK(p != NULL);
	if (!p)
		return TEST_OK;
	CHECK_EQ(int, explain(p, &syms, &x), 0);
	CHECK_EQ(u64, x.n, 1);
	CHECK_EQ(dbl, x.loop[0].halves, 1.0);
	ipcc_explain_release(&x);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	return TEST_OK;
}

TEST(samples_inside_an_instruction_are_counted_apart)
{
	uint64_t at[10];
	struct ipcc_recording *p;
	struct ipcc_symbols *syms = NULL;
	struct ipcc_explain x;

	/* 9 on the add, 1 on the add's second byte. */
	for (int k = 0; k < 10; k++)
		at[k] = (uint64_t)(uintptr_t)explain_test_after_load + (k == 9);
	p = profile_of(at, 10);
	/* every Linux process maps its own text: no line for it is a failure, not a skip */
	CHECK(p != NULL);
	if (!p)
		return TEST_OK;
	CHECK_EQ(int, explain(p, &syms, &x), 0);
	CHECK_EQ(u64, x.n, 1);
	CHECK_EQ(u64, x.loop[0].samples, 9);
	CHECK_EQ(u64, x.loop[0].unplaced, 1);
	ipcc_explain_release(&x);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	return TEST_OK;
}
