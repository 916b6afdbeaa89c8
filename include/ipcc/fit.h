/*
 * fit.h - a pipeline-model profile fitted to the machine at hand: the microkernels measure
 * what the model's profile states (load-to-use latency, multiply and FP latencies, a lock add,
 * mispredict recovery, immediate folding, the ALU count), and each measured figure replaces
 * the base profile's. `ipcc bench --fit-profile` writes the result as a profile file.
 *
 * The caller owns every struct; nothing here allocates.
 */
#ifndef IPCC_FIT_H
#define IPCC_FIT_H

#include "ipcc/model.h"

/* One parameter of a profile fitted to this machine. */
struct ipcc_fit_row {
	const char *param;  /* the profile key: "load_latency" */
	const char *kernel; /* what measured it: "chain.load" */
	double measured;    /* NaN when the kernel could not run */
	const char *unit;   /* of measured */
	unsigned base, fitted;
	char note[160]; /* how it was read, or why it was not */
};

#define IPCC_FIT_ROWS 56

/*
 * Fit a pipeline-model profile to this machine: start from `base`, measure with the
 * microkernels (each the fewest cycles of nine runs, the core frequency measured around each)
 * load-to-use latency (chain.load), imul latency (chain.mul), a lock add (atomic.lock_add),
 * mispredict recovery (branch.random's penalty), immediate folding (chain.add_imm: folding
 * when 1.5 or more adds a cycle), the ALU count (skid.mov_imm: independent movs a cycle),
 * taken branches a cycle (branch.always: two different ones an iteration), an indirect
 * call's cycles (call.pointer), the memory
 * hierarchy's latencies (l2, stlb, walk, llc: chases over lines and pages), the bandwidth
 * from L2 to L1 and back and of streaming stores (the triads and the copy over half of L2:
 * fills and write-backs apart), the store ports (the triad's stores a cycle, up), and from basic blocks timed as ipcc
 * bench --block times them (the value with which the model runs each as measured:
 * ipcc_fit_block_key) a vector load's latency, a scaled lea's, a one-operand multiply's
 * rdx, the two store-forwarding latencies, a forward's extra cycles from a general and a
 * vector register's store, a general register's into a vector register's, and the
 * addresses a cycle of loads and stores together (four loads and a store); the loops
 * that the loop stream detector does not unroll (loops of nops, 7 to 40 micro-ops: those that take ceil(N / width) cycles; the
 * row's figures count them, its note lists them); and put each into `out`, named BASE-fit.
 * One row per parameter says what was measured.
 * IPCC_ENOTSUP when no kernel could run here.
 */
int ipcc_fit_profile(const struct ipcc_model_profile *base, struct ipcc_model_profile *out,
		     struct ipcc_fit_row rows[IPCC_FIT_ROWS]);

/*
 * The value of profile key `key` (one ipcc_fit_profile fits from a block), 0 to `max`, with
 * which the model runs basic block `hex` (lifted as ipcc bench --block runs it) nearest to
 * `cycles` a loop iteration, the least such value; the model's cycles with it in
 * *predicted. IPCC_EINVAL for a key not fitted, a block that does not parse or lift.
 */
int ipcc_fit_block_key(const struct ipcc_model_profile *p, const char *key, const char *hex,
		       double cycles, unsigned max, unsigned *value, double *predicted);

/*
 * The mispredict recovery (0 to 1000) with which the model runs branch.random's loop (its
 * branch mispredicted half the time) at what the mispredicts add on this machine:
 * `random_cycles` an iteration less `always_cycles` (branch.always's, the same loop always
 * taken), added to the model's loop with its branch predicted. Where always_cycles is NaN,
 * the model's loop at random_cycles whole. IPCC_EINVAL where no recovery gives it.
 */
int ipcc_fit_recovery(const struct ipcc_model_profile *p, double random_cycles,
		      double always_cycles, unsigned *value);

#endif
