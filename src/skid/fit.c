/*
 * skid/fit.c - a pipeline-model profile fitted to the machine at hand: each parameter the
 * microkernels reveal, measured here, replaces the base profile's (fit.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/block.h"
#include "ipcc/fit.h"
#include "ipcc/kernels.h"
#include "ipcc/model.h"
#include "ipcc/model_backend.h"

/* The working sets that depend on the base profile's TLBs and this machine's L2. */
enum fit_size {
	SZ_FIXED,      /* `size` */
	SZ_DTLB_HALF,  /* a line chase over half the first-level TLB's pages: L2, no TLB miss */
	SZ_DTLB_FOUR,  /* a page chase over 4x its pages: each load misses it, hits the second */
	SZ_STLB_THREE, /* ... over 3x the second level's: each a walk, its line in L2 */
	/*
	 * a page-start chase over 4x L2 / 4 KiB pages: the LLC serves. Not 2x: on a Zen 5
	 * guest (a 1 MiB L2) a chase of 512 page starts took 21 cycles a load, 1,024 took 43.
	 */
	SZ_L2_FOUR,
	SZ_L2_HALF /* streams over half of L2: L2 serves */
};

/* What one parameter is measured with. */
enum derive {
	D_CYCLES_PER_OP, /* the kernel's fewest cycles per op, rounded */
	D_RECOVERY,	 /* the recovery with which the model runs branch_body as measured */
	D_FOLD,		 /* ops per cycle of a dependent add-immediate chain: folding when >= 1.5,
			    the fold_imm with which the model runs the chain nearest */
	D_WIDTH,	 /* ops per cycle, rounded */
	D_EXCESS,	 /* cycles per op less the two rows before it measured, rounded */
	D_MINUS,	 /* cycles per op less the fitted figure of the key at `minus` */
	D_CALL,		 /* call.pointer's cycles less its return's and branch's taken cycles */
	D_FILL,		 /* bytes a cycle L1 fills from L2: a line per cycles the triad (3
			    lines filled and 1 written back) takes over the copy (2 and 1),
			    the copy's row measuring it */
	D_WB,		 /* bytes a cycle L1 writes back: a line per cycles the copy takes
			    over its two fills at the fitted fill rate */
	D_BLOCK,	 /* a basic block (`kernel` is its hex) timed as ipcc bench --block times
			    it: the value, 0 to `ops`, with which the model runs it as measured */
	D_BLOCK_UNITS,	 /* the same from 1: a count of units, which at 0 the model would not
			    bound at all */
	D_BLOCK_EXCESS,	 /* the same: the cycles it takes over the model's with the key at 1,
			    plus 1 (for a key of thousands of cycles; at most `ops`) */
	D_LSD		 /* loops of nops, LSD_FIRST to LSD_LAST micro-ops with the loop's
			    dec/jnz: those that take ceil(N / width) cycles, not N / width (a
			    set of micro-op counts: the row shows how many) */
};

