/*
 * model.h - a small, exact, deterministic model of an out-of-order core: where each
 * instruction is scheduled, becomes ready, completes and retires, which instructions an
 * interrupt would blame, and where the issue slots go.
 *
 * Per dynamic instruction i, in program order, cycles from 0 (W = alloc width, R = retire
 * width, B = ROB size, all in micro-ops):
 *   scheduled s(i): in order, at most W micro-ops per cycle, no earlier than the front end
 *                   can offer i, and at least one cycle after instruction i-B retired;
 *   ready     q(i) = max(s(i), complete(p) of every producer p of an input of i), and for an
 *                    instruction that executes at retire also >= r(i-1); the inputs are
 *                    registers, the flags and memory (below);
 *   issued    x(i) = the first cycle >= q(i) with a free execution port of each class i
 *                    uses (ALU, load, store, vector; the profile's counts per cycle);
 *   complete  c(i) = x(i) + latency(i) (an add/sub reg, imm folded by the renamer: 0);
 *   retired   r(i) = max(c(i), r(i-1)), pushed later while R micro-ops already retire then.
 * i is *selected* when r(i) > r(i-1) (r(-1) = 0); its weight r(i) - r(i-1) is the number of
 * cycles it was the oldest unretired instruction, and an interrupt in those cycles reports
 * the instruction after it (in a loop, the first of the next iteration after the last).
 * See docs/internals/model.md for the slot accounting.
 *
 * Memory: a load depends on the most recent earlier store to the same address expression
 * (base, index, scale, displacement, segment; `[rax+8]`, `[rax + 0x8]` and `qword ptr
 * [rax + 8]` are one, the size is ignored) while neither address register has been written
 * since (a write ends the store's match: the address changed), in one iteration and across
 * them. Its input is the store's data: when the registers a plain store (mov [m], r) stores
 * complete, or when any other store (a read-modify-write: add dword ptr [rax], 1) completes;
 * the load's own latency (the profile's load_latency) follows. A read-modify-write is a load
 * and a store of its address, so `add dword ptr [rax], 1` with rax unchanged is a loop-carried
 * chain of load_latency + 1 cycles. Only the last 32 stores are remembered (oldest first out),
 * and addresses that differ in text are never taken to alias.
 *
 * A branch annotated `; mispredict` is mispredicted every time, `; mispredict=F` (0 <= F <= 1)
 * on a share F of its dynamic instances, spread evenly: instance k (from 0) when
 * floor((k+1)F) > floor(kF) (F in millionths).
 *
 * A program is parsed from x86-64 Intel-syntax text against a profile (ipcc_model_parse) and
 * run any number of times (ipcc_model_run). The caller owns what _new/_run return and frees
 * it with the matching _free/_release.
 */
#ifndef IPCC_MODEL_H
#define IPCC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where a sample lands when instruction i is selected (the oldest unretired instruction for
 * r(i) - r(i-1) cycles): on the instruction after it (the core lets i retire, then takes
 * the interrupt; Zen 3's behaviour) or on i itself (the interrupt is taken before i
 * retires). Either way a sample never lands on the jcc of a macro-fused pair: the pair
 * counts as one instruction, its first.
 */
enum ipcc_model_placement {
	IPCC_MODEL_PLACE_NEXT = 0, /* "next": the instruction after the last retired one */
	IPCC_MODEL_PLACE_OLDEST,   /* "oldest": the oldest unretired one */
};

/*
 * A core, as the model sees it. Every field is one key of a profile file (see
 * ipcc_model_profile_parse); a port count of 0 means "no limit".
 */
/*
 * One instruction's cost on a core where it differs from the instruction table's (whose
 * latencies are Skylake's): by mnemonic, or by the base name the table knows it by (an FMA's
 * vfmadd, a cmov's cmov).
 */
struct ipcc_model_insn_cost {
	char mnemonic[16];
	unsigned latency, uops;
};

/* The rows a profile may hold (zen5, the most of the built-ins, holds 71). */
#define IPCC_MODEL_MAX_COSTS 128
/* The largest loop, in micro-ops, that shift_chain_cycles gives figures for. */
#define IPCC_MODEL_CHAIN_LOOP 8

