/*
 * model_int.h - the pipeline model's program representation (private to src/model/).
 */
#ifndef IPCC_MODEL_INT_H
#define IPCC_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ipcc/model.h"

/*
 * Registers as bits: 16 general-purpose, 32 vector (xmm/ymm/zmm share one), the flags but
 * the carry, and the carry: inc and dec write the others and leave the carry as it was, so
 * a reader of the carry after them waits for the writer before (seta cl; test ecx, ecx 3.00
 * cycles a loop closed by dec, jnz on Emerald Rapids: the test's carry, a cycle, and the
 * seta's two).
 */
#define REG_VEC0    16
#define REG_FLAGS   48
#define REG_CF	    49
#define REG_ST	    50 /* the x87 stack, all eight as one (model_x87_approximate) */
#define FLAG_REGS   (1ull << REG_FLAGS | 1ull << REG_CF)
#define VEC_REGS    (0xffffffffull << REG_VEC0) /* the 32 vector registers' bits */
#define MODEL_NREGS 51

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

/*
 * The instructions that bind to some of Golden Cove's five ALU ports (minsn.alu_subset, the
 * profile's alu_port_subsets): a sign extension of a register, andn, blsr, blsi, blsmsk (1, 5,
 * 10), a lea with a scaled index (0, 6, 10), bt, bswap (1).
 */
#define ALU_SEXT       1u
#define ALU_LEA_SCALED 2u
#define ALU_PORT1      3u

/* The dividers (minsn.divides). */
#define DIV_INT 1u
#define DIV_FP	2u

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
	unsigned uops;	       /* 0: macro-fused into the instruction before */
	uint64_t reads;	       /* register bits read */
	uint64_t writes;       /* register bits written */
	unsigned fe_stall;     /* cycles the front end delivers nothing before this one */
	uint8_t bytes;	       /* its length in bytes (`bytes=N`, from machine code); 0: unknown */
	uint8_t line_at;       /* 1 + its offset in its 64-byte line (`at=N`); 0: after the last */
	bool fe_fused;	       /* a jcc the decoders pair with the flag-writer before it */
	bool slot_free;	       /* a jcc that takes no slot of its own (alu_jcc_one_slot) */
	uint8_t merge_reg;     /* 1 + the vector register a scalar op keeps the upper part of */
	bool at_retire;	       /* executes at retirement (lock, fences, ; at_retire) */
	bool drains;	       /* and after the stores before it reach the cache (lock, mfence) */
	bool assist;	       /* a subnormal operand's microcode assist (model_mark_fp_assists) */
	uint32_t mispredict;   /* of its dynamic instances, millionths mispredicted (0: none) */
	uint32_t taken;	       /* of its dynamic instances, millionths taken (placement only) */
	unsigned skip;	       /* a jump to a later label: the instructions a taken one skips */
	bool fold;	       /* add/sub reg, imm: folded where the profile folds immediates */
	int8_t fold_src;       /* with fold: the register whose value it offsets (lea's base) */
	int32_t fold_off;      /* with fold: the offset it adds */
	bool no_absorb;	       /* waits for its inputs' folded offsets to be added (a shift) */
	uint8_t move_from;     /* an eliminated 64-bit move: its source + 1 (0: none) */
	bool logic_flags;      /* writes the flags as and, or, xor, test do */
	bool fused_flags;      /* writes the flags as the first of a macro-fused pair */
	bool cond;	       /* setcc, cmovcc: reads the flags as a condition */
	uint32_t ports;	       /* the execution-port classes it issues to (PORT_* bits) */
	bool shift_twice;      /* two micro-ops on the shift ports (and two ALU ports) */
	uint8_t alu_held;      /* ALU issue slots it holds beside its own (lea3_alu_slots) */
	uint8_t alu_subset;    /* ALU_*: some ALU ports (alu_port_subsets); 0: any */
	bool vec_twice;	       /* two on vector ports: a conversion's shuffle and multiply */
	bool zero;	       /* a zero idiom: no inputs, no latency, no port */
	bool eliminated;       /* a move eliminated at rename: no latency, no port */
	uint8_t divides;       /* DIV_INT (div, idiv), DIV_FP (div*, sqrt*): holds that divider */
	uint16_t div_cycles;   /* ... this many cycles (the profile's; 0: not held) */
	uint8_t split;	       /* SPLIT_*: the split-access resource it holds (0: none) */
	uint16_t split_cycles; /* ... this many cycles (the profile's) */
	uint8_t bank;	       /* 1 + a load's L1 bank (its address's bits 2-5); 0: unknown */
	uint16_t utag_cost;    /* hundredths of a cycle it holds the virtual-tag resource */
	bool approx;	       /* not in the table: a conservative class (lenient parsing) */
	uint8_t rep_size;   /* rep movs, rep stos: the element's bytes (1, 2, 4, 8); 0: not one */
	bool rep_known;	    /* ... and rcx, from the harness's values (model_harness_values) */
	uint32_t rep_count; /* ... which is this */
	uint8_t fpu;	    /* FPU_ADD, FPU_MUL: its floating-point unit (for fp_bypass) */
	uint8_t mem;	    /* MEM_LOAD, MEM_STORE: its accesses at `key` */
	bool plain_store;  /* a store of registers (mov [m], r): its data is ready when `data` is */
	bool renamable;	   /* its memory operand may be renamed (profile's memory_renaming) */
	bool partial_load; /* a load of 1 or 2 bytes into part of a register, or sign-extended */
	bool rmw_alu;	   /* add, sub, and, or, xor ... [m], x: not inc or dec [m] */
	unsigned load_latency; /* with a load: the load's part of `latency` (the profile's) */
	bool narrow_store;     /* stores at most 8 bytes */
	bool vector_store;     /* stores a vector register (or part of one) */
	bool same_chunk;       /* a narrow store into the 32 bytes the store before it wrote */
	bool whole_mov;	       /* mov into a whole 32- or 64-bit general register */
	bool move;	       /* a move (mov, movzx, movdqu ...): a load's value moved as it is */
	uint8_t size;	       /* with mem: the bytes it accesses, from its ptr size; 0: unknown */
	bool forward_fails;    /* a load the store before it cannot forward to (model_mark_...) */
	unsigned fail_back;    /* ... that store: this many instructions back, around the loop */
	uint32_t alias_rate;   /* millionths of iterations it fails so (model_harness_values) */
	uint64_t addr_regs;    /* with mem: the registers of its address (key's, before %harness) */
	uint64_t slow_regs;    /* inputs needed slow_extra cycles earlier (lea3's base) */
	unsigned slow_extra;
	unsigned
	    rdx_extra;	 /* cycles more to rdx than to its other outputs (mul r: the high half) */
	uint64_t data;	 /* a plain store: the registers whose value it stores */
	struct mkey key; /* with mem: the address */
};