static const struct {
	const char *param, *kernel;
	enum derive how;
	double ops; /* per iteration, for D_CYCLES_PER_OP, D_FOLD and D_WIDTH */
	size_t offset;
	uint64_t size;	     /* the working set of a sized kernel (0: its default) */
	enum fit_size sized; /* or a size from the TLBs and L2 (fit_size()) */
	size_t minus;	     /* D_MINUS: the key whose figure comes off */
	/*
	 * D_BLOCK: the row's block with its load's value unused. Where it takes half the row's
	 * cycles or more, the load is held up, a failed forward, and the key (a latency for a
	 * load that is not held up) is 0.
	 */
	const char *held;
} params[IPCC_FIT_ROWS] = {
	/* The model's mov load takes load_latency: the chase's cycles. */
	{ "load_latency", "chain.load", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, load_latency) },
	{ "mul_latency", "chain.mul", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, mul_latency) },
	{ "lock_latency", "atomic.lock_add", D_CYCLES_PER_OP, 1,
	  offsetof(struct ipcc_model_profile, lock_latency) },
	{ "recovery", "branch.random", D_RECOVERY, 1,
	  offsetof(struct ipcc_model_profile, recovery) },
	{ "fadd_latency", "chain.fadd", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, fadd_latency) },
	{ "fmul_latency", "chain.fmul", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, fmul_latency) },
	/* A mulsd-addsd pair's cycles less the add's and the multiply's own. */
	{ "fp_bypass", "chain.fmuladd", D_EXCESS, 4,
	  offsetof(struct ipcc_model_profile, fp_bypass) },
	{ "fold_imm", "chain.add_imm", D_FOLD, 8, offsetof(struct ipcc_model_profile, fold_imm) },
	/*
	 * The memory hierarchy as the model backend charges it (load to use, each on top of
	 * the one before): L2 from a line chase within the first TLB's reach; a first-level
	 * TLB miss that the second holds, a page walk whose line L2 holds, and the LLC from
	 * page chases (pages.spread, pages.start). On a Granite Rapids-class guest:
	 * 16, 12 - 5, 66 - 16, 137 - 7.
	 */
	{ "l2_latency", "latency", D_CYCLES_PER_OP, 8,
	  offsetof(struct ipcc_model_profile, l2_latency), 0, SZ_DTLB_HALF, 0 },
	{ "stlb_latency", "pages.spread", D_MINUS, 8,
	  offsetof(struct ipcc_model_profile, stlb_latency), 0, SZ_DTLB_FOUR,
	  offsetof(struct ipcc_model_profile, load_latency) },
	{ "walk_latency", "pages.spread", D_MINUS, 8,
	  offsetof(struct ipcc_model_profile, walk_latency), 0, SZ_STLB_THREE,
	  offsetof(struct ipcc_model_profile, l2_latency) },
	{ "llc_latency", "pages.start", D_MINUS, 8,
	  offsetof(struct ipcc_model_profile, llc_latency), 0, SZ_L2_FOUR,
	  offsetof(struct ipcc_model_profile, stlb_latency) },
	/*
	 * Two different branches taken an iteration (branch.always: a forward jz over one add,
	 * and the loop's jnz): 2.005 cycles on Emerald Rapids (one taken branch a cycle), 1.10
	 * on a Granite Rapids-class core (two; the empty loop's one branch still 1.00: one
	 * branch once a cycle, as the model backend's limit counts). Where the base profile
	 * has a loop buffer, the figure is its loop_taken_per_cycle (field_of()), and where
	 * the kernel runs at 2 a cycle or near it, its chain's pace, the base's figure of 2 or
	 * more stands (LOOP_TAKEN_AT_LEAST).
	 */
	{ "taken_per_cycle", "branch.always", D_WIDTH, 2,
	  offsetof(struct ipcc_model_profile, taken_per_cycle) },
	/*
	 * call rdx; ret; the loop's branch: the cycles an indirect call takes the front end,
	 * 4.0 on Emerald Rapids and a Granite Rapids-class core: the return and the branch lie
	 * in them (a loop's floor is the largest of its taken branches', its indirect calls'
	 * and its calls' and returns' sums: account.c trace_run())
	 */
	{ "indirect_call_cycles", "call.pointer", D_CALL, 1,
	  offsetof(struct ipcc_model_profile, indirect_call_cycles) },
	/*
	 * The triad over half of L2: for each 64 bytes of each stream L1 fills three lines (two
	 * streams read, one written) and evicts one written line; the copy (16 bytes of each
	 * of its two streams an iteration) fills two and evicts one. The triad takes 5.77
	 * cycles a line here and the copy 5.04 (4 x 1.26): a fill 0.73 cycles (88 bytes a
	 * cycle) and a write-back 5.04 - 2 x 0.73 = 3.58 (18). One rate for both (256 bytes
	 * the triad's 5.77 cycles, 44) put the copy at 1.09 cycles, 13% under; apart they
	 * give loops not fitted to them nearer: stores alone to a line (a fill for
	 * ownership, a write-back) 3.85 cycles measured, 4.31 (one rate: 2.9); two such
	 * streams 8.9, 8.6 (5.8). With streaming stores, 64 bytes leave for memory past the
	 * caches: 64 / 12.4.
	 */
	{ "l2_bytes_per_cycle", "bandwidth.triad", D_FILL, 64,
	  offsetof(struct ipcc_model_profile, l2_bytes_per_cycle), 0, SZ_L2_HALF, 0 },
	{ "l2_wb_bytes_per_cycle", "bandwidth.copy", D_WB, 64,
	  offsetof(struct ipcc_model_profile, l2_wb_bytes_per_cycle), 0, SZ_L2_HALF, 0 },
	{ "nt_bytes_per_cycle", "bandwidth.triad_nt", D_WIDTH, 64,
	  offsetof(struct ipcc_model_profile, nt_bytes_per_cycle), 0, SZ_L2_HALF, 0 },
	/*
	 * Blocks, after the rows above (the model that reads them has their figures): movsd
	 * xmm0, [rax]; movq rax, xmm0 / lea rax, [rcx+rax*8] / imul rcx; mov rax, rdx / mov
	 * [rsi], rax; mov rbx, [rsi+4] (the store does not hold the load) / mov [rsi], eax; mov
	 * rax, [rsi] (a load wider than the store it starts at), each in the harness's loop;
	 * then the forwards' and the crossing's extra cycles.
	 */
	{ "vector_load_latency", "f20f100066480f7ec0", D_BLOCK, 30,
	  offsetof(struct ipcc_model_profile, vector_load_latency) },
	{ "lea_scale_latency", "488d04c1", D_BLOCK, 10,
	  offsetof(struct ipcc_model_profile, lea_scale_latency) },
	{ "mul_high_latency", "48f7e94889d0", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, mul_high_latency) },
	{ "forward_fail_latency", "488906488b5e04", D_BLOCK, 60,
	  offsetof(struct ipcc_model_profile, forward_fail_latency) },
	/*
	 * mov [rsi], eax; mov rbx, [rsi] (rbx unused): 1.00 cycle on Emerald Rapids, the wider
	 * load not held up; 13.99 on a Zen 5 guest, where it fails as any other (0)
	 */
	{ "forward_wide_latency", "8906488b06", D_BLOCK, 60,
	  offsetof(struct ipcc_model_profile, forward_wide_latency), 0, SZ_FIXED, 0, "8906488b1e" },
	/*
	 * mov [rdi], rax; mov eax, [rsi + 4] (a forward, not renamed: 7.00 cycles a loop on a
	 * Zen 5 guest, the load 4) / movdqu [rdi], xmm0; movdqu xmm0, [rsi] (8.98, the vector
	 * load 7) / movq xmm0, rax; movq rax, xmm0 (7.0-9.0 there, the table's 2 each)
	 */
	{ "forward_extra", "4889078b4604", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, forward_extra) },
	{ "vector_forward_extra", "f30f7f07f30f6f06", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, vector_forward_extra) },
	{ "from_gpr_extra", "66480f6ec066480f7ec0", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, from_gpr_extra) },
	/*
	 * Four independent shl reg, 5 and the loop's dec/jnz (a branch): 2.48 cycles on a
	 * Granite Rapids-class core, five on two ports. Four imul rax..rdx, rsi (3-cycle
	 * chains): 4.00, one port. 0 where every ALU port does them.
	 */
	{ "shift_ports", "48c1e00548c1e30548c1e10548c1e205", D_BLOCK, 4,
	  offsetof(struct ipcc_model_profile, shift_ports) },
	{ "mul_ports", "480fafc6480fafde480fafce480fafd6", D_BLOCK, 4,
	  offsetof(struct ipcc_model_profile, mul_ports) },
	/*
	 * Four independent vmulps, vaddps, vmovmskpd, vpalignr xmm: 2.00, 2.00, 4.00, 4.00
	 * cycles there (two multiplying ports, two adding, one out, one shuffling); the out
	 * and shuffle rows after the others, whose classes hold theirs. On a Zen 5 guest
	 * vpalignr is of the class on one multiplying and one adding pipe (vec_zen_pipes):
	 * 2.00, as vmulps and vaddps.
	 */
	{ "vec_mul_ports", "c5d059cec5d059d6c5d059dec5d059e6", D_BLOCK, 4,
	  offsetof(struct ipcc_model_profile, vec_mul_ports) },
	{ "vec_add_ports", "c5d058cec5d058d6c5d058dec5d058e6", D_BLOCK, 4,
	  offsetof(struct ipcc_model_profile, vec_add_ports) },
	{ "vec_out_ports", "c5f950c5c5f950ddc5f950cdc5f950d5", D_BLOCK, 4,
	  offsetof(struct ipcc_model_profile, vec_out_ports) },
	{ "vec_shuffle_ports", "c4e3510fce01c4e3510fd601c4e3510fde01c4e3510fe601", D_BLOCK, 4,
	  offsetof(struct ipcc_model_profile, vec_shuffle_ports) },
	/*
	 * Twenty independent movzx r32, r12w and the loop's branch: 21 ALU micro-ops, 4.23
	 * cycles on a Granite Rapids-class core (five ports; six movzx or six cmp 1.40). So
	 * many that the ports, not the allocation width, set the pace with or without the
	 * base's fusion of dec/jnz. Not mov reg, imm: 80 of them ran at 5.7 a cycle there,
	 * more than its ALUs do any other op.
	 */
	{ "alu_ports",
	  "410fb7c4410fb7dc410fb7cc410fb7d4410fb7f4410fb7fc450fb7c4450fb7cc450fb7d4450fb7dc"
	  "410fb7c4410fb7dc410fb7cc410fb7d4410fb7f4410fb7fc450fb7c4450fb7cc450fb7d4450fb7dc",
	  D_BLOCK_UNITS, 8, offsetof(struct ipcc_model_profile, alu_ports) },
	/*
	 * Three stores of a general register to two lines (mov [rbp - 0x68], rdi; mov [rbp -
	 * 0x78], rdi; mov [rbp + 0x78], rdi) and two mov r32, imm: 1.50 cycles a loop on a Zen
	 * 5 guest, two store ports. Before stop 76 the triad in the L1 (four 16-byte stores an
	 * iteration, its loads beside them) fitted this, and gave 1.15 stores a cycle there:
	 * one port, where Golden Cove's 1.28 had proved two.
	 */
	{ "store_ports", "48897d9848897d8848897d78b801000000bb01000000", D_BLOCK_UNITS, 4,
	  offsetof(struct ipcc_model_profile, store_ports) },
	/*
	 * Three stores of a general register (mov [rbp - 0x68], rdi ...) and eight independent
	 * movzx r32, bx: 2.09 cycles a loop on a Zen 5 guest, where each store takes an ALU
	 * micro-op (12 of six ALUs' 2.00; the eight movzx alone 1.53). The model with the key
	 * at 0 runs it at 1.67, at 1 2.17: it counts the loop's jcc as an ALU op on Zen 5.
	 */
	{ "store_alu",
	  "48897d9848897d8848897db80fb7c30fb7cb0fb7d3440fb7c3440fb7cb440fb7d3440fb7db440fb7e3",
	  D_BLOCK, 1, offsetof(struct ipcc_model_profile, store_alu) },
	/*
	 * cpuid (leaf 0x20000000, the harness's eax: past the last, as good as any): a trap to
	 * the hypervisor in a guest, 3,300 cycles on an Emerald Rapids guest, 23,400 on a
	 * Granite Rapids-class one.
	 */
	{ "cpuid_cycles", "0fa2", D_BLOCK_EXCESS, 10000000,
	  offsetof(struct ipcc_model_profile, cpuid_cycles) },
	/*
	 * Accesses across a line or a page of the harness's page-aligned address: three
	 * movdqu xmm, [reg - 0x42] (line splits) 3.20 cycles on a Granite Rapids-class core;
	 * mov rax, [rdi - 4] (a page split) 3.32; mov [rdi + 0x3c], rax 2.00; mov [rdi - 4],
	 * rax 25.0.
	 */
	{ "split_load_cycles", "f30f6f4fbef30f6f56bef30f6f5abe", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, split_load_cycles) },
	{ "page_split_load_cycles", "488b47fc", D_BLOCK, 100,
	  offsetof(struct ipcc_model_profile, page_split_load_cycles) },
	{ "split_store_cycles", "4889473c", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, split_store_cycles) },
	{ "page_split_store_cycles", "488947fc", D_BLOCK, 200,
	  offsetof(struct ipcc_model_profile, page_split_store_cycles) },
	/*
	 * A condition's flags from a logical operation, or from the loop's fused dec, jnz, in
	 * its allocation group: test rdx, rdx; cmovne r12, rdx 2.00 cycles on a Granite
	 * Rapids-class core, cmovne r12, rdx alone 1.67 (1.00 each with the key at 0).
	 */
	{ "logic_flags_late", "4885d24c0f45e2", D_BLOCK, 10,
	  offsetof(struct ipcc_model_profile, logic_flags_late) },
	{ "fused_flags_late", "4c0f45e2", D_BLOCK, 10,
	  offsetof(struct ipcc_model_profile, fused_flags_late) },
	/*
	 * mov rax, r12; and rax, 7 and four nops: 1.00 cycle a loop where the move and the and
	 * take one slot (a Granite Rapids-class core), 1.17 where they take two (six a cycle).
	 */
	{ "fuse_mov_alu", "4c89e04883e00790909090", D_BLOCK, 1,
	  offsetof(struct ipcc_model_profile, fuse_mov_alu) },
	/*
	 * Three loads from [rsi], [rdi + 0x40], [rdx + 0x80], one bank of the L1 (the harness's
	 * registers hold one page-aligned address): 1.51 cycles a loop on a Granite
	 * Rapids-class core, two a cycle (three a cycle, 1.00, where the banks take them).
	 */
	{ "loads_per_bank", "488b06488b5f40488b8a80000000", D_BLOCK, 3,
	  offsetof(struct ipcc_model_profile, loads_per_bank) },
	/*
	 * A chain of five loads, each address the load before's value (mov rax, [rbx]; mov rcx,
	 * [rax + 8]; ... mov r8, [rdi + 32]): 2.08-2.13 cycles a loop on Emerald Rapids, two
	 * such loads a cycle (1.67 where the three load ports took them).
	 */
	{ "dep_load_ports", "488b03488b4808488b7110488b7e184c8b4720", D_BLOCK_UNITS, 3,
	  offsetof(struct ipcc_model_profile, dep_load_ports) },
	/*
	 * The same chain on the ports that row fitted: a little over two such loads a cycle
	 * measured (2.08-2.13 cycles, not 2.00) is a port fewer one cycle in 13-8.
	 */
	{ "dep_load_gap", "488b03488b4808488b7110488b7e184c8b4720", D_BLOCK, 16,
	  offsetof(struct ipcc_model_profile, dep_load_gap) },
	/*
	 * Four loads and a store to five lines of the page: the addresses a cycle, loads and
	 * stores together (1.25 cycles a loop on a Zen 5 guest, four; three loads and a store
	 * 1.00, four loads and two stores 1.50). One store, so that a machine's one store
	 * port does not bind.
	 */
	{ "agu_ports", "488b8500ffffff488b8d80feffff488b9500feffff4c8b8580fdffff4c898d80fbffff",
	  D_BLOCK_UNITS, 8, offsetof(struct ipcc_model_profile, agu_ports) },
	/*
	 * Six movsd loads into vector registers, from one line: 3.00 cycles a loop on a Zen 5
	 * guest, two such loads a cycle (four into general registers 1.00; the load ports' own
	 * count where every load port takes them)
	 */
	{ "vec_load_ports",
	  "f2410f1000f2410f104808f2410f105010f2410f105818f2410f106020f2410f106828", D_BLOCK_UNITS,
	  4, offsetof(struct ipcc_model_profile, vec_load_ports) },
	/*
	 * add qword ptr [rdi + rbx], rcx, chained through memory (indexed: not renamed): a
	 * load forwarded a value an operation made, 7.28-7.37 cycles a loop on Emerald Rapids
	 * (6, the load's latency and the add's, where nothing more holds it); 7 and one forward
	 * in three a cycle more.
	 */
	{ "forward_trip", "48010c1f", D_BLOCK, 20,
	  offsetof(struct ipcc_model_profile, forward_trip) },
	{ "forward_trip_slow", "48010c1f", D_BLOCK, 10,
	  offsetof(struct ipcc_model_profile, forward_trip_slow) },
	/*
	 * mov [rsi + 0x40], rax; lock add qword ptr [rbx], 1: the lock waits for the store to
	 * reach the cache, 25.5 cycles a loop on a Granite Rapids-class core (18.0 alone, after
	 * the lock_latency row).
	 */
	{ "store_drain_cycles", "48894640f048830301", D_BLOCK, 100,
	  offsetof(struct ipcc_model_profile, store_drain_cycles) },
	/*
	 * vmovsd xmm0, [rdx]; vcvtsi2sd xmm1, xmm1, rdx; vmulsd xmm2, xmm0, xmm1: a subnormal
	 * (the harness's memory as a double) times a normal number, a microcode assist: 125.3
	 * cycles a loop on a Granite Rapids-class core.
	 */
	{ "fp_assist_cycles", "c5fb1002c4e1f32acac5fb59d1", D_BLOCK_EXCESS, 100000,
	  offsetof(struct ipcc_model_profile, fp_assist_cycles) },
	/*
	 * fld qword ptr [rsi]; fstp st(0): the harness's double, a subnormal, converted with an
	 * assist: 221-222 cycles a loop on Emerald Rapids (213 fitted).
	 */
	{ "x87_denormal_cycles", "dd06ddd8", D_BLOCK_EXCESS, 100000,
	  offsetof(struct ipcc_model_profile, x87_denormal_cycles) },
	/*
	 * fadd st(0), st(0), the stack empty at the start: the first underflows and leaves a
	 * QNaN, on which every later one computes with an assist: 410 cycles a loop there.
	 */
	{ "x87_nan_cycles", "d8c0", D_BLOCK_EXCESS, 100000,
	  offsetof(struct ipcc_model_profile, x87_nan_cycles) },
	/*
	 * mov ecx, 64; xor eax, eax; mov rdi, r13; rep stosq: a run of 512 bytes in qwords:
	 * 41 cycles a loop on Emerald Rapids (no short path: 33.0 from 8 to 256 bytes), 44.0
	 * on a Zen 5 guest. Then the same of 11 (88 bytes), under 128: 33.0 there, 15.0 on the
	 * Zen 5 guest (its short path for wide runs).
	 */
	{ "rep_wide_cycles", "b94000000031c04c89eff348ab", D_BLOCK, 1000,
	  offsetof(struct ipcc_model_profile, rep_wide_cycles) },
	{ "rep_wide_short_cycles", "b90b00000031c04c89eff348ab", D_BLOCK, 1000,
	  offsetof(struct ipcc_model_profile, rep_wide_short_cycles) },
	/*
	 * Loops of 4-byte nops (nop dword ptr [rax]) and the loop's dec/jnz, 7 to 40 micro-ops:
	 * on Emerald Rapids 9, 10, 11 and 17 run 2.00 and 3.00 cycles an iteration, the rest
	 * N / 6 (the loop stream detector unrolls those).
	 */
	{ "lsd_no_unroll", "nop loops, 7-40 micro-ops", D_LSD, 0,
	  offsetof(struct ipcc_model_profile, lsd_no_unroll) },
};

