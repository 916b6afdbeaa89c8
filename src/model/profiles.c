/*
 * profiles.c - the built-in cores, and profile files (model.h). Widths and ROB sizes follow
 * the vendors' public figures (pmu-events.md for the slot widths), as do the port counts;
 * load latencies and recovery penalties are typical published values, not measured here;
 * override them per run, per instruction or in a profile file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/cpu.h"
#include "model_int.h"

/*
 * A built-in: the widths, ports and placement, its lock latency, then its instruction cost
 * rows (where it differs from the instruction table, whose latencies are Skylake's).
 */
#define PROFILE(nm, w, r, b, ld, rec, alu_jcc, cmp_jcc, alu, lp, sp, vp, fold, place, sr, lock, \
		mem, ...)                                                                       \
	{                                                                                       \
		.name = nm, .width = w, .retire = r, .rob = b, .load_latency = ld,              \
		.recovery = rec, .fuse_alu_jcc = alu_jcc, .fuse_cmp_jcc = cmp_jcc,              \
		.alu_ports = alu, .load_ports = lp, .store_ports = sp, .vector_ports = vp,      \
		.fold_imm = fold, .placement = IPCC_MODEL_PLACE_##place, .sample_retire = sr,   \
		.latencies = nm, .lock_latency = lock, mem, .cost = {                           \
			__VA_ARGS__                                                             \
		}                                                                               \
	}

/*
 * Intel's integer ports from Skylake on (the optimization manual): shifts and branches on
 * ports 0 and 6, the three-cycle unit (imul, bit counts) on port 1; measured on a Granite
 * Rapids-class core (goldencove's keys).
 */
#define INTEL_UNITS(mem) mem, .shift_ports = 2, .mul_ports = 1

/*
 * Where a load that misses L1 is served, in core cycles: L2, the last-level cache, memory
 * (the model backend's cache models charge them; see docs/internals/model-backend.md).
 * Published figures for the core and a typical memory at its usual clock, except where a
 * profile says it measured them.
 */
#define MEMORY(l2, llc, dram, dtlb, stlb)                                                 \
	.l2_latency = l2, .llc_latency = llc, .dram_latency = dram, .dtlb_entries = dtlb, \
	.stlb_entries = stlb, .stlb_latency = (dtlb) ? TLB_HIT : 0,                       \
	.walk_latency = (dtlb) ? TLB_WALK : 0, .fault_cycles = (l2) ? FAULT_CYCLES : 0,   \
	.syscall_cycles = (l2) ? SYSCALL_CYCLES : 0,                                      \
	.syscall_bytes_per_cycle = (l2) ? SYSCALL_BYTES_PER_CYCLE : 0

/*
 * The data TLBs: the entries of each level, for 4 KiB pages (the vendors' figures); a
 * first-level miss that the second holds costs 7 cycles, a page walk whose entries the
 * caches hold 50: measured on a Granite Rapids-class KVM guest (ipcc bench pages.spread:
 * 5 cycles a load within the first level's reach, 12 past it, 66 past the second's with
 * the lines in L2's 16), where the walk is two-dimensional (the guest's tables, then the
 * host's); on other cores and on bare metal an approximation until ipcc bench
 * --fit-profile measures them.
 */
#define TLB_HIT	 7
#define TLB_WALK 50

/*
 * The kernel's part, in cycles at ipcc's core frequency: measured on an Emerald Rapids KVM
 * guest (Linux 6.18, stop 54) with bench/kernel_costs, the fewest of 5 rounds: an
 * anonymous page's first touch 1,556-1,633 ns (4,517-4,897 cycles at 2.9-3.0 GHz) and its
 * freeing when unmapped 100-143 ns a page (every page is, at the latest at exit), a file's
 * page read through a mapping 1,880 ns a fault (16 pages mapped each), getppid 101 ns,
 * newfstatat 387, mmap or munmap 917, read() from the page cache 2.6-2.7 bytes a cycle. A
 * fault is taken at 5,000 cycles, the page's freeing in it; a system call at a path
 * lookup's 1,000 cycles: the programs measured make mostly reads, writes, opens, stats and
 * mappings. A host's kernel, its mitigations and a guest's nested paging move all of
 * these: on other machines an approximation.
 */
#define FAULT_CYCLES		5000
#define SYSCALL_CYCLES		1000
#define SYSCALL_BYTES_PER_CYCLE 3

/* A locked read-modify-write: about 18 cycles on Intel, about 8 on Zen (published figures). */
#define LOCK_INTEL 18
#define LOCK_ZEN   8

/* Zen 3 and Zen 4: FP add and multiply in 3 cycles, a radix-4 integer divider. */
#define ZEN34_COSTS                                                                      \
	{ "vpmulld", 3, 1 }, { "vaddpd", 3, 1 }, { "vmulpd", 3, 1 }, { "mfence", 7, 1 }, \
	    { "pmulld", 3, 1 }, { "addpd", 3, 1 }, { "addps", 3, 1 }, { "addsd", 3, 1 }, \
	    { "addss", 3, 1 }, { "mulpd", 3, 1 }, { "mulps", 3, 1 }, { "mulsd", 3, 1 },  \
	    { "mulss", 3, 1 }, { "subpd", 3, 1 }, { "subsd", 3, 1 }, { "div", 14, 2 },   \
	{                                                                                \
		"idiv", 14, 2                                                            \
	}

/* Zen 4's FP loads: 7 cycles (movq xmm0, [rax]; movq rax, xmm0 9.00 with movq's 2). */
#define VLOAD_ZEN4 7

