/*
 * explain.h - the pipeline model meets a recording: each hot loop of a program, lifted from its
 * machine code into the model (lift.h, model.h), with the samples that landed in it, what the
 * model predicts, and the samples moved back to their cause (de-skidded).
 *
 * A timer or counter interrupt is taken after the instruction that held retirement up: a
 * sample lands on the next instruction, or further (docs/internals/skid.md). The model says,
 * per instruction, whether it was ever the oldest unretired instruction ("selected") and where
 * a sample taken then lands (the profile's placement). De-skidding inverts that: a sample
 * that landed on instruction t is moved to the nearest selected instruction before t (placement
 * `next`; in a loop, the last ones of the body come before the first) or at or before t
 * (placement `oldest`).
 *
 * A conditional forward branch inside a loop goes one way or the other with the data; without
 * a branch-miss counter the rate it is mispredicted at is unknown. Each such branch (the
 * first four of a loop) is tried mispredicting at 50% (random data's, the most a predictor
 * misses), one branch after the other, and kept so where that brings the predicted shares
 * closer to where the samples landed, by 0.05. Where samples land shows whether a branch
 * mispredicts, not how often (every rate gives one shape): a branch they show mispredicting
 * is charged random data's rate, an upper bound, and named (ipcc_explain_loop.mispredicts). The model runs the body straight through, both sides of
 * such branches included.
 *
 * The caller owns what ipcc_explain() fills and releases it with ipcc_explain_release().
 */
#ifndef IPCC_EXPLAIN_H
#define IPCC_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcc/lift.h"
#include "ipcc/model.h"
#include "ipcc/skid.h"

struct ipcc_recording;
struct ipcc_symbols;

/* One instruction of a loop. */
struct ipcc_explain_row {
	uint64_t address;  /* in the file's own (ELF) addresses */
	char line[128];	   /* its source line, "file.c:12", or "" without DWARF */
	char text[200];	   /* its disassembly */
	uint64_t samples;  /* that landed on it */
	double measured;   /* samples / the loop's samples on instructions */
	double predicted;  /* the model's share */
	double deskid;	   /* the share moved here from where it landed */
	bool selected;	   /* ever the oldest unretired instruction in the model */
	bool approximated; /* the model's table does not know it (model.h, lenient) */
};

struct ipcc_explain_loop {
	struct ipcc_loop loop;
	int status; /* 0, or why it could not be modelled (why) */
	char why[256];
	struct ipcc_explain_row *rows;
	unsigned nrows;
	uint64_t samples;  /* the loop's samples on an instruction's first byte */
	uint64_t unplaced; /* in the body but not at an instruction's start */
	double cycles_per_iteration, ipc;
	struct ipcc_model_bound bound; /* each limit alone; chain[] indexes rows */
	char bound_text[512];	       /* "dependency chain, 5.00 cycles/iteration: mov rax, ..." */
	unsigned napproximated;
	char approximated[256]; /* their mnemonics, as ipcc_model_program_approximated */
	unsigned nmispredicts;
	char mispredicts[256]; /* "jne 0x1234 at 50%, ..." */
	size_t index;	       /* this loop's in the explanation's `loops` */
	unsigned inner;	       /* loops directly inside the body (their `parent` is index): run
				  once per iteration in the model */
	double distance;       /* total variation, measured against predicted shares */
	double halves;	       /* between the first and the second half of the samples, by time */
	double explained;      /* measured share on instructions the model predicts samples on */
	enum ipcc_skid_verdict verdict; /* ipcc_skid_judge() of the three above */
	double deskid_moved;		/* the share of the samples de-skidding moved */
};

struct ipcc_explain {
	struct ipcc_loops loops; /* every loop found; the chosen ones are explained */
	struct ipcc_explain_loop *loop;
	size_t n;
	bool lines; /* some file had DWARF line tables */
};

struct ipcc_explain_opts {
	unsigned max_loops; /* as ipcc_loops_opts */
	double cover;
	const struct ipcc_model_profile *profile;
	uint64_t iterations; /* model iterations (0: 200) */
};

/*
 * Explain the chosen hot loops of recording p (symbols from syms, made for p). A loop that
 * cannot be lifted or modelled keeps its samples and says why (status, why); the call fails
 * only for IPCC_ENOMEM, or IPCC_ENOTSUP when Capstone cannot disassemble.
 */
int ipcc_explain(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		 const struct ipcc_explain_opts *o, struct ipcc_explain *out);

void ipcc_explain_release(struct ipcc_explain *e);

#endif