enum { LSD_FIRST = 7, LSD_LAST = 40 };

/* How many loop sizes a set of the loop stream detector's holds, as a row shows it. */
static unsigned lsd_count(uint64_t set)
{
	return (unsigned)__builtin_popcountll(set);
}

/*
 * The branch kernel's loop (kernels_x86_64.S) in the model's text, its branch mispredicted
 * half the time as on branch.random's random pattern; and the same loop with its branch
 * always predicted.
 */
#define BRANCH_LOOP(jz_note)                                                                  \
	".Lloop:\nmovzx eax, byte ptr [r9 + r8]\ntest eax, eax\njz .L2" jz_note "\nadd rdx, " \
	"1\n.L2:\nadd r8, 1\nand r8, r10\nsub rdi, 1\njnz .Lloop\n"
static const char branch_body[] = BRANCH_LOOP(" ; mispredict=0.5");
static const char branch_body_predicted[] = BRANCH_LOOP("");

/*
 * The model's cycles per iteration of `body` with profile p and recovery r; NAN if it
 * cannot run.
 */
static double body_cycles(const char *body, const struct ipcc_model_profile *p, unsigned r)
{
	struct ipcc_model_profile q = *p;
	struct ipcc_model_program *prog;
	struct ipcc_model_result res;
	struct ipcc_model_error err;
	double c = NAN;

	q.recovery = r;
	if (ipcc_model_parse(body, &q, &prog, &err))
		return NAN;
	if (!ipcc_model_run(prog, &q, &(struct ipcc_model_opts){ 400, 200, false }, &res)) {
		c = res.summary.cycles_per_iteration;
		ipcc_model_result_release(&res);
	}
	ipcc_model_program_free(prog);
	return c;
}