static const struct ipcc_model_profile builtin[] = {
	/* name W R ROB load recovery alu+jcc cmp+jcc ALU load store vector fold placement
	 * sample_retire */
	PROFILE("skylake", 4, 4, 224, 5, 16, true, true, 4, 2, 1, 3, 0, NEXT, 0, LOCK_INTEL,
		INTEL_UNITS(MEMORY(12, 42, 250, 64, 1536))),
	/* Ice Lake: a faster integer divider */
	PROFILE("icelake", 5, 8, 352, 5, 16, true, true, 4, 2, 2, 3, 0, NEXT, 0, LOCK_INTEL,
		INTEL_UNITS(MEMORY(13, 45, 300, 64, 2048)), { "div", 15, 4 }, { "idiv", 15, 4 }),
	PROFILE("zen3", 6, 8, 256, 4, 13, false, true, 4, 3, 2, 4, 0, NEXT, 0, LOCK_ZEN,
		MEMORY(12, 46, 350, 64, 2048), ZEN34_COSTS, { "divsd", 13, 1 }, { "divpd", 13, 1 }),
	/*
	 * AMD Zen 4 (family 19h models 10h-1Fh, 60h-7Fh): 6-wide dispatch, a 320-entry ROB, 4
	 * integer ALUs, 3 loads and 2 stores a cycle, 4 FP pipes (AMD's public figures). The
	 * rest was measured on a Genoa guest (family 0x19 model 0x11, ipcc bench --block,
	 * cycles per iteration of the harness's loop; docs/internals/model.md, "Zen 4 on
	 * blocks").
	 */
	{ .name = "zen4",
	  .width = 6,
	  .retire = 8,
	  .rob = 320,
	  .load_latency = 4, /* mov rax, [rax] 4.00; add rax, [rax]; sub rax, rcx 6.00 */
	  /*
	   * ipcc bench --fit-profile on a Genoa guest (2026-12-01, stop 74): branch.random 20.9
	   * cycles an iteration, 15 less what the model charges before the branch resolves
	   * (13 before: AMD's public minimum)
	   */
	  .recovery = 15,
	  /* 6 and 8 independent adds with dec; jnz: 1.75 and 2.25, 7 and 9 ops on 4 ALUs */
	  .fuse_alu_jcc = true,
	  .fuse_cmp_jcc = true,
	  .alu_ports = 4,
	  .load_ports = 3,
	  /*
	   * Two stores a cycle, but they reach the cache one a cycle, two when both are narrow
	   * and in one aligned 32 bytes: mov [rsi], rax; mov [rsi + 64], rcx 2.00 cycles, with
	   * [rsi + 8] 1.00, [rsi + 32] 2.00, [rsi + 60] and [rsi + 64] 2.00; three of [rsi],
	   * [rsi + 8], [rsi + 16] 1.50; four into four lines 4.00; two movups into one line
	   * 2.00. Not fitted: four qwords from [rbp - 0x78] 2.00 (modelled 3)
	   */
	  .store_ports = 2,
	  .pair_stores = true,
	  /*
	   * And runs of them into one chunk (stop 77): mov qword ptr at [rsi], [rsi + 8],
	   * [rsi + 0x10], [rsi + 0x128] 2.00 cycles a loop (pairs of two: 3), [rsi] to [rsi +
	   * 0x18] 2.00, [rsi], [rsi + 0x128], [rsi + 8], [rsi + 0x130] 4.00: the larger of
	   * half the stores and the times the chunk changes. Not a store a mov load reads: mov
	   * rax, [rsi]; mov qword ptr [rdi + 8], rdx; mov [rdi], rcx 2.00, the load from [rsi +
	   * 0x10] 1.05. On stop 77's BHive draw (seed 80): 3.32% without either, 2.94% with
	   * the runs, 2.78% with both
	   */
	  .pair_store_runs = true,
	  .pair_store_unread = true,
	  /* 3 loads and a store, or 2 and 2 paired: 1.33 cycles; 2 loads and a store 1.00 */
	  .agu_ports = 3,
	  /* 3 adds and mov [rbp + r11], rcx (or [rbp + r11*8]) 1.25 cycles, with [rbp - 8] 1.00 */
	  .indexed_store_alu = true,
	  .vector_ports = 4,
	  .placement = IPCC_MODEL_PLACE_NEXT,
	  .latencies = "zen4",
	  .lock_latency = 6, /* lock add chained 5.9 (lock xadd 7.8, xchg 7.4) */
	  .cost = { { "vpmulld", 3, 1 },
		    { "pmulld", 3, 1 },
		    { "mfence", 7, 1 },
		    { "div", 9, 2 },
		    { "idiv", 9, 2 },
		    { "divsd", 13, 1 },
		    { "divpd", 13, 1 },
		    { "divss", 10, 1 },
		    { "popcnt", 1, 1 },
		    { "tzcnt", 1, 1 },
		    { "lzcnt", 1, 1 },
		    { "bsf", 1, 1 },
		    { "bsr", 1, 1 },
		    { "bswap", 1, 1 },
		    { "shld", 2, 1 },
		    { "shrd", 2, 1 },
		    { "roundsd", 3, 1 },
		    { "roundss", 3, 1 },
		    { "roundpd", 3, 1 },
		    { "roundps", 3, 1 },
		    { "cvtss2sd", 3, 2 },
		    { "cvtsd2ss", 3, 2 },
		    { "cvtdq2ps", 3, 1 },
		    { "minsd", 2, 1 },
		    { "maxsd", 2, 1 },
		    { "minss", 2, 1 },
		    { "maxss", 2, 1 },
		    { "minps", 2, 1 },
		    { "maxps", 2, 1 },
		    { "minpd", 2, 1 },
		    { "maxpd", 2, 1 },
		    { "pshufb", 2, 1 },
		    { "vpermq", 4, 1 },
		    { "haddps", 4, 1 },
		    { "haddpd", 4, 1 },
		    { "blendvps", 1, 1 },
		    { "blendvpd", 1, 1 },
		    { "sqrtsd", 20, 1 },
		    { "sqrtpd", 20, 1 },
		    { "sqrtss", 14, 1 },
		    { "sqrtps", 14, 1 } },
	  /* chained: addsd, addss, addpd, subsd, vaddps ymm, vaddpd zmm 3.00; mulsd, mulps,
	   * vmulpd ymm 3.00, vfmadd231pd 4.00; a mulsd-addsd pair 6.00: no bypass wait */
	  .fadd_latency = 3,
	  .fmul_latency = 3,
	  /* mov rbx, rax; mov rax, rbx 1.00 (32 bits and movaps alike; mov bl, al 2.00) */
	  .move_elimination = true,
	  /* sub qword ptr [rbp], 1 chained 1.00, four in a row 4.00; mov [rbx], rax; mov rax,
	   * [rbx] 1.00; add qword ptr [rdx], rbx chained 1.00 (renamed, unlike Golden Cove) */
	  .memory_renaming = true,
	  /*
	   * Which loads are renamed (stop 77, cycles a loop): mov [rbx], rax; add rax, [rbx]
	   * 7.87 ([rbx + 8], [rbp - 0x68] alike; cmp rax, [rbx] or cmp [rbx], 1 with adc rax, 0
	   * 8.55, 8.19), through [rbx + rcx*8] 1.00; mov [rbx], rax; movzx eax, byte ptr [rbx]
	   * 6.06; mov word ptr [rbx], ax; mov ax, [rbx] 7.78; movsxd rax, dword ptr [rbx] after
	   * a dword store 7.40; mov and cmov loads 1.00; mov byte ptr [rbx], al; mov al,
	   * [rbx] 8.06, add byte ptr [rbx], 1 chained 6.53 (Debian's seed 80 2.58% -> 2.34%)
	   */
	  .rename_no_load_op = true,
	  .rename_no_byte = true,
	  .rename_no_movzx = true,
	  .rename_no_word = true,
	  /* cmp rbx, rcx; sbb eax, eax; lea eax, [rax + 1] 1.00, twice 1.75 (stop 77) */
	  .sbb_idiom = true,
	  /* xchg rax, rbx; add rax, 1 1.00 (xchg eax, ebx alike); mov eax, eax; add rax, 1
	   * twice 2.00 (stop 77) */
	  .xchg_renamed = true,
	  .self_move_renamed = true,
	  /* vcvtsi2sd xmm0, xmm0, edx chained 1.27 cycles a loop, after vunpcklpd xmm0, xmm0,
	   * xmm0 4.05 (stop 77) */
	  .merge_zero_upper = true,
	  /* mov cl, [rax]; and cl, 0x7f 2.00 cycles a loop (stop 77) */
	  .load_merge_latency = 1,
	  /*
	   * two, four lea rax, [rsi + rdx + 8] with the loop's dec, jnz 1.25, 2.25 cycles a
	   * loop, one beside two adds 1.32 (stop 77): two ALU slots each
	   */
	  .lea3_alu_slots = 2,
	  /* four movq xmm, r64 4.82 cycles a loop, six 6.74, two movd xmm, r32 2.39 (stop 77) */
	  .vec_in_ports = 1,
	  .divider_cycles = 7, /* independent 64-bit divs 6.96 cycles apart (32 bits 6.00) */
	  /*
	   * The FP divider (stop 77), independent ones: vdivsd, divsd, vdivpd xmm and ymm
	   * 5.0 cycles apart; vdivss, vdivps ymm 3.0; vsqrtsd, vsqrtpd ymm 8.3; vsqrtss 4.9
	   */
	  .fdiv_single_cycles = 3,
	  .fdiv_double_cycles = 5,
	  .fsqrt_single_cycles = 5,
	  .fsqrt_double_cycles = 8,
	  .fdiv_full_width = true,
	  .vector_load_latency = VLOAD_ZEN4,
	  /* ipcc bench empty (dec; jnz): 1.00 cycle an iteration, one taken branch a cycle */
	  .taken_per_cycle = 1,
	  /*
	   * ipcc bench call.pointer (call rdx; ret; the loop's branch): 5.0 cycles, less the
	   * return's and the branch's cycle each
	   */
	  .indirect_call_cycles = 3,
	  /*
	   * bench/fast_strings, L1-resident: up to 128 bytes stosb 9.2 cycles, movsb 14.4 (12
	   * between them); 256 B 32-34, 1 KiB 47-55, 4 KiB 131-151, 16 KiB 530-556: 25 and 32
	   * bytes a cycle. Copies of 256 KiB (L2) 14.9 bytes a cycle, 4 MiB (the LLC) 13.6: 56
	   * and 47 bytes a cycle for each line that misses L1, source or destination.
	   */
	  .rep_short_cycles = 12,
	  .rep_cycles = 25,
	  .rep_bytes_per_cycle = 32,
	  .rep_l2_bytes_per_cycle = 56,
	  .rep_llc_bytes_per_cycle = 47,
	  /*
	   * ipcc bench --fit-profile's blocks on the Genoa guest of stop 74, cycles a loop,
	   * each key the value with which the model runs its block nearest: mov [rsi], rax;
	   * mov rbx, [rsi + 4] 19.0 (a forward that fails); mov [rdi], rax; mov eax, [rsi +
	   * 4] 6.07 (forward_extra 2); movdqu through [rdi] and [rsi] 9.0 (vector_forward_extra
	   * 2); movq xmm0, rax; movq rax, xmm0 7.0 (from_gpr_extra 3); four shl 2.0 (three
	   * shifting ports then, with Intel's two micro-ops a shift by cl: two since stop
	   * 77, below); four imul 4.0 (one multiplier); four vmulps, four
	   * vaddps 2.0 (two ports each); four vmovmskpd 4.8 (one port out); three movdqu that
	   * split lines 3.0; a store that splits a line 2.0, a page 33.8; cpuid 12,751; a mov
	   * and an ALU op fused (1.00); the dependent loads' block 2.2 (dep_load_ports,
	   * dep_load_gap); six movsd loads 3.0 (two vector load ports); rep stosq of 11 15.0;
	   * fadd st(0), st(0) on a NaN 7.0. A store through one virtual page of the harness's
	   * one physical page and a load through another: mov [rdi + rsi], rax; mov rax, [rsi]
	   * 1.00 (renamed as through one address), mov rax, [rsi + 4] 19.0 (the forward fails
	   * as through one): alias_forwards. With these, 1,787 BHive blocks measured there
	   * 4.39% -> 3.66%, and 817 of Debian's, held out, 4.43% -> 4.05%.
	   */
	  .forward_fail_latency = 19,
	  .forward_extra = 2,
	  .vector_forward_extra = 2,
	  .from_gpr_extra = 3,
	  .alias_forwards = true,
	  /*
	   * Four independent and the loop's dec, jnz, cycles a loop (stop 77): shl by an
	   * immediate or by cl, sar, ror, rol by 1, bt 2.00, three shl 1.50; cmovbe, cmove,
	   * cmovl, seta, sete 2.50, three cmovbe 2.00; two shl beside two cmovbe 1.50: two
	   * shifting ports, two branching ones apart, one micro-op each. BHive's seed 80
	   * 2.78% -> 2.72%, Debian's 2.72% -> 2.58%. The model runs four cmovbe at 3.00: it
	   * issues the oldest first, and the loop's branch waits behind them
	   */
	  .shift_ports = 2,
	  .branch_ports = 2,
	  .mul_ports = 1,
	  .vec_mul_ports = 2,
	  .vec_add_ports = 2,
	  .vec_out_ports = 1,
	  .split_load_cycles = 1,
	  .split_store_cycles = 2,
	  .page_split_store_cycles = 34,
	  /*
	   * and a store across 32 bytes as across a line (stop 77): movdqu [rbp - 0x68], xmm1
	   * 2.00 cycles a loop, [rbp - 0x70] and [rbp - 0x58] 1.00; mov qword ptr [rbp -
	   * 0x64], rdi 2.00; vmovdqu ymmword ptr [rbp - 0x70] 2.00; loads 1.00
	   */
	  .split_store_bytes = 32,
	  .cpuid_cycles = 12751,
	  .fuse_mov_alu = 1,
	  .dep_load_ports = 2,
	  .dep_load_gap = 5,
	  .vec_load_ports = 2,
	  .rep_wide_cycles = 12,
	  .x87_nan_cycles = 4,
	  /* mov rax, [rax + rcx*8], [rax + rcx*2], [rax + rcx + 8] 5.00; [rax + rcx] 4.00 */
	  .complex_load_latency = 1,
	  /* lea rax, [rax + rcx + 8] 2.00; [rax + rcx*8], [rax + 8], [rax + rax*2] 1.00 */
	  .lea3_latency = 2,
	  /* imul rcx; mov rax, rdx chained 4.00 (mul alike); imul rcx chained through rax 3.00 */
	  .mul_high_latency = 4,
	  /*
	   * ipcc bench latency at 3.69 GHz: 1.08 ns (4 cycles) to 32 KiB, 3.80 ns (14) at
	   * 64-256 KiB, 14.9 ns (55) at 4 MiB, 177.7 ns (656) at 128 MiB (a random chase: the
	   * page walks under KVM's nested paging are in it; memory is that less TLB_WALK)
	   */
	  .l2_latency = 14,
	  .llc_latency = 55,
	  .dtlb_entries = 72,
	  .stlb_entries = 3072,
	  .stlb_latency = TLB_HIT,
	  /*
	   * ipcc bench --fit-profile on the Genoa guest of stop 74: pages.spread (a chase over
	   * 36 MiB, a page walk each load) 102.8 cycles a load, 89 less L2's latency
	   */
	  .walk_latency = 89,
	  .syscall_bytes_per_cycle = SYSCALL_BYTES_PER_CYCLE,
	  /*
	   * Measured on a Genoa guest of 2 vCPUs (2026-12-01, stop 74; docs/internals/
	   * model-backend.md, "Zen 4 again"). bench/llc_time.py (a chase on huge pages, 2 to 32
	   * MiB, 0 to 240 cycles between loads, five rounds): the LLC 43 cycles a load at 2
	   * MiB, memory 423-519 at 128 MiB; the share moved between rounds from nearly all of
	   * the 32 MiB to less than 8. The natives are each program's fastest round, so the
	   * fit takes each point's quietest round: 29 MiB and 2,512 foreign lines a million
	   * cycles (rms 0.09 in the chance of memory; the median round's 20 MiB and 4,467).
	   */
	  .dram_latency = 470,
	  .llc_share_mib = 29,
	  .llc_foreign = 2512,
	  /*
	   * bench/kernel_costs there, the fewest of five rounds at 3.70 GHz: an anonymous
	   * page's first touch 5,576 cycles, a file's page through a mapping 9,688 (16 pages a
	   * fault), getppid 615, read() 3.1 bytes a cycle, a process spawned, exited and reaped
	   * 412,556; a page read() faulted in costs its first touch after 40 cycles (no PVM
	   * shadow table: kernel_page_touch_cycles 0)
	   */
	  .fault_cycles = 5576,
	  .file_fault_cycles = 9688,
	  .syscall_cycles = 615,
	  .process_cycles = 412556,
	  /*
	   * bench/op_cache there (blocks a line apart in a random order, each K adds and loads
	   * and a jmp), cycles a block: 2 and 8 ops 1.0-1.3, 9, 12 and 13 ops 1.95-2.15, 8 ops
	   * across two lines 2.0: an entry of up to 8 ops a cycle. 384 to 768 blocks of 8 ops
	   * 1.28-1.32, 896 1.64, 1,024 1.89, 1,536 2.14: 768 entries (AMD's 6.75K ops, 9 to
	   * an entry). Past it the decoders, Zen 5's rule (4 a cycle, 2 cycles a block: 2.0
	   * modelled). loop_stream_ops as Zen 5's, not measured here (12 to 24 give the same
	   * on 1,787 BHive blocks)
	   */
	  .opcache_line_ops = 8,
	  .opcache_entries = 1,
	  .opcache_capacity = 768,
	  .decode_width = 4,
	  .decode_block_cycles = 2,
	  .loop_stream_ops = 12,
	  /*
	   * ipcc bench --fit-profile there: bandwidth.triad in L2 5.99 cycles an iteration,
	   * four lines (three filled, one written back), 43 bytes a cycle; bandwidth.triad_nt
	   * 11 bytes a cycle. The triad past L2 (ipcc bench bandwidth.triad --sweep, a quiet
	   * round): 5.92-6.17 cycles to 512 KiB, 7.54 at 1 MiB, 7.59-8.08 at 2-8 MiB, 1.8
	   * cycles more for the (Zen 5 model's) 2.77 lines an iteration from the LLC: 96 bytes
	   * a cycle
	   */
	  .l2_bytes_per_cycle = 43,
	  .nt_bytes_per_cycle = 11,
	  .llc_bytes_per_cycle = 96,
	  /*
	   * ipcc bench call.direct there (four calls, each function calling the next a line
	   * apart, and their returns) 17.0 cycles, as Zen 5's 16-18
	   */
	  .call_ret_cycles = 4,
	  /*
	   * ipcc bench pages.start (a chase over the first line of each page) 176 cycles an
	   * iteration of 8 loads there, 345 modelled with a plain index, 168 with Zen 5's fold
	   */
	  .l2_fold_bits = 3 },
	/*
	 * AMD Zen 5 (family 1Ah): 8-wide dispatch and retire, a 448-entry ROB, 6 integer ALUs,
	 * 4 loads and 2 stores a cycle, 4 FP/vector pipes (AMD's public figures, Hot Chips
	 * 2024 and the family 1Ah optimization guide); a dependent add-imm chain runs one a
	 * cycle here (no folding). Placement: `next`, 8 wide, which fits four of the five skid
	 * kernels measured on Zen 5; skid.adds wants another rule (docs/internals/skid.md,
	 * tests/data/profiles/zen5-adds.profile). Its FP add takes 2 cycles from an add, 3
	 * from a multiply (measured on family 1Ah model 2: addsd chain 2.08, mulsd 3.10, a
	 * mulsd-addsd pair 6.22): fp_bypass 1. Every FP add and subtract takes 2 cycles and
	 * every multiply 3, scalar or packed, single or double, 128 or 256 bits (ipcc bench
	 * --block chains: addss 2.00, addps 2.00, vaddps ymm 2.00, subss 2.00, mulss 3.00,
	 * vmulpd ymm 2.99), so fadd_latency and fmul_latency say it for all; pmulld and
	 * vpmulld 3.00.
	 */
	{ .name = "zen5",
	  .width = 8,
	  .retire = 8,
	  .rob = 448,
	  .load_latency = 4,
	  /*
	   * ipcc bench --fit-profile on Zen 5 guests: 23 (2026-11-23), 22 three times
	   * (2026-11-28: branch.random 15.9 cycles an iteration, 11.9 modelled with 13, AMD's
	   * public minimum); on the guest of stops 58-73, 19 five times in a quiet hour
	   * (branch.random 14.75), 21 and 22 in busier ones (15.27, 16.11). Kept at 22 (stop
	   * 73): with 20 the backend's branch.random came within 2% (14.96, 16.00 with 22), but
	   * the programs that mispredict most went further under (gcc -25.7% -> -27.0%, gzip
	   * -6.3 -> -8.9, xz -6.1 -> -7.8, lz4 -9.6 -> -11.4): a mispredict in a program costs
	   * more than branch.random's, as among many sites (bench/mispredict_sites.py, stop
	   * 67: 26-29 cycles natively, 28 modelled with 22)
	   */
	  .recovery = 22,
	  .fuse_cmp_jcc = true,
	  /*
	   * ipcc bench --block (stop 62): mov r8d, 0x82; mov rdi, rbp; mov r9, rcx; mov edx, 1;
	   * mov esi, 0x21; mov r14, rax; mov r10d, 7 with the loop's dec, jnz 1.000 cycles a
	   * loop (nine slots: 1.124). The jcc keeps its ALU op: independent chains of one cycle
	   * issue worse than six a cycle, and the pair as two ALU ops stands for that
	   * (docs/internals/model.md, "Zen 5 on blocks, a fifth time" and "a sixth time")
	   */
	  .alu_jcc_one_slot = true,
	  .alu_ports = 6,
	  .load_ports = 4,
	  .store_ports = 2,
	  /*
	   * ipcc bench --block (stop 76): five mov r32, imm and the loop 1.00 cycles a loop,
	   * six 1.18; five and mov [rbp - 0x68], rdi 1.18 (an immediate, a byte, an indexed
	   * address alike), two such stores 1.36, and movdqu [rbp - 0x68], xmm1 1.00; five and
	   * add [rbp - 0x68], rdi 1.19, one ALU op for the whole. Debian's blocks of seed 77
	   * 1.82% -> 1.70% (tau-b 0.927 -> 0.945), seed 79 1.89% -> 1.86%, BHive's seed 77
	   * 1.67% -> 1.57%
	   */
	  .store_alu = 1,
	  .vector_ports = 4,
	  /*
	   * ipcc bench --block on the Zen 5 guest of stop 75 (four independent of each and the
	   * loop; two beside two vmulps, two beside two vaddps): vmulps, vpmullw, vpmulld,
	   * vpmaddwd, vpmulhw, vaesenc 2.00, 2.00, 1.00; vaddps, vminps, vcmpltps, vroundps,
	   * vcvtdq2ps, vcvtps2pd, vpsllq, vpsraw, vpsllvd 2.00, 1.00, 2.00; vpshufb, vpsrldq,
	   * vpmovzxbw, vpalignr, vpacksswb, vpaddusb, vpabsd, vrcpps, vinsertf128 2.00, 1.33,
	   * 1.33; vpcmpeqb, vpminub, vpavgb, vpaddd, vpshufd, vshufps, vpunpcklbw, vunpcklps,
	   * vpermilps, vblendps 1.00 (four pipes); the model had them all at 1.00
	   */
	  .vec_mul_ports = 2,
	  .vec_add_ports = 2,
	  .vec_shuffle_ports = 2,
	  .vec_zen_pipes = true,
	  /*
	   * moves to general registers and flags (stop 78): three vmovd r32, xmm, vmovq,
	   * pmovmskb, vpextrd, vcvttss2si, vucomiss or ptest 1.50 cycles a loop, four vmovd
	   * 1.97, two 1.00 (the model 1.00 for all before)
	   */
	  .vec_out_ports = 2,
	  /*
	   * Stop 75, on a busy host: bench/fast_strings, L1-resident, stosb and movsb up to 64
	   * bytes 7.0 and 10.4 cycles, 256 B 36 and 35, 1 KiB 42 and 48, 4 KiB 115 and 120,
	   * 16 KiB 421 and 422; in ipcc bench --block's loop (mov ecx, N; xor eax, eax; mov
	   * rdi, r13; rep stosb) 64 B 7.4, 128 B 34.9, 256 B 36.0, 800 B 43.3, 4,000 B 117.9:
	   * 25 cycles and 42 bytes a cycle. Copies of 256 KiB (L2) 31.2 bytes a cycle, 4 MiB
	   * (the LLC) 15.7: 240 and 50 bytes a cycle for each line that misses L1, source or
	   * destination (fills 40.5 and 31.4). rep stosq of 1-15 elements 15.0 (a short path
	   * under 128 bytes), 16-64 43, 100 49.0, 200 54.0, 500 118.0: 30 cycles and its bytes
	   * at 42 give 512 and 800 bytes within 2 cycles (128 and 256 bytes 33 and 36 against
	   * 42.7 and 43.0). Before, a run went through the pipeline model an element at a time:
	   * Debian's blocks of seed 77 2.42% -> 2.28% (two rep stosq blocks, 54.7 and 49.0
	   * cycles measured, 4.0 and 2.0 modelled, now 50 and 39), BHive's unmoved
	   */
	  .rep_short_cycles = 9,
	  .rep_cycles = 25,
	  .rep_bytes_per_cycle = 42,
	  .rep_l2_bytes_per_cycle = 240,
	  .rep_llc_bytes_per_cycle = 50,
	  .rep_wide_cycles = 30,
	  .rep_wide_short_cycles = 15,
	  .placement = IPCC_MODEL_PLACE_NEXT,
	  .latencies = "zen5",
	  .lock_latency = 20, /* measured: atomic.lock_add 19.99, a lock xadd block 20.0 */
	  /*
	   * ipcc bench --block on a Zen 5 guest (2026-11-28), cycles a loop: bsf, bsr, tzcnt,
	   * lzcnt and popcnt chained on themselves 1.00; cvtss2sd and cvtsd2ss 3.00; sqrtsd
	   * 19.98, sqrtss 13.71, divsd 12.78, divss 9.82; cvttsd2si, cvtsd2si and cvttss2si
	   * 10.7-10.9 with a movq or movd back (from_gpr_extra's 6); alone in the loop (stop
	   * 59), mfence 78.9 (with a store or a load before it 80.0, 78.9), lfence 15.2,
	   * sfence 1.00
	   */
	  .cost = { { "vpmulld", 3, 1 },   { "pmulld", 3, 1 },	  { "mfence", 79, 1 },
		    { "lfence", 15, 1 },   { "sfence", 1, 1 },
		    { "div", 10, 2 },	   { "idiv", 10, 2 },	  { "bsf", 1, 1 },
		    { "bsr", 1, 1 },	   { "tzcnt", 1, 1 },	  { "lzcnt", 1, 1 },
		    { "popcnt", 1, 1 },	   { "cvtss2sd", 3, 2 },  { "cvtsd2ss", 3, 2 },
		    { "sqrtsd", 20, 1 },   { "sqrtss", 14, 1 },	  { "divsd", 13, 1 },
		    { "divss", 10, 1 },	   { "cvttsd2si", 5, 2 }, { "cvtsd2si", 5, 2 },
		    { "cvttss2si", 5, 2 }, { "cvtss2si", 5, 2 },
		    /*
		     * cmpxchg ecx, esi chained 3.00; through memory, not renamed (parse_insn.c),
		     * cmpxchg dword ptr [r8], esi 8.93-9.00 (10 modelled)
		     */
		    { "cmpxchg", 3, 4 },
		    /*
		     * x87 (model_x87_approximate), chained through st(0), ipcc bench --block
		     * (stop 59): fadd, fmul st(0), st(0), fadd and fmul qword ptr [rax], fiadd
		     * dword ptr [rax], fld1; faddp 6.00; fdiv st(0), st(1) 15.0; fsqrt 22.0; fld
		     * st(0), fxch, fchs, fcomi, fucomip, fldz 1.00
		     */
		    { "fadd", 6, 1 },	   { "fsub", 6, 1 },	  { "fsubr", 6, 1 },
		    { "fmul", 6, 1 },	   { "faddp", 6, 1 },	  { "fsubp", 6, 1 },
		    { "fsubrp", 6, 1 },	   { "fmulp", 6, 1 },	  { "fiadd", 6, 1 },
		    { "fisub", 6, 1 },	   { "fisubr", 6, 1 },	  { "fimul", 6, 1 },
		    { "fdiv", 15, 1 },	   { "fdivr", 15, 1 },	  { "fdivp", 15, 1 },
		    { "fdivrp", 15, 1 },   { "fidiv", 15, 1 },	  { "fidivr", 15, 1 },
		    { "fsqrt", 22, 1 },	   { "fld", 1, 1 },	  { "fxch", 1, 1 },
		    { "fchs", 1, 1 },	   { "fabs", 1, 1 },	  { "fldz", 1, 1 },
		    { "fld1", 1, 1 },	   { "fcomi", 1, 1 },	  { "fucomi", 1, 1 },
		    { "fcomip", 1, 1 },	   { "fucomip", 1, 1 },	  { "fst", 1, 1 },
		    { "fstp", 1, 1 },
		    /*
		     * AES and carry-less multiplies (stop 61), cycles a loop: aesenc, aesenclast,
		     * aesdec, aesdeclast, vaesenc xmm chained 4.00, eight independent 4.00 (two
		     * units: two micro-ops each on the four vector ports say it); aesimc and
		     * aeskeygenassist alike (4.00 chained, eight 4.00, one 1.00: not microcoded,
		     * as on Emerald Rapids); pclmulqdq chained 5.02, two independent chains 4.00,
		     * four 7.99 (the unit's rate not modelled). Into a pxor 6.00 and 6.99: a cycle
		     * of bypass, not modelled either
		     */
		    { "aesenc", 4, 2 },	   { "aesenclast", 4, 2 }, { "aesdec", 4, 2 },
		    { "aesdeclast", 4, 2 }, { "aesimc", 4, 2 },	   { "aeskeygenassist", 4, 2 },
		    { "pclmulqdq", 5, 1 },
		    /* one after another (stop 61): xgetbv (ecx = 0) 47.97, rdtsc 37.5 */
		    { "xgetbv", 48, 4 },   { "rdtsc", 38, 4 },
		    /* chained (stop 59): vminps, vmaxss, minsd, vmaxpd ymm 2.00 */
		    { "minps", 2, 1 },	   { "minpd", 2, 1 },	  { "minss", 2, 1 },
		    { "minsd", 2, 1 },	   { "maxps", 2, 1 },	  { "maxpd", 2, 1 },
		    { "maxss", 2, 1 },	   { "maxsd", 2, 1 },
		    /*
		     * string instructions without rep, one after another (stop 78): lodsb, lodsw,
		     * lodsd, stosb, stosd, scasb, movsb, cmpsb 2.98-3.00 cycles a loop, two lodsd
		     * 5.99 (2 and 5 modelled, the table's microcode cycles); the qword forms not
		     * measured (the harness took none), taken as alike
		     */
		    { "lodsb", 3, 4 },	   { "lodsw", 3, 4 },	  { "lodsd", 3, 4 },
		    { "lodsq", 3, 4 },	   { "stosb", 3, 2 },	  { "stosw", 3, 2 },
		    { "stosd", 3, 2 },	   { "stosq", 3, 2 },	  { "scasb", 3, 4 },
		    { "scasw", 3, 4 },	   { "scasd", 3, 4 },	  { "scasq", 3, 4 },
		    { "movsb", 3, 4 },	   { "movsw", 3, 4 },	  { "movs_d", 3, 4 },
		    { "movsq", 3, 4 },	   { "cmpsb", 3, 4 },	  { "cmpsw", 3, 4 },
		    { "cmps_d", 3, 4 },	   { "cmpsq", 3, 4 } },
	  .fadd_latency = 2,
	  .fmul_latency = 3,
	  .move_elimination = true,
	  .memory_renaming = true,
	  .rename_partial_extra = 1,
	  /*
	   * Stores and loads, ipcc bench --block on a Zen 5 guest (2026-11-28), cycles a
	   * loop: a load the store does not hold fails (mov [rdi], eax; mov rax, [rsi] 13.98;
	   * movdqu [rdi], xmm0; movdqu xmm0, [rsi + 8] 14.97), through another virtual page of
	   * the harness's one physical page as through one (mov [rdi + rsi], rax; mov rax,
	   * [rsi] 1.00, renamed); a forward takes 3 cycles over the cache's from a general
	   * register's store (mov [rdi], rax; mov eax, [rsi + 4] 7.00), 2 from a vector
	   * register's (movdqu through [rdi] and [rsi] 8.98, the load 7); a movzx load is not
	   * renamed (6.9-7.0 after a byte or word store). A general register's value into a
	   * vector register 4 cycles late (from_gpr_extra). With the cost rows above, on 1,839
	   * BHive blocks measured here 4.69% -> 3.49%, on 830 held out 5.30% -> 4.17%.
	   */
	  .forward_fail_latency = 14,
	  /* mov rax, [rax + rcx*4] and [rax + rcx + 8] chained 4.99; [rax + rcx], [rax + 8] 3.99 */
	  .complex_load_latency = 1,
	  /*
	   * four loads and a store 1.25 cycles a loop, three and one 1.00, four and two 1.50
	   * (ipcc bench --fit-profile's agu_ports row)
	   */
	  .agu_ports = 4,
	  /*
	   * loads whose address comes from a load's value, in one iteration, beside the first
	   * (mov rax, [rbx]; mov rcx, [rax + 8]; ...; stop 78): 2, 3, 4, 5, 6 of them 1.00, 1.16,
	   * 1.65, 2.12, 2.69 cycles a loop (two chains of two 1.64), six independent loads 1.49:
	   * about two a cycle and a half more (1.00, 1.20, 1.60, 2.00, 2.40 so; 1.50, 2.00 ...
	   * with two ports, no gap)
	   */
	  .dep_load_ports = 3,
	  .dep_load_gap = 2,
	  /* movsd, movdqu, vmovups ymm: four loads 2.00 cycles a loop, six 3.00 */
	  .vec_load_ports = 2,
	  /*
	   * movd xmm, r32 two 1.98 cycles a loop, four 4.00, movq xmm, r64 four 3.98, vmovq six
	   * 6.12, cvtsi2sd xmm, r64 two 2.00, four 3.99 (stop 61); movd r32, xmm four 1.99
	   */
	  .vec_in_ports = 1,
	  .alias_forwards = true,
	  .from_gpr_extra = 4,
	  .forward_extra = 3,
	  .vector_forward_extra = 2,
	  .rename_no_movzx = true,
	  /*
	   * a global through rip (stop 63): add [rip + var], rsi chained through memory 1.07
	   * cycles a loop, add [rsi], rdx 1.07; bench/branch_patterns' loop (add or xor
	   * [rip + sum] an iteration) 3.06-3.48 natively, 8.95 modelled before
	   */
	  .rename_absolute = true,
	  /* sbb ecx, ecx on the carry alone (the loop above 1.07); lea rax, [rax + rdi + 2] and
	   * [rax + rdi*8 - 8] 2.00 chained, [rax + rdi], [rax + rdi*8], [rax + 8] 1.00 */
	  .sbb_idiom = true,
	  /* xchg rdi, rax chained 1.00 cycle a loop (stop 58) */
	  .xchg_renamed = true,
	  /* mov ecx, ecx; add rcx, 1 chained 1.00 cycle a loop, three movs and the add 1.00 */
	  .self_move_renamed = true,
	  /* vcvtsi2sd xmm0, xmm0, edx 1.00 cycle a loop; after vunpcklpd xmm0, xmm0, xmm0 5.05 */
	  .merge_zero_upper = true,
	  /* cmp r12d, eax; cmovle ebx, eax; mov r12d, ebx 3.00 cycles a loop (from the flags
	   * 2), cmovle r12d, eax alone 1.00 (from the data 1) */
	  .cmov_flags_late = 1,
	  .lea3_latency = 2,
	  /*
	   * And more of the ALUs' issue than its own slot (stop 61): 2, 3, 4, 6 and 8
	   * independent lea rax, [rsi + rdx + 8] with the loop's dec, jnz 1.00, 1.64, 2.33, 3.34
	   * and 4.33 cycles a loop, two beside 1, 2 and 3 adds 1.36, 1.67 and 1.84, four beside
	   * 2 2.68; lea rax, [rbp + rdx] and [rsi + rdx*4 + 8] alike; six [rsi + rdx], [rsi +
	   * rdx*4], [rdx*8] or [rsi + 8] 1.18, as six andn. Three slots fit the loops of four
	   * and more (modelled 2.33, 3.33, 4.33, 2.67) and overshoot one or two (1.33 for two);
	   * compilers' blocks hold one or two: on the stored sets two slots took every set's
	   * error down (BHive 58-63 2.21-1.91% -> 2.18-1.90%, Debian 2.16-3.27% -> 2.10-3.18%),
	   * three less (deb63 2.41% -> 2.50%)
	   */
	  .lea3_alu_slots = 2,
	  /*
	   * an ALU operation on the bypass from a one-cycle one of its allocation group, one
	   * in four: a slot more (stop 79; chosen on BHive's seed 82, 1.48% -> 1.37%)
	   */
	  .bypass_slot_every = 4,
	  /* mov cl, [rax]; and cl, 0x7f 2.00 cycles a loop (stop 58): the merge a cycle */
	  .load_merge_latency = 1,
	  .divider_cycles = 7, /* measured: independent 64-bit divs 6.98 cycles apart */
	  /*
	   * The FP divider, independent ones (stop 59): vdivsd 4.00, vdivpd xmm 3.93, ymm 4.00;
	   * vdivss 2.45, vdivps xmm 2.46, ymm 2.50; vsqrtsd 7.36, vsqrtpd xmm and ymm 7.36;
	   * vsqrtss 4.42, vsqrtps ymm 4.39 cycles apart
	   */
	  .fdiv_single_cycles = 2,
	  .fdiv_double_cycles = 4,
	  .fsqrt_single_cycles = 4,
	  .fsqrt_double_cycles = 7,
	  .fdiv_full_width = true,
	  .fp_bypass = 1,
	  /*
	   * ipcc bench --fit-profile on a Zen 5 guest (2026-11-28, three fits): branch.always
	   * (two taken branches) 2.00 cycles an iteration, one taken branch a cycle; call.pointer
	   * 4.0 cycles at the quietest (5.0-7.0 while the host's SMT sibling ran), the call 2 of
	   * them; movsd xmm0, [rax]; movq rax, xmm0 chained 9.0 (the load 7); three movdqu that
	   * split lines 3.0; four shl 1.87 (three shifting ports); imul rcx; mov rax, rdx 4.0.
	   * On 1,839 BHive blocks measured here: 4.93% -> 4.69% (the vector blocks 25.1% ->
	   * 21.1%); on 830 held-out blocks 5.50% -> 5.30%.
	   */
	  .taken_per_cycle = 1,
	  .indirect_call_cycles = 2,
	  /*
	   * ipcc bench call.direct (four calls, each function calling the next a line apart,
	   * and their returns) 15.99-18.0 cycles at stops 58-62, 16.0 at the quietest;
	   * bench/front_end, quiet: a call and its return 3.99, two deep 8.09, four calls of
	   * one leaf in a row 16.22, the callee's four chained adds hidden (3.99)
	   */
	  .call_ret_cycles = 4,
	  /*
	   * A chain of N jmps, each to the next 4 bytes on, in a loop (stop 64), cycles a jmp:
	   * 4,096 1.02, 8,192 1.06, 16,384 1.31 and 32,768 1.58 (the code from L2 past 8,192);
	   * 36,864 10.3, 40,960 12.3, 45,056 13.4, 49,152 17.6, 57,344 18.7, 65,536 16.5. So
	   * about 32,768 taken branches are held (one level: its two levels' rates differ by the
	   * fraction of a cycle the model leaves out), and a taken branch it misses, found by
	   * the decoders, costs 15 more. The chain under the backend: 1.0 to 32,768, 16.0 from
	   * 49,152 (gcc's cycles +5.3%)
	   */
	  .btb_entries = 32768,
	  .btb_miss_cycles = 15,
	  /*
	   * A mispredict among many sites that mispredict (stop 67, bench/mispredict_sites.py):
	   * N blocks a line apart in a random order, each a random branch and a jmp to the
	   * next, cycles a mispredict natively 26-29 from N = 256 to 3,584, 32 or 57 at 4,096
	   * (two runs), 68-75 at 6,144, 79-80 at 8,192; 8,192 blocks of which every 2nd, 4th,
	   * 6th or 8th branch is random 103-108, 89-91, 24-37 and 21-34; 6,144 with every 2nd
	   * 59-60. The model charged 28 in each. A rule, not a known structure: after a
	   * mispredict at a site not among the last 1,536 that mispredicted, the next 6 taken
	   * branches not among the last 8,192 (the first two ways of the buffer's 4,096 sets)
	   * cost a miss's 15 each: 28, 32, 40, 50, 65; 67, 49, 38, 35; 40. gcc's modelled
	   * cycles +5.5%, the other programs under 0.3%.
	   */
	  .btb_restart_entries = 8192,
	  .btb_restart_window = 6,
	  .btb_restart_sites = 1536,
	  /*
	   * The conditional predictor's tagged tables (stop 65): bench/branch_patterns many,
	   * N branches in a row each on a random pattern of its own, cycles a branch: period 4,
	   * 1.0-1.3 up to 12,288 of them, 5.1 at 16,384, 9.9 at 24,576, 12.4 at 32,768;
	   * period 8, 1.1 at 2,048, 1.25 at 4,096, 6.9 at 8,192, 12.1 at 16,384; and one branch
	   * on a pattern of 16,384 3.47, of 65,536 13.47 (stop 63). Tables of 8,192 give 1.55,
	   * 2.5, 3.6, 5.9; 1.46, 3.8, 8.8; 4.3 and 11.7 (of 1,024, the default: 7.0 at 4,096
	   * branches of period 4, 10.0 at 2,048 of period 8, 15.2 on the pattern of 16,384; of
	   * 16,384, 1.6 at 16,384 of period 4 and 7.0 on the pattern of 65,536). The base is
	   * not measured: the default's. gcc's mispredicts 20.7 -> 13.8 million
	   */
	  .tage_entries = 8192,
	  .tage_base_entries = 16384,
	  /*
	   * Code from L2 on the predicted path (stop 65), cycles a jump: chains of N blocks (K
	   * adds and a jmp, 32 bytes apart, in a random order), N = 2,048 (0.60 L1i misses a
	   * block under the model) 1.84-2.05, 8,192 (0.91) 2.18-2.53, where N = 256 in L1i
	   * takes 0.64-1.03; model_traces scatter (2,048 jmps a line apart, each 67 lines on:
	   * a miss each) 3.05-3.20, 0.7 within L1i; jmps 320 bytes apart in order 1.9-2.7 from
	   * 512 on, 0.6 within L1i. A line from L2 costs the front end 1.3-2.4 cycles, 1.9 on
	   * average. With 2 the model gives 2.2, 2.8 and 3.0 (1.0 each without)
	   */
	  .l1i_l2_cycles = 2,
	  .vector_load_latency = 7,
	  .split_load_cycles = 1,
	  .shift_ports = 3,
	  .mul_high_latency = 4,
	  /*
	   * Memory and the kernel, measured on a Zen 5 guest of 2 vCPUs (2026-11-29, stop 58;
	   * docs/internals/model-backend.md): bench/llc_time.py --sizes 2,3,4,6,8,12,16, a
	   * chase on huge pages, 52 cycles a load at 2-4 MiB (the LLC), 6-8 MiB partly from
	   * memory and moving between rounds, 12-16 MiB a plateau near 480 (memory; 717 at 128
	   * MiB with the host's page walks); ipcc bench --fit-profile's page walk 226 (the
	   * guest's and the host's tables, two-dimensional); bench/kernel_costs twice: a first
	   * touch of an anonymous page 39,000 cycles with its zeroing (11 us), getppid 3,600,
	   * read() 3 bytes a cycle. The share the guest keeps of the LLC is its neighbours'
	   * doing: the chase's fit gives 12 MiB and 631 foreign lines a million cycles (rms
	   * 0.16 in the chance of memory, the rounds apart by as much). Stop 58 took 4 MiB
	   * from the eight programs of bench/model_backend.py instead (22.1% mean error of
	   * elapsed cycles, 12 MiB 28.1%), where xz's faults were counted for a zero page this
	   * guest's kernel does not map, and perl's and zstd's cycles were over. Stop 66: the
	   * chase's own figures, against each program's fewest native cycles of stops 60-65:
	   * the eight 18.8% -> 10.0% (perl +50 -> +14, zstd +31 -> +13, python3 +20 -> +7,
	   * xz +9 -> -8), the six held out 10.4% -> 11.0% (sort -15 -> -17)
	   */
	  .l2_latency = 14,
	  .llc_latency = 52,
	  /*
	   * ipcc bench bandwidth.triad, its arrays in L2 (128 to 512 KiB), 4.56-4.60 cycles
	   * an iteration (stop 63), where its eight loads take 4 on the two vector load ports:
	   * three lines filled and one written back, 256 bytes, 56 a cycle. bandwidth.copy in
	   * L2 1.00 and bandwidth.load 2.00 (their add's and addpd's chains) are under it
	   */
	  .l2_bytes_per_cycle = 56,
	  /*
	   * bandwidth.triad past L2 (stop 73, the fewest of three rounds): 786 KiB 4.68 cycles
	   * an iteration, 1 MiB 5.14-5.43, 1.25 MiB 6.18, 1.5 MiB 6.55, 1.75 MiB 6.86, 2 MiB
	   * 6.90, 3 MiB 7.30, 4 MiB 7.54, where its L1 lines take 4.57: under the backend 0.46,
	   * 1.25, 1.81, 2.21, 2.61, 2.62, 2.77 and 2.77 of its three lines miss L2, so each
	   * adds 0.89 cycles (72 bytes a cycle) from 1.25 to 2 MiB (60-65 at 3-4 MiB, where
	   * the model's count stops at 2.77 while the natives go on growing)
	   */
	  .llc_bytes_per_cycle = 72,
	  .llc_share_mib = 12,
	  .llc_foreign = 631,
	  /*
	   * ipcc bench pages.start (a chase over the first line of each page, in a random
	   * order), cycles a load: 1 MiB (256 pages) 21.2 (L2 and the second-level TLB), 2 MiB
	   * 21.9, 2.5 MiB 22.6, 3 MiB 25.1, 3.5 MiB 29.3, 4 MiB 43.4 (stop 63): 0, 2, 4, 11, 22
	   * and 58% of the loads miss L2. A plain index gives such lines 32 sets of 8 ways: 256
	   * at most, fewer with the frames' colours uneven, and the spatial prefetcher's pairs
	   * beside them (the backend: 60% miss at 256 pages, all from 512). Three bits folded
	   * in, the same chase under the backend: 0, 7, 17, 23, 38 and 57% (two bits: 0, 50,
	   * 76, 92, 99, 99%).
	   */
	  .l2_fold_bits = 3,
	  .dram_latency = 480,
	  .dtlb_entries = 96,
	  .stlb_entries = 4096,
	  .stlb_latency = TLB_HIT,
	  .walk_latency = 226,
	  .fault_cycles = 39000,
	  .syscall_cycles = 3600,
	  .syscall_bytes_per_cycle = 3,
	  /*
	   * bench/kernel_costs on that guest (stop 68, the fewest of five rounds at 3.67 GHz):
	   * a fault on a file's page read through a private mapping, which maps the 16 pages
	   * around it, 95,114 cycles (an anonymous page's 37,756); a process of one page that
	   * only exits, spawned and reaped on kernel_costs' CPU, 1,659,656 (2,013,391 where the
	   * scheduler puts it). /bin/true under ipcc stat, the fewest of fifteen runs, 7.3-10.0
	   * Mcycles in two hours; modelled 3.7 before these, 6.6 with them (47 faults, 21 a
	   * file's)
	   */
	  .file_fault_cycles = 95000,
	  /*
	   * bench/kernel_costs on that guest (stop 72): a page that read() faults in, 42,678
	   * cycles of the kernel's (fault_cycles'), and the program's first touch of it after,
	   * 19,113 (the fewest of five rounds), which the guest counts as no fault: a PVM
	   * guest's shadow page table, filled for user mode at that touch. ipcc asks the
	   * running kernel whether it has them (ipcc_mb_kernel_touch()).
	   */
	  .kernel_page_touch_cycles = 19000,
	  .process_cycles = 1660000,
	  /*
	   * ipcc bench --fit-profile on that guest: cpuid 22,138 cycles (a VM exit; a BHive
	   * block with one cpuid 22,310 a loop); loops of 7 and of 13 to 39 nops (micro-ops
	   * with the loop's branch) in whole cycles, but for 16, 24 and 32 (a multiple of the
	   * width): not unrolled (docs/internals/model.md, "Zen 5 on blocks again").
	   */
	  .cpuid_cycles = 22100,
	  .lsd_no_unroll = 1ull << 7 | 7ull << 13 | 0x7full << 17 | 0x7full << 25 | 0x7full << 33,
	  /*
	   * BHive's blocks in the harness's loop on that guest (stop 59): 13 to 15
	   * instructions in one 64-byte line (with dec, jnz) 3.00 cycles a loop, 16 to 18 with
	   * one to five in the next line 4.00, 11 or 12 over two lines 2.00; a loop of 12 or
	   * fewer in one line runs at the width (docs/internals/model.md, "The op cache's
	   * lines")
	   */
	  .opcache_line_ops = 6,
	  .loop_stream_ops = 12,
	  /*
	   * bench/op_cache N Km[@AT] (stop 70): 64 blocks a line apart in a random order, each
	   * K adds and loads and a jmp, cycles a block: K + 1 = 2 to 8 ops 1.0, 9 1.22-1.25, 10
	   * 1.22, 11 1.43, 12 1.50, 13 and 14 2.9; across two lines 8 ops 1.2-1.3 (2.0 where
	   * the jmp crosses), 11 and 12 with 9 or more in the first 2.0. python3's loop, 55
	   * fetch blocks in 333 instructions, 57 cycles natively: 95 with the line rule alone
	   */
	  .opcache_entries = 2,
	  /*
	   * bench/op_cache (stop 70): 512 blocks of eight ops, two entries each, 1.0 cycles a
	   * block, 640 2.3-2.5 (past 1,024 entries); 1,024 of four ops 1.0 (64 KiB of code:
	   * L1i's misses free), 1,536 and more 1.9-3.1; past it 1,024 blocks of eight 2.0 and
	   * of 13 ops 4.05-4.5: the decoders four instructions a cycle, two cycles a block
	   */
	  .opcache_capacity = 1024,
	  .decode_width = 4,
	  .decode_block_cycles = 2,
	  .utag_alias_first = 37,
	  .utag_alias_step = 23,
	  .utag_alias_dep = 26,
	  .utag_alias_plain = 33,
	  /*
	   * a chain of two loads of one line through two tags 27.98 cycles a loop, 27.26 through
	   * [rax] and [rax + 0x1000], where through one tag 8.00 (stop 61)
	   */
	  .utag_retag_latency = 10,
	  .alias_unrenamed = true,
	  .forward_fail_late = 3 },
	/*
	 * Intel Golden Cove / Raptor Cove (Alder Lake P-core, Sapphire and Emerald Rapids):
	 * 6-wide allocation, 8-wide retire, a 512-entry ROB, 5 integer ALU ports, 3 loads and
	 * 2 stores a cycle, 3 vector ports (Intel's public figures, Hot Chips 2021 and the
	 * optimization manual); the renamer folds add reg, imm (2-3 a cycle measured).
	 * Placement (as if retiring 4 a cycle) fitted to the even spread over skid.adds seen
	 * on Emerald Rapids (docs/internals/skid.md). Memory: measured on Emerald Rapids at
	 * 3.1 GHz (ipcc bench latency: 5.0 ns at 64 KiB, ~33 ns in the LLC, 140 ns at 128 MiB
	 * and more, memory that less TLB_WALK's page walk); a client Alder Lake's LLC is nearer 60 cycles. The latencies and
	 * mechanisms below were measured there too (family 6 model 0xCF, ipcc bench --block
	 * loops, cycles per iteration; docs/internals/model.md, "Golden Cove on blocks").
	 */
	{ .name = "goldencove",
	  .width = 6,
	  .retire = 8,
	  .rob = 512,
	  /*
	   * measured: a mov rax, [rax] chain 5.00 cycles, [rax + 8] and [rax + rcx] alike;
	   * add rax, [rax] then sub rax, rcx 7.00 (the load's 5 and the ops' 2)
	   */
	  .load_latency = 5,
	  .recovery = 17,
	  .fuse_alu_jcc = true,
	  .fuse_cmp_jcc = true,
	  .alu_ports = 5,
	  .load_ports = 3,
	  .store_ports = 2,
	  .vector_ports = 3,
	  /*
	   * A chain of add r8, 1 in ipcc bench --block's loop on a Granite Rapids-class guest
	   * (stop 81), cycles a loop: 3 and 4 adds 1.00, 6 1.17, 8 1.51, 12 2.17, 16 3.01: six
	   * a cycle with the loop's own (raptorcove keeps Emerald Rapids' 4)
	   */
	  .fold_imm = 6,
	  .placement = IPCC_MODEL_PLACE_NEXT,
	  .sample_retire = 4,
	  .latencies = "goldencove",
	  .lock_latency = LOCK_INTEL,
	  .cost = { /* a div chain 15.00 (64 bits; 32 bits 12.00) */
		    { "div", 15, 4 },
		    { "idiv", 15, 4 },
		    /* chained: divsd 13.01, divpd 13.01, vdivpd ymm 13.01; sqrtsd 13.01 */
		    { "divsd", 13, 1 },
		    { "divpd", 13, 1 },
		    { "sqrtsd", 13, 1 },
		    /* rdtsc 29.0 cycles apart on a Granite Rapids-class guest, 47 on Emerald Rapids */
		    { "rdtsc", 29, 4 },
		    /*
		     * x87 moves on the stack (model_x87_approximate): fchs chained 1.00 on
		     * Emerald Rapids; fld st(0), fst, fstp and fxch taken as 1 alike (not
		     * measured alone: fld qword ptr [rsi]; fstp st(0) 222 with its assist)
		     */
		    { "fchs", 1, 1 },
		    { "fabs", 1, 1 },
		    { "fld", 1, 1 },
		    { "fst", 1, 1 },
		    { "fstp", 1, 1 },
		    { "fxch", 1, 1 } },
	  /*
	   * chained: addsd, addss, addpd, subsd, vaddps ymm 2.00 cycles; mulsd, mulps, vmulpd ymm
	   * and vfmadd231pd ymm 4.00 (the table's 4); a mulsd-addsd pair 7.01: the add waits a
	   * cycle more for a multiply's result
	   */
	  /* mulsd, mulps, vmulpd ymm chains 3.00 cycles a loop on the Granite Rapids-class
	   * guest (vmulpd zmm 3.79), mulsd then addsd 6.01, FMA 4.00 (stop 80); Emerald Rapids
	   * 4.00 (raptorcove) */
	  .fmul_latency = 3,
	  .fadd_latency = 2,
	  .fp_bypass = 1,
	  /* mov rbx, rax; mov rax, rbx 1.00 cycle an iteration (the loop's bound), mov ebx,
	   * eax and movaps alike */
	  .move_elimination = true,
	  /*
	   * sub qword ptr [rbp], 1 four times in a row 4.00 (dword, byte alike; was modelled
	   * 24); mov [rbx], rax; mov rax, [rbx] twice 1.06; mov rax, [rbx]; nop; add rax, rcx;
	   * mov [rbx], rax 1.00. But a read-modify-write with a register operand is not renamed:
	   * add (or, sub) qword ptr [rdx], rbx 7.3 chained; nor, measured later, a load with an
	   * add, sub, and, xor or neg of its register right after it (mov rax, [rbx]; add rax,
	   * rcx; mov [rbx], rax 7.3): not modelled, as BHive's and Debian's blocks moved by
	   * less than 0.01 point with it.
	   */
	  .memory_renaming = true,
	  .rename_rmw_imm_only = true,
	  /*
	   * Measured on a Granite Rapids-class guest: mov rdx, [r12 + 8]; mov [r15 + 8], rdx
	   * (one address in the harness) 1.00 cycle, but mov rdx, [r12 + rax*8]; mov [r15 +
	   * rax*8], rdx 4.99, [r12 + rax] alike: an index keeps the store's forwarding latency.
	   */
	  .rename_base_only = true,
	  /*
	   * And 16-bit ones not at all, nor movsxd: mov r14w, [m]; add r14w, 1; mov [m], r14w
	   * 8.07, movzx r14d, word ptr [m] and a word store 4.96, add word ptr [m], 1 7.33,
	   * movsxd and a dword store 6.10, where bytes and dwords take 1.00-1.99.
	   */
	  .rename_no_word = true,
	  /*
	   * A folded add reg, imm takes no ALU port (a Granite Rapids-class guest): four inc
	   * or lea reg, [reg + 1] chains and the loop's branch 1.00 cycle, four add reg, r12
	   * chains 1.32; 80 mov reg, imm 5.7 a cycle on five ALUs.
	   */
	  .fold_no_port = true,
	  /*
	   * The renamer's folding, measured alike on Emerald Rapids and a Granite Rapids-class
	   * core: inc, dec, lea reg, [base + disp] fold too, into 64-bit registers, the offset
	   * within 11 signed bits; a shift, rotate, bt, bswap or a move into a vector register
	   * waits 2 cycles for a folded value (see model.h). The flags of and, or, xor, test
	   * reach setcc and cmovcc a cycle late.
	   */
	  .fold_lea = true,
	  .fold_bits = 11,
	  .fold_materialize = 2,
	  .logic_flags_late = 1,
	  /* cmovne r12, rdx alone 1.67 cycles a loop, sete al; cmp r13, r14 1.50: the loop's
	   * fused dec, jnz's flags late to a condition in its allocation group */
	  .fused_flags_late = 1,
	  /*
	   * Move fusion: mov rax, r12; and rax, 7 (add, xor, shl by 3, neg, not, inc) and four
	   * nops run 1.00 cycle a loop on a Granite Rapids-class core (1.17 with a nop between
	   * the two, or with cmp, test, imul, lea); two such pairs and six nops 1.50 (stop 80).
	   * Fusing them made the Emerald Rapids guest's blocks worse (BHive 2.36% -> 2.44%):
	   * raptorcove does not; ipcc bench --fit-profile measures it
	   */
	  .fuse_mov_alu = 1,
	  /* mov rax, [rsi]; xor rax, rcx twice and six nops 1.50 cycles a loop (1.84 with an
	   * immediate, adc, cmp, test, [rsi + rdi]); mov rax, [rsi]; add rax, rcx; mov [rsi],
	   * rax 7.33 (stop 80, not measured on Emerald Rapids) */
	  .fuse_load_alu = 1,
	  /*
	   * ALU and vector micro-ops bound to ports at allocation (uiCA's rule for Ice Lake):
	   * four independent add reg, r12 chains and the loop's branch 1.32 cycles (1.78 on
	   * Emerald Rapids), three 1.20, three with two nops 1.00, modelled 1.40, 1.29, 1.34
	   * (1.00 for all without).
	   */
	  .port_binding = true,
	  /*
	   * Three ALU ports of five for a sign extension and a scaled lea, one for bswap and bt,
	   * from loops of independent ones and the loop's branch (p0, p6) with an instruction
	   * of one known port beside them, on Emerald Rapids: six movsxd 2.00 cycles, six movsx
	   * r32, r8 2.00 (six movzx r32, r8 1.15); three movsxd and an imul (p1) 1.42, and a
	   * movq xmm, r (p5) 1.33, and a shlx (p06) 1.00: 1, 5 and 10; andn and blsr alike
	   * (six 2.00; 1.44, 1.33, 1.00). Six lea r, [rax + rax*2] 2.33 (six lea r, [rax + rcx
	   * + 1] 1.40); three with a shlx 1.67, with an imul or a movq 1.33: 0, 6 and 10. bswap
	   * r32 with an imul 2.00, with a movq 1.00; six bswap r64 6.00; six bt 6.00, bt with two
	   * shlx 1.50, with an imul 2.00: 1.
	   */
	  .alu_port_subsets = true,
	  /* independent 64-bit divs 10.01 cycles apart, idiv alike (32 bits: 6.00) */
	  .divider_cycles = 10,
	  .divider_cycles_32 = 6,
	  /*
	   * Independent, a Granite Rapids-class core: vdivss, vdivps xmm, vsqrtss 3.00 cycles
	   * apart (vdivps ymm 5.00); vdivpd xmm 4.01, vsqrtsd 4.50 (vdivpd ymm 8.00)
	   */
	  .fdiv_single_cycles = 3,
	  .fdiv_double_cycles = 4,
	  /*
	   * One after another, a Granite Rapids-class core: movdqu xmm1, [rdi - 0x42] (a line
	   * split) 1.07 cycles apart, three 3.20; mov rax, [rdi - 4] (a page split) 3.32, two
	   * 6.47, with a line split 3.46; mov [rdi + 0x3c], rax 2.00, two 4.01; mov [rdi - 4],
	   * rax 25.0; a page-split load and a line-split store 3.23
	   */
	  .split_load_cycles = 1,
	  .page_split_load_cycles = 3,
	  .split_store_cycles = 2,
	  .page_split_store_cycles = 25,
	  /* three loads from [rsi], [rdi + 0x40], [rdx + 0x80] (one 4-byte bank) 1.51 cycles
	   * a loop, from [rsi], [rdi + 4], [rdx + 0x40] 1.00 */
	  .loads_per_bank = 2,
	  /* Emerald Rapids: chains of 4 and 5 loads, each address the load before's value,
	   * 1.50-1.56 and 2.08-2.13 cycles a loop (1.33 and 1.67 where they are independent) */
	  .dep_load_ports = 2,
	  /* the chain of five 2.08-2.13, not 2.00; of three (two such loads) 1.08-1.27 */
	  .dep_load_gap = 8,
	  /* lock add qword ptr [rbx], 1 18.0 cycles a loop, after mov [rsi + 0x40], rax 25.5 */
	  .store_drain_cycles = 7,
	  /* add qword ptr [rsi], rax, movdqu xmm0, [rsi]; movdqu [rsi], xmm0, and a load of
	   * [rsi + rdx*8], add rax, 1 and its store alike 7.32-7.38 cycles a loop on the Granite
	   * Rapids-class guest (stop 80), as on Emerald Rapids */
	  .forward_trip = 7,
	  .forward_trip_slow = 3,
	  .fp_assist_cycles = 120,
	  /* nops in the harness's loop on the Granite Rapids-class guest (1, 4 and 6 bytes
	   * each; a mix of loads, moves and nops alike): 9, 10 and 11 micro-ops 1.50, 1.67,
	   * 1.84 cycles a loop (N / 6), 17 3.00; Emerald Rapids leaves 9 to 11 whole too
	   * (raptorcove) */
	  .lsd_no_unroll = 1u << 17,
	  /* shl rbx, 1 among nops, movs of an immediate or loads, by its place in loops of 3, 4
	   * and 5 micro-ops (ipcc/model.h; stop 80): the figures' middles */
	  .shift_chain_cycles = { { 100 },
				  { 145, 100 },
				  { 142, 172, 158 },
				  { 137, 129, 129, 137 } },
	  /* fld qword ptr [rsi]; fstp st(0) 221-222 cycles a loop on Emerald Rapids (the
	   * fld and fstp 9 more: --fit-profile's 213) */
	  .x87_denormal_cycles = 213,
	  /* fadd st(0), st(0) on the QNaN an underflow left 410 cycles a loop (fmul 412) */
	  .x87_nan_cycles = 409,
	  /*
	   * Measured on a Granite Rapids-class guest (it reports model 0xa7, with AMX;
	   * docs/internals/model.md, "Golden Cove on blocks, again"): movsd or movq xmm0, [rax];
	   * movq rax, xmm0 8.0 (movq there and back 4.0), vmovdqu ymm 8.9
	   */
	  .vector_load_latency = 6,
	  /* mov al, [rcx]; add eax, 1 (mov ax, mov sil alike) 2.00 cycles a loop on the Granite
	   * Rapids-class guest, through rax (stop 80; not measured on Emerald Rapids) */
	  .load_merge_latency = 1,
	  /* lea rax, [rcx+rax*8], [rax*8], [rax+rax*2], [rax+rcx*2+8] 2.00; [rax+rcx+8] 1.00 */
	  .lea_scale_latency = 2,
	  /* imul rcx; mov rax, rdx chained 4.00; imul rcx through rax 3.00 */
	  .mul_high_latency = 4,
	  /*
	   * stores to [rsi], [rsi+64] 2.00, four lines 4.00; [rsi], [rsi+8] 1.00, three 1.50;
	   * two movups into one line 1.00, two 64-byte vmovups 2.00; [rsi+56], [rsi+64] 2.00
	   */
	  .pair_stores = true,
	  .pair_store_bytes = 64,
	  .pair_wide_stores = true,
	  /*
	   * mov [rsi], rax; mov rbx, [rsi+4] 16.0 (not chained); mov rax, [rsi+4] 19.0, [rdi+1]
	   * 19.0; mov [rsi], rax; mov rax, [rsi+4096] (another virtual page of the harness's
	   * one physical page) 17.0, mov rbx, [rsi+4096] 16.0; mov [rsi+4], eax; mov rbx,
	   * [rsi] 16.0
	   */
	  .forward_fail_latency = 16,
	  /*
	   * mov [rsi], eax; mov rax, [rsi] 20.0 chained, but mov rbx, [rsi] 1.00 (word, dword
	   * and movss under movups alike)
	   */
	  .forward_wide_latency = 20,
	  /*
	   * ipcc bench empty (dec; jnz): 1.00 cycles an iteration, one taken branch a cycle; a
	   * chain of 256 jmps 16 bytes apart in a loop 1.05 a jmp (below)
	   */
	  .taken_per_cycle = 1,
	  /*
	   * But a small loop runs from the loop buffer, up to three taken branches a cycle, on
	   * the Granite Rapids-class guest (stop 83; Emerald Rapids 1, as above): N jmps 16 or
	   * 32 bytes apart and the loop's dec; jnz, the fewest cycles of 9 runs an iteration,
	   * N = 4 1.50-1.66, 8 2.94-2.98, 12 4.41-4.48, 13 and 14 4.68-4.99, 15 5.15-5.65; 16
	   * 12.2-16.1, 24 16.9-20.6, 32 25.2-30.9, 64 50.6-57.6, 128 98-119; ipcc bench
	   * branch.always (two taken branches) 1.08-1.12, branch.alternate 1.00-1.01. A
	   * mispredict empties it: eight jmps 32 bytes apart and a jz that mispredicts about
	   * one pass in k (random), cycles a pass: never 3.28-3.30, k = 128 3.80-3.87, 64
	   * 4.28-4.31, 32 4.97-5.09, 16 6.70-6.74, 8 9.84-9.85, 4 15.8-16.0, 2 23.8-24.2:
	   * 50-70 cycles a mispredict where branch.random pays 24-26. Six passes fetched anew
	   * after each gives 3.30, 3.95, 4.6, 5.4, 6.8, 9.8, 15.3 and 21.5 (the recovery 25)
	   */
	  .loop_taken_per_cycle = 3,
	  .loop_buffer_taken = 16,
	  .loop_buffer_relock = 6,
	  /*
	   * A call and its return a cycle as a pair there (bench/front_end, stop 83): one call
	   * 1.00 cycles an iteration, two deep 2.00, four of one leaf in a row 4.00, ipcc bench
	   * call.direct (four deep, each function a line apart) 4.01
	   */
	  .call_ret_cycles = 1,
	  /*
	   * Measured on a Granite Rapids-class guest, four independent instances and the loop's
	   * dec/jnz: shl, shr, ror reg, imm, shlx, rorx, sete, cmove, cqo 2.48-2.62 cycles
	   * (five on two ports); andn, blsr, neg 1.33, cmp 1.00; imul, popcnt, lzcnt, tzcnt
	   * 4.00 (one port); two vucomisd 1.97.
	   */
	  .shift_ports = 2,
	  .mul_ports = 1,
	  /*
	   * The same, vector: vmulps, vaddps, vminsd, vpmullw, vpcmpgtd, vpsllq, vpshufb,
	   * vshufps, vpunpcklbw, vpmovzxbw 2.00 (two ports); vmovmskpd, vmovd eax, xmm,
	   * vucomisd, vmovq xmm, rax, vunpcklps, vpalignr, vpacksswb, vpermilps, vpermd,
	   * vbroadcastss 4.00 (one); vpaddd, vandps, vpblendd 1.33 (three). Two and two:
	   * vmulsd and vaddsd 1.33, vpslld and vmulsd 1.92, vpshufd and vaddsd 1.97,
	   * vucomisd and vmulsd 1.99 (ports 0 and 1; 1 and 5; 0; 5).
	   */
	  .vec_mul_ports = 2,
	  .vec_add_ports = 2,
	  .vec_out_ports = 1,
	  .vec_shuffle_ports = 1,
	  /*
	   * ipcc bench call.pointer (call rdx; ret; the loop's branch): 4.00 cycles on Emerald
	   * Rapids and on a Granite Rapids-class core, where a direct call and its return take
	   * 1.00, an indirect jmp 1.0, and a call through memory 4.0; less the return's and
	   * the branch's cycle each at one taken branch a cycle (2) until stop 83; now all of
	   * it: a loop's floor is the largest of its taken branches', its indirect calls' and
	   * its calls' and returns' sums (account.c trace_run()), and the loop buffer here
	   * follows three taken branches a cycle
	   */
	  .indirect_call_cycles = 4,
	  /*
	   * A chain of N jmps, each to the next 16 bytes on, in a loop, cycles a jump on a
	   * Granite Rapids-class guest (not measured on Emerald Rapids): 256 1.05, 1,024 1.68,
	   * 2,048 2.10, 4,096 2.07 (64 KiB: still L1i); 8,192 3.73 (code from L2 too)
	   */
	  .btb_entries = 1024,
	  .btb_miss_cycles = 1,
	  /*
	   * rep stosb / rep movsb, L1-resident, the best of 200 x 100 runs: 16-64 bytes 9
	   * cycles, 256 B 28, 1 KiB 42, 4 KiB 70, 16 KiB 262. Copies of 256 KiB (L2) 12.8
	   * bytes a cycle, 4 MiB and 32 MiB (the LLC) 4.5: 2.0 and 6.6 cycles more a line that
	   * misses L1 (source or destination); memory not measured (the LLC holds 260 MiB).
	   */
	  .rep_short_cycles = 9,
	  .rep_cycles = 25,
	  .rep_bytes_per_cycle = 64,
	  .rep_l2_bytes_per_cycle = 32,
	  .rep_llc_bytes_per_cycle = 10,
	  /*
	   * mov ecx, N; mov rdi, r13; rep stosq in ipcc bench --block's loop on Emerald Rapids:
	   * 33.0 cycles for 1 to 32 elements (8-256 bytes), 512 B 41, 800 B 50, 1,600 B 56,
	   * 4,000 B 75 (rep stosb: 9.0 up to 128 bytes, 29 at 129-256, 45 at 800)
	   */
	  .rep_wide_cycles = 32,
	  /*
	   * L1's lines from and to L2, fitted by ipcc bench --fit-profile on the Granite
	   * Rapids-class guest (stop 84; 87 and 18 on 2026-11-26 too): bandwidth.triad at 1 MiB
	   * 5.76 cycles an iteration (3 lines filled and 1 written back) and bandwidth.copy 1.258
	   * (a line in four iterations: 2 filled, 1 written back), so 64 / 0.73 bytes a cycle
	   * filled and 64 / 3.56 written back. Stores alone to a line there (a fill for ownership
	   * and a write-back) 3.85 cycles a line, modelled 4.31 (one rate of 44: 2.9). triad_nt on
	   * Emerald Rapids 10.26: 64 bytes streamed past the caches (6; 5.3 on the Granite
	   * Rapids-class guest).
	   */
	  .l2_bytes_per_cycle = 87,
	  .l2_wb_bytes_per_cycle = 18,
	  .nt_bytes_per_cycle = 6,
	  /*
	   * cpuid traps to the hypervisor in a guest: BHive's blocks with one cpuid 3,290 and
	   * 3,330 cycles an iteration on the Emerald Rapids guest, with two 6,630 and 6,670
	   * (23,400 and 47,200 on the Granite Rapids-class guest, whose host is slower to
	   * exit). On bare metal cpuid takes about a hundred cycles.
	   */
	  .cpuid_cycles = 3300,
	  /*
	   * In the block harness (an empty x87 stack at the start): fldz 371, fstp st(0) 376,
	   * fucomi st(1) 400, three fldz 1113 cycles an iteration on Emerald Rapids; 373, 372,
	   * 400, 1113 on a Granite Rapids-class core (src/model/x87.c)
	   */
	  .x87_assist_cycles = 372,
	  /*
	   * Chained, a Granite Rapids-class core: add ah, 1 3.00 cycles, mov ah, 1 3.00 (the
	   * write merges into rax), mov ah, al 3.00; add ah, 1 with mov al, ah or movzx eax, ah
	   * 6.00. BHive's and ch, 4 2.99 on Emerald Rapids, 3.00 here.
	   */
	  .high8_latency = 3,
	  /*
	   * Memory, and the LLC's share, as a Granite Rapids-class guest gives them (stop 81): a
	   * chase over a random cycle of lines on 4 KiB pages, cycles a load at 4.1 GHz, two
	   * rounds 20 s apart: 2 MiB 78-112, 4 MiB 145-158, 8 MiB 166-173, 16 MiB 206-220
	   * (270-290 half an hour before), 24 MiB 275-298, 32 MiB 414-535, 64 MiB 624-639,
	   * 256 MiB 762-780, and 672 on huge pages (memory, no walk): dram_latency 660, and the
	   * share and other tenants' lines, of five pairs tried, that bring the model backend's
	   * own chase nearest, 24 MiB and 1,500 a million cycles (16 MiB 129, 24 MiB 226,
	   * 32 MiB 390, 64 MiB 594, 256 MiB 688). The LLC's own latency measured 134-158
	   * (bench/llc_time.py on huge pages, and the chase) but stays 100: at 145 perl's and
	   * gcc's LLC hits, which they overlap more than the backend's epochs let them, came out
	   * 25% and 9% over their time (bench/model_backend.py), where xz and zstd came 4 and 5
	   * points nearer.
	   */
	  .llc_share_mib = 24,
	  .llc_foreign = 1500,
	  MEMORY(16, 100, 660, 96, 2048) },
	PROFILE("neoverse-n2", 5, 8, 160, 4, 11, false, false, 4, 3, 2, 2, 0, NEXT, 0, LOCK_INTEL,
		MEMORY(11, 40, 300, 48, 1280), { "vpmulld", 4, 1 }),
	/* For worked examples: W = R = 4, no ROB or port limit, no fusion. */
	PROFILE("test", 4, 4, 0, 4, 10, false, false, 0, 0, 0, 0, 0, NEXT, 0, LOCK_INTEL,
		MEMORY(0, 0, 0, 0, 0)),
};

