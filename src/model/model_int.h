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

/*
 * A memory operand's address expression, normalised: `[rax+8]`, `[rax + 0x8]` and
 * `qword ptr [rax + 8]` have one key (the size is no part of it). A load depends on an earlier
 * store with the same key while neither of its address registers has been written since.
 */
struct mkey {
	uint64_t disp; /* the sum of the numeric displacements (two's complement) */
	uint32_t sym;  /* a hash of the symbolic ones (rip, labels), signed; 0: none */
	int8_t base;   /* register numbers; -1: none (an index of scale 1 alone is a base) */
	int8_t index;
	uint8_t scale;	 /* of the index: 1, 2, 4, 8; 0 without one */
	uint8_t segment; /* a segment override (fs: ...) + 1; 0: none */
};

/* Floating-point units, for the profile's fp_bypass (minsn.fpu). */
#define FPU_ADD 1u /* add, subtract */
#define FPU_MUL 2u /* multiply, FMA */

/* What an instruction does at its explicit memory operand (minsn.mem). */
#define MEM_LOAD  1u
#define MEM_STORE 2u

struct minsn {
	uint32_t text; /* offset of the source text in the program's string pool */
	unsigned line;
	unsigned latency;
	unsigned uops;	     /* 0: macro-fused into the instruction before */
	uint64_t reads;	     /* register bits read */
	uint64_t writes;     /* register bits written */
	unsigned fe_stall;   /* cycles the front end delivers nothing before this one */
	bool at_retire;	     /* executes at retirement (lock, fences, ; at_retire) */
	uint32_t mispredict; /* of its dynamic instances, millionths mispredicted (0: none) */
	bool fold;	     /* add/sub reg, imm: folded where the profile folds immediates */
	uint8_t ports;	     /* the execution-port classes it issues to (PORT_* bits) */
	bool zero;	     /* a zero idiom: no inputs, no latency, no port */
	bool eliminated;     /* a move eliminated at rename: no latency, no port */
	bool divides;	     /* div or idiv: holds the divider (profile's divider_cycles) */
	bool approx;	     /* not in the table: a conservative class (lenient parsing) */
	uint8_t fpu;	     /* FPU_ADD, FPU_MUL: its floating-point unit (for fp_bypass) */
	uint8_t mem;	     /* MEM_LOAD, MEM_STORE: its accesses at `key` */
	bool plain_store; /* a store of registers (mov [m], r): its data is ready when `data` is */
	bool renamable;	  /* its memory operand may be renamed (profile's memory_renaming) */
	bool plain_load;  /* a mov from memory: renamed, it takes no cycle at all */
	uint64_t data;	  /* a plain store: the registers whose value it stores */
	struct mkey key;  /* with mem: the address */
};

/*
 * The instruction table's latency and micro-ops for `mnemonic` (any name the parser knows,
 * cmovcc and setcc, FMA forms and compares with a predicate included); IPCC_EINVAL for none.
 * Profile files' latency.NAME and uops.NAME keys start a row from it.
 */
int model_insn_default(const char *mnemonic, unsigned *latency, unsigned *uops);

/* Mispredicted in millionths: MISPREDICT_ALL is every instance (a bare `; mispredict`). */
#define MISPREDICT_ALL 1000000u

/*
 * Whether dynamic instance k (0-based) of a branch mispredicted at rate m/MISPREDICT_ALL is
 * mispredicted: floor((k+1)m) > floor(km), so m of every MISPREDICT_ALL are, spread evenly.
 */
static inline bool model_mispredicted(uint32_t m, uint64_t k)
{
	return m && ((k + 1) * m) / MISPREDICT_ALL > (k * m) / MISPREDICT_ALL;
}

/* Port classes: an instruction takes one port of each class it uses, in its issue cycle. */
enum { PORT_ALU, PORT_LOAD, PORT_STORE, PORT_VEC, PORT_CLASSES };

struct ipcc_model_program {
	struct minsn *insn;
	unsigned n, cap;
	char *pool; /* the instructions' source texts, NUL-separated */
	size_t pool_len, pool_cap;
};

/*
 * The dataflow rules, shared by the run (sim.c) and the bound (bound.c): when an
 * instruction's inputs are ready, its latency after immediate folding, and what completing it
 * changes. Dynamic instructions are numbered from 1 (0: no producer).
 *
 * Memory: the most recent MODEL_STORES stores by address key (oldest evicted). A load with a
 * key that matches a live one waits for that store's data: a plain store's when the
 * registers it stores complete (or it is allocated), any other's (a read-modify-write) when
 * it completes. Writing a register of a store's address ends its entry.
 */
#define MODEL_STORES 32

struct mstore {
	struct mkey key;
	uint64_t regs;	/* its address registers */
	int64_t ready;	/* its data */
	uint64_t who;	/* the store */
	bool renamable; /* its data may be renamed into a load of the same address */
};