static double branch_cycles(const struct ipcc_model_profile *p, unsigned r)
{
	return body_cycles(branch_body, p, r);
}

/*
 * The recovery with which the model runs branch.random's loop at `cycles` an iteration:
 * the whole penalty less what the model already charges before the branch resolves (its
 * load and test). Bisection: the model's cycles grow with recovery. NAN if none in 0..1000.
 */
static double fit_recovery(const struct ipcc_model_profile *p, double cycles)
{
	unsigned lo = 0, hi = 1000;

	if (!(branch_cycles(p, lo) <= cycles) || !(branch_cycles(p, hi) >= cycles))
		return NAN;
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (branch_cycles(p, mid) < cycles)
			lo = mid;
		else
			hi = mid;
	}
	return cycles - branch_cycles(p, lo) < branch_cycles(p, hi) - cycles ? lo : hi;
}

/*
 * What the mispredicts add to the loop: branch.random's cycles less branch.always's, each
 * the fewest of the rounds, on the model's loop with the branch predicted. The model's loop
 * follows no limit on taken branches; the machine's do (Emerald Rapids: branch.always 2.00
 * cycles, the model's loop 1.00), and the model backend adds them on top: fitted to
 * branch.random's whole cycles, recovery was 2 cycles high there (21 where this fits 19).
 */