/*
 * Marks same_chunk on each narrow store into the aligned 32 bytes (p's pair_store_bytes)
 * that the store before it (in program order, around the loop) wrote, neither wider than 8
 * bytes nor both of vector registers (unless p's pair_wide_stores), the address's registers
 * unchanged between them (the base's alignment assumed). Run on a parsed program; where the
 * profile pairs stores, such a store reaches the cache in the same cycle as the one before
 * it, unless that one was itself paired.
 */
void model_mark_store_chunks(struct ipcc_model_program *prog, const struct ipcc_model_profile *p);

/*
 * Run where the profile names dep_load_ports: gives PORT_DEPLOAD to each load whose address
 * comes from the value of a load (directly, or through other instructions' registers, around
 * the loop). Run on a parsed program.
 */
void model_mark_dep_loads(struct ipcc_model_program *prog);

/*
 * out[k]: whether instruction k is a load whose address comes from a load's value so
 * (model_mark_dep_loads's rule), for every k of the program (one pass around the loop).
 */
void model_addresses_loaded(const struct ipcc_model_program *prog, bool *out);

/*
 * The address register of ipcc bench --block's harness (%harness): the registers a block
 * finds holding the one data address, as an address's base (model_harness_keys).
 */
#define REG_HARNESS 63

/*
 * The base of a store's and its loads' keys where the harness's values show the loads
 * reading what the store wrote in the same iteration, at an address that moves from one
 * iteration to the next (model_harness_values): [rax - 8] after add rax, 8 and [rcx - 8]
 * after add rcx, 8, the two registers one address. The displacement tells the store apart.
 */
#define REG_TAGGED 62