struct ipcc_model_profile {
	char name[32];
	unsigned width;	       /* W: micro-ops allocated per cycle */
	unsigned retire;       /* R: micro-ops retired per cycle */
	unsigned rob;	       /* B: reorder-buffer entries (instructions); 0: unlimited */
	unsigned load_latency; /* an L1-hitting load into a general register (a mov's), cycles */
	unsigned recovery;     /* cycles the front end needs to refill after a mispredict */
	bool fuse_alu_jcc;     /* add/sub/and/inc/dec + jcc macro-fuse (Intel) */
	bool fuse_cmp_jcc;     /* cmp/test + jcc macro-fuse */
	/*
	 * An add/sub/and/inc/dec + jcc pair that fuse_alu_jcc leaves apart takes one slot of
	 * the width and of retirement, its jcc still a micro-op on an ALU port (Zen 5: seven
	 * register moves and immediates with the loop's dec, jnz 1.00 cycles a loop; five
	 * leas with it 1.00, six 1.18: the pair one slot, and one ALU op of six)
	 */
	bool alu_jcc_one_slot;
	/* Execution ports: at most this many micro-ops of each class issue per cycle. */
	unsigned alu_ports;    /* integer ALU and branch micro-ops */
	unsigned load_ports;   /* loads (a load-op instruction has one) */
	unsigned store_ports;  /* stores (a read-modify-write has one) */
	unsigned vector_ports; /* vector and floating-point micro-ops */
	/*
	 * Immediate folding (Golden Cove's renamer): a dependent chain of add/sub reg, imm
	 * completes fold_imm of them per cycle (the others have no latency). 0 or 1: off.
	 */
	unsigned fold_imm;
	enum ipcc_model_placement placement;
	/*
	 * The retire width that places samples, when it is not `retire` (0: it is): shares come
	 * from a second run retiring sample_retire micro-ops a cycle, as if the core retired
	 * that slowly while an interrupt is pending; timing, slots and selection stay R's. An
	 * empirical parameter, fitted to where samples land (docs/internals/skid.md).
	 */
	unsigned sample_retire;
	/*
	 * The built-in whose instruction costs (cost[] and lock_latency) this profile started
	 * from (skylake, zen3, ...); a profile file's `latencies = NAME` copies them.
	 */
	char latencies[32];
	/*
	 * The instruction costs that differ on this core, in order, ending at the first empty
	 * mnemonic; a later row for the same name wins. A profile file adds or changes one with
	 * latency.NAME = N and uops.NAME = N.
	 */
	struct ipcc_model_insn_cost cost[IPCC_MODEL_MAX_COSTS];
	/* Measured on a machine (ipcc bench --fit-profile); 0: the cost rows' or table's own. */
	unsigned mul_latency; /* imul */
	/* A lock-prefixed read-modify-write, at retire: the built-in's, or measured (fit). */
	unsigned lock_latency;
	unsigned fadd_latency; /* FP add and subtract (addsd ... vsubpd), scalar and vector */
	unsigned fmul_latency; /* FP multiply (mulsd ... vmulpd) */
	/*
	 * Cycles more an FP add or subtract waits for a value from the multiplier (an FP
	 * multiply or FMA) than for one of its own: Zen 5's 2-cycle add is 3 then. 0: none.
	 */
	unsigned fp_bypass;
	/*
	 * Whether the core renames 8- and 16-bit register parts apart from the whole register.
	 * false (every built-in: Zen, and Intel since Haswell for al/ax): a write to a part
	 * merges into the whole and so depends on its old value (setcc al waits for rax).
	 */
	bool partial_rename;
	/*
	 * Whether the renamer eliminates register-to-register moves (mov of a 32- or 64-bit
	 * general register, movaps and its kin between vector registers): no port and no
	 * latency; the copy is ready when its source is. false when missing.
	 */
	bool move_elimination;
	/*
	 * Whether a load of what a recent store wrote is renamed from the store's data (Zen 2's
	 * "memory mirroring"; measured on Zen 5): when both address the same [base (+ index) +
	 * displacement] (no rip, no absolute address, no segment), move general registers or an
	 * immediate (any size), and the base has not changed, the load takes no load latency
	 * (a mov into a whole register no cycle at all). false when missing.
	 */
	bool memory_renaming;
	/*
	 * With memory_renaming: whether a read-modify-write (add [m], r) is renamed only when its
	 * other operand is an immediate (add [m], 1; inc [m]). Measured on Golden Cove (Emerald
	 * Rapids): add qword ptr [rdx], 1 chained 1.00 cycle, add qword ptr [rdx], rbx 7.3.
	 * false when missing: a register operand is renamed too (Zen 5).
	 */
	bool rename_rmw_imm_only;
	/*
	 * Where memory is renamed: only addresses of a base and a displacement (a Granite
	 * Rapids-class core: mov rdx, [r12 + 8]; mov [r15 + 8], rdx on one address 1.00 cycle
	 * a loop, mov rdx, [r12 + rax*8]; mov [r15 + rax*8], rdx 4.99, mov [r12 + rax] alike).
	 */
	bool rename_base_only;
	/*
	 * Where memory is renamed: absolute addresses too, a displacement alone (the model
	 * backend gives a rip-relative operand its address so: Zen 5, add [rip + var], rsi
	 * chained through memory 1.07 cycles a loop, as add [rsi], rdx). false when missing: an
	 * address needs a base or an index to be renamed.
	 */
	bool rename_absolute;
	/*
	 * Where memory is renamed: not 16-bit accesses, nor sign-extending loads (there: mov
	 * r14w, [m]; add r14w, 1; mov [m], r14w 8.07 cycles, movzx r14d, word ptr [m] 4.96,
	 * add word ptr [m], 1 7.33, movsxd 6.10; the same in bytes or dwords 1.00-1.99).
	 */
	bool rename_no_word;
	/*
	 * Where memory is renamed: not movzx loads (Zen 5: mov [rdi], ax; movzx eax, word ptr
	 * [rsi] 7.00 cycles a loop, the forward's time, a byte's 6.9; movsx eax, word ptr
	 * [rsi] 2.00, mov ax, [rsi] 2.00, movsxd after a dword store 1.00).
	 */
	bool rename_no_movzx;
	/*
	 * Where memory is renamed: not a byte's access (Zen 4, cycles a loop: mov byte ptr
	 * [rbx], al; mov al, [rbx] 8.06; movsx eax, byte ptr [rbx] after it 7.49; add byte
	 * ptr [rbx], 1 chained 6.53, add byte ptr [rbx], al 5.95; a dword's 1.00).
	 */
	bool rename_no_byte;
	/*
	 * Where memory is renamed: not a load through no index into an operation that writes
	 * a register or the flags only, as add r, [m], imul r, [m], cmp and test with memory
	 * either side (Zen 4: mov [rbx], rax; add rax, [rbx] 7.87 cycles a loop, [rbx + 8]
	 * and [rbp - 0x68] alike, cmp rax, [rbx] and cmp [rbx], 1 with adc rax, 0 8.55 and
	 * 8.19; through [rbx + rcx*8] 1.00, [rbx + rcx] 1.60; mov and cmov loads 1.00, add
	 * [rbx], rax chained 1.00). False when missing: renamed as a mov load is.
	 */
	bool rename_no_load_op;
	/*
	 * With memory_renaming: a renamed load of one or two bytes into part of a register, or
	 * sign-extended (mov ax, [m]; movsx eax, word ptr [m]), completes 1 + this many cycles
	 * after the store's data: its merge or extension, and this. Zen 5, on one address, cycles
	 * a loop: mov [rdi], r9w; mov r9w, [rsi] 1.99, with add r9w, 1 between 3.00, a byte's
	 * 1.99, movsx eax, word ptr [rsi] after mov [rdi], ax 1.99, a byte's 1.99; with r9d 1.00
	 * and 1.00, movsxd 1.00. 0 when missing: one cycle (the merge's; an extension's none).
	 */
	unsigned rename_partial_extra;
	/*
	 * sbb r, r (one register twice) depends on the carry flag only, as AMD's guides list
	 * it among the dependency-breaking idioms (Zen 5: cmp r15d, 1; sbb ecx, ecx; and ecx,
	 * -8; add ecx, 9 1.07 cycles a loop, 3 through ecx).
	 */
	bool sbb_idiom;
	/*
	 * xchg between two whole general registers is done at rename, as an eliminated move
	 * (Zen 5: xchg rdi, rax chained 1.00 cycle a loop; xchg ebx, eax; xchg ecx, eax 1.00,
	 * where the table's 2-cycle latency gave 4).
	 */
	bool xchg_renamed;
	/*
	 * mov r32, r32 of a register into itself (zero-extending it) is eliminated too, where
	 * move_elimination is set (Zen 5: mov ecx, ecx; add rcx, 1 chained 1.00 cycle a loop,
	 * three such movs and the add 1.00; Emerald Rapids: three in a row 3.00). False when
	 * missing: a cycle.
	 */
	bool self_move_renamed;
	/*
	 * A scalar operation of one vector source that keeps the upper part of another (cvtsi2sd,
	 * cvtss2sd, sqrtsd, roundsd, rcpss and their kin; the destination in SSE's form, the
	 * first source in AVX's) does not wait for that register where its upper part is zero:
	 * written last in the loop by a scalar operation (a name ending in ss or sd), a zero
	 * idiom, movd or movq (Zen 5: vcvtsi2sd xmm0, xmm0, edx 1.00 cycle a loop, with vaddsd
	 * xmm0, xmm0, xmm1 after it 1.00, after vunpcklpd xmm0, xmm0, xmm0 5.05; sqrtsd xmm0,
	 * xmm1 7.50, the divider's, where sqrtsd xmm0, xmm0 takes 19.7).
	 */
	bool merge_zero_upper;
	/*
	 * Cycles a cmovcc on two or three flags (l, ge, le, g, a, be) waits for them beyond
	 * its data (Zen 5: cmp r12d, eax; cmovle ebx, eax; mov r12d, ebx 3.00 cycles a loop,
	 * cmovle r12d, eax chained through r12d alone 1.00, setle in its place 3.00 with a
	 * movzx; test r10, r10; cmove r10, rbx 2.00). 0 when missing: none.
	 */
	unsigned cmov_flags_late;
	/*
	 * With fold_imm: whether a folded add/sub reg, imm (one of those with no latency) takes
	 * no ALU port either, done at rename. Measured on a Granite Rapids-class core: four
	 * independent inc or lea reg, [reg+1] chains and the loop's branch 1.00 cycle, where
	 * add reg, r12 takes 1.32; 80 mov reg, imm 5.7 a cycle on five ALUs; chain.add_imm 5.2
	 * adds a cycle. false when missing: folded, it still takes an ALU port.
	 */
	bool fold_no_port;
	/*
	 * With fold_imm, what more the renamer folds and how far (measured alike on Emerald
	 * Rapids and a Granite Rapids-class core, ipcc bench --block loops):
	 * fold_lea: inc, dec and lea reg, [base + disp] (no index) too, as add reg, imm (lea
	 * rax, [r8 - 1]; and r8, rax 1.00 cycle a loop). false when missing.
	 * fold_bits: only into 64-bit registers (add r8d, 1 is not), and the offset a register
	 * carries stays within this many signed bits: an add that would carry it out executes
	 * (11 there: lea rax, [r8 + 1023] folds, [r8 + 1024] not; six add r8, 1000 3.14 cycles,
	 * alternating -1000 and 1000 1.17). 0 when missing: any size, any immediate.
	 * fold_materialize: the cycles a folded value takes to reach what cannot add the offset
	 * itself: shifts, rotates, bt, bswap and moves into vector registers (2 there: add r8, 1;
	 * shl r8, 1 3.00; add r8, 1; imul r8, r8 3.00). 0 when missing.
	 * A folded add's flags come a cycle after its value, on every profile (add r8, 1; adc
	 * r8, r9 2.00 there).
	 */
	bool fold_lea;
	unsigned fold_bits;
	unsigned fold_materialize;
	/*
	 * Cycles more a setcc or cmovcc (any condition) waits when the flags it reads are those
	 * of an and, or, xor, test or andn in its allocation group (W micro-ops in a row), for
	 * whichever input it waits for last; adc and sbb wait for none (measured alike on
	 * Emerald Rapids and a Granite Rapids-class core: and r8, r9; setne r8b 3.00 cycles a
	 * loop, add r8, r9; setne r8b 2.00, and r8, r9; adc r8, r10 2.00; here test rdx, rdx;
	 * cmovne r12, rdx 2.00, with three nops between 2.00, with five 1.37). 0 when missing.
	 */
	unsigned logic_flags_late;
	/*
	 * A register move (mov r1, r2, 32 or 64 bits) and a one-micro-op operation on r1 right
	 * after it (add, sub, and, or, xor with a register or an immediate; neg, not, inc, dec;
	 * a shift by an immediate) take one allocation slot together, as a macro-fused pair
	 * does: on a Granite Rapids-class core mov rax, r12; and rax, 7 and four nops run 1.00
	 * cycle a loop, with a nop between the two 1.17; not cmp, test, imul, lea, a load-op
	 * or movzx. An Emerald Rapids guest's blocks say it does not: 1 to fuse, 0 when
	 * missing (ipcc bench --fit-profile measures it).
	 */
	unsigned fuse_mov_alu;
	/*
	 * A load into a whole 32- or 64-bit register through a base and a displacement (no
	 * index) and an add, sub, and, or or xor of another register into it right after (neg
	 * alike) take one allocation slot together, and the load is not renamed: on a Granite
	 * Rapids-class core two such pairs and six nops run 1.50 cycles a loop (1.84 with adc,
	 * sbb, cmp, test, an immediate, [rsi + rdi] or movzx), and mov rax, [rsi]; add rax,
	 * rcx; mov [rsi], rax 7.33 (with lea rax, [rax + rcx], add rcx, rax or a nop between
	 * 1.00, memory renamed). 1 to fuse, 0 when missing.
	 */
	unsigned fuse_load_alu;
	/*
	 * The same for the flags of a macro-fused pair's first instruction (a loop's dec, jnz)
	 * in a condition's allocation group: cmovne r12, rdx alone in a loop 1.67 cycles (two
	 * iterations in three share a group with the dec before), sete al; cmp r13, r14 1.50 on
	 * a Granite Rapids-class core; inc rdx; cmovne r12, rdx 1.00. 0 when missing.
	 */
	unsigned fused_flags_late;
	/*
	 * Whether each ALU micro-op is bound to one port when it is allocated, by how busy each
	 * was a cycle before (Intel's allocator, as uiCA models it), and issues there alone;
	 * false when missing: it takes any free port of its class when it is ready.
	 */
	bool port_binding;
	/*
	 * With port_binding and five ALU ports, whether some instructions bind to three of
	 * them or one (Golden Cove's, measured on Emerald Rapids, where six independent movsxd
	 * run in 2.00 cycles a loop and six movzx in 1.40): a sign extension of a register
	 * (movsx, movsxd, cdqe, cwde, cbw) and BMI1's andn, blsr, blsi, blsmsk to ports 1, 5
	 * and 10, a lea with a scaled index to 0, 6 and 10, bt and bswap of a register to 1.
	 * False when missing: any ALU port.
	 */
	bool alu_port_subsets;
	/*
	 * The cycles the integer divider is busy with one div or idiv: it is not pipelined, so
	 * the next division issues that many cycles later at the soonest. 0 when missing:
	 * pipelined (one a cycle). Measured on Zen 5: 7 for a 64-bit div, 6 for 32 bits.
	 */
	unsigned divider_cycles;
	/*
	 * An L1-hitting load into a vector register (movq xmm0, [m]; addps xmm0, [m]), cycles;
	 * 0: load_latency. Zen's FP loads take 3 cycles more than its integer ones.
	 */
	unsigned vector_load_latency;
	/*
	 * Cycles a load whose address has an index scaled or beside a displacement ([rax +
	 * rcx*8], [rax + rcx + 8]) takes more than load_latency (Zen 4: 1); 0: none.
	 */
	unsigned complex_load_latency;
	/*
	 * Cycles more for a load into an 8- or 16-bit part of a general register, which
	 * merges into the whole after the load (Zen 5: mov cl, [rax]; and cl, 0x7f 2.00 cycles
	 * a loop, through rcx); 0: none, the merge in the load's time.
	 */
	unsigned load_merge_latency;
	/* An lea of base + index + displacement, cycles (Zen 4: 2); 0: the table's 1. */
	unsigned lea3_latency;
	/*
	 * The ALU issue slots such an lea (base + index + displacement, or a base of rbp or
	 * r13) takes in all, its own and idle ones it holds (Zen 5: 3); 0: one.
	 */
	unsigned lea3_alu_slots;
	/*
	 * Every Nth ALU operation that issues the cycle a one-cycle ALU operation of its own
	 * allocation group gives it a register's value (on the bypass) takes an ALU issue slot
	 * more, beside its own; the loop's closing pair does not count (Zen 5: 4, from blocks:
	 * three mov eax, 1; add eax, 1 pairs 1.76 cycles a loop, six moves 1.18); 0: none.
	 */
	unsigned bypass_slot_every;
	/* An lea whose index is scaled (by 2, 4 or 8), cycles (Golden Cove: 2); 0: the table's. */
	unsigned lea_scale_latency;
	/*
	 * Whether stores reach the cache one a cycle, or two in one when both store at most 8
	 * bytes (general registers or an immediate) into one aligned 32 bytes (measured on Zen
	 * 4); false: store_ports a cycle. pair_store_bytes widens the chunk (0: 32; Golden
	 * Cove: 64, one cache line), and pair_wide_stores lets stores of any width and of two
	 * vector registers pair (Golden Cove).
	 */
	bool pair_stores;
	/*
	 * Where stores pair: a store into the chunk of the store before it reaches the cache
	 * with it however many run into one chunk, so a loop's stores take the larger of
	 * their count over store_ports and the times one changes chunk from the store before
	 * it (Zen 4, cycles a loop: mov qword ptr at [rsi], [rsi + 8], [rsi + 0x10], [rsi +
	 * 0x128] 2.00, with [rsi + 0x130] after them 2.50, [rsi], [rsi + 0x128], [rsi + 8],
	 * [rsi + 0x130] 4.00, [rsi] to [rsi + 0x18] 2.00, [rsi] to [rsi + 0x28] 3.00, [rsi],
	 * [rsi + 8], [rsi + 0x10], [rsi + 0x20], [rsi + 0x28] 2.50). False: pairs of two, no
	 * longer runs (3.00 for the first).
	 */
	bool pair_store_runs;
	/*
	 * Where stores pair: not a store whose bytes a load of the loop reads, with neither
	 * the store before it nor the one after (Zen 4, cycles a loop: mov rax, [rsi]; mov
	 * qword ptr [rdi + 8], rdx; mov [rdi], rcx 2.00, the load from [rsi + 8] 1.87, from
	 * [rsi + 0x10] or [rsi + 0x40] 1.00-1.05; the load after the stores 1.91). False:
	 * whether a load reads them or not.
	 */
	bool pair_store_unread;
	unsigned pair_store_bytes;
	bool pair_wide_stores;
	/*
	 * Addresses for loads and stores a cycle between them (Zen 4: 3, where 3 loads or 2
	 * stores alone issue a cycle); 0: load_ports and store_ports apart.
	 */
	unsigned agu_ports;
	/*
	 * Of the ALU ports, how many shift and branch (Intel's ports 0 and 6: shifts and
	 * rotates, setcc, cmovcc, adc/sbb, bt*, cdq/cqo, and every jcc, a fused pair's too),
	 * and how many have the three-cycle unit (port 1: imul, mul, popcnt, lzcnt, tzcnt,
	 * bsf, bsr, pdep, pext, shld, shrd, crc32). Measured on a Granite Rapids-class core:
	 * four independent shl rax, 5 and the loop's dec/jnz 2.48 cycles an iteration, four
	 * imul 4.00. 0: not modelled, any ALU port.
	 */
	unsigned shift_ports, mul_ports;
	/*
	 * Of the ALU ports, how many branch, where they are not the shifting ones (AMD's): every
	 * jcc and jmp, a fused pair's too, setcc and cmovcc take one, and shifts and rotates
	 * the shift_ports; the shift ports' two-micro-op forms (Intel's) are one micro-op.
	 * Measured on Zen 4 (cycles a loop, four independent and the loop's dec, jnz): shl
	 * by an immediate or by cl, ror, rol by 1, bt 2.00, three shl 1.50; cmovbe, cmove,
	 * cmovl, seta, sete 2.50, three cmovbe 2.00; two shl beside two cmovbe 1.50. 0: the
	 * shift ports branch.
	 */
	unsigned branch_ports;
	/*
	 * Of the vector ports, how many multiply (FP multiplies and FMA, compares, min/max,
	 * vector shifts and integer multiplies: Intel's ports 0 and 1), how many add (FP adds
	 * and subtracts, the two-port shuffles: Golden Cove's 1 and 5), how many move to
	 * general registers and flags (movd r32, xmm, movmsk*, ucomis*, cvt*2si, ptest: port
	 * 0, one of the multiplying ones) and how many do the other shuffles and moves from
	 * general registers (unpck*ps/pd, palignr, pack*, permutes, broadcasts, inserts,
	 * movd xmm, r32, cvtsi2s*: port 5, one of the adding ones). Measured on a Granite
	 * Rapids-class core: four independent of each 2.00 (vmulps, vaddps, vpshufb ...), 4.00
	 * (vmovmskpd, vunpcklps, vpermilps ...); two vmulsd and two vaddsd 1.33, with two
	 * vpslld instead of the vmulsd 1.33, instead of the vaddsd 1.92. 0: not modelled.
	 */
	unsigned vec_mul_ports, vec_add_ports, vec_out_ports, vec_shuffle_ports;
	/*
	 * Whether the vector classes are Zen 5's four pipes rather than Intel's ports: FP and
	 * integer multiplies, FMA, AES and variable blends on two (vec_mul_ports); FP adds,
	 * compares, min/max, rounding, conversions and bit shifts on two others (vec_add_ports);
	 * byte shuffles and shifts, packs, zero and sign extensions, saturating adds, abs,
	 * reciprocals, lane permutes and inserts on one of each (vec_shuffle_ports); logic,
	 * integer adds, compares, min/max and averages, dword shuffles, unpacks and blends on
	 * all four. Measured on a Zen 5 guest (four independent of each and the loop's dec,
	 * jnz; two beside two vmulps or two vaddps): vmulps, vaddps, vpsllq, vpshufb 2.00;
	 * vpcmpeqb, vpshufd, vpunpcklbw 1.00; two vmulps and two vpmullw 2.00, and two vaddps
	 * 1.00; two vaddps and two vminps 2.00; two vpshufb beside two vmulps or two vaddps
	 * 1.33. Where true, a multiplying pipe and the shuffling class together take at most
	 * vec_mul_ports + 1 a cycle, an adding pipe and it vec_add_ports + 1 (the limits
	 * "vec_mul_mix_ports" and "vec_add_mix_ports"). false: Intel's classes.
	 */
	bool vec_zen_pipes;
	/*
	 * A load that a store before it overlaps but cannot forward to (not all its bytes, or
	 * another virtual page of one physical page, as in ipcc bench --block's harness)
	 * waits until it is the oldest, then takes this many cycles (Golden Cove: 16); 0: not
	 * modelled, such a load is independent of the store.
	 */
	unsigned forward_fail_latency;
	/*
	 * A load wider than the store it starts at (mov [m], eax; mov rax, [m]) is not held up,
	 * but its value comes this many cycles after the store's data (Golden Cove: 20); 0:
	 * as a forwarded load.
	 */
	unsigned forward_wide_latency;
	/*
	 * Whether a store forwards (and, with memory_renaming, renames) to a load of the same
	 * bytes through another virtual page of the one physical page, as to the same
	 * address (Zen 5: mov [rdi + rsi], rax; mov rax, [rsi] in ipcc bench --block's harness
	 * 1.00 cycle a loop, as with [rdi]; movdqu through the two 8.95, as through one). false:
	 * such a load fails as forward_fail_latency says, now and then or always (Golden Cove).
	 */
	bool alias_forwards;
	/*
	 * An instruction that takes a general register's value into a vector register (movd,
	 * movq, pinsrq, cvtsi2sd ...) has it this many cycles later than the table says: the
	 * crossing from one register file to the other (Zen 5: 4; movq xmm0, rax; movq rax,
	 * xmm0 7.0-9.0 cycles a loop, varying from run to run, the table's 2 each; movq xmm0,
	 * rax; pextrq rax, xmm0, 0 9.26; the way back takes the table's: movsd xmm0, [rax];
	 * movq rax, xmm0 8.94, the load 7). 0: none.
	 */
	unsigned from_gpr_extra;
	/*
	 * A load that a store forwards to, not renamed, takes this many cycles more than from
	 * the cache where the store's data is a general register's, vector_forward_extra more
	 * where a vector register's (Zen 5: 3 and 2; mov [rdi], rax; mov eax, [rsi + 4] 7.00
	 * cycles a loop, movdqu [rdi], xmm0; movdqu xmm0, [rsi] 8.98 where the vector load
	 * takes 7). 0: the cache's latency.
	 */
	unsigned forward_extra, vector_forward_extra;
	/* Whether a store whose address has an index takes an ALU micro-op too (Zen 4). */
	bool indexed_store_alu;
	/*
	 * Whether every store of a general register or an immediate takes an ALU micro-op,
	 * where its instruction has none already (Zen 5: five mov reg, imm and the loop 1.00
	 * cycles, with mov [rbp - 0x68], rdi beside them 1.18, with movdqu [rbp - 0x68], xmm1
	 * 1.00, with add [rbp - 0x68], rdi 1.19). 0 or 1, as ipcc bench --fit-profile writes it.
	 */
	unsigned store_alu;
	/*
	 * The one-operand mul and imul (rdx:rax = rax * r), cycles to rdx, the high half (Zen 4:
	 * 4, rax's 3); 0: mul_latency or the table's, as for rax.
	 */
	unsigned mul_high_latency;
	/*
	 * Where a load that misses L1 is served, in core cycles: L2, the last-level cache and
	 * memory. The pipeline model never misses; the model backend's cache models charge these
	 * (0 when missing: a miss costs nothing).
	 */
	unsigned l2_latency, llc_latency, dram_latency;
	/*
	 * The LLC a program keeps on a shared host, in MiB, and the lines the host's other
	 * tenants bring into it a million cycles: a line the program reuses after D bytes of
	 * its own others and t cycles comes from memory with the chance E^4 / (E^4 + S^4),
	 * E = D + llc_foreign x t lines, S this share. Fitted on a pointer chase's latency
	 * against its size and the cycles between its loads. Used by the model backend;
	 * llc_share_mib 0 when missing: the whole LLC is the program's; llc_foreign 0: no
	 * other tenant.
	 */
	unsigned llc_share_mib, llc_foreign;
	/*
	 * L2's index: the line number's l2_fold_bits bits just above the set index XORed into
	 * its lowest bits (after the page frame, which the model backend scatters). Lines at
	 * one offset in their pages then reach 2^l2_fold_bits times the sets that a page's
	 * colour gives them (Zen 5: 512 page-start lines all hit L2, 1,024 miss by half,
	 * where a plain index holds 256 at most). Used by the model backend; 0 when missing:
	 * a plain index.
	 */
	unsigned l2_fold_bits;
	/*
	 * The data TLBs of 4 KiB pages: dtlb_entries in the first level (modelled 6-way, or 8-
	 * or 4-way), stlb_entries in the second (16-way); a load that misses the first and
	 * hits the second costs stlb_latency cycles more, one that misses both walk_latency
	 * more (the page walk, its page-table entries in the caches). Used by the model
	 * backend; dtlb_entries 0 when missing: no TLB is modelled.
	 */
	unsigned dtlb_entries, stlb_entries, stlb_latency, walk_latency;
	/*
	 * The instruction TLB of 4 KiB pages (modelled 8-way), whose misses look in the data
	 * TLBs' second level: a fetch from a page it misses costs itlb_miss_cycles where the
	 * second level holds the page, itlb_walk_cycles where it walks (the front end cannot
	 * fetch past it). Used by the model backend, with the data TLBs; 0 when missing: none.
	 */
	unsigned itlb_entries, itlb_miss_cycles, itlb_walk_cycles;
	/*
	 * A pointer prefetcher: where a load of 8 bytes walks up an array, the core reads the
	 * array ahead and brings the lines its values point to into L2 (measured on Raptor
	 * Cove: bench/merge_sort, docs/internals/model-backend.md, stop 57). Used by the model
	 * backend; false when missing: none.
	 */
	bool pointer_prefetch;
	/*
	 * The kernel's part of a run, in core cycles: a page fault (an anonymous page zeroed,
	 * or a file's pages mapped, and the page freed at last), a system call's entry and
	 * return, and the bytes a read or
	 * write moves a cycle. The model backend charges a run's faults, calls and bytes with
	 * them as cycles in the kernel, beside the user-mode cycles it models; fault_cycles 0
	 * when missing: the kernel's part is left out (syscall_cycles and
	 * syscall_bytes_per_cycle 0: those cost nothing). process_cycles: a program's start
	 * and end beside them (a fork or vfork, an exec, the exit and the parent's wake-up),
	 * charged once for each program a run starts, an exec's new one too; 0: left out.
	 */
	unsigned fault_cycles, syscall_cycles, syscall_bytes_per_cycle, process_cycles;
	/* A fault on a file's page read, which maps the 64 KiB around it; 0: fault_cycles */
	unsigned file_fault_cycles;
	/*
	 * The program's first touch of a page a system call faulted in, where the running
	 * kernel's mapping is not yet the program's (a PVM guest fills its shadow page table
	 * for user mode then: ipcc_mb_kernel_touch() asks); 0 when missing: free.
	 */
	unsigned kernel_page_touch_cycles;
	/*
	 * Bandwidths, bytes a cycle: between L1 and L2 (each line L1 fills; each written line
	 * it evicts at l2_wb_bytes_per_cycle, or where that is 0 at l2_bytes_per_cycle too),
	 * and of non-temporal stores (movnt*: to memory, past the caches). The model backend
	 * gives a segment at least the cycles its lines or its streaming stores take at these
	 * rates; 0 when missing: no limit.
	 */
	unsigned l2_bytes_per_cycle, l2_wb_bytes_per_cycle, nt_bytes_per_cycle;
	/*
	 * The lines L2 takes from the LLC keep L2 busy on top of L1's lines: each costs 64 /
	 * llc_bytes_per_cycle cycles, added to the cycles of L1's lines in the same floor (a
	 * triad streamed from the LLC); 0 when missing: free.
	 */
	unsigned llc_bytes_per_cycle;
	/*
	 * Taken branches the front end follows per cycle (fetch stops at a taken one): 0 when
	 * missing, no limit. The model backend gives each segment at least its taken branches'
	 * cycles, the extra as front-end stall; the pipeline simulation (ipcc sim, blocks,
	 * annotate --model) does not apply it yet.
	 */
	unsigned taken_per_cycle;
	/*
	 * The loop buffer: a loop whose pass takes at most loop_buffer_taken taken branches is
	 * fed from it, at loop_taken_per_cycle taken branches a cycle (a Granite Rapids-class
	 * core: a loop of 15 jmps and its own branch 3 a cycle, of 16 jmps 1), but for the
	 * loop_buffer_relock passes after each mispredict, fetched anew at taken_per_cycle.
	 * The model backend only; 0 when missing: taken_per_cycle everywhere.
	 */
	unsigned loop_taken_per_cycle, loop_buffer_taken, loop_buffer_relock;
	/*
	 * Cycles between two indirect calls (call through a register or memory): the front end
	 * follows one that often at most, though it predicts it (ipcc bench call.pointer: 4.0
	 * cycles for such a call, its return and the loop's branch, where a direct call and
	 * its return take 1.0; the return and the branch lie in them). The model backend gives
	 * a segment at least its indirect calls' cycles, and a loop of segments the largest of
	 * its taken branches', its indirect calls' and its calls' and returns' sums; 0 when
	 * missing: no limit.
	 */
	unsigned indirect_call_cycles;
	/*
	 * Cycles a call and its return take as a pair at the soonest, direct or indirect: the
	 * front end follows one call or return every call_ret_cycles / 2 (Zen 5: a chain of
	 * four direct calls and their returns 16.0 cycles, a call and its return 3.99, with or
	 * without work in the callee). The model backend gives a loop of segments, or a
	 * segment alone, at least its calls' and returns' cycles, beside its taken branches'
	 * (the larger of the two); 0 when missing: no limit beyond theirs.
	 */
	unsigned call_ret_cycles;
	/*
	 * The branch-target buffer: the targets of btb_entries taken branches (8-way, LRU),
	 * which the front end has at once; a taken branch whose target it misses costs
	 * btb_miss_cycles more (front-end stall). Used by the model backend; 0 when missing:
	 * none modelled.
	 */
	unsigned btb_entries, btb_miss_cycles;
	/*
	 * Its second level: btb2_entries more (8-way, LRU), the entries the first evicts; a
	 * taken branch that both miss costs btb2_miss_cycles more again (the core finds the
	 * branch at decode). Used by the model backend; 0 when missing: one level.
	 */
	unsigned btb2_entries, btb2_miss_cycles;
	/*
	 * Where many branch sites mispredict, a mispredict costs more: after one at a site that
	 * is not among the last btb_restart_sites that mispredicted (8-way, LRU), each of the
	 * next btb_restart_window taken branches that is not among the last
	 * btb_restart_entries taken branches (as many of the first, most recent, ways of each
	 * set of the buffer of btb_entries) costs btb_miss_cycles more, as one
	 * the buffer misses (the front end, restarted, has no run-ahead to hide where it finds
	 * them). A rule measured with bench/mispredict_sites.py, not a known structure; used by
	 * the model backend with btb_entries; 0 when missing: none.
	 */
	unsigned btb_restart_entries, btb_restart_window, btb_restart_sites;
	/*
	 * Taken branches close together: a 64-byte line's first fe_line_branches taken branches
	 * (by address) go at taken_per_cycle, each after them fe_line_cycles more (a fetch
	 * limit, hidden where the back end is slower); a 32-byte half's first fe_half_branches
	 * have branch-target entries, each after them none: fe_half_cycles of front-end stall
	 * each time it is taken, while the decoder finds it and steers fetch again. Used by the
	 * model backend; 0 when missing: no limit.
	 */
	unsigned fe_line_branches, fe_line_cycles, fe_half_branches, fe_half_cycles;
	/*
	 * The conditional branch predictor's size (the model backend's TAGE, predictor.h):
	 * tage_entries in each of its six tagged tables, tage_base_entries two-bit counters in
	 * its base; powers of two from 16, at most 16,384 and 65,536. Used by the model
	 * backend; each 0 when missing: 1,024 and 16,384.
	 */
	unsigned tage_entries, tage_base_entries;
	/*
	 * Front-end cycles a line fetched from L2 costs where L1i missed it on the predicted
	 * path (not after a mispredict: l2_latency there): what the decoupled front end does
	 * not hide. Used by the model backend; 0 when missing: hidden.
	 */
	unsigned l1i_l2_cycles;
	/*
	 * A conditional branch that goes both ways, predicted (no mispredict): the front end
	 * takes branch_mixed_cycles more each time it runs, but at most branch_rare_cycles each
	 * time it goes its rarer way (a branch nearly always one way costs that only where it
	 * turns). A fetch limit, as taken_per_cycle. Used by the model backend; 0 when missing:
	 * none. branch_mixed_apart: the percent of that cost saved where the next branch on its
	 * fall-through path ends in the other 32-byte half of the branch's 64-byte line (the
	 * two are predicted in separate fetch blocks); 0 when missing: none saved.
	 */
	unsigned branch_mixed_cycles, branch_rare_cycles, branch_mixed_apart;
	/*
	 * rep movs and rep stos (the fast-string microcode): a run of at most 128 bytes costs
	 * rep_short_cycles, a longer one rep_cycles + its bytes / rep_bytes_per_cycle, and each
	 * line it misses in L1 64 / rep_l2_bytes_per_cycle more where L2 serves it, 64 /
	 * rep_llc_bytes_per_cycle where the LLC or memory does. Used by the model backend; 0
	 * when missing (a run is then its iterations through the pipeline model, each
	 * approximated, and the lines' misses as any load's).
	 */
	unsigned rep_short_cycles, rep_cycles, rep_bytes_per_cycle;
	unsigned rep_l2_bytes_per_cycle, rep_llc_bytes_per_cycle;
	/*
	 * A run of elements wider than a byte (rep stosq, rep movsd) takes no short path: it
	 * costs rep_wide_cycles + its bytes / rep_bytes_per_cycle, whatever its length. 0 when
	 * missing: such runs are costed as byte runs.
	 */
	unsigned rep_wide_cycles;
	/*
	 * A wide run of under 128 bytes costs this many cycles instead, where the profile has
	 * it (Zen 5: rep stosq of 1 to 15 elements 15.0 cycles in ipcc bench --block's loop,
	 * 16 elements 42.7). 0 when missing: no short path, rep_wide_cycles as for any.
	 */
	unsigned rep_wide_short_cycles;
	/*
	 * cpuid: serializing, this many cycles. In a virtual machine it traps to the hypervisor
	 * (thousands of cycles, the host's figure: ipcc bench --fit-profile measures it); a
	 * program's start runs it a hundred times or more (the loader's cache and feature
	 * probes). 0 when missing: approximated, as an instruction the model does not know.
	 */
	unsigned cpuid_cycles;
	/*
	 * An x87 stack overflow or underflow, masked: the microcode assist's cycles (a block
	 * in ipcc bench --block's harness, which starts with an empty stack and fills it or
	 * pops it dry in a loop). 0 when missing: not modelled.
	 */
	unsigned x87_assist_cycles;
	/*
	 * An instruction that reads or writes ah, bh, ch or dh: at least this latency (Golden
	 * Cove: 3, where a write merges into the whole register). 0 when missing: the table's.
	 */
	unsigned high8_latency;
	/*
	 * The dividers' occupancy where it differs from divider_cycles: a 32-bit (or narrower)
	 * div or idiv, and the FP divider's for single- and double-precision divides and square
	 * roots (scalar or 128-bit; 256-bit ones twice that). 0 when missing: divider_cycles for
	 * 32 bits; the FP divider pipelined.
	 */
	unsigned divider_cycles_32, fdiv_single_cycles, fdiv_double_cycles;
	/*
	 * The FP divider's occupancy for square roots where it differs from a divide's (0 when
	 * missing: fdiv_single_cycles, fdiv_double_cycles), and whether a 256-bit divide or
	 * root holds it no longer than a 128-bit one (Zen 5: vdivpd xmm 3.93, ymm 4.00 cycles
	 * apart; false when missing: twice as long).
	 */
	unsigned fsqrt_single_cycles, fsqrt_double_cycles;
	bool fdiv_full_width;
	/*
	 * Accesses that cross a 64-byte line or a 4 KiB page, one after another at most: the
	 * cycles each holds its kind's one resource (loads that split a line, loads that split
	 * a page, and the same for stores). ipcc bench --block's harness knows its addresses:
	 * every register starts at one page-aligned address. 0 when missing: not modelled.
	 */
	unsigned split_load_cycles, page_split_load_cycles, split_store_cycles,
	    page_split_store_cycles;
	/*
	 * A store that crosses a boundary of this many bytes inside its line counts as one
	 * that splits the line (split_store_cycles): Zen 4's 32 (movdqu [rbp - 0x68], xmm1,
	 * 24 bytes into a line, 2.00 cycles a loop, at 16 and 40 bytes 1.00; mov qword ptr
	 * [rbp - 0x64], rdi 2.00, [rbp - 0x68] 1.00; loads 1.00 wherever). 0 when missing:
	 * the line's 64.
	 */
	unsigned split_store_bytes;
	/*
	 * Loads a cycle from one bank of the L1 (the address's bits 2-5: sixteen banks of four
	 * bytes), where the harness knows the address: on a Granite Rapids-class core three
	 * loads from [rsi], [rdi + 0x40], [rdx + 0x80] (or one address, or bytes 0, 1, 2) run
	 * 1.51 cycles a loop, from [rsi], [rdi + 4], [rdx + 0x40] 1.00. 0 when missing: no
	 * limit (1 or 2; more is none).
	 */
	unsigned loads_per_bank;
	/*
	 * Of the load ports, how many take a load whose address comes from a load's value
	 * (directly or through other instructions): on Emerald Rapids a chain of four such
	 * loads an iteration (mov rax, [rbx]; mov rcx, [rax + 8]; ...) runs 1.50-1.56 cycles a
	 * loop and of five 2.08-2.13, where five independent loads take 1.67 on the three
	 * load ports. 0 when missing: any load port.
	 */
	unsigned dep_load_ports;
	/*
	 * One cycle in this many, dep_load_ports has a port fewer: such loads run at a rate
	 * a little under the ports' (8: 1.875 a cycle on two). On Emerald Rapids the chain of
	 * five runs 2.08-2.13 cycles a loop, not 2.00; three loads in a chain (mov rcx, [rbx +
	 * 0x28]; mov rbp, [rcx + 0x50]; mov rdi, [rbp + 0x10]) 1.08-1.27, not 1.00. 0 when
	 * missing: every cycle all of them.
	 */
	unsigned dep_load_gap;
	/*
	 * Of the load ports, how many take a load into a vector register (movsd, movdqu,
	 * vmovups ymm, addsd xmm, [m] ...): on Zen 5 four such loads an iteration run 2.00
	 * cycles a loop, six 3.00, where four into general registers take 1.00. 0 when
	 * missing: any load port.
	 */
	unsigned vec_load_ports;
	/*
	 * How many moves from a general register into a vector register issue a cycle (movd,
	 * movq, vmovq xmm, r; cvtsi2sd xmm, r; pinsrq): on Zen 5 two movd xmm, r32 an iteration
	 * run 1.98 cycles a loop, four 4.00, six vmovq 6.12, where four movd r32, xmm take 1.99.
	 * 0 when missing: any vector port.
	 */
	unsigned vec_in_ports;
	/*
	 * A load that a store forwards to, where the stored value came from an earlier load
	 * through an operation (a read-modify-write's, or mov rax, [m]; add rax, rcx; mov
	 * [m], rax) or is a vector load's, moved: at the soonest this many cycles after that
	 * earlier load issued. On Emerald Rapids add [rdi + rbx], rcx chained through memory
	 * 7.28-7.37 cycles a loop, the same through a separate load, add and store, with an
	 * immediate add the renamer folds and with five; movdqu xmm0, [r15]; movups [rdi],
	 * xmm0 7.30-7.37; where the path takes longer, its own time (an imul between: 8.00);
	 * a general register's load stored as it is 5.00 (not this). 0 when missing: none.
	 */
	unsigned forward_trip;
	/* Of those forwards, one in this many takes a cycle more (7.33: 3). 0: none. */
	unsigned forward_trip_slow;
	/*
	 * A lock-prefixed instruction, mfence or sfence executes this many cycles after the
	 * latest store before it retires (the store reaching the cache): on a Granite
	 * Rapids-class core lock add qword ptr [rbx], 1 alone 18.0 cycles a loop, after mov
	 * [rsi + 0x40], rax 25.5 (two stores 24.6, a load 18.0); mfence 39.1, after a store
	 * 44.6. 0 when missing: none.
	 */
	unsigned store_drain_cycles;
	/*
	 * With --block, a double-precision multiply, fused multiply-add, divide or square root
	 * that takes a subnormal (the harness's memory, DATA_ADDR in every eight bytes, read as
	 * a double) with a normal or nonzero operand takes a microcode assist: this many cycles
	 * more, after every older instruction retired. On a Granite Rapids-class core vmulsd of
	 * such a load and a converted integer 125 cycles a loop, vdivsd 133, vsqrtsd 138,
	 * vfmadd231sd 122; the product of two subnormals (zero) and additions none. 0 when
	 * missing: none.
	 */
	unsigned fp_assist_cycles;
	/*
	 * The loop stream detector's unrolling: a loop of N micro-ops (the block and its
	 * dec/jnz, one taken branch an iteration) with bit N set is not unrolled, so each
	 * iteration starts a new allocation cycle (ceil(N / width) cycles, not N / width). On
	 * Emerald Rapids nops in such a loop run 2.00 cycles an iteration at 9, 10 and 11
	 * micro-ops and 3.00 at 17; at 7, 8, 13 to 16 and 18 to 35 N / 6 (raptorcove). On a
	 * Granite Rapids-class core only 17 is whole (goldencove: 9 to 11 at N / 6). 0 when
	 * missing: every loop delivered without a break.
	 */
	uint64_t lsd_no_unroll;
	/*
	 * A one-cycle chain through a one-micro-op instruction on the shift ports (shl, sar,
	 * setcc, cmovcc, adc ... of a register that it alone writes in the loop), in a loop of
	 * U micro-ops (the block and its dec, jnz; 2 <= U <= IPCC_MODEL_CHAIN_LOOP) of which it
	 * is the kth: the chain runs at shift_chain_cycles[U - 2][k - 1] hundredths of a cycle
	 * an iteration at the fewest. A Granite Rapids-class core, among nops, movs of an
	 * immediate or loads: U = 3 1.41-1.49 first, 1.00 second; U = 4 1.41-1.43, 1.63-1.84,
	 * 1.53-1.63; U = 5 1.36-1.38, 1.28-1.31, 1.28-1.30, 1.37-1.38; from U = 6 on the ports
	 * bind it (setb, cmovb, adc with nops alike). Written as groups for U = 2, 3 ... apart
	 * by commas, each of U - 1 figures: 100, 145 100, 142 172 158, 137 129 129 137. Zero
	 * (none, when missing): the chain's own latency.
	 */
	uint16_t shift_chain_cycles[IPCC_MODEL_CHAIN_LOOP - 1][IPCC_MODEL_CHAIN_LOOP - 1];
	/*
	 * The op cache, in a loop whose instructions' lengths are known (bytes=N, as ipcc bench
	 * --block's loop has them): of a loop of more than loop_stream_ops instructions (a jcc
	 * the decoders pair with the flag-writer before it counted with it), each 64-byte line
	 * is delivered from a new cycle, at most opcache_line_ops instructions of it a cycle;
	 * of a shorter loop over more than one line, each line from a new cycle. The front end
	 * runs ahead of allocation, so this is a floor under a loop's cycles, not a cost added
	 * to them. On Zen 5 (stop 59): 13 to 15 instructions in one line 3.00 cycles a loop,
	 * 14 in one line and 1 in the next 4.00, 11 over two lines 2.00. 0 when missing: none
	 * (opcache_line_ops); loop_stream_ops 0 with opcache_line_ops set: every loop so.
	 */
	unsigned opcache_line_ops, loop_stream_ops;
	/*
	 * Where nonzero, the op cache delivers in entries instead (opcache_line_ops ops of one
	 * 64-byte line each, a line's piece of a fetch block taking as many as its ops need):
	 * opcache_entries of them a cycle from one fetch block, a taken branch ending the
	 * cycle; an instruction belongs to the line it ends in. A line's piece of more ops
	 * than a cycle's entries hold comes at an entry a cycle, a cycle of its own (the line
	 * outgrows the op cache). Measured on Zen 5 (bench/op_cache, blocks of K adds and loads
	 * and a jmp, each a line apart: 2 to 8 ops 1.0 cycle a block, 9 to 12 at the width of 8,
	 * 13 and 14 3.0; 11 and 12 over two lines, 6 and more in the first, 2.0). 0: the line
	 * rule above.
	 */
	unsigned opcache_entries;
	/*
	 * The op cache's capacity, for the model backend (its tool keeps one per thread, of
	 * opcache_capacity entries of opcache_line_ops ops, 16-way, keyed by a line and an
	 * entry's place in its piece): a fetch block whose pieces it holds skips L1i; one it
	 * lacks comes from L1i through the decoders, decode_width instructions a cycle and
	 * decode_block_cycles a fetch block at the least, and fills it. Measured on Zen 5
	 * (bench/op_cache, blocks of adds and loads and a jmp, each a line apart, stop 70):
	 * 512 blocks of eight ops (1,024 entries) 1.0 cycle a block and 640 2.3-2.5; 1,024
	 * blocks of four, 64 KiB of code, 1.0 (L1i's misses are free while the op cache holds
	 * the lines), 1,536 1.9-3.1; 384-448 of 13 ops 4.05-4.5. 0 when missing: no capacity,
	 * every fetch through L1i (account.c charges its misses alone).
	 */
	unsigned opcache_capacity, decode_width, decode_block_cycles;
	/*
	 * AMD's L1 picks a line's way by a tag of its virtual address: a line read through
	 * several virtual addresses (in ipcc bench --block's harness every page is one physical
	 * page, so [rsi] and [rsi + 0x1000] are one line) is tagged anew at each, and such loads
	 * go one at a time. With the harness's addresses known, a load from a line that the loop
	 * reaches through K virtual pages holds that resource utag_alias_first + (K - 2) *
	 * utag_alias_step hundredths of a cycle. On Zen 5 (stop 60), cycles a loop: [rsi],
	 * [rsi + 0x1000] twice 1.41, three times 2.12; [rsi], [rsi + 0x1000], [rsi + 0x2000]
	 * 1.92, twice 3.73; four pages 3.41, twice 6.82; five 5.19, six 7.69; [rsi],
	 * [rsi + 0x1040], [rsi + 0x2080] 1.00. 0 when missing: none.
	 */
	unsigned utag_alias_first, utag_alias_step;
	/*
	 * ... and this many more where the load's address comes from a load's value: a chain
	 * of such loads (mov rax, [rsi]; mov rbx, [rax + rsi]; mov rcx, [rbx + 0x10]; mov rdx,
	 * [rcx], two tags) 2.33 cycles a loop on Zen 5, of three 1.60, where four independent
	 * take 1.50. 0 when missing: none.
	 */
	unsigned utag_alias_dep;
	/*
	 * ... and in such a loop every other load this many (three plain loads beside three
	 * through three tags 3.07 cycles a loop where the three alone take 1.92; four beside
	 * two tags twice 2.49, 1.41 alone). 0 when missing: none.
	 */
	unsigned utag_alias_plain;
	/*
	 * Cycles more for a load whose line the access before it (around the loop) reached
	 * through another virtual tag, where that access is a load whose value reaches this
	 * one's address and this one's its (one loop-carried chain): the line is tagged anew (mov rax, [rax]; mov rax, [rax + rcx] chained,
	 * one line through two tags, 27.98 cycles a loop on Zen 5, where through one tag 8.00
	 * and to another line 8.93; a load through the other tag beside such a chain, its value
	 * feeding no address, 12.89, not modelled). 0 when missing: none.
	 */
	unsigned utag_retag_latency;
	/*
	 * With --block, a load that in some iterations but not all reads bytes a store wrote
	 * while that store was in flight (the harness's values show it) is not renamed: AMD's
	 * memory-dependence predictor, once it caught the load, holds it for the store, and it
	 * takes its data through the cache or a forward. The counter of mov ecx, [rax + 0x28];
	 * lea r8d, [rcx + 1]; mov [rax + 0x28], r8d; and ecx, 0x3f; mov [rbx + rcx], dl (the
	 * byte store meets it once in 41 iterations) 7.23 cycles a loop on Zen 5, 8.9 with
	 * 64-bit registers and the store over the whole page; 1.01 where the store never meets
	 * it. So too a load whose bytes come from another store than the usual one in one
	 * iteration of 128 or more often, even where that store forwards (a counter its array's
	 * store overwrites: 10.0-15.9 cycles a loop, 8 modelled). False when missing: renamed,
	 * and only those iterations fail.
	 */
	bool alias_unrenamed;
	/*
	 * A load that its store cannot forward to, ready before that store's address was
	 * known, takes this many cycles more: it went ahead and was caught late (Zen 5: mov
	 * rax, [rdx]; mov byte ptr [rax], 0 18.3 cycles a loop, with an add between 19.9, where
	 * mov byte ptr [rsi], al; mov rbx, [rsi] takes 14.0). 0 when missing: none.
	 */
	unsigned forward_fail_late;
	/*
	 * With --block, an x87 instruction that reads a double from the harness's memory (a
	 * subnormal) takes this many cycles more for its conversion, after every older
	 * instruction retired, and an arithmetic or compare one as much again for its denormal
	 * operand: fld qword ptr [rsi]; fstp st(0) 222 cycles a loop on Emerald Rapids, fld1;
	 * fadd qword ptr [rsi]; fstp st(0) 412. 0 when missing: none.
	 */
	unsigned x87_denormal_cycles;
	/*
	 * With --block, an x87 computation on the QNaN that a masked stack fault leaves (or one
	 * computed from it) takes this many cycles more, at retirement, where that is more than
	 * its reads of subnormal doubles take: fadd st(0), st(0) alone (the stack empty at the
	 * start, so the first underflows) 410 cycles a loop on Emerald Rapids, fmul st(0), st(0)
	 * 412; fchs 1.00. 0 when missing: none.
	 */
	unsigned x87_nan_cycles;
};

