/*
 * skid.h - where interrupts land in an out-of-order core, measured and modelled.
 *
 * A skid kernel (kernels.h) is a loop: ten copies of a body, then `sub rcx, 1; jnz`. Measuring
 * it runs the loop on this thread under a sampler (sample.h), disassembles the loop's machine
 * code (Capstone) and counts the samples on each of its instructions. Comparing runs the same
 * loop, as text, through the pipeline model (model.h): the model's predicted share of samples
 * per instruction beside the measured one, the total-variation distance between the two
 * distributions, the share of measured samples on instructions the model says can be
 * sampled at all, and the retire width R = 1..8 that best explains the measurement. A run
 * counts its samples in two halves, whose distance from each other says how repeatable it
 * was. Fitting searches profile parameters (retire and allocation width, ALU ports,
 * immediate folding, placement) for the profile closest to several kernels' measurements.
 * Measurements written by `ipcc skid --format json` (on any machine) can be read back.
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
	uint64_t half[2]; /* of those, in the first and second half of the run */
	double measured;  /* share of the loop's samples */
	double predicted; /* the model's share */
	bool selected;	  /* the model selects it (oldest unretired for some cycles) */
};

/*
 * The distance and the verdict (skid/distance.c), shared by `ipcc skid`, `ipcc annotate
 * --model` and the fit.
 *
 * ipcc_skid_tv: the total-variation distance between two distributions over n rows, each
 * given as weights (counts or shares, each normalised by its own sum): half the sum of the
 * absolute differences, from 0 (the same) to 1 (no row in common). NaN when either sums to 0.
 * The same function measures a run's two halves against each other.
 */
double ipcc_skid_tv(const double *a, const double *b, unsigned n);

/* The one threshold: within this distance the model puts the samples where they land. */
#define IPCC_SKID_MATCH_DISTANCE 0.15

enum ipcc_skid_verdict {
	IPCC_SKID_UNJUDGED,    /* no distance: too few samples */
	IPCC_SKID_NO_VERDICT,  /* the halves differ by more than the threshold and the model */
	IPCC_SKID_MATCHES,     /* explained >= 0.9 and distance <= IPCC_SKID_MATCH_DISTANCE */
	IPCC_SKID_SAME_PLACES, /* explained >= 0.9, other proportions */
	IPCC_SKID_PARTLY,      /* explained >= 0.5 */
	IPCC_SKID_DIFFERS,
};

/*
 * The verdict from the share of the measured samples on instructions the model predicts any
 * samples on (`explained`), the distance between measured and predicted shares, and the
 * distance between the run's two halves (NaN: unknown, judged on the distance alone). A run
 * whose halves differ more than the threshold and more than the model does cannot judge it.
 */
enum ipcc_skid_verdict ipcc_skid_judge(double explained, double distance, double halves);

/* "matches", "same-places", "partly", "differs"; NULL for no verdict. */
const char *ipcc_skid_verdict_name(enum ipcc_skid_verdict v);

struct ipcc_skid_result {
	char kernel[32];	    /* "skid.adds" */
	int cpu;		    /* the CPU the run started on (-1: unknown) */
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
	/*
	 * Total-variation distance between the distributions of the run's two halves (NaN when
	 * a half has no samples, or the halves are unknown): the measurement's own noise.
	 */
	double repeat_distance;
};

/*
 * The verdict on a compared result, by ipcc_skid_judge() from its explained share, distance
 * and halves: a name, or NULL (no verdict).
 */
const char *ipcc_skid_result_verdict(const struct ipcc_skid_result *r);

struct ipcc_skid_opts {
	uint64_t period_ns; /* task-clock sampling period (0: 100000) */
	double seconds;	    /* of CPU time to sample for (0: 1) */
};

/*
 * The loop kernel k runs, as model text: "%rep 10" of its body, then the loop's branch.
 * Written to buf (NUL-terminated); IPCC_EINVAL if k is not a skid kernel or buf too small.
 */
int ipcc_skid_loop_text(const struct ipcc_kernel *k, char *buf, size_t len);

/*
 * Sample kernel k on this thread and fill out's kernel, cpu, rows (samples and halves),
 * samples, outside, lost and repeat_distance. The caller pins the thread if it wants one
 * CPU (ipcc skid does).
 */
int ipcc_skid_measure(const struct ipcc_kernel *k, const struct ipcc_skid_opts *o,
		      struct ipcc_skid_result *out);

/*
 * Fill in the predictions for measured rows: run `loop_text` through the model with profile
 * p (and placing samples with R = 1..8, p's sample_retire, for distance_at). IPCC_EINVAL when the model's loop does not have one
 * instruction per row.
 */
int ipcc_skid_compare(struct ipcc_skid_result *r, const char *loop_text,
		      const struct ipcc_model_profile *p);

void ipcc_skid_result_release(struct ipcc_skid_result *r);

/*
 * Read the measurements in `path`, JSON as `ipcc skid --format json` writes it:
 * {"kernels": [{"name", "samples", "outside", "lost", "rows": [{"offset", "text", "samples",
 * "half"?}]}]} (other keys are ignored). *out gets *n results with kernel, rows (offset,
 * text, samples, half, measured), samples, outside, lost and repeat_distance; free them with
 * ipcc_skid_results_free(). IPCC_EINVAL with the reason when the file is not such JSON.
 */
int ipcc_skid_load(const char *path, struct ipcc_skid_result **out, unsigned *n);
void ipcc_skid_results_free(struct ipcc_skid_result *r, unsigned n);

/* The total-variation distance between measured r and the model's shares under p. */
int ipcc_skid_distance(const struct ipcc_skid_result *r, const char *loop_text,
		       const struct ipcc_model_profile *p, double *distance);

#define IPCC_SKID_MAX_KERNELS 16

/*
 * A profile fitted to measurements: the candidate (the retire width 1-8 that places samples,
 * kept as sample_retire so that the profile's timing keeps base's retire width; allocation
 * width, ALU ports, immediate folding, placement; the rest of `base` kept) with the smallest sum
 * of distances over all kernels, each kernel's distance under it and under `base`, and,
 * for each kernel, its distance under the profile fitted to the other kernels only
 * (leave-one-out: how well the fit predicts a kernel it has not seen).
 */
struct ipcc_skid_fit {
	struct ipcc_model_profile profile; /* named "<base>-fit" */
	unsigned nkernels, candidates;	   /* kernels fitted; profiles tried */
	double total, stock_total;	   /* summed distances: fitted, base */
	double fitted[IPCC_SKID_MAX_KERNELS];
	double stock[IPCC_SKID_MAX_KERNELS];
	double held_out[IPCC_SKID_MAX_KERNELS]; /* NaN with a single kernel */
	struct ipcc_model_profile held_out_profile[IPCC_SKID_MAX_KERNELS];
};

/*
 * Fit a profile to the n measured results r[] (at most IPCC_SKID_MAX_KERNELS), with
 * loop_text[k] the model text of r[k]'s kernel. Ties go to the candidate nearest `base`.
 */
int ipcc_skid_fit(const struct ipcc_skid_result *r, const char *const *loop_text, unsigned n,
		  const struct ipcc_model_profile *base, struct ipcc_skid_fit *out);

#endif