int ipcc_fit_recovery(const struct ipcc_model_profile *p, double random_cycles,
		      double always_cycles, unsigned *value)
{
	double target = random_cycles, v;

	if (isfinite(always_cycles))
		target += body_cycles(branch_body_predicted, p, 0) - always_cycles;
	v = fit_recovery(p, target);
	if (!isfinite(v))
		return err_set(IPCC_EINVAL, "no recovery runs branch.random's loop at %.2f cycles",
			       target);
	*value = (unsigned)v;
	return 0;
}

/*
 * Rounds of measurement: every kernel once a round, each row's figure from its best round.
 * A disturbance on a shared machine outlasts one kernel's measurement (~2 ms), so one round
 * alone let it through: a fit read branch.random at 17.2 cycles an iteration where 16.0 is
 * right, and fitted a recovery 2 cycles high.
 */
#define FIT_ROUNDS 3

/*
 * Whether run a of a kernel is better than run b: fewer cycles; for a penalty (a
 * difference of two kernels' runs, below zero on a loaded machine), one above zero first.
 */
static bool better(const struct ipcc_bench_point *a, const struct ipcc_bench_point *b, bool penalty)
{
	if (penalty && (a->value > 0) != (b->value > 0))
		return a->value > 0;
	return a->cycles_best < b->cycles_best;
}

/*
 * Where a row's figure goes in p: branch.always's taken branches a cycle are the loop
 * buffer's where the base profile has one (the kernel's loop is small: a Granite
 * Rapids-class core follows three taken branches a cycle there, one in larger code).
 */
/* branch.always at 2 taken branches a cycle, within 15%: its chain's pace, not the buffer's */
#define LOOP_TAKEN_AT_LEAST 1.7

static bool loop_buffer_row(const struct ipcc_model_profile *p, int i)
{
	return params[i].offset == offsetof(struct ipcc_model_profile, taken_per_cycle) &&
	       p->loop_taken_per_cycle;
}

static unsigned *field_of(struct ipcc_model_profile *p, int i)
{
	if (loop_buffer_row(p, i))
		return &p->loop_taken_per_cycle;
	return (unsigned *)(void *)((char *)p + params[i].offset);
}

/* A row's figure in the profile: the key, or (D_LSD) how many loop sizes its set holds. */
static unsigned row_value(const struct ipcc_model_profile *p, int i)
{
	return params[i].how == D_LSD ? lsd_count(p->lsd_no_unroll)
				      : *field_of((struct ipcc_model_profile *)p, i);
}

/* A loop of `uops` micro-ops: uops - 1 four-byte nops, the harness's dec/jnz the last. */
static void lsd_block(unsigned uops, char *hex, size_t len)
{
	size_t off = 0;

	for (unsigned k = 1; k < uops && off + 9 <= len; k++, off += 8)
		memcpy(hex + off, "0f1f4000", 8);
	hex[off] = 0;
}