/*
 * Fill `p` with the built-in profile `name` (skylake, icelake, zen3, zen4, zen5, goldencove,
 * neoverse-n2, and `test` with W = R = 4, no ROB or port limit, for worked examples), or
 * `auto`: the one closest to this CPU (IPCC_ENOTSUP when none is). IPCC_EINVAL if unknown.
 */
int ipcc_model_profile(const char *name, struct ipcc_model_profile *p);

/* Where parsing stopped, and why. */
struct ipcc_model_error {
	unsigned line, column; /* 1-based */
	char message[160];
};

/*
 * Profile files: plain text, one `key = value` per line, `#` starts a comment, blank lines
 * are ignored. The keys are the struct's fields: name, width, retire, rob, load_latency,
 * recovery, fuse_alu_jcc, fuse_cmp_jcc, alu_ports, load_ports, store_ports, vector_ports,
 * fold_imm, placement, sample_retire, latencies, and optional ones (mul_latency,
 * lock_latency, fadd_latency, fmul_latency, fp_bypass, partial_rename, move_elimination,
 * memory_renaming, rename_rmw_imm_only, rename_base_only, rename_absolute, rename_no_word,
 * rename_no_movzx, rename_no_byte, rename_no_load_op, rename_partial_extra,
 * sbb_idiom, xchg_renamed, self_move_renamed, merge_zero_upper, cmov_flags_late, fold_no_port, fold_lea, fold_bits, fold_materialize, logic_flags_late,
 * fuse_mov_alu, fuse_load_alu, fused_flags_late, port_binding, alu_port_subsets, divider_cycles, vector_load_latency,
 * complex_load_latency, load_merge_latency, lea3_latency, lea3_alu_slots, bypass_slot_every, lea_scale_latency, pair_stores, pair_store_runs,
 * pair_store_unread, pair_store_bytes,
 * pair_wide_stores, forward_fail_latency, forward_wide_latency, alias_forwards,
 * from_gpr_extra, forward_extra, vector_forward_extra, agu_ports, shift_ports,
 * mul_ports, branch_ports, vec_mul_ports, vec_add_ports, vec_out_ports, vec_shuffle_ports,
 * indexed_store_alu, store_alu,
 * mul_high_latency, l2_latency, llc_latency, llc_share_mib, llc_foreign, l2_fold_bits,
 * dram_latency, dtlb_entries, stlb_entries, stlb_latency, walk_latency, itlb_entries,
 * itlb_miss_cycles, itlb_walk_cycles, pointer_prefetch, fault_cycles,
 * syscall_cycles, syscall_bytes_per_cycle, process_cycles, file_fault_cycles,
 * kernel_page_touch_cycles,
 * l2_bytes_per_cycle,
 * l2_wb_bytes_per_cycle, nt_bytes_per_cycle, llc_bytes_per_cycle, taken_per_cycle, indirect_call_cycles,
 * call_ret_cycles,
 * btb_entries, btb_miss_cycles, btb2_entries, btb2_miss_cycles, btb_restart_entries,
 * btb_restart_window, btb_restart_sites, fe_line_branches,
 * fe_line_cycles, fe_half_branches, tage_entries, tage_base_entries, l1i_l2_cycles,
 * fe_half_cycles, branch_mixed_cycles, branch_rare_cycles, branch_mixed_apart,
 * rep_short_cycles, rep_cycles,
 * rep_bytes_per_cycle,
 * rep_l2_bytes_per_cycle, rep_llc_bytes_per_cycle, rep_wide_cycles, cpuid_cycles, x87_assist_cycles,
 * high8_latency, divider_cycles_32, fdiv_single_cycles, fdiv_double_cycles,
 * fsqrt_single_cycles, fsqrt_double_cycles, fdiv_full_width,
 * split_load_cycles, page_split_load_cycles, split_store_cycles, page_split_store_cycles,
 * split_store_bytes,
 * loads_per_bank, dep_load_ports, dep_load_gap, vec_load_ports, vec_in_ports, forward_trip, forward_trip_slow,
 * store_drain_cycles, fp_assist_cycles, lsd_no_unroll, shift_chain_cycles, opcache_line_ops, loop_stream_ops,
 * utag_alias_first, utag_alias_step, utag_alias_dep, utag_alias_plain, utag_retag_latency, alias_unrenamed, forward_fail_late,
 * x87_denormal_cycles, x87_nan_cycles):
 * unsigned decimals (lsd_no_unroll: micro-op counts from 1 to 63 apart by spaces, or none),
 * booleans `true`/`false`, placement `next` or `oldest`, latencies a built-in's name (which
 * copies its cost rows and lock latency; a lock_latency given in the file wins). An
 * instruction's cost row is `latency.MNEMONIC = N` and `uops.MNEMONIC = N` (a new row's
 * other figure is the instruction table's). An optional first key `base = BUILTIN` starts
 * from that built-in (its name included); without it every key but the optional ones must
 * be given. A key may appear once.
 *
 * ipcc_model_profile_parse() reads `text`; on failure it returns IPCC_EINVAL, leaves *p
 * untouched and `err` says which line (column 1) and why. ipcc_model_profile_load() reads
 * the file `path` the same way (its message, for ipcc_last_error(), is "PATH:LINE: why";
 * IPCC_ESYS when the file cannot be read). ipcc_model_profile_format() writes every key of
 * `p` into buf (NUL-terminated; IPCC_EINVAL if len is too small) in the order above, no
 * base, then the cost rows that differ from its `latencies` built-in's, so that parsing the
 * text gives back `p` exactly; ipcc_model_profile_save() writes
 * that text, after a comment line, to `path` (replacing it).
 */