struct dataflow {
	int64_t done[MODEL_NREGS];	/* each register's completion */
	uint64_t who[MODEL_NREGS];	/* and its writer */
	unsigned folded[MODEL_NREGS];	/* add/sub reg, imm folded in a row, per register */
	struct mstore st[MODEL_STORES]; /* oldest first */
	unsigned nst;
	uint64_t st_regs;	  /* the live entries' address registers */
	uint8_t fpu[MODEL_NREGS]; /* each register's writer's FP unit */
	unsigned fp_bypass;	  /* the profile's: an FP add's wait for a multiply */
	unsigned rename_saving;	  /* memory renaming: the load latency a renamed load saves */
	unsigned load_latency;	  /* the profile's: a load-op's data inputs skip it */
};

/* The dataflow's parameters from profile p. */
static inline void df_init(struct dataflow *d, const struct ipcc_model_profile *p)
{
	d->fp_bypass = p->fp_bypass;
	d->rename_saving = p->memory_renaming ? p->load_latency : 0;
	d->load_latency = p->load_latency;
}

static inline bool mkey_equal(const struct mkey *a, const struct mkey *b)
{
	return a->disp == b->disp && a->sym == b->sym && a->base == b->base &&
	       a->index == b->index && a->scale == b->scale && a->segment == b->segment;
}

static inline uint64_t mkey_regs(const struct mkey *k)
{
	return (k->base >= 0 ? 1ull << k->base : 0) | (k->index >= 0 ? 1ull << k->index : 0);
}

/*
 * max(q, the completion of every input of `in`); *who: the input that set it, if any. A
 * load-op's latency holds the load's; its data inputs (registers other than the address's)
 * meet the loaded value at the operation, so they are needed load_latency later.
 */
static inline int64_t df_ready(const struct dataflow *d, const struct minsn *in, int64_t q,
			       uint64_t *who)
{
	uint64_t w = 0;
	uint64_t addr = in->mem & MEM_LOAD && !in->at_retire ? mkey_regs(&in->key) : ~0ull;

	for (uint64_t m = in->reads; m; m &= m - 1) {
		int r = __builtin_ctzll(m);

		int64_t t = d->done[r];

		if (!(addr & (1ull << r)))
			t -= d->load_latency;

		if (in->fpu == FPU_ADD && d->fpu[r] == FPU_MUL)
			t += d->fp_bypass;
		if (t > q)
			q = t, w = d->who[r];
	}
	if (in->mem & MEM_LOAD)
		for (unsigned k = d->nst; k-- > 0;)
			if (mkey_equal(&d->st[k].key, &in->key)) {
				int64_t t = d->st[k].ready;

				/* renamed: the value comes from the store's data, not the cache */
				if (d->rename_saving && in->renamable && d->st[k].renamable)
					t -= d->rename_saving + in->plain_load;
				if (t > q)
					q = t, w = d->st[k].who;
				break;
			}
	if (who)
		*who = w;
	return q;
}

/* The latency of `in` where the profile folds F add/sub reg, imm in a row (F > 1). */
static inline unsigned df_latency(struct dataflow *d, const struct minsn *in, unsigned F)
{
	if (in->fold && F > 1) {
		unsigned *f = &d->folded[__builtin_ctzll(in->writes & ~(1ull << REG_FLAGS))];

		if (*f + 1 < F)
			return ++*f, 0;
		*f = 0;
	}
	return in->latency;
}

/* Dynamic instruction g (`in`, allocated at s) completes at c: its stores and writes. */
static inline void df_complete(struct dataflow *d, const struct minsn *in, int64_t s, int64_t c,
			       uint64_t g)
{
	if (in->mem & MEM_STORE) {
		struct mstore e = { in->key, mkey_regs(&in->key), c, g, in->renamable };
		unsigned k;

		if (in->plain_store) {
			e.ready = s;
			for (uint64_t m = in->data; m; m &= m - 1)
				if (d->done[__builtin_ctzll(m)] > e.ready)
					e.ready = d->done[__builtin_ctzll(m)];
		}
		for (k = 0; k < d->nst && !mkey_equal(&d->st[k].key, &in->key); k++)
			;
		if (k == d->nst && d->nst == MODEL_STORES)
			k = 0; /* evict the oldest */
		else if (k == d->nst)
			d->nst++;
		for (; k + 1 < d->nst; k++)
			d->st[k] = d->st[k + 1];
		d->st[d->nst - 1] = e;
		d->st_regs |= e.regs;
	}
	for (uint64_t m = in->writes; m; m &= m - 1) {
		int r = __builtin_ctzll(m);

		d->done[r] = c;
		d->who[r] = g;
		d->fpu[r] = in->fpu;
		if (!in->fold)
			d->folded[r] = 0;
	}
	if (in->writes & d->st_regs) { /* those stores' addresses changed */
		unsigned n = 0;

		d->st_regs = 0;
		for (unsigned k = 0; k < d->nst; k++)
			if (!(d->st[k].regs & in->writes)) {
				d->st[n++] = d->st[k];
				d->st_regs |= d->st[k].regs;
			}
		d->nst = n;
	}
}

#endif