/* The model's cycles per iteration of lifted block `text` with profile p; NAN if none. */
static double block_cycles(const char *text, const struct ipcc_model_profile *p)
{
	struct ipcc_model_program *prog;
	struct ipcc_model_result res;
	struct ipcc_model_error err;
	double c = NAN;

	if (ipcc_model_parse_mode(text, p, IPCC_MODEL_LENIENT, &prog, &err))
		return NAN;
	if (!ipcc_model_run(prog, p, &(struct ipcc_model_opts){ 0 }, &res)) {
		c = res.summary.cycles_per_iteration;
		ipcc_model_result_release(&res);
	}
	ipcc_model_program_free(prog);
	return c;
}

int ipcc_fit_block_key(const struct ipcc_model_profile *p, const char *key, const char *hex,
		       double cycles, unsigned max, unsigned *value, double *predicted)
{
	struct ipcc_model_profile q = *p;
	struct ipcc_block b;
	char *text = NULL;
	double best = INFINITY;
	int i = 0;

	while (i < IPCC_FIT_ROWS && strcmp(params[i].param, key))
		i++;
	if (i == IPCC_FIT_ROWS)
		return err_set(IPCC_EINVAL, "no profile key '%s' is fitted", key);
	if (ipcc_block_parse_hex(hex, &b) || ipcc_block_lift(&b, &text))
		return err_set(IPCC_EINVAL, "block %s: %s", hex, ipcc_last_error());
	for (unsigned v = params[i].how == D_BLOCK_UNITS; v <= max; v++) {
		double c;

		*field_of(&q, i) = v;
		c = block_cycles(text, &q);
		if (isfinite(c) && fabs(c - cycles) < best - 1e-9) { /* the least v of the best */
			best = fabs(c - cycles);
			*value = v;
			*predicted = c;
		}
	}
	free(text);
	return isfinite(best) ? 0 : err_set(IPCC_EINVAL, "the model cannot run block %s", hex);
}

/* The fewest cycles per iteration of block `hex` as ipcc bench --block times it; NAN: none. */
static double block_measured(const char *hex, char *why, size_t len)
{
	struct ipcc_block b;
	struct ipcc_block_result r;

	if (ipcc_block_parse_hex(hex, &b) ||
	    ipcc_block_measure(&b, &(struct ipcc_block_opts){ 0 }, &r)) {
		snprintf(why, len, "%s", ipcc_last_error());
		return NAN;
	}
	if (r.status != IPCC_BLOCK_OK) {
		snprintf(why, len, "%s", r.why);
		return NAN;
	}
	return r.cycles;
}

/*
 * Row i's working set in bytes, from the profile's TLBs and this machine's L2 (`l2` bytes);
 * 0 where they do not give one (why says so).
 */
static uint64_t fit_size(int i, const struct ipcc_model_profile *p, uint64_t l2, const char **why)
{
	uint64_t page = 4096;

	*why = NULL;
	switch (params[i].sized) {
	case SZ_FIXED:
		return params[i].size;
	case SZ_DTLB_HALF:
	case SZ_DTLB_FOUR:
		if (!p->dtlb_entries)
			*why = "the base profile has no dtlb_entries";
		return params[i].sized == SZ_DTLB_HALF ? p->dtlb_entries * page / 2
						       : 4 * p->dtlb_entries * page;
	case SZ_STLB_THREE:
		if (!p->stlb_entries)
			*why = "the base profile has no stlb_entries";
		return 3 * (uint64_t)p->stlb_entries * page;
	case SZ_L2_HALF:
		if (!l2)
			*why = "L2's size unknown (neither sysfs nor CPUID gives it)";
		return l2 / 2;
	case SZ_L2_FOUR:
		/* Within the second TLB's reach, so that no walk adds to the LLC's figure. */
		if (!l2 || !p->stlb_entries || 4 * l2 / page > p->stlb_entries)
			*why = "L2's size unknown (neither sysfs nor CPUID gives it), or its pages "
			       "beyond the "
			       "second-level TLB";
		return 4 * l2;
	}
	return 0;
}

int ipcc_fit_profile(const struct ipcc_model_profile *base, struct ipcc_model_profile *out,
		     struct ipcc_fit_row rows[IPCC_FIT_ROWS])
{
	struct ipcc_mb_caches caches;
	/* L2's size where sysfs or CPUID gives it, not the typical one taken where neither does. */
	uint64_t l2 = ipcc_mb_caches(&caches) == 0 && !(caches.guessed & 4) ? caches.l2.size : 0;
	struct ipcc_bench_opts o = { .repeat = 9 };
	struct ipcc_bench_point best[IPCC_FIT_ROWS];
	bool got[IPCC_FIT_ROWS] = { false };
	double held[IPCC_FIT_ROWS]; /* D_BLOCK: the fewest cycles of the row's held block */
	double lsd_best[LSD_LAST + 1] = { 0 }; /* D_LSD: cycles a loop of N micro-ops */
	unsigned fitted = 0;