/*
 * Built-ins written as a profile file on another: where a core differs from its base only in
 * figures ipcc bench --fit-profile measures.
 *
 * raptorcove: Emerald Rapids' Raptor Cove (family 6 model 0xCF), goldencove with what that
 * fit measured on an Emerald Rapids guest in three sessions alike (2026-11-27; goldencove's
 * own were measured on a Granite Rapids-class guest): a mispredict's recovery (branch.random
 * 14.9 cycles an iteration, 25.8 a mispredict over branch.always's 2.00, less what the model
 * charges before the branch resolves; 21 before stop 43, fitted to the whole 14.9 on a loop
 * that the model runs at 1.00 without mispredicts), four
 * immediates folded a cycle (chain.add_imm 4.00 adds a cycle), no late flags for a fused
 * dec, jnz (cmovne r12, rdx on them 1.00 cycle a loop), L2's fill and write-back rates
 * (bandwidth.triad and bandwidth.copy at 1 MiB), a failed forward (15.0 cycles), a page walk
 * (67.5 less L2's 16), a lock after a store (24.5), a page-split store (24.0) and a
 * forward's round trip through an operation (add [rdi + rbx], rcx: 7.33). And the front
 * end's limits that loops of branches measured there (docs/internals/model-backend.md,
 * "Branches close together, and both ways"; the Granite Rapids-class guest has neither:
 * branch.alternate 1.00 there, 2.34-2.84 on Emerald Rapids):
 * - taken jmps 2 to 30 bytes apart, the fewest cycles of 9 runs of 3: up to 6 in 32 bytes
 *   about one a cycle, a line's first 5 at one a cycle and those after about 2 more each;
 *   each past 6 in 32 bytes about 8 more (b in 32 bytes and the loop's branch elsewhere:
 *   b = 6 10.3-13.9 cycles, 7 24.5, 8 36.8, 10 52.8, 13 84-90). The form fitted on 80
 *   random layouts of 2-15 jmps, these round figures on those and 80 more: 14% error on
 *   each set, against 27% and 26% at one taken branch a cycle;
 * - one jz on a pattern read from memory (period 2 to 64, learned: no mispredicts), beside
 *   the loop's jnz: taken never 1.00 cycle an iteration, always 2.00; 1 in 64 1.06, 63 in
 *   64 2.03 (about 3 where it turns); half the time 2.26-3.02 where 1.50 would be. 20
 *   patterns: 6.3% error with a cycle each time it runs, at most 3 each time it goes its
 *   rarer way; 28% without. Those loops had both branches in one 32-byte half; timed at
 *   every even start in a line (stop 51), the jz and jnz in a line's two halves cost half
 *   that (alternating 1.83-2.00 where one half gives 2.50; periods 4 to 64 0.5-0.84 over
 *   1.50 where one half gives 0.77-1.5), and in two lines as in one half:
 *   branch_mixed_apart 50;
 * And the LLC's share there: ipcc bench latency, the fewest cycles a load of three sweeps,
 * 4 MiB 99, 8 MiB 116, 16 MiB 143, 32 MiB 211, 64 MiB 311, 128 MiB 422 (stop 42); the model
 * backend's own chase with a share of 32 MiB 78, 97, 147, 234, 322, 375 (16 MiB: 190, 301
 * at 16 and 32 MiB; 64 MiB: 131, 177). A busier host (stop 53) kept less, and for less
 * time: a chase over 8 MiB 116 cycles a load alone, 194 with 240 cycles of multiplies
 * between its loads; 16 MiB 340 and more. The share and the other tenants' lines
 * (llc_foreign) fitted on that chase at 4-32 MiB with 0-240 cycles between loads
 * (bench/llc_time.py), three rounds a session: two sessions, the model backend running on
 * the other vCPU, 28 MiB and 4,000-5,600 lines a million cycles (the chance of memory
 * 0.05-0.06 rms off; 0.14-0.17 with no other tenant); one alone, in a busier hour, 18 MiB
 * and 6,300 (0.13; 0.19). Kept: 28 MiB and 5,000.
 * And the branch-target buffer's second level (stop 43): a chain of N jmps 8 or 16 bytes
 * apart in a loop, cycles a jmp: 1.8-2.0 from 1,024 to 4,096, 3.7-4.0 at 8,192, 6.6-6.9 at
 * 16,384, 12.6-13.2 at 32,768 and 65,536 (code from L2 costs nothing at 4,096 jmps 16 bytes
 * apart, 64 KiB): 12,288 entries beyond the first level's 1,024 (Golden Cove's published
 * 12K; the measured misses climb from 8,192 to 32,768, where an LRU steps at one size), a
 * taken branch that both miss about 11 cycles over one that the second holds.
 * The first level (stop 55): the same chains 16, 32 and 64 bytes apart at N = 128 to 512,
 * the fewest of three rounds of seven runs, cycles a jmp: 0.8-1.1 up to 256 jmps, then
 * 1.3-1.5 (16 and 32 apart) and 1.5-1.6 (64 apart) at 288, 2.0 at 352 on (64 apart), and
 * 1.7 and 1.9 at 512 and 768 (16 apart): 256 entries, not the Granite Rapids-class guest's
 * 1,024 that goldencove keeps (a 1,024-entry first level gave 1.0 to 768 jmps and 1.58 at
 * 1,024, where 1.85-2.05 are measured).
 * And the instruction TLB (stop 54): a chain of N jmps, each 4,160 bytes past the one
 * before (a page each), against the same N 320 bytes apart (L1i misses from L2 alike),
 * TSC ticks a jmp at 2.3 GHz (cycles at 3.0): 320 apart 3.2-3.3 at N = 1,024 to 4,096 (4.3
 * cycles); a page apart 3.3 at 256 pages, 12.1-13.4 at 384 to 1,024 (17.3 cycles: 13 more,
 * the second level's), 16.5 at 2,048, 32-36 at 4,096 and 8,192 (42-47: walks, 38 more).
 * Golden Cove's published first level: 256 entries.
 */
