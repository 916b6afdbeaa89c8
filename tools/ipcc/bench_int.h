/*
 * bench_int.h - what ipcc bench's parts share: the options of --block/--blocks, parsed in
 * cmd_bench.c and run by bench_blocks.c.
 */
#ifndef IPCC_BENCH_INT_H
#define IPCC_BENCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "ipcc/block.h"
#include "ipcc/model.h"

struct bench_blocks_opts {
	const char *block;  /* --block HEX */
	const char *blocks; /* --blocks FILE ("-": standard input) */
	size_t limit;	    /* --limit N: the first N blocks of the file (0: all) */
	unsigned passes;    /* --passes N over the whole list (1-8) */
	bool model;	    /* --model: beside the model's prediction */
	const struct ipcc_model_profile *prof;
	enum cli_format format;
	struct ipcc_block_opts run;
};

/* Measure (and with --model, model) the blocks and print them; an exit status. */
int bench_blocks(const struct bench_blocks_opts *o);

#endif