int ipcc_model_profile_parse(const char *text, struct ipcc_model_profile *p,
			     struct ipcc_model_error *err);
int ipcc_model_profile_load(const char *path, struct ipcc_model_profile *p);
int ipcc_model_profile_format(const struct ipcc_model_profile *p, char *buf, size_t len);
int ipcc_model_profile_save(const char *path, const struct ipcc_model_profile *p);

/* Whether two profiles are the same in every field. */
bool ipcc_model_profile_equal(const struct ipcc_model_profile *a,
			      const struct ipcc_model_profile *b);

/*
 * The core cycles of one rep movs or rep stos run of `bytes` bytes in `size`-byte elements,
 * L1-resident, from the profile's fast-string figures (rep_short_cycles ...); 0 where the
 * profile has none.
 */
double ipcc_model_rep_cycles(const struct ipcc_model_profile *p, unsigned size, double bytes);

/* The built-in profiles' names, NULL-terminated. */
extern const char *const ipcc_model_profiles[];

struct ipcc_model_program;

/*
 * Parse `text` (one loop body or straight-line block) for profile `p`. On failure returns
 * IPCC_EINVAL, *out is NULL and `err` says where. Never crashes on any input.
 */
int ipcc_model_parse(const char *text, const struct ipcc_model_profile *p,
		     struct ipcc_model_program **out, struct ipcc_model_error *err);

