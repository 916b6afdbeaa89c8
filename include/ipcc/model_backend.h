/*
 * model_backend.h - the model backend: Sites' counters for a whole program on a machine
 * without a PMU.
 *
 * The program runs to completion under Valgrind with ipcc's own tool (src/backend/model/
 * vg_tool.c), which counts each executed *segment* (a run of instructions that all execute
 * once the first does), the data and instruction-cache misses of an LRU model of this
 * machine's caches, and the branch outcomes of a predictor model; it writes them, one file per
 * process, into a folder. ipcc_mb_account() then lifts each segment's machine code
 * (Capstone), runs the pipeline model (model.h) over it in its steady state, and adds what
 * the steady state leaves out: each cache miss's and mispredict's cycles, with the profile's
 * latencies. The result is the usual counters, every one of them modelled: exact
 * instructions, loads, stores and branches; modelled cycles, slots, misses and mispredicts.
 *
 * The caller owns what ipcc_mb_account() fills and frees it with ipcc_mb_result_release().
 * docs/internals/model-backend.md describes the method, the file format and the limits.
 */
#ifndef IPCC_MODEL_BACKEND_H
#define IPCC_MODEL_BACKEND_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "ipcc/model.h"

/* One cache's geometry. */
struct ipcc_mb_cache {
	uint64_t size; /* bytes */
	unsigned assoc, line;
};

/*
 * The caches the tool models: this machine's, from sysfs; what it lacks from CPUID (not where
 * IPCC_SYSFS_CPU names the folder to read); typical ones (Zen 5's) for the rest.
 */
struct ipcc_mb_caches {
	struct ipcc_mb_cache l1d, l1i, l2, llc;
	/* The data TLBs, from the profile (size = entries x 4096, line 4096); size 0: none. */
	struct ipcc_mb_cache dtlb, stlb, itlb; /* itlb: where the profile names one */
	/* The branch-target buffer, from the profile (size = entries x 8, 8-way, line 8); its
	 * second level (the same form; size 0: none), which holds what the first evicts. */
	struct ipcc_mb_cache btb, btb2;
	/* The profile's btb_restart_entries (the same form; size 0: none), btb_restart_window
	 * and btb_restart_sites (--ipcc-btb-restart). */
	struct ipcc_mb_cache btb_restart;
	unsigned btb_restart_window, btb_restart_sites;
	/* The profile's fe_line_branches and fe_half_branches; 0: no limit (--ipcc-fe). */
	unsigned fe_line, fe_half;
	/*
	 * The profile's opcache_capacity and opcache_line_ops: the op cache's entries, of that
	 * many ops each; 0: none, every fetch through L1i (--ipcc-opcache).
	 */
	unsigned opcache, opcache_ops;
	/* The profile's tage_entries and tage_base_entries, or the tool's defaults (--ipcc-tage). */
	unsigned tage, tage_base;
	/* The profile's llc_share_mib, in bytes; 0: the whole LLC (--ipcc-llc-share). */
	uint64_t llc_share;
	/* The profile's l2_fold_bits: L2's index folds that many bits more (--ipcc-l2's 4th). */
	unsigned l2_fold;
	/*
	 * The profile's llc_foreign (--ipcc-llc-foreign), and the clock the tool counts those
	 * lines on (--ipcc-llc-clock): an instruction's cycles in thousandths, a stalling
	 * miss's to L2, the LLC and memory, and a mispredict's (ipcc_mb_tlbs()).
	 */
	unsigned llc_foreign, clock[5];
	/* The profile's pointer_prefetch (--ipcc-pointer-prefetch=yes). */
	bool pointer_prefetch;
	/*
	 * Whether this kernel maps its zero page where an anonymous page is read first, so that
	 * the write after faults again (ipcc_mb_zero_page(); --ipcc-zero-page=no where not).
	 */
	bool zero_page;
	/*
	 * Whether this kernel's mapping of a page a system call faulted in is not yet the
	 * program's, so that the program's first touch of it faults again where the guest
	 * does not count it (ipcc_mb_kernel_touch(); --ipcc-kernel-touch=yes where so).
	 */
	bool kernel_touch;
	/* The levels taken from the typical ones: bit 0 L1d, 1 L1i, 2 L2, 3 the LLC. */
	unsigned guessed;
	char source[96]; /* "sysfs (cpu0)", or where each level came from */
};

int ipcc_mb_caches(struct ipcc_mb_caches *c);

