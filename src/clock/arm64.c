/*
 * clock/arm64.c - the time counter on arm64: the generic timer's virtual count
 * (cntvct_el0), whose frequency the architecture states in cntfrq_el0.
 */
#include <stdio.h>

#include "clock_int.h"
#include "error_int.h"

int clock_arch_tcfreq(struct ipcc_freq *out)
{
	uint64_t hz;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	if (!hz)
		return err_set(IPCC_ENOTSUP, "cntfrq_el0 reads 0: firmware did not set it");
	out->hz = (double)hz;
	out->khz = (hz + 500) / 1000;
	out->source = IPCC_FREQ_CNTFRQ;
	out->ppm = 0;
	out->cost_ns = 0;
	return 0;
}

/*
 * Register contract: %0 is the chain, %2 a register holding 1, %1 the block count; subs/b.ne
 * run beside the chain. Register-register, as on x86-64, so no renamer can fold it.
 */
void clock_arch_add_chain(uint64_t blocks)
{
	uint64_t x = 0, one = 1;

	if (!blocks)
		return;
	__asm__ volatile("1:\n\t"
			 ".rept 64\n\t"
			 "add %0, %0, %2\n\t"
			 ".endr\n\t"
			 "subs %1, %1, #1\n\t"
			 "b.ne 1b"
			 : "+r"(x), "+r"(blocks)
			 : "r"(one)
			 : "cc");
	_Static_assert(CLOCK_CHAIN_BLOCK == 64, "the .rept count above is the block size");
}

/* No multiply latency is the same on every arm64 core (2 on Neoverse, 3 on Cortex-A72). */
const unsigned clock_arch_check_latency = 0;

void clock_arch_check_chain(uint64_t blocks)
{
	(void)blocks;
}

/* cntfrq_el0 is exact: arm64 never calibrates, and the cache key needs nothing more. */
void clock_arch_signature(char *buf, size_t len)
{
	snprintf(buf, len, "arm64");
}

/* The generic timer is architecturally constant-rate and keeps counting in idle states. */
int clock_arch_props(struct ipcc_clock_props *props)
{
	props->known = true;
	props->constant = true;
	props->nonstop = true;
	return 0;
}

static uint64_t run_cntvct(unsigned n, const void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		sum += ipcc_ticks();
	return sum;
}

static uint64_t run_isb_cntvct(unsigned n, const void *arg)
{
	uint64_t sum = 0;

	(void)arg;
	for (unsigned i = 0; i < n; i++)
		sum += ipcc_ticks_ordered();
	return sum;
}

const struct clock_read_method clock_arch_methods[3] = {
	{ "cntvct_el0", "cntvct_el0", run_cntvct },
	{ "none", NULL, NULL },
	{ "isb_cntvct_el0", "isb; cntvct_el0", run_isb_cntvct },
};