/*
 * How the parser treats an instruction its table does not know, or whose operands it cannot
 * read: strict, an error (ipcc_model_parse); lenient, a conservative class it counts and
 * names (ipcc_model_program_approximated): one micro-op of latency 3 (plus the profile's
 * load latency with a memory operand) that reads every operand it can read and the flags,
 * and writes its first operand; an x87 one reads and writes the stack as one register,
 * loads from memory (stores, where it is fst, fist, fbstp or a control store) and takes the
 * profile's cost row for its mnemonic. Machine code lifted from a program is parsed
 * leniently.
 */
enum ipcc_model_mode {
	IPCC_MODEL_STRICT = 0,
	IPCC_MODEL_LENIENT,
};

int ipcc_model_parse_mode(const char *text, const struct ipcc_model_profile *p,
			  enum ipcc_model_mode mode, struct ipcc_model_program **out,
			  struct ipcc_model_error *err);

void ipcc_model_program_free(struct ipcc_model_program *prog);

/*
 * The number of static instructions approximated (lenient parsing), and their distinct
 * mnemonics, with prefixes, in program order ("rep stosq, ud2") in names (NUL-terminated, cut
 * with "..." where len is too small; names may be NULL). Whether instruction i is one.
 */
unsigned ipcc_model_program_approximated(const struct ipcc_model_program *prog, char *names,
					 size_t len);
