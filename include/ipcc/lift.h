/*
 * lift.h - from a recording's samples to the machine code that holds them: the hot loops.
 *
 * A loop is a backward branch within one function (a jmp or jcc whose target is at or
 * before it, in the same function): its body is [target, end of the branch). Several
 * backward branches to one target (a `continue`) are one loop. Loops are found by
 * disassembling, with Capstone, every function that holds samples, in the files the
 * recording holds; a loop's samples are those whose address falls in its body.
 *
 * ipcc_lift_elf() turns a loop of a program (or a range of its addresses) into the pipeline
 * model's text (model.h), to be parsed leniently.
 *
 * The caller owns what ipcc_loops_find() and ipcc_lift_elf() fill and releases it with
 * ipcc_loops_release() and ipcc_lifted_release().
 */
#ifndef IPCC_LIFT_H
#define IPCC_LIFT_H

#include <stddef.h>
#include <stdint.h>

struct ipcc_recording;
struct ipcc_symbols;

struct ipcc_loop {
	const char *file;     /* the object, as the recording names it */
	const char *function; /* demangled where it can be */
	uint64_t function_start;
	uint64_t start, end; /* the body, in the file's own (ELF) addresses */
	uint64_t branches;   /* backward branches that close it */
	uint64_t samples;    /* samples in the body, inner loops' included */
	double share;	     /* samples / all samples of the recording */
	int parent;	     /* index of the innermost loop holding this one, or -1 */
	unsigned depth;	     /* 0 for an outermost loop */
	int selected;	     /* among the loops chosen to cover the samples (see opts) */
};

struct ipcc_loops_opts {
	unsigned max_loops; /* choose at most this many (0: 10) */
	double cover;	    /* choose until they hold this share of the samples (0: 0.9) */
};

struct ipcc_loops {
	struct ipcc_loop *loop; /* every loop with samples, hottest first */
	size_t n;
	/*
	 * Chosen greedily: each time the loop holding the most samples not yet held, or rather
	 * its deepest inner loop that holds 95% of those, until cover or max_loops.
	 */
	size_t nselected;
	double covered;	      /* the share of the samples the chosen loops hold */
	uint64_t nsamples;    /* all samples of the recording */
	unsigned nfunctions;  /* functions disassembled */
	unsigned nunreadable; /* functions whose code could not be read (file gone, no symbol) */
};

/*
 * Find the loops of recording p (symbols from syms, made for p). Returns 0, IPCC_ENOMEM, or
 * IPCC_ENOTSUP when Capstone cannot disassemble this architecture.
 */
int ipcc_loops_find(const struct ipcc_recording *p, struct ipcc_symbols *syms,
		    const struct ipcc_loops_opts *o, struct ipcc_loops *out);

void ipcc_loops_release(struct ipcc_loops *l);

/* Which code to lift: a function's innermost loop, or a range of addresses. */
struct ipcc_lift_opts {
	const char *symbol;  /* the function (its innermost loop: see ipcc_lift_elf), or NULL */
	uint64_t start, end; /* with end > start: [start, end) in the ELF's own addresses */
};

struct ipcc_lifted {
	char *text;	    /* the model's text: one instruction a line, its address in a comment */
	char function[128]; /* the function lifted from ("" for a range without a symbol) */
	uint64_t start, end; /* what was lifted, in the ELF's own addresses */
	uint64_t *address;   /* each lifted instruction's address, in the text's order */
	unsigned ninsns;     /* instructions lifted */
	unsigned nloops;     /* loops found in the function (symbol without a range) */
};

/*
 * Lift code of the ELF file `path` with Capstone (Intel syntax): the range o->start..end if
 * given, else the innermost loop of function o->symbol: of its loops (backward branches to
 * a target in the function, as ipcc_loops_find() finds them), the first by address whose
 * body holds no other loop. A jump to the lifted code's start becomes a jump to the label
 * `.Lloop` on its first line; other jump targets become labels `.L<address in hex>`. Returns
 * 0, IPCC_EINVAL (no such file, function, or code there; a function without a loop),
 * IPCC_ENOMEM or IPCC_ENOTSUP (Capstone).
 */
int ipcc_lift_elf(const char *path, const struct ipcc_lift_opts *o, struct ipcc_lifted *out);

/*
 * Lift [start, end) of `file`, a file of the recording `syms` was made for (as
 * ipcc_loops_find() names it): the same text as ipcc_lift_elf() with a range, without opening
 * the file again.
 */
int ipcc_lift_range(struct ipcc_symbols *syms, const char *file, uint64_t start, uint64_t end,
		    struct ipcc_lifted *out);

void ipcc_lifted_release(struct ipcc_lifted *l);

#endif
