/*
 * clock/clock_int.h - what the portable clock code needs from each architecture, and the pure
 * decoders the tests drive with recorded data (private to src/).
 *
 * One file per architecture implements the clock_arch_* functions: clock/x86_64.c,
 * clock/arm64.c. CMake picks the one for the target.
 */
#ifndef IPCC_CLOCK_INT_H
#define IPCC_CLOCK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcc/clock.h"

struct perf_event_mmap_page;

/* A source is used only if it states TCFREQ at least this well; otherwise ipcc calibrates. */
#define CLOCK_TARGET_PPM 20.0

/* Calibration stops once its error bound is below this, or after CLOCK_CAL_MAX_NS. */
#define CLOCK_CAL_GOAL_PPM 10.0
#define CLOCK_CAL_MIN_NS   2000000ull
#define CLOCK_CAL_MAX_NS   200000000ull

/* A cached calibration with a larger uncertainty than this is not trusted. */
#define CLOCK_CACHE_MAX_PPM 1000.0

/* Adds per block of clock_arch_add_chain(). */
#define CLOCK_CHAIN_BLOCK 64

/*
 * TCFREQ as the hardware states it (CPUID leaves on x86-64, cntfrq_el0 on arm64): the first
 * source, in the documented order, whose uncertainty is at most CLOCK_TARGET_PPM.
 * IPCC_ENOTSUP when there is none.
 */
int clock_arch_tcfreq(struct ipcc_freq *out);

/*
 * Run `blocks` blocks of CLOCK_CHAIN_BLOCK dependent single-cycle integer adds. The core
 * frequency measurement assumes that a register-to-register add has a latency of exactly one
 * cycle and that the loop around the blocks runs in parallel with the chain, which holds on
 * every current x86-64 and arm64 core; tests/test_clock.c checks that time scales with
 * `blocks`.
 */
void clock_arch_add_chain(uint64_t blocks);

/*
 * The cross-check: `blocks` blocks of CLOCK_CHAIN_BLOCK dependent instructions of another
 * latency class, clock_arch_check_latency cycles each (0: this architecture has none that
 * every core agrees on, and the frequency is not cross-checked).
 */
extern const unsigned clock_arch_check_latency;
void clock_arch_check_chain(uint64_t blocks);

/*
 * What a cached TCFREQ is valid for besides the boot: on x86-64 the CPUID vendor, leaf 1's
 * signature (family, model, stepping) and leaf 80000007h's invariant-TSC bit.
 */
void clock_arch_signature(char *buf, size_t len);

/*
 * The per-boot TCFREQ cache (clock/tcfreq_cache.c, in boot_cache_int.h's folder): read a figure kept for
 * this boot and CPU (source IPCC_FREQ_CACHED), or keep one. clock_cache_parse checks one
 * line against a key.
 */
int clock_cache_read(struct ipcc_freq *out);
void clock_cache_write(const struct ipcc_freq *f);
/* Whether this process runs under Valgrind (false where ipcc was built without valgrind.h). */
bool clock_under_valgrind(void);
int clock_cache_parse(const char *line, const char *key, struct ipcc_freq *out);

/* The kernel's view of the tick counter (x86: /proc/cpuinfo flags). */
int clock_arch_props(struct ipcc_clock_props *props);

/*
 * One way of reading time, run `n` times back to back; returns a value that uses every read.
 * `arg` is the method's own (the perf event fd for a read()); the tick reads ignore it.
 */
struct clock_read_method {
	const char *key;  /* JSON key, e.g. "rdtsc" */
	const char *name; /* for people; NULL: this architecture has no such method */
	uint64_t (*run)(unsigned n, const void *arg);
};

/* The architecture's IPCC_READ_TICKS, IPCC_READ_TICKS_P and IPCC_READ_TICKS_ORDERED. */
extern const struct clock_read_method clock_arch_methods[3];

/* What the x86 CPUID leaves say about the TSC (zero where a leaf is absent). */
struct cpuid_tsc {
	uint32_t max_leaf;	   /* CPUID.0:EAX */
	uint32_t l15_eax, l15_ebx; /* TSC/crystal ratio = EBX/EAX */
	uint32_t l15_ecx;	   /* crystal clock in Hz, 0 if not enumerated */
	uint32_t l16_eax;	   /* base frequency in MHz */
	uint32_t hv_max_leaf;	   /* CPUID.40000000h:EAX, 0 without a hypervisor */
	uint32_t hv10_eax;	   /* CPUID.40000010h:EAX, TSC frequency in kHz */
};

/* Decode recorded CPUID leaves into TCFREQ: leaf 15h, then 16h, then 40000010h. */
int clock_tcfreq_from_cpuid(const struct cpuid_tsc *leaves, struct ipcc_freq *out);

/* Decode a perf mmap page's time_mult/time_shift into TCFREQ (needs cap_user_time). */
int clock_tcfreq_from_perf_page(const struct perf_event_mmap_page *page, struct ipcc_freq *out);

/* TCFREQ in Hz, unrounded (after initialisation). */
double clock_tcfreq_hz(void);

/*
 * The minimum over `tries` of the ticks taken by chain(blocks) (clock_arch_add_chain or
 * clock_arch_check_chain), measured with ordered reads around it.
 */
uint64_t clock_chain_ticks(void (*chain)(uint64_t), uint64_t blocks, unsigned tries);

/*
 * The core frequency now, measured as ipcc_corefreq_khz() does: PMU cycles where the kernel
 * offers them, else the add chain, cross-checked (check == true) by the other chain.
 */
int clock_corefreq(struct ipcc_freq *out, bool check);

#endif