/*
 * With %harness: every general register but rsp starts holding one address, and every
 * 32- or 64-bit load returns it (the harness's one data page holds it in every word). A
 * register keeps it where the block writes it only with such a load or a whole mov of a
 * register that holds it. Each memory operand based on such a register, without an index,
 * gets REG_HARNESS as its base: [rsi + 8] and [rdi + 8] are one address, and stay one.
 */
void model_harness_keys(struct ipcc_model_program *prog, const struct ipcc_model_profile *p);

/*
 * Where the profile has forward_fail_latency: marks each load that the latest store it
 * overlaps (in program order, around the loop, the address registers unchanged between)
 * cannot forward to: a store that does not hold all of the load's bytes, or one at another
 * virtual address of the same page offset (%harness: every page is one physical page).
 * Such a load executes once that store retired, forward_fail_latency cycles, as the store
 * must reach the cache first; loads that fail on different stores overlap (vmovsd xmm1,
 * [rbx]; vmovsd xmm0, [rbx + 8], each after a store to its page offset through another
 * virtual page: 18.0 cycles a loop on Emerald Rapids, 17 modelled; 33 when each waited
 * to be the oldest).
 */
void model_mark_forward_fails(struct ipcc_model_program *prog, const struct ipcc_model_profile *p);

/*
 * With %harness, after model_harness_keys, where the profile has forward_fail_latency (what
 * such keys are for: a load from bytes stored through another virtual address; the other
 * profiles' figures stay as they were measured): the block run on the harness's values
 * (harness.c); each access whose address is the same in the steady state gets that address
 * as its key (REG_HARNESS and the offset from the harness's address, as model_harness_keys
 * writes it; with alias_forwards, its physical byte), whatever registers computed it.
 * `keys`: the keys as parsed.
 */
void model_harness_values(struct ipcc_model_program *prog, const struct mkey *keys,
			  const struct ipcc_model_profile *p);

/*
 * A harness key's offset as the profile's alias_forwards compares it: the byte of the one
 * physical page, whichever virtual page of it the offset names (every data page is that
 * page, and DATA_ADDR is page-aligned).
 */
static inline uint64_t model_physical(uint64_t disp)
{
	return disp & 4095;
}

/*
 * With %harness and the profile's x87_assist_cycles: the x87 instructions that overflow or
 * underflow the stack in the loop's steady state (the harness starts it empty) execute at
 * retirement and take the assist's cycles more (x87.c).
 */
void model_mark_x87_faults(struct ipcc_model_program *prog, const struct ipcc_model_profile *p);

/*
 * An x87 instruction the table lacks, after approximate() (x87.c): its stack read and written
 * as one register (REG_ST), its memory operand a load or, for fst, fist, fbstp and the
 * control stores, a store, an FP port, and the profile's cost row for the mnemonic where it
 * has one. Still approximated: the registers apart, the stack's top and the microcode's
 * ports are not modelled. Nothing for any other instruction.
 */
void model_x87_approximate(const struct ipcc_model_profile *p, const char *text, struct minsn *in,
			   bool *load, bool *store);

/* The resources of accesses that split a line or a page (minsn.split). */
#define SPLIT_LOAD_LINE	 1u
#define SPLIT_LOAD_PAGE	 2u
#define SPLIT_STORE_LINE 3u
#define SPLIT_STORE_PAGE 4u

/*
 * With %harness: each access whose key is the harness's address (REG_HARNESS) and whose
 * bytes cross a 64-byte line or a 4 KiB page holds the resource of its kind for the
 * profile's cycles (split_load_cycles ...; a read-modify-write, the store's); each load
 * with such a key gets its L1 bank (minsn.bank, for the profile's loads_per_bank).
 */
void model_mark_splits(struct ipcc_model_program *prog, const struct ipcc_model_profile *p);

/*
 * With %harness: each rep stos or rep movs whose count model_harness_values found becomes a
 * run of the profile's fast-string cycles (ipcc_model_rep_cycles), executed as a fence is:
 * once everything before it retired, one run at a time (no longer approximated).
 */
void model_mark_reps(struct ipcc_model_program *prog, const struct ipcc_model_profile *p);
/*
 * With the harness: the double-precision operations that meet a subnormal (the harness's
 * memory read as a double) and take a microcode assist (model/harness.c).
 */
void model_mark_fp_assists(struct ipcc_model_program *prog);