	*out = *base;
	snprintf(out->name, sizeof(out->name), "%.27s-fit", base->name);
	if (!out->latencies[0])
		snprintf(out->latencies, sizeof(out->latencies), "%s", base->name);
	for (int i = 0; i < IPCC_FIT_ROWS; i++)
		rows[i] = (struct ipcc_fit_row){ loop_buffer_row(out, i) ? "loop_taken_per_cycle"
									 : params[i].param,
						 params[i].kernel,
						 NAN,
						 "",
						 row_value(out, i),
						 row_value(out, i),
						 "" };
	for (int round = 0; round < FIT_ROUNDS; round++)
		for (int i = 0; i < IPCC_FIT_ROWS; i++) {
			const struct ipcc_kernel *k = ipcc_kernel_find(params[i].kernel);
			struct ipcc_bench_point p;

			if (params[i].how == D_LSD) {
				char why[160], hex[8 * LSD_LAST + 1];
				const bool again = got[i];

				for (unsigned u = LSD_FIRST; u <= LSD_LAST; u++) {
					double c;

					lsd_block(u, hex, sizeof(hex));
					c = block_measured(hex, why, sizeof(why));
					if (isnan(c)) {
						if (!got[i])
							snprintf(rows[i].note, sizeof(rows[i].note),
								 "not measured: %.140s", why);
						break;
					}
					if (!again || c < lsd_best[u])
						lsd_best[u] = c;
					got[i] = again || u == LSD_LAST;
				}
				if (got[i])
					rows[i].note[0] = 0;
				continue;
			}
			if (params[i].how == D_BLOCK || params[i].how == D_BLOCK_UNITS ||
			    params[i].how == D_BLOCK_EXCESS) {
				char why[160];
				double c = block_measured(params[i].kernel, why, sizeof(why));

				if (isnan(c)) {
					if (!got[i])
						snprintf(rows[i].note, sizeof(rows[i].note),
							 "not measured: %.140s", why);
					continue;
				}
				if (!got[i] || c < best[i].cycles_best)
					best[i].cycles_best = c;
				if (params[i].held) {
					double h = block_measured(params[i].held, why, sizeof(why));

					if (!got[i] || !(h >= held[i]))
						held[i] = h;
				}
				got[i] = true;
				rows[i].note[0] = 0;
				continue;
			}
			const char *why;

			o.size = fit_size(i, out, l2, &why);
			if (why) {
				snprintf(rows[i].note, sizeof(rows[i].note), "not measured: %s",
					 why);
				continue;
			}
			if (!k || ipcc_kernel_run(k, &o, 0, &p) != 0) {
				if (!got[i])
					snprintf(rows[i].note, sizeof(rows[i].note),
						 "not measured: %s",
						 k ? ipcc_last_error() : "no such kernel");
				continue;
			}
			if (!got[i] || better(&p, &best[i], params[i].how == D_RECOVERY))
				best[i] = p;
			got[i] = true;
			rows[i].note[0] = 0;
		}
	bool fills_apart = false; /* D_FILL fitted the fills apart from write-backs */

