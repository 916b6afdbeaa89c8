/*
 * block.h - basic blocks of machine code, measured and modelled the same way.
 *
 * A block is a few bytes of x86-64 code with no branch (BHive's format: hex bytes). Both
 * sides run it as the body of a loop closed by `dec R; jnz` on a general register R that
 * the block does not use:
 *   - measured (ipcc_block_measure): the loop is assembled in an executable page and run in
 *     a child process with every other general register pointing into data pages; a page is
 *     mapped on first touch, all of them backed by one physical page (loads hit L1) that
 *     holds copies of the data address (a pointer chase stays mapped); vector registers
 *     start at zero. Cycles per iteration are the difference of two trip counts, the best
 *     of several repetitions, each at the core frequency measured around it.
 *   - modelled (ipcc_block_lift): the same loop as the pipeline model's text.
 * A block that cannot run this way gets its reason instead of a number.
 *
 * The caller owns every struct; ipcc_block_lift's text is the caller's to free().
 */
#ifndef IPCC_BLOCK_H
#define IPCC_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPCC_BLOCK_MAX 1024 /* bytes; BHive has a few longer blocks */

/* Why a block was not measured (IPCC_BLOCK_OK: it was). */
enum ipcc_block_status {
	IPCC_BLOCK_OK,
	IPCC_BLOCK_UNDECODABLE, /* bytes that are no x86-64 instructions, or a branch */
	IPCC_BLOCK_STACK,	/* uses the stack pointer or rip */
	IPCC_BLOCK_NO_REGISTER, /* uses every general register: none left for the loop */
	IPCC_BLOCK_PRIVILEGED,	/* a system instruction user mode may not run */
	IPCC_BLOCK_ILLEGAL,	/* SIGILL: this CPU lacks it */
	IPCC_BLOCK_DIVIDE,	/* a division error (SIGFPE) */
	IPCC_BLOCK_FAULT,	/* a fault outside what can be mapped */
	IPCC_BLOCK_PAGES,	/* strides over more pages than a data TLB holds */
	IPCC_BLOCK_TIMEOUT,	/* ran past the time limit */
	IPCC_BLOCK_NOISY,	/* no repetition's two trip counts agreed */
	IPCC_BLOCK_CRASH,	/* the child ended otherwise */
};

/* "ok", "undecodable", "stack", "no-register", ... */
const char *ipcc_block_status_name(enum ipcc_block_status s);

/* The kind of a block, for splitting errors by it. */
enum ipcc_block_kind {
	IPCC_BLOCK_SCALAR,   /* integer registers only */
	IPCC_BLOCK_MEMORY,   /* integer, with loads or stores */
	IPCC_BLOCK_VECTOR,   /* SSE/AVX registers (FP or integer) */
	IPCC_BLOCK_DIVISION, /* a division or square root */
	IPCC_BLOCK_NKINDS
};

/* "scalar", "memory", "vector", "division" */
const char *ipcc_block_kind_name(enum ipcc_block_kind k);

struct ipcc_block {
	unsigned char code[IPCC_BLOCK_MAX];
	size_t len;
	/* from ipcc_block_analyse */
	unsigned ninsns;
	enum ipcc_block_status status; /* OK, UNDECODABLE, STACK, NO_REGISTER or PRIVILEGED */
	enum ipcc_block_kind kind;
	int counter;   /* the loop's register: 0 rax .. 15 r15 (-1 with no free one) */
	uint16_t uses; /* bit r: the block reads or writes general register r */
	char why[160]; /* the status in words, naming the instruction */
};

/*
 * Read a block from BHive's format: hex bytes, anything after a comma ignored, spaces
 * allowed. IPCC_EINVAL for odd or non-hex digits or an empty block. Then analyses it
 * (ipcc_block_analyse); a block over IPCC_BLOCK_MAX bytes is kept unanalysed, with status
 * IPCC_BLOCK_UNDECODABLE and the reason.
 */
int ipcc_block_parse_hex(const char *hex, struct ipcc_block *b);

/*
 * Decode the block (Capstone): its instructions, the registers it uses, the loop's register
 * (the highest-numbered one it leaves free: r15 first), its kind, and whether it can be
 * measured at all (status and why). IPCC_ENOTSUP when Capstone cannot decode x86-64.
 */
int ipcc_block_analyse(struct ipcc_block *b);

/*
 * The block as the pipeline model's text: `.Lloop:`, one instruction a line, then
 * `dec R` and `jnz .Lloop`. *text is malloc'd. IPCC_EINVAL for a block whose status is not
 * OK (the reason in ipcc_last_error()).
 */
int ipcc_block_lift(const struct ipcc_block *b, char **text);

struct ipcc_block_opts {
	unsigned reps;	     /* repetitions, each timed at two trip counts (0: 5) */
	double min_ns;	     /* the shorter run's least length (0: 20 000 ns) */
	unsigned timeout_ms; /* per block (0: 2000) */
};

struct ipcc_block_result {
	enum ipcc_block_status status;
	char why[160];	      /* the status in words */
	double cycles;	      /* per iteration: of the repetitions, as ipcc_block_figure */
	double cycles_median; /* the median repetition's */
	double core_khz;      /* the frequency the best repetition ran at */
	unsigned reps;
	uint64_t iterations[2]; /* the two trip counts */
	unsigned pages;		/* data pages the block touched (all one physical page) */
};

/*
 * Measure block b (analysed) in a child process: `result` is filled whatever happened to
 * the block (status, why); the call itself fails only when no child can be started
 * (IPCC_ESYS) or the clock cannot be read (IPCC_ENOTSUP).
 */
int ipcc_block_measure(const struct ipcc_block *b, const struct ipcc_block_opts *o,
		       struct ipcc_block_result *result);

/*
 * A block's figure from n timings of it (a pass's repetitions, or the passes' figures):
 * the fewest cycles per iteration that another timing confirms within 1%, where that is
 * less than 25% above the fewest; else the fewest. A timing a few percent under every other
 * misread the core frequency, which moves between the measurements around a repetition and
 * the repetition itself (on the Granite Rapids-class guest, 53 of the 4,000 passes' sets of
 * five repetitions of 2,000 blocks held one; over the 11,869 blocks of blocks.txt timed
 * there in five passes, 11% of the blocks had one such pass: loops of 1.00 cycles read
 * 0.95). A timing 25% or more under the
 * rest is the one the host's neighbours did not slow (they slow throughput-bound loops
 * 1.3-1.7x), or a rare schedule the core fell into (loops of 1.41-1.67 cycles ran at 1.00 in
 * one pass of five). NAN when n is 0.
 */
double ipcc_block_figure(const double *cycles, unsigned n);

/*
 * Agreement between two series (measured and predicted cycles, or two passes): the mean
 * absolute percentage error of b against a (a the reference), and Kendall's tau-b of the
 * two after rounding each value to a multiple of `bin` (0: no rounding). Pairs where either
 * value is not finite or a is not above 0 are left out; n_used counts the others.
 */
struct ipcc_block_agreement {
	double mape; /* a fraction: 0.02 is 2% */
	double tau_b;
	size_t n_used;
};

void ipcc_block_agree(const double *a, const double *b, size_t n, double bin,
		      struct ipcc_block_agreement *out);

#endif