/*
 * The data TLBs the profile names into c: the first level 6-way (8- or 4-way where its
 * entries are no multiple of 6, else fully associative), the second 16-way (fully where its
 * entries are no multiple of 16); none where p has no dtlb_entries. And its branch-target
 * buffer: 8-way, its entries rounded down to a multiple of 8; none where it has none (and its
 * second level, btb2_entries, alike, and its rule for a mispredict among many sites,
 * btb_restart_entries, _window and _sites: none where any is 0). And its
 * limits on taken branches a line (fe_line_branches, fe_half_branches), its LLC share and
 * L2's index fold.
 */
void ipcc_mb_tlbs(struct ipcc_mb_caches *c, const struct ipcc_model_profile *p);

/*
 * Whether the running kernel maps its zero page for an anonymous page read before it is
 * written: measured, by the faults a write to pages just read takes (getrusage). Most
 * kernels do; some guests' do not (a PVM guest booted with pvm_no_zero_page), and there a
 * page read first faults once, not twice. True where it cannot tell.
 */
bool ipcc_mb_zero_page(void);

/*
 * Whether the program's first touch of a page that a system call faulted in (read() into a
 * fresh buffer) costs a fault of its own that the guest does not count: measured, by the
 * time of such touches (a PVM guest, whose shadow page table for user mode is filled then,
 * takes microseconds; other kernels a TLB miss). False where it cannot tell.
 */
bool ipcc_mb_kernel_touch(void);

/*
 * The core frequency the model backend turns cycles into time and constant-rate ticks with:
 * measured once a boot (the fastest of 7 add-chain measurements) and kept in ipcc's boot cache,
 * so that two runs on one machine give the same figures. IPCC_ENOTSUP if it cannot be measured.
 */
struct ipcc_freq;
int ipcc_mb_core_khz(struct ipcc_freq *f);

/* Where the engine is: valgrind, and the folder that holds ipcc's tool beside the stock ones. */
struct ipcc_mb_engine {
	char valgrind[512];
	char lib[512]; /* VALGRIND_LIB for the run */
};

/*
 * Find valgrind on PATH (or $IPCC_VALGRIND) and the tool folder ($IPCC_VALGRIND_LIB, else
 * `valgrind/` beside the ipcc executable). IPCC_ENOTSUP, with the reason, when either is
 * missing.
 */
int ipcc_mb_engine(struct ipcc_mb_engine *e);

/*
 * The command line that runs `cmd` (NULL-terminated) under the tool, writing into `outdir`,
 * following child processes, with an out-of-order window of `window` instructions for the
 * overlap of cache misses (the profile's reorder buffer; 0: none). The tool also writes each
 * segment to `outdir` as it first runs, for ipcc_mb_stream_start(). The caller frees the
 * array (one allocation, strings inside).
 */
int ipcc_mb_argv(const struct ipcc_mb_engine *e, const struct ipcc_mb_caches *c, unsigned window,
		 const char *outdir, char *const *cmd, char ***argv);

/* Counts, for a whole run or one function. Every figure but the first five is modelled. */
struct ipcc_mb_counts {
	uint64_t instructions; /* exact: every executed instruction, user mode */
	uint64_t loads;	       /* exact: instructions that read memory */
	uint64_t stores;       /* exact: instructions that write memory */
	uint64_t branches;     /* exact: conditional, indirect and direct jumps, calls, returns */
	uint64_t cond_branches;
	uint64_t cond_taken;
	uint64_t mispredicts; /* conditional + indirect + returns, by the predictor model */
	uint64_t indirect, returns;
	uint64_t l1d_misses, l2_misses, llc_misses; /* data: each level's misses */
	uint64_t stalling_misses; /* of the loads' misses, those that stall (the epoch model) */
	uint64_t l1i_misses, l2i_misses, llci_misses;
	uint64_t l1i_restarts; /* L1i misses served by L2 where a mispredict restarted the fetch */
	uint64_t dtlb_misses, page_walks; /* data: first-level TLB misses; of them, walks */
	uint64_t itlb_misses, itlb_walks; /* instruction fetches' TLB misses; of them, walks */
	uint64_t btb_misses;		  /* taken branches the branch-target buffer missed */
	uint64_t btb2_misses;		  /* ... of them, those its second level missed too */
	uint64_t btb_restarts; /* taken branches just after a mispredict, not recent: as misses */
	uint64_t approximated; /* dynamic instructions the model approximated */
	uint64_t decoded; /* segment runs the op cache did not hold (a profile with its capacity) */
	/* Cycles: the pipeline's steady state plus what each kind of event costs. */
	double cycles;
	double core_cycles;	  /* the segments' steady states */
	double l2_hit_cycles;	  /* data misses in L1 that hit L2 */
	double llc_hit_cycles;	  /* ... that hit the LLC */
	double memory_cycles;	  /* ... that went to memory */
	double tlb_cycles;	  /* data TLB misses: the second level's latency or a walk's */
	double icache_cycles;	  /* instruction fetch misses: L2's, and the TLB's */
	double decode_cycles;	  /* the decoders, where the op cache missed */
	double btb_cycles;	  /* branch-target buffer misses */
	double mispredict_cycles; /* mispredicted branches */
	/* The four slot counters (width x cycles; filled; issued; retired). */
	double slots_total, slots_filled, slots_issued, slots_retired;
};