bool ipcc_model_program_approximate(const struct ipcc_model_program *prog, unsigned i);

/* The number of static instructions, and the source text of instruction i. */
unsigned ipcc_model_program_size(const struct ipcc_model_program *prog);
const char *ipcc_model_program_text(const struct ipcc_model_program *prog, unsigned i);

/* One instruction's row: cycles, and what an interrupt would blame. */
struct ipcc_model_row {
	unsigned index; /* static instruction */
	uint64_t iteration;
	int64_t scheduled, ready, complete, retired;
	int64_t issued; /* >= ready: when it got a port of each class it needs */
	bool selected;
	uint64_t weight; /* cycles as the oldest unretired instruction */
	double share;	 /* predicted share of samples landing on this instruction (placed by
			  * the profile's sample_retire run when it has one) */
};

struct ipcc_model_summary {
	uint64_t iterations;   /* counted in the steady state */
	uint64_t cycles;       /* retirement of its last instruction - of the one before it */
	uint64_t instructions; /* the steady state's instructions */
	double cycles_per_iteration;
	double ipc;
	/*
	 * The four slot counters, over whole allocation cycles: from the cycle the steady state's
	 * first instruction is allocated in to the cycle the next iteration's would be (a run
	 * with no warm-up: to the last retirement, the drain counted as back-end stall).
	 * slot_cycles equals cycles in a periodic steady state.
	 */
	uint64_t slot_cycles;
	uint64_t total, filled, issued, retired;
	double frontend, backend, speculation, retiring; /* their split; sums to 1 */
};