static const struct {
	const char *name, *text;
} derived[] = {
	{ "raptorcove", "base = goldencove\nname = raptorcove\nrecovery = 19\nfold_imm = 4\n"
			"fused_flags_late = 0\nl2_bytes_per_cycle = 53\n"
			"l2_wb_bytes_per_cycle = 30\nforward_fail_latency = 15\n"
			"walk_latency = 52\nstore_drain_cycles = 6\n"
			"page_split_store_cycles = 24\nfuse_mov_alu = 0\nfuse_load_alu = 0\n"
			"load_merge_latency = 0\nshift_chain_cycles = none\nfmul_latency = 4\n"
			"fe_line_branches = 5\nfe_line_cycles = 2\n"
			"loop_taken_per_cycle = 0\ncall_ret_cycles = 0\n"
			"fe_half_branches = 6\nfe_half_cycles = 8\nbranch_mixed_cycles = 1\n"
			"branch_rare_cycles = 3\nbranch_mixed_apart = 50\n"
			"llc_share_mib = 28\nllc_foreign = 5000\ndram_latency = 380\n"
			"btb_entries = 256\n"
			"btb2_entries = 12288\n"
			"btb2_miss_cycles = 11\nitlb_entries = 256\nitlb_miss_cycles = 13\n"
			"itlb_walk_cycles = 38\npointer_prefetch = true\n"
			"lsd_no_unroll = 9 10 11 17\n" },
};