/*
 * Whether a load of `size` bytes at `key` lies within a store of `ssize` bytes at `skey`:
 * same registers, its bytes among the store's (sizes known).
 */
static inline bool mkey_within(const struct mkey *key, unsigned size, const struct mkey *skey,
			       unsigned ssize)
{
	return size && ssize && key->sym == skey->sym && key->base == skey->base &&
	       key->index == skey->index && key->scale == skey->scale &&
	       key->segment == skey->segment && key->disp - skey->disp <= ssize - size &&
	       size <= ssize;
}

/* Whether the bytes of two accesses through one base, index and scale overlap. */
static inline bool mkey_overlaps(const struct mkey *a, unsigned asize, const struct mkey *b,
				 unsigned bsize)
{
	return asize && bsize && a->sym == b->sym && a->base == b->base && a->index == b->index &&
	       a->scale == b->scale && a->segment == b->segment &&
	       (int64_t)(a->disp - b->disp) < (int64_t)bsize &&
	       (int64_t)(b->disp - a->disp) < (int64_t)asize;
}

/*
 * Whether dynamic store `in` pairs with the store before it, given whether that one
 * paired (*paired, updated): pairs of two, no longer runs, unless `runs` (the profile's
 * pair_store_runs).
 */
static inline bool model_store_pairs(const struct minsn *in, bool *paired, bool runs)
{
	*paired = in->same_chunk && (runs || !*paired);
	return *paired;
}

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

/*
 * Whether dynamic instance k of branch `in` is taken (only a jump to a later label, `skip`):
 * a share `taken` of its mispredicted instances and the same share of the others, each spread
 * evenly, so that a branch on random data is taken as often when it mispredicts as when not.
 */
static inline bool model_taken(const struct minsn *in, uint64_t k)
{
	const uint64_t before = k * in->mispredict / MISPREDICT_ALL; /* mispredicted before k */

	return in->skip &&
	       model_mispredicted(in->taken,
				  model_mispredicted(in->mispredict, k) ? before : k - before);
}

/* Port classes: an instruction takes one port of each class it uses, in its issue cycle. */
/*
 * PORT_COMMIT: a store reaching the cache, where the profile pairs stores (pair_stores);
 * PORT_AGU: an address for a load or a store, where the profile shares them (agu_ports).
 * PORT_SHIFT, PORT_MUL: the ALU ports that also shift and branch, and those with the
 * three-cycle unit (multiplies, bit counts), where the profile names them (shift_ports,
 * mul_ports): such an instruction takes an ALU port and one of these. They are subsets of
 * the ALU ports, and counting each class alone is exact for subsets that nest or are
 * apart (Intel's ports 0 and 6, and port 1).
 * PORT_VMUL, PORT_VADD, PORT_VOUT, PORT_VSHUF: of the vector ports, those with the FP
 * multipliers (multiplies, FMA, compares, min/max, vector shifts: Intel's 0 and 1), with
 * the FP adders and the two-port shuffles (Golden Cove's 1 and 5), the one that moves to
 * general registers and flags (port 0: movd r32, xmm, movmsk, ucomis, cvt*2si), and the
 * one-port shuffles and moves from general registers (port 5); where the profile names
 * them (vec_mul_ports, vec_add_ports, vec_out_ports, vec_shuffle_ports). An instruction of
 * PORT_VOUT counts in PORT_VMUL too, one of PORT_VSHUF in PORT_VADD: with the vector
 * class, these counts are exact for Golden Cove's ports 0, 1 and 5.
 * PORT_DEPLOAD: of the load ports, those that take a load whose address comes from a
 * load's value (model_mark_dep_loads), where the profile names them (dep_load_ports).
 * PORT_VLOAD: of the load ports, those that take a load into a vector register, where the
 * profile names them (vec_load_ports).
 * PORT_VIN: of the vector ports, those that take a general register's value into a vector
 * register, where the profile names them (vec_in_ports).
 * PORT_VMULMIX, PORT_VADDMIX: with vec_zen_pipes, Zen 5's multiplying pipes (0, 1) and its
 * adding ones (2, 3), each with the shuffling class (pipes 1 and 2: PORT_VSHUF): a
 * multiply counts in PORT_VMUL and PORT_VMULMIX, an add in PORT_VADD and PORT_VADDMIX, a
 * shuffle in PORT_VSHUF and both unions. With the vector class, these counts are exact for
 * the four pipes (every union of the sets is one of them, or all four).
 * PORT_BRANCH: of the ALU ports, those that branch where they are not the shifting ones
 * (branch_ports: jcc, jmp, setcc, cmovcc), apart from PORT_SHIFT's.
 */
