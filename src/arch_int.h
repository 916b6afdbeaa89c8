/*
 * arch_int.h - the user-space counter read instruction (private to src/).
 *
 * The one place the counter read path depends on the architecture. Executing it without the
 * kernel's permission (an mmapped perf event with cap_user_rdpmc, or rdpmc=2) faults, so only
 * the read path calls it, and only after the mmap page said it may.
 */
#ifndef IPCC_ARCH_INT_H
#define IPCC_ARCH_INT_H

#include <stdint.h>

#if defined(__x86_64__)
static inline __attribute__((always_inline)) uint64_t arch_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
/* PMUv3: counter 31 is the cycle counter; others through PMSELR_EL0 / PMXEVCNTR_EL0. */
static inline __attribute__((always_inline)) uint64_t arch_rdpmc(uint32_t counter)
{
	uint64_t v;

	if (counter == 31) {
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
	} else {
		__asm__ volatile("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
				 : "=r"(v)
				 : "r"((uint64_t)counter));
	}
	return v;
}
#else
#error "ipcc: counter reads support x86-64 and arm64 only"
#endif

#endif