const char *const ipcc_model_profiles[] = { "skylake", "icelake",    "zen3",	   "zen4",
					    "zen5",    "goldencove", "raptorcove", "neoverse-n2",
					    "test",    NULL };

/* "auto": the profile the CPU table (ipcc/cpu.h) names for this CPU, and what it approximates. */
int ipcc_model_profile(const char *name, struct ipcc_model_profile *p)
{
	struct ipcc_cpu cpu;

	if (!strcmp(name, "auto")) {
		char what[128] = "this CPU";

		if (ipcc_cpu_identify(&cpu) == 0)
			ipcc_cpu_describe(&cpu, what, sizeof(what));
		if (!*cpu.profile)
			return err_set(IPCC_ENOTSUP,
				       "no built-in profile for %s: name one with --profile", what);
		name = cpu.profile;
	}
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (strcmp(builtin[i].name, name) == 0) {
			*p = builtin[i];
			return 0;
		}
	for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++)
		if (strcmp(derived[i].name, name) == 0) {
			struct ipcc_model_error err;

			if (ipcc_model_profile_parse(derived[i].text, p, &err))
				return err_set(IPCC_EINVAL, "built-in profile '%s': line %u: %s",
					       name, err.line, err.message);
			return 0;
		}
	return err_set(IPCC_EINVAL, "unknown profile '%s'", name);
}