enum {
	PORT_ALU,
	PORT_LOAD,
	PORT_STORE,
	PORT_VEC,
	PORT_COMMIT,
	PORT_AGU,
	PORT_SHIFT,
	PORT_MUL,
	PORT_VMUL,
	PORT_VADD,
	PORT_VOUT,
	PORT_VSHUF,
	PORT_DEPLOAD,
	PORT_VLOAD,
	PORT_VIN,
	PORT_VMULMIX,
	PORT_VADDMIX,
	PORT_BRANCH,
	PORT_CLASSES
};

/* With vec_zen_pipes, the limit of a vector class and the shuffling one together. */
static inline unsigned model_mix_limit(const struct ipcc_model_profile *p, unsigned ports)
{
	return p->vec_zen_pipes && ports ? ports + 1 : 0; /* the shuffles take one pipe of it */
}

struct ipcc_model_program {
	struct minsn *insn;
	unsigned n, cap;
	bool harness; /* %harness: ipcc bench --block's registers and memory (parse.c) */
	char *pool;   /* the instructions' source texts, NUL-separated */
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
	int64_t where;	/* its address */
	uint64_t who;	/* the store */
	bool renamable; /* its data may be renamed into a load of the same address */
	bool offset;	/* its data carried a folded offset: not renamed into an add [m] */
	int64_t origin; /* the load its data came from through an operation issued (forward_trip) */
	bool slow;	/* one of forward_trip_slow's: a cycle more */
	bool vec;	/* its data is a vector register's (vector_forward_extra) */
	uint8_t size;	/* its bytes; 0: unknown */
};

struct dataflow {
	int64_t done[MODEL_NREGS];    /* each register's completion */
	uint64_t who[MODEL_NREGS];    /* and its writer */
	unsigned folded[MODEL_NREGS]; /* add/sub reg, imm folded in a row, per register */
	int32_t off[MODEL_NREGS];     /* the offset folded into each register, not yet added */
	bool elim[MODEL_NREGS];	      /* each register's writer was an eliminated move */
	bool now_folded;	      /* the instruction df_latency saw last was folded */
	int32_t fold_lim;	      /* the profile's fold_bits as a bound (0: none) */
	unsigned materialize;	      /* the profile's fold_materialize */
	unsigned logic_late;	      /* the profile's logic_flags_late */
	unsigned fused_late;	      /* the profile's fused_flags_late */
	unsigned flags_late[2];	      /* the flags' writer's: logic_late, fused_late or 0 */
	uint64_t flags_group[2];      /* the flags' writer's allocation group */
	/* ([0] the flags but the carry, [1] the carry: inc and dec write only the first) */
	struct mstore st[MODEL_STORES]; /* oldest first */
	unsigned nst;
	uint64_t st_regs;	  /* the live entries' address registers */
	uint8_t fpu[MODEL_NREGS]; /* each register's writer's FP unit */
	unsigned fp_bypass;	  /* the profile's: an FP add's wait for a multiply */
	bool renaming;		  /* the profile's memory_renaming */
	unsigned partial_extra;	  /* and its rename_partial_extra */
	bool within;		  /* a load within a store's bytes takes its data (forward_fail_) */
	unsigned wide;		  /* the profile's forward_wide_latency */
	unsigned fail;		  /* the profile's forward_fail_latency */
	unsigned trip, trip_slow; /* the profile's forward_trip, forward_trip_slow */
	unsigned extra, extra_vec; /* the profile's forward_extra, vector_forward_extra */
	unsigned trips;		   /* the stores that forward_trip bounds so far */
	int64_t lx[MODEL_NREGS];   /* the load each register's value came from issued (or NONE) */
	bool lmove[MODEL_NREGS];   /* ... that load's value, moved only */
};

/* No load: a register's value came from none (dataflow.lx). */
#define LX_NONE INT64_MIN