	for (int i = 0; i < IPCC_FIT_ROWS; i++) {
		unsigned *field = field_of(out, i);
		struct ipcc_fit_row *r = &rows[i];
		const struct ipcc_bench_point p = best[i];
		double v = NAN;

		if (!got[i])
			continue;
		switch (params[i].how) {
		case D_CYCLES_PER_OP:
			r->measured = p.cycles_best / params[i].ops;
			r->unit = "cycles";
			v = r->measured;
			break;
		case D_FOLD: {
			/* chain.add_imm's loop, as the model reads it */
			static const char loop[] = "l:\nadd rax, 1\nadd rax, 1\nadd rax, 1\nadd "
						   "rax, 1\nadd rax, 1\nadd rax, 1\nadd rax, "
						   "1\nadd rax, 1\nsub rdi, 1\njnz l\n";
			struct ipcc_model_profile q = *out;
			double nearest = INFINITY, model = NAN;

			r->measured = params[i].ops / p.cycles_best;
			r->unit = "adds/cycle";
			v = 0;
			/* folding: the adds in a row with which the model runs the loop nearest */
			for (unsigned f = 2; r->measured >= 1.5 && f <= 16; f++) {
				double c;

				q.fold_imm = f;
				c = block_cycles(loop, &q);
				if (isfinite(c) && fabs(c - p.cycles_best) < nearest - 1e-9)
					nearest = fabs(c - p.cycles_best), v = f, model = c;
			}
			if (v)
				snprintf(r->note, sizeof(r->note),
					 "the renamer folds immediates: the folding with which the "
					 "model runs the kernel nearest (%.2f cycles)",
					 model);
			else if (r->measured >= 1.5)
				v = r->measured; /* the model cannot run it: adds a cycle */
			else
				snprintf(r->note, sizeof(r->note), "no folding (one add a cycle)");
			break;
		}
		case D_EXCESS:
			r->measured = p.cycles_best / params[i].ops;
			r->unit = "cycles";
			v = r->measured - rows[i - 2].measured - rows[i - 1].measured;
			snprintf(r->note, sizeof(r->note), "less %s and %s measured",
				 rows[i - 2].param, rows[i - 1].param);
			break;
		case D_MINUS: {
			const char *key = "";

			r->measured = p.cycles_best / params[i].ops;
			r->unit = "cycles";
			for (int j = 0; j < i; j++)
				if (params[j].offset == params[i].minus)
					key = params[j].param;
			v = r->measured - *(const unsigned *)((const char *)out + params[i].minus);
			snprintf(
			    r->note, sizeof(r->note), "less %s, as fitted (%llu KiB)", key,
			    (unsigned long long)(fit_size(i, out, l2, &(const char *){ 0 }) >> 10));
			break;
		}
		case D_CALL:
			r->measured = p.cycles_best;
			r->unit = "cycles";
			v = r->measured;
			snprintf(r->note, sizeof(r->note),
				 "the return's and the loop branch's cycles in them");
			break;
		case D_RECOVERY: {
			double always = NAN;
			unsigned rec;

			for (int j = 0; j < IPCC_FIT_ROWS; j++)
				if (got[j] && !strcmp(params[j].kernel, "branch.always"))
					always = best[j].cycles_best;
			r->measured = p.value;
			r->unit = "cycles";
			if (ipcc_fit_recovery(out, p.cycles_best, always, &rec) == 0)
				v = rec;
			snprintf(r->note, sizeof(r->note),
				 "the penalty less what the model charges before the branch "
				 "resolves (%.2f cycles/iteration as measured%s)",
				 p.cycles_best, isfinite(always) ? ", less branch.always's" : "");
			break;
		}
		case D_FILL:
		case D_WB: {
			int c = i;
			double copy = NAN, fill;

			/* the copy's row: its cycles a line (four iterations of 16 bytes) */
			while (c < IPCC_FIT_ROWS && params[c].how != D_WB)
				c++;
			if (c < IPCC_FIT_ROWS && got[c])
				copy = 4 * best[c].cycles_best;
			r->unit = "per cycle";
			if (params[i].how == D_FILL) {
				/*
				 * The triad's third fill, apart where it is a part of the triad's line
				 * that can be one of its three fills (a busy host may slow one kernel
				 * and not the other); else one rate for the triad's four lines.
				 */
				fill = p.cycles_best - copy;
				fills_apart =
				    fill >= 0.05 * p.cycles_best && fill <= p.cycles_best / 3;
				r->measured = fills_apart ? params[i].ops / fill
							  : 4 * params[i].ops / p.cycles_best;
				v = r->measured;
				if (fills_apart)
					snprintf(r->note, sizeof(r->note),
						 "a fill: the triad's %.2f cycles a line less the "
						 "copy's %.2f",
						 p.cycles_best, copy);
				else
					snprintf(
					    r->note, sizeof(r->note),
					    "one rate, fills and write-backs: the triad's 4 "
					    "lines in %.2f cycles (the copy's %.2f left no fill)",
					    p.cycles_best, copy);
			} else {
				fill = fills_apart ? params[i].ops / out->l2_bytes_per_cycle : NAN;
				v = fills_apart && copy > 2 * fill
					? params[i].ops / (copy - 2 * fill)
					: 0;
				/* else the copy's three lines at one rate, as measured */
				r->measured = v > 0 ? v : 3 * params[i].ops / copy;
				if (v > 0)
					snprintf(
					    r->note, sizeof(r->note),
					    "a write-back: the copy's %.2f cycles a line less two "
					    "fills as fitted",
					    copy);
				else
					snprintf(
					    r->note, sizeof(r->note),
					    "0: write-backs as fills (l2_bytes_per_cycle's row)");
			}
			break;
		}
		case D_WIDTH:
			r->measured = params[i].ops / p.cycles_best;
			r->unit = "per cycle";
			v = r->measured;
			/*
			 * branch.always's and r8, r10 chain holds it at a cycle an iteration:
			 * at 2 taken branches a cycle or near it, the kernel says only that the
			 * loop buffer follows at least two, and a base that has more keeps them
			 * (the Granite Rapids-class guest: 1.08 cycles here, three a cycle in
			 * loops of 4-15 jmps).
			 */
			if (loop_buffer_row(out, i) && r->measured >= LOOP_TAKEN_AT_LEAST &&
			    *field >= 2) {
				v = *field;
				snprintf(r->note, sizeof(r->note),
					 "at its chain's cycle an iteration: at least 2 taken "
					 "branches a cycle, so the base's %u stands",
					 *field);
			}
			break;
		case D_BLOCK_EXCESS: {
			struct ipcc_model_profile q = *out;
			struct ipcc_block b;
			char *text = NULL;
			double model = NAN;

			r->measured = p.cycles_best;
			r->unit = "cycles";
			*field_of(&q, i) = 1;
			if (ipcc_block_parse_hex(params[i].kernel, &b) == 0 &&
			    ipcc_block_lift(&b, &text) == 0)
				model = block_cycles(text, &q);
			free(text);
			v = p.cycles_best - model + 1;
			snprintf(r->note, sizeof(r->note),
				 "the block's cycles over the model's with %s = 1 (%.2f)", r->param,
				 model);
			break;
		}
		case D_LSD: {
			const unsigned w = out->width;
			uint64_t set = 0;
			int off =
			    snprintf(r->note, sizeof(r->note), "not unrolled (ceil(N / %u)):", w);

			/* nearer ceil(N / width) than N / width, where the two differ */
			for (unsigned u = LSD_FIRST; u <= LSD_LAST; u++)
				if (u % w && lsd_best[u] > ((double)u / w + (u + w - 1) / w) / 2) {
					set |= 1ull << u;
					if (off >= 0 && (size_t)off < sizeof(r->note))
						off += snprintf(r->note + off,
								sizeof(r->note) - (size_t)off,
								" %u", u);
				}
			if (!set && off >= 0 && (size_t)off < sizeof(r->note))
				snprintf(r->note + off, sizeof(r->note) - (size_t)off, " none");
			out->lsd_no_unroll = set;
			r->measured = lsd_count(set);
			r->unit = "loop sizes";
			r->fitted = lsd_count(set);
			fitted++;
			continue;
		}
		case D_BLOCK:
		case D_BLOCK_UNITS: {
			unsigned fit = 0;
			double model = NAN;

			r->measured = p.cycles_best;
			r->unit = "cycles";
			if (params[i].held && held[i] >= p.cycles_best / 2) {
				v = 0;
				snprintf(r->note, sizeof(r->note),
					 "the load is held up, a failed forward: %s, its value "
					 "unused, %.2f cycles",
					 params[i].held, held[i]);
			} else if (ipcc_fit_block_key(out, r->param, params[i].kernel,
						      p.cycles_best, (unsigned)params[i].ops, &fit,
						      &model) == 0) {
				v = fit;
				snprintf(r->note, sizeof(r->note),
					 "the value with which the model runs the block nearest "
					 "(%.2f cycles)",
					 model);
			}
			break;
		}
		}
		if (!isfinite(v) || v < 0 ||
		    v > (params[i].how == D_BLOCK_EXCESS ? params[i].ops : 1000)) {
			snprintf(r->note, sizeof(r->note), "not fitted: %g is no figure for %s", v,
				 r->param);
			continue;
		}
		*field = r->fitted = (unsigned)lround(v);
		fitted++;
	}
	return fitted ? 0 : err_set(IPCC_ENOTSUP, "no kernel could be measured here");
}