/* ---- profile files ----------------------------------------------------------------------- */

enum key_type { K_UNSIGNED, K_BOOL, K_NAME, K_BUILTIN, K_PLACEMENT, K_UOPS, K_CHAIN };

/* The keys, in the order the writer writes them. */
static const struct key {
	const char *name;
	enum key_type type;
	size_t offset;
	unsigned min, max; /* K_UNSIGNED */
} keys[] = {
#define KEY(f, t, lo, hi)                                             \
	{                                                             \
#f, t, offsetof(struct ipcc_model_profile, f), lo, hi \
	}
	KEY(name, K_NAME, 0, 0),
	KEY(width, K_UNSIGNED, 1, 64),
	KEY(retire, K_UNSIGNED, 1, 64),
	KEY(rob, K_UNSIGNED, 0, 100000),
	KEY(load_latency, K_UNSIGNED, 0, 100000),
	KEY(recovery, K_UNSIGNED, 0, 100000),
	KEY(fuse_alu_jcc, K_BOOL, 0, 0),
	KEY(alu_jcc_one_slot, K_BOOL, 0, 0),
	KEY(fuse_cmp_jcc, K_BOOL, 0, 0),
	KEY(alu_ports, K_UNSIGNED, 0, 64),
	KEY(load_ports, K_UNSIGNED, 0, 64),
	KEY(store_ports, K_UNSIGNED, 0, 64),
	KEY(vector_ports, K_UNSIGNED, 0, 64),
	KEY(fold_imm, K_UNSIGNED, 0, 16),
	KEY(placement, K_PLACEMENT, 0, 0),
	KEY(sample_retire, K_UNSIGNED, 0, 64),
	KEY(latencies, K_BUILTIN, 0, 0),
	/*
	 * Optional (0 when missing): the latencies table's own figure; fp_bypass: none;
	 * partial_rename: false, parts merge; move_elimination, memory_renaming,
	 * rename_rmw_imm_only, rename_base_only, rename_absolute, rename_no_word, rename_no_movzx,
	 * rename_no_byte, rename_no_load_op, sbb_idiom,
	 * xchg_renamed, self_move_renamed, merge_zero_upper, fold_no_port,
	 * fold_lea: false;
	 * fold_bits: 0, any size and offset; fold_materialize, logic_flags_late,
	 * fused_flags_late, fuse_mov_alu, fuse_load_alu, rename_partial_extra: 0; port_binding, alu_port_subsets: false;
	 * divider_cycles: 0, pipelined; vector_load_latency: 0, load_latency;
	 * complex_load_latency, load_merge_latency: 0; lea3_latency, lea_scale_latency: 0,
	 * the table's; lea3_alu_slots: 0, one; bypass_slot_every: 0, none;
	 * pair_stores, pair_store_runs, pair_store_unread: false; pair_store_bytes: 0, 32; pair_wide_stores: false;
	 * forward_fail_latency, forward_wide_latency: 0, not modelled; alias_forwards: false;
	 * forward_extra, vector_forward_extra: 0, a forward as fast as the cache;
	 * from_gpr_extra: 0, no crossing;
	 * agu_ports: 0, none shared; shift_ports, mul_ports, branch_ports (the shift ports branch), vec_mul_ports, vec_add_ports,
	 * vec_out_ports, vec_shuffle_ports: 0, any port of the class; vec_zen_pipes: false, Intel's classes; indexed_store_alu: false; store_alu: 0; mul_high_latency: 0, as rax's;
	 * l2_latency, llc_latency, dram_latency: 0, a miss costs
	 * nothing (the model backend says so); llc_share_mib: 0, the whole LLC; llc_foreign: 0, no other tenant; l2_fold_bits: 0, a plain index; dtlb_entries: 0, no TLB modelled (stlb_entries,
	 * stlb_latency, walk_latency: 0, none); itlb_entries: 0, no instruction TLB
	 * (itlb_miss_cycles, itlb_walk_cycles unused); pointer_prefetch: false, none; fault_cycles: 0, the kernel's part left out
	 * (syscall_cycles, syscall_bytes_per_cycle: 0, free); process_cycles: 0, a program's start
	 * and end left out; file_fault_cycles: 0, a file's fault costs fault_cycles; kernel_page_touch_cycles: 0, free; l2_bytes_per_cycle, nt_bytes_per_cycle: 0, no
	 * limit; l2_wb_bytes_per_cycle: 0, l2_bytes_per_cycle's; llc_bytes_per_cycle: 0, free; indirect_call_cycles, call_ret_cycles: 0, no limit; taken_per_cycle: 0, no limit; loop_taken_per_cycle: 0, taken_per_cycle in loops too (loop_buffer_taken unused); loop_buffer_relock: 0, a mispredict leaves the loop in the buffer;
	 * btb_entries: 0, no branch-target buffer modelled (btb_miss_cycles unused);
	 * btb2_entries: 0, one level (btb2_miss_cycles unused); btb_restart_entries: 0, a
	 * mispredict costs the same however many sites mispredict (btb_restart_window and
	 * btb_restart_sites unused);
	 * fe_line_branches, fe_half_branches: 0, no limit (both or neither); tage_entries,
	 * tage_base_entries: 0, the tool's 1,024 and 16,384 (each); l1i_l2_cycles: 0, hidden; branch_mixed_cycles,
	 * branch_rare_cycles: 0, no cost for a branch that goes both ways; branch_mixed_apart:
	 * 0, none of it saved by layout; rep_short_cycles,
	 * rep_cycles, rep_bytes_per_cycle: 0, rep movs/stos through the pipeline model;
	 * rep_wide_cycles: 0, wider elements' runs costed as byte runs; rep_wide_short_cycles: 0, no short path for them;
	 * cpuid_cycles: 0, cpuid approximated; x87_assist_cycles: 0, no x87 stack faults;
	 * high8_latency: 0, the table's latencies; divider_cycles_32: 0, divider_cycles;
	 * fdiv_single_cycles, fdiv_double_cycles: 0, the FP divider pipelined;
	 * fsqrt_single_cycles, fsqrt_double_cycles: 0, the divides'; fdiv_full_width: false;
	 * split_load_cycles, page_split_load_cycles, split_store_cycles,
	 * page_split_store_cycles: 0, split accesses not modelled; split_store_bytes: 0, the
	 * line's 64; loads_per_bank: 0, no
	 * limit; dep_load_ports: 0, any load port; dep_load_gap: 0, none; vec_load_ports: 0, any load port; vec_in_ports: 0, any vector port;
	 * forward_trip: 0, no floor under a forward's round trip; forward_trip_slow: 0, none;
	 * store_drain_cycles: 0, none;
	 * fp_assist_cycles: 0, no subnormal assists;
	 * lsd_no_unroll (micro-op counts, or none): none, every loop delivered without a break;
	 * opcache_line_ops: 0, no line limit (loop_stream_ops unused); opcache_entries: 0, the line rule;
	 * opcache_capacity: 0, none (every fetch through L1i); decode_width, decode_block_cycles: 0, no decoders' floor;
	 * utag_alias_first, utag_alias_step: 0, no virtual-tag aliasing; utag_alias_dep, utag_alias_plain, utag_retag_latency: 0, none;
	 * alias_unrenamed: false; forward_fail_late: 0, none;
	 * x87_denormal_cycles: 0, no assist for an x87 read of a subnormal double;
	 * x87_nan_cycles: 0, none for an x87 computation on a QNaN.
	 */
	KEY(mul_latency, K_UNSIGNED, 0, 1000),
	KEY(lock_latency, K_UNSIGNED, 0, 1000),
	KEY(fadd_latency, K_UNSIGNED, 0, 1000),
	KEY(fmul_latency, K_UNSIGNED, 0, 1000),
	KEY(fp_bypass, K_UNSIGNED, 0, 1000),
	KEY(partial_rename, K_BOOL, 0, 0),
	KEY(move_elimination, K_BOOL, 0, 0),
	KEY(memory_renaming, K_BOOL, 0, 0),
	KEY(rename_rmw_imm_only, K_BOOL, 0, 0),
	KEY(rename_base_only, K_BOOL, 0, 0),
	KEY(rename_absolute, K_BOOL, 0, 0),
	KEY(rename_no_word, K_BOOL, 0, 0),
	KEY(rename_no_movzx, K_BOOL, 0, 0),
	KEY(rename_no_byte, K_BOOL, 0, 0),
	KEY(rename_no_load_op, K_BOOL, 0, 0),
	KEY(rename_partial_extra, K_UNSIGNED, 0, 8),
	KEY(sbb_idiom, K_BOOL, 0, 0),
	KEY(xchg_renamed, K_BOOL, 0, 0),
	KEY(self_move_renamed, K_BOOL, 0, 0),
	KEY(merge_zero_upper, K_BOOL, 0, 0),
	KEY(cmov_flags_late, K_UNSIGNED, 0, 100),
	KEY(fold_no_port, K_BOOL, 0, 0),
	KEY(fold_lea, K_BOOL, 0, 0),
	KEY(fold_bits, K_UNSIGNED, 0, 31),
	KEY(fold_materialize, K_UNSIGNED, 0, 100),
	KEY(logic_flags_late, K_UNSIGNED, 0, 100),
	KEY(fuse_mov_alu, K_UNSIGNED, 0, 1),
	KEY(fuse_load_alu, K_UNSIGNED, 0, 1),
	KEY(fused_flags_late, K_UNSIGNED, 0, 100),
	KEY(port_binding, K_BOOL, 0, 0),
	KEY(alu_port_subsets, K_BOOL, 0, 0),
	KEY(divider_cycles, K_UNSIGNED, 0, 1000),
	KEY(vector_load_latency, K_UNSIGNED, 0, 100000),
	KEY(complex_load_latency, K_UNSIGNED, 0, 1000),
	KEY(load_merge_latency, K_UNSIGNED, 0, 1000),
	KEY(lea3_latency, K_UNSIGNED, 0, 1000),
	KEY(lea3_alu_slots, K_UNSIGNED, 0, 8),
	KEY(bypass_slot_every, K_UNSIGNED, 0, 64),
	KEY(lea_scale_latency, K_UNSIGNED, 0, 1000),
	KEY(pair_stores, K_BOOL, 0, 0),
	KEY(pair_store_runs, K_BOOL, 0, 0),
	KEY(pair_store_unread, K_BOOL, 0, 0),
	KEY(pair_store_bytes, K_UNSIGNED, 0, 4096),
	KEY(pair_wide_stores, K_BOOL, 0, 0),
	KEY(forward_fail_latency, K_UNSIGNED, 0, 100000),
	KEY(forward_wide_latency, K_UNSIGNED, 0, 100000),
	KEY(alias_forwards, K_BOOL, 0, 0),
	KEY(from_gpr_extra, K_UNSIGNED, 0, 1000),
	KEY(forward_extra, K_UNSIGNED, 0, 1000),
	KEY(vector_forward_extra, K_UNSIGNED, 0, 1000),
	KEY(agu_ports, K_UNSIGNED, 0, 64),
	KEY(shift_ports, K_UNSIGNED, 0, 64),
	KEY(mul_ports, K_UNSIGNED, 0, 64),
	KEY(branch_ports, K_UNSIGNED, 0, 64),
	KEY(vec_mul_ports, K_UNSIGNED, 0, 64),
	KEY(vec_add_ports, K_UNSIGNED, 0, 64),
	KEY(vec_out_ports, K_UNSIGNED, 0, 64),
	KEY(vec_shuffle_ports, K_UNSIGNED, 0, 64),
	KEY(vec_zen_pipes, K_BOOL, 0, 0),
	KEY(indexed_store_alu, K_BOOL, 0, 0),
	KEY(store_alu, K_UNSIGNED, 0, 1),
	KEY(mul_high_latency, K_UNSIGNED, 0, 1000),
	KEY(l2_latency, K_UNSIGNED, 0, 100000),
	KEY(llc_latency, K_UNSIGNED, 0, 100000),
	KEY(llc_share_mib, K_UNSIGNED, 0, 1 << 20),
	KEY(l2_fold_bits, K_UNSIGNED, 0, 6),
	KEY(llc_foreign, K_UNSIGNED, 0, 1 << 30),
	KEY(dram_latency, K_UNSIGNED, 0, 100000),
	KEY(dtlb_entries, K_UNSIGNED, 0, 65536),
	KEY(stlb_entries, K_UNSIGNED, 0, 1 << 20),
	KEY(stlb_latency, K_UNSIGNED, 0, 100000),
	KEY(walk_latency, K_UNSIGNED, 0, 100000),
	KEY(itlb_entries, K_UNSIGNED, 0, 65536),
	KEY(itlb_miss_cycles, K_UNSIGNED, 0, 100000),
	KEY(itlb_walk_cycles, K_UNSIGNED, 0, 100000),
	KEY(pointer_prefetch, K_BOOL, 0, 0),
	KEY(fault_cycles, K_UNSIGNED, 0, 10000000),
	KEY(syscall_cycles, K_UNSIGNED, 0, 10000000),
	KEY(process_cycles, K_UNSIGNED, 0, 1000000000),
	KEY(file_fault_cycles, K_UNSIGNED, 0, 10000000),
	KEY(kernel_page_touch_cycles, K_UNSIGNED, 0, 10000000),
	KEY(syscall_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(l2_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(l2_wb_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(llc_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(nt_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(taken_per_cycle, K_UNSIGNED, 0, 16),
	KEY(loop_taken_per_cycle, K_UNSIGNED, 0, 16),
	KEY(loop_buffer_taken, K_UNSIGNED, 0, 4096),
	KEY(loop_buffer_relock, K_UNSIGNED, 0, 4096),
	KEY(indirect_call_cycles, K_UNSIGNED, 0, 1000),
	KEY(call_ret_cycles, K_UNSIGNED, 0, 1000),
	KEY(btb_entries, K_UNSIGNED, 0, 1 << 20),
	KEY(btb_miss_cycles, K_UNSIGNED, 0, 1000),
	KEY(btb2_entries, K_UNSIGNED, 0, 1 << 20),
	KEY(btb2_miss_cycles, K_UNSIGNED, 0, 1000),
	KEY(btb_restart_entries, K_UNSIGNED, 0, 1 << 20),
	KEY(btb_restart_window, K_UNSIGNED, 0, 64),
	KEY(btb_restart_sites, K_UNSIGNED, 0, 1 << 20),
	KEY(fe_line_branches, K_UNSIGNED, 0, 64),
	KEY(fe_line_cycles, K_UNSIGNED, 0, 100),
	KEY(fe_half_branches, K_UNSIGNED, 0, 32),
	KEY(fe_half_cycles, K_UNSIGNED, 0, 1000),
	KEY(tage_entries, K_UNSIGNED, 0, 16384),
	KEY(tage_base_entries, K_UNSIGNED, 0, 65536),
	KEY(l1i_l2_cycles, K_UNSIGNED, 0, 1000),
	KEY(branch_mixed_cycles, K_UNSIGNED, 0, 100),
	KEY(branch_rare_cycles, K_UNSIGNED, 0, 100),
	KEY(branch_mixed_apart, K_UNSIGNED, 0, 100),
	KEY(rep_short_cycles, K_UNSIGNED, 0, 100000),
	KEY(rep_cycles, K_UNSIGNED, 0, 100000),
	KEY(rep_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(rep_l2_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(rep_llc_bytes_per_cycle, K_UNSIGNED, 0, 4096),
	KEY(rep_wide_cycles, K_UNSIGNED, 0, 100000),
	KEY(rep_wide_short_cycles, K_UNSIGNED, 0, 100000),
	KEY(cpuid_cycles, K_UNSIGNED, 0, 10000000),
	KEY(x87_assist_cycles, K_UNSIGNED, 0, 100000),
	KEY(high8_latency, K_UNSIGNED, 0, 1000),
	KEY(divider_cycles_32, K_UNSIGNED, 0, 1000),
	KEY(fdiv_single_cycles, K_UNSIGNED, 0, 1000),
	KEY(fdiv_double_cycles, K_UNSIGNED, 0, 1000),
	KEY(fsqrt_single_cycles, K_UNSIGNED, 0, 1000),
	KEY(fsqrt_double_cycles, K_UNSIGNED, 0, 1000),
	KEY(fdiv_full_width, K_BOOL, 0, 0),
	KEY(split_load_cycles, K_UNSIGNED, 0, 1000),
	KEY(page_split_load_cycles, K_UNSIGNED, 0, 1000),
	KEY(split_store_cycles, K_UNSIGNED, 0, 1000),
	KEY(page_split_store_cycles, K_UNSIGNED, 0, 1000),
	KEY(split_store_bytes, K_UNSIGNED, 0, 64),
	KEY(loads_per_bank, K_UNSIGNED, 0, 64),
	KEY(dep_load_ports, K_UNSIGNED, 0, 64),
	KEY(dep_load_gap, K_UNSIGNED, 0, 1000),
	KEY(vec_load_ports, K_UNSIGNED, 0, 64),
	KEY(vec_in_ports, K_UNSIGNED, 0, 64),
	KEY(forward_trip, K_UNSIGNED, 0, 1000),
	KEY(forward_trip_slow, K_UNSIGNED, 0, 1000),
	KEY(store_drain_cycles, K_UNSIGNED, 0, 1000),
	KEY(fp_assist_cycles, K_UNSIGNED, 0, 100000),
	KEY(lsd_no_unroll, K_UOPS, 1, 63),
	KEY(shift_chain_cycles, K_CHAIN, 100, 10000),
	KEY(opcache_line_ops, K_UNSIGNED, 0, 64),
	KEY(loop_stream_ops, K_UNSIGNED, 0, 1000),
	KEY(opcache_entries, K_UNSIGNED, 0, 64),
	KEY(opcache_capacity, K_UNSIGNED, 0, 1u << 20),
	KEY(decode_width, K_UNSIGNED, 0, 64),
	KEY(decode_block_cycles, K_UNSIGNED, 0, 64),
	KEY(utag_alias_first, K_UNSIGNED, 0, 100000),
	KEY(utag_alias_step, K_UNSIGNED, 0, 100000),
	KEY(utag_alias_dep, K_UNSIGNED, 0, 100000),
	KEY(utag_alias_plain, K_UNSIGNED, 0, 100000),
	KEY(utag_retag_latency, K_UNSIGNED, 0, 1000),
	KEY(alias_unrenamed, K_BOOL, 0, 0),
	KEY(forward_fail_late, K_UNSIGNED, 0, 1000),
	KEY(x87_denormal_cycles, K_UNSIGNED, 0, 100000),
	KEY(x87_nan_cycles, K_UNSIGNED, 0, 100000),
#undef KEY
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const placements[] = {
	[IPCC_MODEL_PLACE_NEXT] = "next", [IPCC_MODEL_PLACE_OLDEST] = "oldest"
};

/* A built-in profile, written out or derived (not auto); false if name is none. */
static bool find_builtin(const char *name, struct ipcc_model_profile *out)
{
	return strcmp(name, "auto") && ipcc_model_profile(name, out) == 0;
}

static int bad(struct ipcc_model_error *err, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct ipcc_model_error *err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	err->column = 1;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return err_set(IPCC_EINVAL, "%u: %s", line, err->message);
}

/* A profile name: 1-31 of [A-Za-z0-9_.+-]. */
static bool good_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= sizeof(((struct ipcc_model_profile *)0)->name))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s))
			return false;
	return true;
}

/*
 * One number of a list key's value at s, within the key's bounds and followed by a space, a
 * comma or the end: where it ends, or NULL.
 */
static const char *list_number(const char *s, const struct key *k, unsigned long *n)
{
	char *end;

	errno = 0;
	*n = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno || *n < k->min || *n > k->max ||
	    (*end && *end != ' ' && *end != ','))
		return NULL;
	return end;
}

static int set_key(const struct key *k, const char *v, struct ipcc_model_profile *p,
		   struct ipcc_model_error *err, unsigned line)
{
	char *field = (char *)p + k->offset;

	switch (k->type) {
	case K_UNSIGNED: {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (!isdigit((unsigned char)*v) || *end || errno || n < k->min || n > k->max)
			return bad(err, line, "%s wants a whole number from %u to %u, not '%s'",
				   k->name, k->min, k->max, v);
		if ((k->offset == offsetof(struct ipcc_model_profile, pair_store_bytes) ||
		     k->offset == offsetof(struct ipcc_model_profile, split_store_bytes)) &&
		    (n & (n - 1)))
			return bad(err, line, "%s wants a power of two, not '%s'", k->name, v);
		if ((k->offset == offsetof(struct ipcc_model_profile, tage_entries) ||
		     k->offset == offsetof(struct ipcc_model_profile, tage_base_entries)) &&
		    n && ((n & (n - 1)) || n < 16))
			return bad(err, line, "%s wants 0 or a power of two from 16, not '%s'",
				   k->name, v);
		*(unsigned *)(void *)field = (unsigned)n;
		return 0;
	}
	case K_BOOL:
		if (strcmp(v, "true") && strcmp(v, "false"))
			return bad(err, line, "%s wants true or false, not '%s'", k->name, v);
		*(bool *)(void *)field = !strcmp(v, "true");
		return 0;
	case K_NAME:
		if (!good_name(v))
			return bad(err, line,
				   "name wants 1 to 31 letters, digits or _.+-, not '%s'", v);
		snprintf(p->name, sizeof(p->name), "%s", v);
		return 0;
	case K_BUILTIN: {
		struct ipcc_model_profile b;

		if (!find_builtin(v, &b))
			return bad(err, line, "%s wants a built-in profile's name, not '%s'",
				   k->name, v);
		/* its instruction costs come with it (the file's own rows and lock win later) */
		snprintf(p->latencies, sizeof(p->latencies), "%s", v);
		memcpy(p->cost, b.cost, sizeof(p->cost));
		p->lock_latency = b.lock_latency;
		return 0;
	}
	case K_PLACEMENT:
		for (size_t i = 0; i < sizeof(placements) / sizeof(placements[0]); i++)
			if (!strcmp(v, placements[i])) {
				p->placement = (enum ipcc_model_placement)i;
				return 0;
			}
		return bad(err, line, "placement wants next or oldest, not '%s'", v);
	case K_UOPS: {
		/* micro-op counts from min to max, apart by spaces or commas; or none */
		uint64_t set = 0;
		const char *s = v;

		if (!strcmp(v, "none")) {
			*(uint64_t *)(void *)field = 0;
			return 0;
		}
		while (*s) {
			unsigned long n;
			const char *end = list_number(s, k, &n);

			if (!end)
				return bad(
				    err, line,
				    "%s wants micro-op counts from %u to %u or none, not '%s'",
				    k->name, k->min, k->max, v);
			set |= 1ull << n;
			for (s = end; *s == ' ' || *s == ','; s++)
				;
		}
		*(uint64_t *)(void *)field = set;
		return 0;
	}
	case K_CHAIN: {
		/* groups for loops of 2, 3 ... micro-ops apart by commas, U - 1 figures each */
		uint16_t(*t)[IPCC_MODEL_CHAIN_LOOP - 1] = (void *)field;
		const char *s = v;
		unsigned g = 0, i = 0;

		memset(t, 0, sizeof(p->shift_chain_cycles));
		if (!strcmp(v, "none"))
			return 0;
		while (*s) {
			unsigned long n;
			const char *end = list_number(s, k, &n);

			if (!end || g >= IPCC_MODEL_CHAIN_LOOP - 1 || i > g)
				break;
			t[g][i++] = (uint16_t)n;
			for (s = end; *s == ' '; s++)
				;
			if (*s == ',' || !*s) {
				if (i != g + 1)
					break;
				g++, i = 0;
				for (s += *s == ','; *s == ' '; s++)
					;
				if (!*s && s[-1] == ',')
					g = IPCC_MODEL_CHAIN_LOOP; /* a trailing comma */
			}
		}
		if (*s || i || g == 0 || g >= IPCC_MODEL_CHAIN_LOOP)
			return bad(
			    err, line,
			    "%s wants groups apart by commas for loops of 2, 3 ... micro-ops, "
			    "U - 1 figures from %u to %u each (hundredths of a cycle), or none, "
			    "not '%s'",
			    k->name, k->min, k->max, v);
		return 0;
	}
	}
	return 0;
}

/* The cost row for `mnemonic` (a new one at the end when there is none); NULL when full. */
static struct ipcc_model_insn_cost *cost_row(struct ipcc_model_profile *p, const char *mnemonic)
{
	unsigned i = 0;

	for (; i < IPCC_MODEL_MAX_COSTS && p->cost[i].mnemonic[0]; i++)
		if (!strcmp(p->cost[i].mnemonic, mnemonic))
			return &p->cost[i];
	return i < IPCC_MODEL_MAX_COSTS ? &p->cost[i] : NULL;
}

/* A cost key as read: applied after every other key (so after `latencies`). */
struct cost_key {
	char key[32];
	char value[16];
	unsigned line;
};

/*
 * latency.NAME = N or uops.NAME = N. A new row starts from the instruction table's figures
 * (model_insn_default), so a file can set one of the two alone.
 */
static int set_cost(const struct cost_key *ck, struct ipcc_model_profile *p,
		    struct ipcc_model_error *err)
{
	bool lat = !strncmp(ck->key, "latency.", 8);
	const char *name = ck->key + (lat ? 8 : 5), *v = ck->value;
	struct ipcc_model_insn_cost *c;
	unsigned lo = lat ? 0 : 1, def_lat, def_uops;
	char *end;
	unsigned long n;

	if (!*name || strlen(name) >= sizeof(c->mnemonic))
		return bad(err, ck->line, "%s: a mnemonic of 1 to %zu characters", ck->key,
			   sizeof(c->mnemonic) - 1);
	if (model_insn_default(name, &def_lat, &def_uops))
		return bad(err, ck->line, "%s: the instruction table has no '%s'", ck->key, name);
	errno = 0;
	n = strtoul(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || errno || n < lo || n > 1000)
		return bad(err, ck->line, "%s wants a whole number from %u to 1000, not '%s'",
			   ck->key, lo, v);
	c = cost_row(p, name);
	if (!c)
		return bad(err, ck->line, "more than %d instruction cost rows",
			   IPCC_MODEL_MAX_COSTS);
	if (!c->mnemonic[0]) {
		snprintf(c->mnemonic, sizeof(c->mnemonic), "%s", name);
		c->latency = def_lat;
		c->uops = def_uops;
	}
	*(lat ? &c->latency : &c->uops) = (unsigned)n;
	return 0;
}

int ipcc_model_profile_parse(const char *text, struct ipcc_model_profile *p,
			     struct ipcc_model_error *err)
{
	struct ipcc_model_profile q;
	bool seen[NKEYS] = { false }, any = false, based = false;
	unsigned line = 0, ncosts = 0, lock = 0;
	struct cost_key costs[2 * IPCC_MODEL_MAX_COSTS];
	const char *s = text;

	memset(err, 0, sizeof(*err));
	memset(&q, 0, sizeof(q));
	while (*s) {
		char buf[256], *k, *v, *e;
		size_t len = strcspn(s, "\n");

		line++;
		if (len >= sizeof(buf))
			return bad(err, line, "line longer than %zu characters", sizeof(buf) - 1);
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (s[len] == '\n');
		if (strlen(buf) != len)
			return bad(err, line, "a NUL byte in the text");
		buf[strcspn(buf, "#")] = '\0';
		for (k = buf; isspace((unsigned char)*k); k++)
			;
		for (e = k + strlen(k); e > k && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		if (!*k)
			continue;
		v = strchr(k, '=');
		if (!v)
			return bad(err, line, "expected key = value");
		for (e = v; e > k && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		for (v++; isspace((unsigned char)*v); v++)
			;
		if (!*k)
			return bad(err, line, "expected a key before '='");
		if (!*v)
			return bad(err, line, "%s has no value", k);
		if (!strcmp(k, "base")) {
			if (any)
				return bad(err, line, "base must be the first key");
			if (!find_builtin(v, &q))
				return bad(err, line,
					   "base wants a built-in profile's name, not '%s'", v);
			based = any = true;
			continue;
		}
		any = true;
		if (!strncmp(k, "latency.", 8) || !strncmp(k, "uops.", 5)) {
			struct cost_key *ck = &costs[ncosts];

			for (unsigned i = 0; i < ncosts; i++)
				if (!strcmp(costs[i].key, k))
					return bad(err, line, "%s given twice", k);
			if (ncosts == 2 * IPCC_MODEL_MAX_COSTS)
				return bad(err, line, "more than %d instruction cost keys",
					   2 * IPCC_MODEL_MAX_COSTS);
			if (strlen(k) >= sizeof(ck->key) || strlen(v) >= sizeof(ck->value))
				return bad(err, line, "%s: too long a key or value", k);
			snprintf(ck->key, sizeof(ck->key), "%s", k);
			snprintf(ck->value, sizeof(ck->value), "%s", v);
			ck->line = line;
			ncosts++;
			continue;
		}
		{
			size_t i = 0;
			int ret;

			while (i < NKEYS && strcmp(keys[i].name, k))
				i++;
			if (i == NKEYS)
				return bad(err, line, "unknown key '%s'", k);
			if (seen[i])
				return bad(err, line, "%s given twice", k);
			seen[i] = true;
			ret = set_key(&keys[i], v, &q, err, line);
			if (ret)
				return ret;
			if (keys[i].offset == offsetof(struct ipcc_model_profile, lock_latency))
				lock = q.lock_latency + 1; /* kept over what `latencies` copies */
		}
	}
	if (!based)
		for (size_t i = 0; i < NKEYS; i++)
			if (!seen[i] &&
			    keys[i].offset < offsetof(struct ipcc_model_profile, mul_latency))
				return bad(
				    err, line ? line : 1,
				    "missing key '%s' (or start from a built-in: base = zen3)",
				    keys[i].name);
	if (lock)
		q.lock_latency = lock - 1;
	for (unsigned i = 0; i < ncosts; i++) {
		int ret = set_cost(&costs[i], &q, err);

		if (ret)
			return ret;
	}
	*p = q;
	return 0;
}

int ipcc_model_profile_load(const char *path, struct ipcc_model_profile *p)
{
	FILE *f = fopen(path, "r");
	struct ipcc_model_error err;
	char *text;
	size_t len;
	int ret;

	if (!f)
		return err_sys("cannot open profile '%s'", path);
	text = malloc(65536);
	if (!text) {
		fclose(f);
		return err_set(IPCC_ENOMEM, "out of memory");
	}
	len = fread(text, 1, 65535, f);
	if (ferror(f) || !feof(f)) {
		ret = ferror(f)
			  ? err_sys("cannot read profile '%s'", path)
			  : err_set(IPCC_EINVAL, "%s: longer than 64 KiB: not a profile", path);
		fclose(f);
		free(text);
		return ret;
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		return err_set(IPCC_EINVAL, "%s: a NUL byte: not a profile", path);
	}
	ret = ipcc_model_profile_parse(text, p, &err);
	free(text);
	if (ret == IPCC_EINVAL)
		return err_set(ret, "%s:%u: %s", path, err.line, err.message);
	return ret;
}

int ipcc_model_profile_format(const struct ipcc_model_profile *p, char *buf, size_t len)
{
	size_t off = 0;

	for (size_t i = 0; i < NKEYS; i++) {
		const char *field = (const char *)p + keys[i].offset;
		int n = 0;

		switch (keys[i].type) {
		case K_UNSIGNED:
			n = snprintf(buf + off, len - off, "%s = %u\n", keys[i].name,
				     *(const unsigned *)(const void *)field);
			break;
		case K_BOOL:
			n = snprintf(buf + off, len - off, "%s = %s\n", keys[i].name,
				     *(const bool *)(const void *)field ? "true" : "false");
			break;
		case K_NAME:
		case K_BUILTIN:
			n = snprintf(buf + off, len - off, "%s = %s\n", keys[i].name, field);
			break;
		case K_PLACEMENT:
			if ((unsigned)p->placement >= sizeof(placements) / sizeof(placements[0]))
				return err_set(IPCC_EINVAL, "placement %d is not a placement",
					       (int)p->placement);
			n = snprintf(buf + off, len - off, "%s = %s\n", keys[i].name,
				     placements[p->placement]);
			break;
		case K_UOPS: {
			const uint64_t set = *(const uint64_t *)(const void *)field;

			n = snprintf(buf + off, len - off, "%s =%s", keys[i].name,
				     set ? "" : " none");
			for (unsigned b = 1; b < 64 && n >= 0 && (size_t)n < len - off; b++)
				if (set >> b & 1) {
					int m = snprintf(buf + off + (size_t)n,
							 len - off - (size_t)n, " %u", b);

					n = m < 0 ? m : n + m;
				}
			if (n >= 0 && (size_t)n < len - off)
				n += snprintf(buf + off + (size_t)n, len - off - (size_t)n, "\n");
			break;
		}
		case K_CHAIN: {
			const uint16_t(*t)[IPCC_MODEL_CHAIN_LOOP - 1] = (const void *)field;
			unsigned groups = 0;

			while (groups < IPCC_MODEL_CHAIN_LOOP - 1 && t[groups][0])
				groups++;
			n = snprintf(buf + off, len - off, "%s =%s", keys[i].name,
				     groups ? "" : " none");
			for (unsigned g = 0; g < groups && n >= 0 && (size_t)n < len - off; g++)
				for (unsigned j = 0; j <= g && n >= 0 && (size_t)n < len - off;
				     j++) {
					int m = snprintf(buf + off + (size_t)n,
							 len - off - (size_t)n, "%s%u",
							 j   ? " "
							 : g ? ", "
							     : " ",
							 t[g][j]);

					n = m < 0 ? m : n + m;
				}
			if (n >= 0 && (size_t)n < len - off)
				n += snprintf(buf + off + (size_t)n, len - off - (size_t)n, "\n");
			break;
		}
		}
		if (n < 0 || (size_t)n >= len - off)
			return err_set(IPCC_EINVAL, "a profile needs more than %zu bytes", len);
		off += (size_t)n;
	}
	/* the cost rows `latencies` does not bring */
	struct ipcc_model_profile lat;
	const struct ipcc_model_profile *b = find_builtin(p->latencies, &lat) ? &lat : NULL;

	for (unsigned i = 0; i < IPCC_MODEL_MAX_COSTS && p->cost[i].mnemonic[0]; i++) {
		const struct ipcc_model_insn_cost *c = &p->cost[i], *d = NULL;
		int n;

		for (unsigned j = 0; b && j < IPCC_MODEL_MAX_COSTS && b->cost[j].mnemonic[0]; j++)
			if (!strcmp(b->cost[j].mnemonic, c->mnemonic))
				d = &b->cost[j];
		if (d && d->latency == c->latency && d->uops == c->uops)
			continue;
		n = snprintf(buf + off, len - off, "latency.%s = %u\nuops.%s = %u\n", c->mnemonic,
			     c->latency, c->mnemonic, c->uops);
		if (n < 0 || (size_t)n >= len - off)
			return err_set(IPCC_EINVAL, "a profile needs more than %zu bytes", len);
		off += (size_t)n;
	}
	return 0;
}

int ipcc_model_profile_save(const char *path, const struct ipcc_model_profile *p)
{
	char text[8192];
	FILE *f;
	int ret = ipcc_model_profile_format(p, text, sizeof(text));

	if (ret)
		return ret;
	f = fopen(path, "w");
	if (!f)
		return err_sys("cannot write profile '%s'", path);
	fprintf(f, "# ipcc model profile (see ipcc-sim(1), docs/internals/model.md)\n%s", text);
	if (fclose(f) != 0)
		return err_sys("cannot write profile '%s'", path);
	return 0;
}

static bool same_costs(const struct ipcc_model_profile *a, const struct ipcc_model_profile *b)
{
	for (unsigned i = 0; i < IPCC_MODEL_MAX_COSTS; i++) {
		const struct ipcc_model_insn_cost *x = &a->cost[i], *y = &b->cost[i];

		if (strcmp(x->mnemonic, y->mnemonic))
			return false;
		if (!x->mnemonic[0])
			return true;
		if (x->latency != y->latency || x->uops != y->uops)
			return false;
	}
	return true;
}

double ipcc_model_rep_cycles(const struct ipcc_model_profile *p, unsigned size, double bytes)
{
	if (!p->rep_bytes_per_cycle)
		return 0;
	if (size > 1 && p->rep_wide_short_cycles && bytes < 128)
		return p->rep_wide_short_cycles;
	if (size > 1 && p->rep_wide_cycles)
		return p->rep_wide_cycles + bytes / p->rep_bytes_per_cycle;
	return bytes <= 128 ? p->rep_short_cycles : p->rep_cycles + bytes / p->rep_bytes_per_cycle;
}

bool ipcc_model_profile_equal(const struct ipcc_model_profile *a,
			      const struct ipcc_model_profile *b)
{
	return !strcmp(a->name, b->name) && a->width == b->width && a->retire == b->retire &&
	       a->rob == b->rob && a->load_latency == b->load_latency &&
	       a->recovery == b->recovery && a->fuse_alu_jcc == b->fuse_alu_jcc &&
	       a->alu_jcc_one_slot == b->alu_jcc_one_slot && a->fuse_cmp_jcc == b->fuse_cmp_jcc &&
	       a->alu_ports == b->alu_ports && a->load_ports == b->load_ports &&
	       a->store_ports == b->store_ports && a->vector_ports == b->vector_ports &&
	       a->fold_imm == b->fold_imm && a->mul_latency == b->mul_latency &&
	       a->lock_latency == b->lock_latency && a->fadd_latency == b->fadd_latency &&
	       a->fmul_latency == b->fmul_latency && a->fp_bypass == b->fp_bypass &&
	       a->partial_rename == b->partial_rename &&
	       a->move_elimination == b->move_elimination &&
	       a->memory_renaming == b->memory_renaming &&
	       a->rename_rmw_imm_only == b->rename_rmw_imm_only &&
	       a->rename_base_only == b->rename_base_only &&
	       a->rename_absolute == b->rename_absolute && a->rename_no_word == b->rename_no_word &&
	       a->rename_no_movzx == b->rename_no_movzx &&
	       a->rename_no_load_op == b->rename_no_load_op &&
	       a->rename_partial_extra == b->rename_partial_extra &&
	       a->rename_no_byte == b->rename_no_byte && a->sbb_idiom == b->sbb_idiom &&
	       a->xchg_renamed == b->xchg_renamed && a->self_move_renamed == b->self_move_renamed &&
	       a->merge_zero_upper == b->merge_zero_upper &&
	       a->cmov_flags_late == b->cmov_flags_late && a->fold_no_port == b->fold_no_port &&
	       a->fold_lea == b->fold_lea && a->fold_bits == b->fold_bits &&
	       a->fold_materialize == b->fold_materialize &&
	       a->logic_flags_late == b->logic_flags_late &&
	       a->fused_flags_late == b->fused_flags_late && a->fuse_mov_alu == b->fuse_mov_alu &&
	       a->fuse_load_alu == b->fuse_load_alu && a->port_binding == b->port_binding &&
	       a->alu_port_subsets == b->alu_port_subsets &&
	       a->divider_cycles == b->divider_cycles &&
	       a->vector_load_latency == b->vector_load_latency &&
	       a->complex_load_latency == b->complex_load_latency &&
	       a->lea3_latency == b->lea3_latency && a->lea3_alu_slots == b->lea3_alu_slots &&
	       a->bypass_slot_every == b->bypass_slot_every &&
	       a->load_merge_latency == b->load_merge_latency &&
	       a->lea_scale_latency == b->lea_scale_latency && a->pair_stores == b->pair_stores &&
	       a->pair_store_runs == b->pair_store_runs &&
	       a->pair_store_unread == b->pair_store_unread &&
	       a->pair_store_bytes == b->pair_store_bytes &&
	       a->pair_wide_stores == b->pair_wide_stores &&
	       a->forward_fail_latency == b->forward_fail_latency &&
	       a->forward_wide_latency == b->forward_wide_latency &&
	       a->alias_forwards == b->alias_forwards && a->from_gpr_extra == b->from_gpr_extra &&
	       a->forward_extra == b->forward_extra &&
	       a->vector_forward_extra == b->vector_forward_extra && a->agu_ports == b->agu_ports &&
	       a->shift_ports == b->shift_ports && a->mul_ports == b->mul_ports &&
	       a->branch_ports == b->branch_ports && a->vec_mul_ports == b->vec_mul_ports &&
	       a->vec_add_ports == b->vec_add_ports && a->vec_out_ports == b->vec_out_ports &&
	       a->vec_shuffle_ports == b->vec_shuffle_ports &&
	       a->vec_zen_pipes == b->vec_zen_pipes &&
	       a->indexed_store_alu == b->indexed_store_alu && a->store_alu == b->store_alu &&
	       a->mul_high_latency == b->mul_high_latency && a->l2_latency == b->l2_latency &&
	       a->llc_latency == b->llc_latency && a->dram_latency == b->dram_latency &&
	       a->llc_share_mib == b->llc_share_mib && a->llc_foreign == b->llc_foreign &&
	       a->l2_fold_bits == b->l2_fold_bits && a->dtlb_entries == b->dtlb_entries &&
	       a->stlb_entries == b->stlb_entries && a->stlb_latency == b->stlb_latency &&
	       a->walk_latency == b->walk_latency && a->itlb_entries == b->itlb_entries &&
	       a->itlb_miss_cycles == b->itlb_miss_cycles &&
	       a->itlb_walk_cycles == b->itlb_walk_cycles &&
	       a->pointer_prefetch == b->pointer_prefetch && a->fault_cycles == b->fault_cycles &&
	       a->process_cycles == b->process_cycles &&
	       a->file_fault_cycles == b->file_fault_cycles &&
	       a->kernel_page_touch_cycles == b->kernel_page_touch_cycles &&
	       a->syscall_cycles == b->syscall_cycles &&
	       a->syscall_bytes_per_cycle == b->syscall_bytes_per_cycle &&
	       a->l2_bytes_per_cycle == b->l2_bytes_per_cycle &&
	       a->l2_wb_bytes_per_cycle == b->l2_wb_bytes_per_cycle &&
	       a->nt_bytes_per_cycle == b->nt_bytes_per_cycle &&
	       a->llc_bytes_per_cycle == b->llc_bytes_per_cycle &&
	       a->taken_per_cycle == b->taken_per_cycle &&
	       a->loop_taken_per_cycle == b->loop_taken_per_cycle &&
	       a->loop_buffer_taken == b->loop_buffer_taken &&
	       a->loop_buffer_relock == b->loop_buffer_relock &&
	       a->indirect_call_cycles == b->indirect_call_cycles &&
	       a->call_ret_cycles == b->call_ret_cycles && a->btb_entries == b->btb_entries &&
	       a->btb_miss_cycles == b->btb_miss_cycles && a->btb2_entries == b->btb2_entries &&
	       a->btb2_miss_cycles == b->btb2_miss_cycles &&
	       a->btb_restart_entries == b->btb_restart_entries &&
	       a->btb_restart_window == b->btb_restart_window &&
	       a->btb_restart_sites == b->btb_restart_sites &&
	       a->fe_line_branches == b->fe_line_branches &&
	       a->fe_line_cycles == b->fe_line_cycles &&
	       a->fe_half_branches == b->fe_half_branches && a->tage_entries == b->tage_entries &&
	       a->tage_base_entries == b->tage_base_entries &&
	       a->l1i_l2_cycles == b->l1i_l2_cycles && a->fe_half_cycles == b->fe_half_cycles &&
	       a->branch_mixed_cycles == b->branch_mixed_cycles &&
	       a->branch_rare_cycles == b->branch_rare_cycles &&
	       a->branch_mixed_apart == b->branch_mixed_apart &&
	       a->rep_short_cycles == b->rep_short_cycles && a->rep_cycles == b->rep_cycles &&
	       a->rep_bytes_per_cycle == b->rep_bytes_per_cycle &&
	       a->rep_l2_bytes_per_cycle == b->rep_l2_bytes_per_cycle &&
	       a->rep_llc_bytes_per_cycle == b->rep_llc_bytes_per_cycle &&
	       a->rep_wide_cycles == b->rep_wide_cycles &&
	       a->rep_wide_short_cycles == b->rep_wide_short_cycles &&
	       a->cpuid_cycles == b->cpuid_cycles && a->x87_assist_cycles == b->x87_assist_cycles &&
	       a->high8_latency == b->high8_latency &&
	       a->divider_cycles_32 == b->divider_cycles_32 &&
	       a->fdiv_single_cycles == b->fdiv_single_cycles &&
	       a->fdiv_double_cycles == b->fdiv_double_cycles &&
	       a->fsqrt_single_cycles == b->fsqrt_single_cycles &&
	       a->fsqrt_double_cycles == b->fsqrt_double_cycles &&
	       a->fdiv_full_width == b->fdiv_full_width &&
	       a->split_load_cycles == b->split_load_cycles &&
	       a->page_split_load_cycles == b->page_split_load_cycles &&
	       a->split_store_cycles == b->split_store_cycles &&
	       a->page_split_store_cycles == b->page_split_store_cycles &&
	       a->split_store_bytes == b->split_store_bytes &&
	       a->loads_per_bank == b->loads_per_bank && a->dep_load_ports == b->dep_load_ports &&
	       a->vec_load_ports == b->vec_load_ports && a->vec_in_ports == b->vec_in_ports &&
	       a->dep_load_gap == b->dep_load_gap && a->forward_trip == b->forward_trip &&
	       a->forward_trip_slow == b->forward_trip_slow &&
	       a->store_drain_cycles == b->store_drain_cycles &&
	       a->fp_assist_cycles == b->fp_assist_cycles && a->lsd_no_unroll == b->lsd_no_unroll &&
	       !memcmp(a->shift_chain_cycles, b->shift_chain_cycles,
		       sizeof(a->shift_chain_cycles)) &&
	       a->opcache_line_ops == b->opcache_line_ops &&
	       a->loop_stream_ops == b->loop_stream_ops &&
	       a->opcache_entries == b->opcache_entries &&
	       a->opcache_capacity == b->opcache_capacity && a->decode_width == b->decode_width &&
	       a->decode_block_cycles == b->decode_block_cycles &&
	       a->utag_alias_first == b->utag_alias_first &&
	       a->utag_alias_step == b->utag_alias_step && a->utag_alias_dep == b->utag_alias_dep &&
	       a->utag_alias_plain == b->utag_alias_plain &&
	       a->utag_retag_latency == b->utag_retag_latency &&
	       a->alias_unrenamed == b->alias_unrenamed &&
	       a->forward_fail_late == b->forward_fail_late &&
	       a->x87_denormal_cycles == b->x87_denormal_cycles &&
	       a->x87_nan_cycles == b->x87_nan_cycles && a->placement == b->placement &&
	       a->sample_retire == b->sample_retire && !strcmp(a->latencies, b->latencies) &&
	       same_costs(a, b);
}
