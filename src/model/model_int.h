/*
 * model_int.h - the pipeline model's program representation (private to src/model/).
 */
#ifndef IPCC_MODEL_INT_H
#define IPCC_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ipcc/model.h"

/* Registers as bits: 16 general-purpose, 32 vector (xmm/ymm/zmm share one), the flags. */
#define REG_VEC0    16
#define REG_FLAGS   48
#define MODEL_NREGS 49

/* The most instructions a block may expand to (%rep, times). */
#define MODEL_MAX_INSNS 1000000

struct minsn {
	uint32_t text; /* offset of the source text in the program's string pool */
	unsigned line;
	unsigned latency;
	unsigned uops;	   /* 0: macro-fused into the instruction before */
	uint64_t reads;	   /* register bits read */
	uint64_t writes;   /* register bits written */
	unsigned fe_stall; /* cycles the front end delivers nothing before this one */
	bool at_retire;	   /* executes at retirement (lock, fences, ; at_retire) */
	bool mispredict;   /* a branch the front end mispredicts */
	bool fold;	   /* add/sub reg, imm: folded where the profile folds immediates */
	uint8_t ports;	   /* the execution-port classes it issues to (PORT_* bits) */
	bool zero;	   /* a zero idiom: no inputs, no latency, no port */
	bool approx;	   /* not in the table: a conservative class (lenient parsing) */
};

/* Port classes: an instruction takes one port of each class it uses, in its issue cycle. */
enum { PORT_ALU, PORT_LOAD, PORT_STORE, PORT_VEC, PORT_CLASSES };

struct ipcc_model_program {
	struct minsn *insn;
	unsigned n, cap;
	char *pool; /* the instructions' source texts, NUL-separated */
	size_t pool_len, pool_cap;
};

#endif
