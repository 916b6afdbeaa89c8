/*
 * clock/x86_64.c - the time counter on x86-64: the TSC, its frequency from CPUID, the
 * add chain for the core frequency, and the TSC read methods for ipcc calibrate.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "clock_int.h"
#include "error_int.h"
#include "procfs_int.h"

int clock_arch_tcfreq(struct ipcc_freq *out)
{
	struct cpuid_tsc l = { 0 };
	unsigned a, b, c, d;

	l.max_leaf = __get_cpuid_max(0, NULL);
	if (l.max_leaf >= 0x15) {
		__cpuid_count(0x15, 0, a, b, c, d);
		l.l15_eax = a;
		l.l15_ebx = b;
		l.l15_ecx = c;
	}
	if (l.max_leaf >= 0x16) {
		__cpuid_count(0x16, 0, a, b, c, d);
		l.l16_eax = a & 0xffff;
	}
	/* The hypervisor leaves exist only when CPUID.1:ECX bit 31 says a hypervisor is there. */
	__cpuid(1, a, b, c, d);
	if (c & (1u << 31)) {
		__cpuid(0x40000000, a, b, c, d);
		l.hv_max_leaf = a;
		if (l.hv_max_leaf >= 0x40000010) {
			__cpuid(0x40000010, a, b, c, d);
			l.hv10_eax = a;
		}
	}
	return clock_tcfreq_from_cpuid(&l, out);
}

/*
 * Register contract: %0 is the chain (one add per cycle, each depending on the last), %2 a
 * register holding 1, %1 the block count; the dec/jnz pair runs on another port in the
 * shadow of the chain. Register-register on purpose: Golden Cove's renamer folds an add of
 * an immediate into the next one and runs a chain of them at 2-3 adds per cycle.
 */
void clock_arch_add_chain(uint64_t blocks)
{
	uint64_t x = 0, one = 1;

	if (!blocks)
		return;
	__asm__ volatile("1:\n\t"
			 ".rept 64\n\t"
			 "add %2, %0\n\t"
			 ".endr\n\t"
			 "dec %1\n\t"
			 "jnz 1b"
			 : "+r"(x), "+r"(blocks)
			 : "r"(one)
			 : "cc");
	_Static_assert(CLOCK_CHAIN_BLOCK == 64, "the .rept count above is the block size");
}

/*
 * The cross-check: 32-bit imul, 3 cycles on every Intel core since Nehalem and every Zen
 * (Intel's optimisation manual, AMD's software optimisation guides; 64-bit imul is slower on
 * some Atom-class cores). Same contract as the add chain.
 */
const unsigned clock_arch_check_latency = 3;

void clock_arch_check_chain(uint64_t blocks)
{
	uint32_t x = 3;

	if (!blocks)
		return;
	__asm__ volatile("1:\n\t"
			 ".rept 64\n\t"
			 "imul %0, %0\n\t"
			 ".endr\n\t"
			 "dec %1\n\t"
			 "jnz 1b"
			 : "+r"(x), "+r"(blocks)
			 :
			 : "cc");
}

void clock_arch_signature(char *buf, size_t len)
{
	unsigned a = 0, b = 0, c = 0, d = 0, sig, inv = 0;
	char vendor[13];

	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	__cpuid(1, sig, b, c, d);
	if ((unsigned)__get_cpuid_max(0x80000000, NULL) >= 0x80000007u) {
		__cpuid(0x80000007, a, b, c, d);
		inv = (d >> 8) & 1;
	}
	snprintf(buf, len, "%s-%08x-invtsc%u", vendor, sig, inv);
}

int clock_arch_props(struct ipcc_clock_props *props)
{
	char flags[4096];
	int ret;

	*props = (struct ipcc_clock_props){ 0 };
	ret = procfs_cpuinfo_field("flags", flags, sizeof(flags));
	if (ret)
		return ret;
	props->known = true;
	props->constant = procfs_has_word(flags, "constant_tsc");
	props->nonstop = procfs_has_word(flags, "nonstop_tsc");
	return 0;
}

static uint64_t run_rdtsc(unsigned n, const void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		sum += __builtin_ia32_rdtsc();
	return sum;
}

static uint64_t run_rdtscp(unsigned n, const void *arg)
{
	uint64_t sum = 0;
	unsigned aux;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		sum += __builtin_ia32_rdtscp(&aux);
	return sum;
}

static uint64_t run_lfence_rdtsc(unsigned n, const void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		sum += ipcc_ticks_ordered();
	return sum;
}

const struct clock_read_method clock_arch_methods[3] = {
	{ "rdtsc", "rdtsc", run_rdtsc },
	{ "rdtscp", "rdtscp", run_rdtscp },
	{ "lfence_rdtsc", "lfence; rdtsc", run_lfence_rdtsc },
};