struct ipcc_model_opts {
	uint64_t iterations; /* times the block runs (default 1000) */
	uint64_t warmup;     /* iterations left out of the summary (default iterations / 2) */
	bool trace;	     /* keep a row for every dynamic instruction */
};

struct ipcc_model_result {
	struct ipcc_model_row *rows; /* the last iteration's rows, one per static instruction */
	unsigned nrows;
	struct ipcc_model_row *trace; /* with opts.trace: every dynamic instruction */
	uint64_t ntrace;
	struct ipcc_model_summary summary;
};

/*
 * Run the program. Rows are relative to the retirement of the instruction before the
 * reported iteration (0 for the first). Memory is O(B + program size) unless opts.trace.
 */
int ipcc_model_run(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		   const struct ipcc_model_opts *opts, struct ipcc_model_result *out);

void ipcc_model_result_release(struct ipcc_model_result *r);

/* What can limit a loop's cycles per iteration, each on its own. */
enum ipcc_model_limit {
	IPCC_LIMIT_CHAIN,    /* a loop-carried dependency chain (registers, flags, memory) */
	IPCC_LIMIT_FRONTEND, /* allocation width W: micro-ops / W (+ fe_stall cycles) */
	IPCC_LIMIT_RETIRE,   /* retire width R: micro-ops / R */
	/*
	 * Port counts: instructions of the class / ports (0 ports, unlimited: 0); an
	 * instruction takes one port of each class it uses, as in ipcc_model_run.
	 */
	IPCC_LIMIT_ALU,
	IPCC_LIMIT_LOAD,
	IPCC_LIMIT_STORE,
	IPCC_LIMIT_VECTOR,
	IPCC_LIMIT_COMMIT,     /* stores reaching the cache, where the profile pairs stores */
	IPCC_LIMIT_AGU,	       /* loads' and stores' addresses, where the profile shares them */
	IPCC_LIMIT_SHIFT,      /* shifts, setcc, cmovcc, branches: the profile's shift_ports */
	IPCC_LIMIT_MUL,	       /* multiplies and bit counts: the profile's mul_ports */
	IPCC_LIMIT_VMUL,       /* vec_mul_ports: FP multiplies, compares, vector shifts */
	IPCC_LIMIT_VADD,       /* vec_add_ports: FP adds, two-port shuffles */
	IPCC_LIMIT_VOUT,       /* vec_out_ports: to general registers and flags */
	IPCC_LIMIT_VSHUF,      /* vec_shuffle_ports: one-port shuffles, from registers */
	IPCC_LIMIT_DEPLOAD,    /* dep_load_ports: loads of an address a load gave */
	IPCC_LIMIT_VLOAD,      /* vec_load_ports: loads into vector registers */
	IPCC_LIMIT_VIN,	       /* vec_in_ports: moves from general into vector registers */
	IPCC_LIMIT_VMULMIX,    /* vec_zen_pipes: the multiplying pipes and shuffles together */
	IPCC_LIMIT_VADDMIX,    /* vec_zen_pipes: the adding pipes and shuffles together */
	IPCC_LIMIT_BRANCH,     /* branches, setcc, cmovcc: the profile's branch_ports */
	IPCC_LIMIT_MISPREDICT, /* sum over branches of their rate x the profile's recovery */
	IPCC_LIMIT_TAGS,       /* loads of a line through several virtual tags (utag_alias_*) */
	IPCC_LIMITS
};

