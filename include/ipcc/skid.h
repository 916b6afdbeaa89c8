/*
 * skid.h - where interrupts land in an out-of-order core, measured and modelled.
 *
 * A skid kernel (kernels.h) is a loop: ten copies of a body, then `sub rcx, 1; jnz`. Measuring
 * it runs the loop on this thread under a sampler (sample.h), disassembles the loop's machine
 * code (Capstone) and counts the samples on each of its instructions. Comparing runs the same
 * loop, as text, through the pipeline model (model.h): the model's predicted share of samples
 * per instruction beside the measured one, the total-variation distance between the two
 * distributions, the share of measured samples on instructions the model says can be
 * sampled at all, and the retire width R = 1..8 that best explains the measurement.
 *
 * The caller owns a result and releases it with ipcc_skid_result_release().
 */
#ifndef IPCC_SKID_H
#define IPCC_SKID_H

#include <stdbool.h>
#include <stdint.h>

#include "ipcc/kernels.h"
#include "ipcc/model.h"

#define IPCC_SKID_MAX_RETIRE 8

struct ipcc_skid_row {
	uint32_t offset;  /* bytes from the loop's first instruction */
	char text[64];	  /* as Capstone prints it */
	uint64_t samples; /* measured */
	double measured;  /* share of the loop's samples */
	double predicted; /* the model's share */
	bool selected;	  /* the model selects it (oldest unretired for some cycles) */
};

/*
 * How the measurement compares with the model: `matches` (the samples are where the model
 * puts them, explained >= 0.9, in about its proportions, distance <= 0.15), `same-places`
 * (explained >= 0.9, other proportions), `partly` (explained >= 0.5) or `differs`.
 */
const char *ipcc_skid_verdict(double explained, double distance);

struct ipcc_skid_result {
	struct ipcc_skid_row *rows; /* the loop, in address order */
	unsigned nrows;
	uint64_t samples; /* on the loop's instructions */
	uint64_t outside; /* anywhere else (set-up, the caller, the drain) */
	uint64_t lost;	  /* lost by the kernel */
	char profile[32];
	double distance;  /* total variation between measured and predicted, 0..1 */
	double explained; /* measured share on instructions the model predicts samples on */
	/* distance with retire width R (index R); NaN where the model cannot run with R */
	double distance_at[IPCC_SKID_MAX_RETIRE + 1];
	unsigned best_retire_width; /* argmin of distance_at, smallest on ties */
};

struct ipcc_skid_opts {
	uint64_t period_ns; /* task-clock sampling period (0: 100000) */
	double seconds;	    /* of CPU time to sample for (0: 1) */
};

/*
 * The loop kernel k runs, as model text: "%rep 10" of its body, then the loop's branch.
 * Written to buf (NUL-terminated); IPCC_EINVAL if k is not a skid kernel or buf too small.
 */
int ipcc_skid_loop_text(const struct ipcc_kernel *k, char *buf, size_t len);

/* Sample kernel k on this thread and fill out's rows, samples, outside and lost. */
int ipcc_skid_measure(const struct ipcc_kernel *k, const struct ipcc_skid_opts *o,
		      struct ipcc_skid_result *out);

/*
 * Fill in the predictions for measured rows: run `loop_text` through the model with profile
 * p (and with R = 1..8 for the fit). IPCC_EINVAL when the model's loop does not have one
 * instruction per row.
 */
int ipcc_skid_compare(struct ipcc_skid_result *r, const char *loop_text,
		      const struct ipcc_model_profile *p);

void ipcc_skid_result_release(struct ipcc_skid_result *r);

#endif