/*
 * The kernel's part of a run, every process's: page faults (a page's first touch, but for a
 * file's page in a 64 KiB window an earlier fault mapped; file_faults, those of a file's
 * page read, each mapping that window), system calls, and the bytes those
 * that read or write moved; the processes started and ended (a region's none); touches, the
 * program's first touches of pages a system call faulted in, where they fault again
 * (ipcc_mb_kernel_touch(); else 0); cycles, the profile's costs of them (fault_cycles,
 * file_fault_cycles, syscall_cycles, syscall_bytes_per_cycle, process_cycles,
 * kernel_page_touch_cycles); 0 where the profile has none.
 */
struct ipcc_mb_kernel {
	uint64_t faults, file_faults, syscalls, bytes, processes, touches;
	double cycles;
};

struct ipcc_mb_function {
	char *name, *object;
	struct ipcc_mb_counts c;
	/*
	 * The kernel's part its code caused: the faults of its loads, stores and system calls'
	 * writes, its system calls.
	 */
	struct ipcc_mb_kernel kernel;
};

/*
 * A region of the program's (ipcc_region_begin/end, IPCC_REGION), summed over its threads
 * and processes: what ran inside it, the regions inside it included.
 */
struct ipcc_mb_region {
	char *name;
	uint64_t calls;
	struct ipcc_mb_counts c;
	struct ipcc_mb_kernel kernel; /* while it was open, on the thread it was open on */
};

struct ipcc_mb_result {
	struct ipcc_mb_counts total; /* user mode */
	struct ipcc_mb_kernel kernel;
	struct ipcc_mb_function *fn; /* hottest (most cycles) first */
	size_t nfn;
	struct ipcc_mb_region *region; /* in the order they were first entered */
	size_t nregion;
	unsigned processes, threads;
	uint64_t segments;	      /* distinct segments modelled */
	uint64_t unmodelled;	      /* of them, those the model could not parse at all */
	char approximated_names[256]; /* the approximated mnemonics, "..." when more */
	struct ipcc_mb_caches caches; /* the geometry the tool ran with */
	char profile[32];	      /* the model profile */
	unsigned width;		      /* slots per cycle */
	bool port_binding;	      /* the profile binds micro-ops to ports at allocation */
	bool branch_limits; /* it has the front end's limits on packed or both-ways branches */
	/* 1: it delivers fetch blocks in op-cache entries (opcache_entries); 2: and models the
	 * op cache's capacity (opcache_capacity); 0: neither */
	unsigned op_cache;
	bool llc_share;	     /* it has an LLC share (llc_share_mib): not all the LLC is kept */
	bool kernel_costed;  /* it has the kernel's costs (fault_cycles): kernel cycles given */
	bool process_costed; /* ... and a program's start and end (process_cycles) */
	bool
	    touch_costed; /* ... and a page's touch after the kernel's (kernel_page_touch_cycles) */
	int exit_status;  /* the first process's exit code (tool's view) */
};

/*
 * Segments modelled while the program runs: a thread follows the segments the tool writes
 * into `dir` as each first runs and models each in its steady state with profile `p`, on a
 * CPU the tool leaves idle. ipcc_mb_stream_stop() ends the thread (call it once the program
 * has ended); ipcc_mb_account() then takes each segment's figures from it where it has them
 * and models the rest. The figures are the same either way: a segment's steady state is its
 * instructions' and the profile's alone. NULL in *out where the thread cannot start (the run
 * is accounted after it ends, as without one).
 */
struct ipcc_mb_stream;
int ipcc_mb_stream_start(const char *dir, const struct ipcc_model_profile *p,
			 struct ipcc_mb_stream **out);
void ipcc_mb_stream_stop(struct ipcc_mb_stream *s);
void ipcc_mb_stream_free(struct ipcc_mb_stream *s);

/*
 * Read every file the tool wrote into `dir` and account them with profile `p`, taking the
 * segments `pre` modelled (a stopped stream, or NULL). IPCC_EINVAL when a file is not the
 * tool's, IPCC_ENOENT when there is none (the program never ran).
 */
int ipcc_mb_account(const char *dir, const struct ipcc_model_profile *p, struct ipcc_mb_stream *pre,
		    struct ipcc_mb_result *out);

void ipcc_mb_result_release(struct ipcc_mb_result *r);

#endif