struct ipcc_model_bound {
	double limit[IPCC_LIMITS];   /* cycles per iteration each limit alone imposes */
	enum ipcc_model_limit bound; /* the largest (ties: the earlier in the enum) */
	const char *name;	     /* "dependency chain", "front end", "retire", "ALU ports",
				      * "load ports", "store ports", "vector ports", "store commits",
				      * "address generation", "shift and branch ports",
				      * "multiply ports", "vector multiply ports", "vector add
				      * ports", "vector-to-register port", "shuffle port",
				      * "ports for loaded addresses", "vector load ports",
				      * "mispredicts", "virtual tags" */
	unsigned chain[64];	     /* static indices, in program order, of the instructions on
				      * the loop-carried chain that sets limit[IPCC_LIMIT_CHAIN]
				      * (the first 64 of a longer one) */
	unsigned nchain;
	double chain_latency; /* = limit[IPCC_LIMIT_CHAIN] */
};

/*
 * The limits of a loop body (one iteration = the whole program), each computed alone, and
 * the largest. The chain: the longest loop-carried recurrence per iteration with unlimited
 * width, ports and ROB, under ipcc_model_run's dataflow rules (latencies, immediate folding,
 * zero idioms, macro-fusion, memory dependencies, execution at retire): the dataflow runs for
 * up to 64 iterations remembering each dynamic instruction's critical producer, and a walk
 * back from the last iteration's latest completion stops where it returns to a static
 * instruction it passed, an iteration or more earlier; the chain is the instructions in
 * between, its latency the cycles between those two completions per iteration (averaged over
 * the walk's further returns, for folding's uneven steps). 0 and no instructions when nothing
 * is loop-carried. Memory O(program size); IPCC_EINVAL for a zero width.
 */
int ipcc_model_bound(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		     struct ipcc_model_bound *out);

/* A limit's name, as ipcc_model_bound.name gives the bound's ("store ports"); NULL if none. */
const char *ipcc_model_limit_name(enum ipcc_model_limit l);

#endif