/* The dataflow's parameters from profile p. */
static inline void df_init(struct dataflow *d, const struct ipcc_model_profile *p)
{
	d->fp_bypass = p->fp_bypass;
	d->renaming = p->memory_renaming;
	d->partial_extra = p->rename_partial_extra;
	d->within = p->forward_fail_latency != 0;
	d->wide = p->forward_wide_latency;
	d->fail = p->forward_fail_latency;
	d->trip = p->forward_trip;
	d->trip_slow = p->forward_trip_slow;
	d->extra = p->forward_extra;
	d->extra_vec = p->vector_forward_extra;
	for (unsigned r = 0; r < MODEL_NREGS; r++)
		d->lx[r] = LX_NONE;
	d->fold_lim = p->fold_bits ? (int32_t)1 << (p->fold_bits - 1) : 0;
	d->materialize = p->fold_materialize;
	d->logic_late = p->logic_flags_late;
	d->fused_late = p->fused_flags_late;
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
 * max(q, the completion of every input of `in`, in allocation group grp); *who: the input
 * that set it, if any. A load-op's latency holds the load's; its data inputs (registers
 * other than the address's) meet the loaded value at the operation, so they are needed the
 * load's latency later. A renamed load gets the store's data without the load's latency: a
 * mov takes no cycle.
 */
static inline int64_t df_ready(const struct dataflow *d, const struct minsn *in, uint64_t grp,
			       int64_t q, uint64_t *who, int64_t *trip)
{
	uint64_t w = 0;
	uint64_t addr = in->mem & MEM_LOAD && !in->at_retire ? in->addr_regs : ~0ull;

	if (trip)
		*trip = INT64_MIN;
	const struct mstore *from = NULL; /* the store a load takes its data from */
	bool renamed = false;

	if (in->mem & MEM_LOAD)
		for (unsigned k = d->nst; k-- > 0 && !from;)
			if (mkey_equal(&d->st[k].key, &in->key) ||
			    (d->within &&
			     mkey_within(&in->key, in->size, &d->st[k].key, d->st[k].size)))
				from = &d->st[k];
	/*
	 * Renamed, the value comes from the store's data, not the cache, and its users wait
	 * for no address: the address is checked beside (mov rax, [rax]; mov [rdi], rax in
	 * the harness, one address, runs at 1 cycle on Zen 4).
	 */
	if (from && d->renaming && in->renamable && from->renamable &&
	    !(from->offset && in->rmw_alu) && mkey_equal(&from->key, &in->key) &&
	    !(d->wide && from->size && in->size > from->size))
		renamed = true;
	for (uint64_t m = in->reads; m; m &= m - 1) {
		int r = __builtin_ctzll(m);

		int64_t t = d->done[r];

		if (!(addr & (1ull << r)))
			t -= in->load_latency;
		else if (renamed)
			continue;
		if (in->slow_regs & (1ull << r))
			t += in->slow_extra;

		if (in->fpu == FPU_ADD && d->fpu[r] == FPU_MUL)
			t += d->fp_bypass;
		if (in->no_absorb && d->folded[r])
			t += d->materialize;
		if (t > q)
			q = t, w = d->who[r];
	}
	/*
	 * A condition in the allocation group of its flags' logical writer (and, or, xor,
	 * test) goes a cycle late, whatever input it waited for: test rdx, rdx; cmovne r12,
	 * rdx runs 2.00 cycles a loop, 1.67 with a nop between (the two share a group two
	 * iterations in three), 1.50 with two, 2.00 again with three (six micro-ops a loop:
	 * every iteration). The groups are the front end's W micro-ops in a row, across the
	 * loop's branch, not the cycles they are allocated in.
	 */
	if (in->cond && !(in->slow_regs & FLAG_REGS)) { /* a two-flag condition's own cycle */
		unsigned late = 0;

		for (int f = 0; f < 2; f++)
			if (in->reads >> (REG_FLAGS + f) & 1 && grp == d->flags_group[f] &&
			    d->flags_late[f] > late)
				late = d->flags_late[f];
		q += late;
	}
	if (from) {
		int64_t t = from->ready - (renamed ? (int64_t)in->load_latency : 0);

		/* a part merged or extended: one cycle for that, and partial_extra more */
		if (renamed && in->partial_load)
			t = from->ready + 1 + d->partial_extra - (int64_t)in->latency;

		/*
		 * Wider than the store it starts at: its data late (forward_wide_latency), and
		 * a failed forward's time after the store's address is known (mov rax, [rdx];
		 * mov byte ptr [rax], 0 runs 16.4 cycles a loop; with a qword store, which
		 * forwards, 1.00).
		 */
		if (d->wide && from->size && in->size > from->size &&
		    mkey_equal(&from->key, &in->key)) {
			/*
			 * the bytes it reads come from the cache once every store that wrote
			 * some of them has: an older one's data too (mov byte ptr [rsi], al;
			 * mov eax, [rdi]; mov [rsi + 1], eax, the load's four bytes from both
			 * stores: 18.0 cycles a loop on Emerald Rapids, 1 modelled before)
			 */
			for (unsigned k = 0; k < d->nst; k++)
				if (&d->st[k] != from && d->st[k].ready > t &&
				    mkey_overlaps(&in->key, in->size, &d->st[k].key, d->st[k].size))
					t = d->st[k].ready;
			t += (int64_t)d->wide;
			if (from->where + (int64_t)d->fail > t)
				t = from->where + (int64_t)d->fail;
			t -= (int64_t)in->load_latency;
		}

		/*
		 * Forwarded, not renamed: once the store's address is known too (mov edx, [r15];
		 * imul edx, edi; ...; lea rsi, [r14 + rdx*4]; mov dword ptr [rsi], 0, the next
		 * iteration's load of [r15] the store's: 13.0 cycles a loop on Emerald Rapids)
		 */
		if (!renamed && from->where > t)
			t = from->where;
		/* the forward's own time over the cache's (forward_extra) */
		if (!renamed)
			t += (int64_t)(from->vec ? d->extra_vec : d->extra);
		if (t > q)
			q = t, w = from->who;
		/*
		 * Forwarded a value that an operation made from a load (or a vector load's,
		 * moved): forward_trip after that load issued, at the soonest. *trip gets that
		 * time where the caller applies it itself (after it asked whether the load read
		 * another store's bytes early), else q does.
		 */
		if (!renamed && d->trip && from->origin != LX_NONE) {
			const int64_t f = from->origin + (int64_t)d->trip + from->slow;

			if (trip)
				*trip = f;
			else if (f > q)
				q = f, w = from->who;
		}
	}
	if (who)
		*who = w;
	return q;
}

/*
 * Whether `in` (a shift, a move into a vector register) must first add an offset folded
 * into one of its inputs: the profile's fold_materialize cycles, and a micro-op.
 */
static inline bool df_materializes(const struct dataflow *d, const struct minsn *in)
{
	if (!in->no_absorb || !d->materialize)
		return false;
	for (uint64_t m = in->reads & 0xffffull; m; m &= m - 1)
		if (d->folded[__builtin_ctzll(m)])
			return true;
	return false;
}

/*
 * The latency of `in` where the profile folds F add/sub reg, imm in a row (F > 1): 0 where
 * it folds, the offset it carries then kept within the profile's fold_bits; an add into a
 * register that an eliminated move wrote does not fold there.
 */
static inline unsigned df_latency(struct dataflow *d, const struct minsn *in, unsigned F)
{
	d->now_folded = false;
	if (in->fold && F > 1) {
		const int r = __builtin_ctzll(in->writes & ~FLAG_REGS);
		const int src = in->fold_src >= 0 ? in->fold_src : r;
		const int64_t off = (int64_t)d->off[src] + in->fold_off;
		const unsigned n = d->folded[src];

		if (n + 1 < F && !(d->fold_lim && (off < -d->fold_lim || off >= d->fold_lim)) &&
		    !(src == r && d->elim[r] && d->fold_lim)) {
			d->folded[r] = n + 1;
			d->off[r] = (int32_t)off;
			d->now_folded = true;
			return 0;
		}
		d->folded[r] = 0;
		d->off[r] = 0;
	}
	return in->latency;
}

/*
 * Dynamic instruction g (`in`, allocated at s, in allocation group grp) completes at c: its
 * stores and writes.
 */
static inline void df_complete(struct dataflow *d, const struct minsn *in, int64_t s, uint64_t grp,
			       int64_t c, uint64_t g)
{
	if (in->mem & MEM_STORE) {
		struct mstore e = { .key = in->key,
				    .regs = mkey_regs(&in->key),
				    .ready = c,
				    .where = s,
				    .who = g,
				    .renamable = in->renamable,
				    .size = in->size };
		unsigned k;

		for (uint64_t m = in->addr_regs & in->reads & ~(1ull << REG_HARNESS); m; m &= m - 1)
			if (d->done[__builtin_ctzll(m)] > e.where)
				e.where = d->done[__builtin_ctzll(m)];

		e.origin = LX_NONE;
		for (uint64_t m = in->data & ((1ull << MODEL_NREGS) - 1); m; m &= m - 1)
			e.vec |= __builtin_ctzll(m) >= REG_VEC0 && __builtin_ctzll(m) < REG_FLAGS;
		if (in->plain_store) {
			bool moved = true, vec = false;

			/* a general register's load stored as it is forwards at the load's
			 * latency (5.00 on Emerald Rapids); a vector load's, or a value an
			 * operation made, forward_trip after the load */
			for (uint64_t m = in->data & ((1ull << MODEL_NREGS) - 1); m; m &= m - 1) {
				const int r = __builtin_ctzll(m);

				if (d->lx[r] > e.origin)
					e.origin = d->lx[r];
				moved &= d->lmove[r];
				vec |= r >= REG_VEC0 && r < REG_FLAGS;
			}
			if (vec ? !moved : moved)
				e.origin = LX_NONE;
			e.ready = s;
			/* a folded value stored: an add (sub, and ...) into it is not renamed
			 * (add qword ptr [rax], 1 after lea r12, [r13 - 1]; mov [rax], r12: 7.56
			 * a loop, each alone 1.00; with inc qword ptr [rax], renamed, 1.23) */
			for (uint64_t m = in->data; m; m &= m - 1)
				e.offset |= d->off[__builtin_ctzll(m)] != 0;
			for (uint64_t m = in->data; m; m &= m - 1)
				if (d->done[__builtin_ctzll(m)] > e.ready)
					e.ready = d->done[__builtin_ctzll(m)];
		} else if (in->rmw_alu && in->mem & MEM_LOAD && !in->at_retire) /* add [m], r ... */
			e.origin = c - (int64_t)in->latency;
		if (e.origin != LX_NONE && d->trip_slow)
			e.slow = ++d->trips % d->trip_slow == 0;
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
	/* the load the written registers' values come from (forward_trip) */
	int64_t lx = LX_NONE;
	bool lmove = false;

	if (d->trip && in->mem & MEM_LOAD && !in->at_retire) {
		lx = c - (int64_t)in->latency;
		lmove = in->move;
	} else if (d->trip) {
		for (uint64_t m = in->reads & ((1ull << MODEL_NREGS) - 1); m; m &= m - 1) {
			const int r = __builtin_ctzll(m);

			if (d->lx[r] > lx)
				lx = d->lx[r], lmove = d->lmove[r];
		}
		lmove &= in->move || in->eliminated;
	}
	for (uint64_t m = in->writes; m; m &= m - 1) {
		int r = __builtin_ctzll(m);

		if (r < MODEL_NREGS)
			d->lx[r] = lx, d->lmove[r] = lmove;
		d->done[r] = c + (r == 2 ? (int64_t)in->rdx_extra : 0); /* rdx */
		d->who[r] = g;
		d->fpu[r] = in->fpu;
		d->elim[r] = in->eliminated;
		/*
		 * an eliminated 64-bit move shares its source's register and its offset: a shift
		 * of the copy adds it first (mov rsi, rbx; add rbx, 1; shl rsi, 4 1.54 cycles a
		 * loop on Emerald Rapids, 1.00 modelled without; mov esi, ebx: 1.00)
		 */
		if (in->move_from && in->move_from - 1 != r)
			d->folded[r] = d->folded[in->move_from - 1],
			d->off[r] = d->off[in->move_from - 1];
		else if (!in->fold)
			d->folded[r] = 0, d->off[r] = 0;
	}
	if (in->writes & FLAG_REGS) {
		/* a folded add's flags are computed: its latency after its value */
		for (int f = 0; f < 2 && d->now_folded; f++)
			if (in->writes >> (REG_FLAGS + f) & 1)
				d->done[REG_FLAGS + f] = c + in->latency;
		const unsigned late = in->logic_flags	? d->logic_late
				      : in->fused_flags ? d->fused_late
							: 0;

		for (int f = 0; f < 2; f++)
			if (in->writes >> (REG_FLAGS + f) & 1)
				d->flags_late[f] = late, d->flags_group[f] = grp;
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
