/*
 * clock/cpuid.c - TCFREQ from recorded x86 CPUID leaves. Plain arithmetic, so it builds and
 * is tested on every architecture; x86_64.c executes cpuid and calls it.
 */
#include "clock_int.h"
#include "error_int.h"

/* Fill `out` from a frequency stated to a resolution of `step_hz`. */
static void stated(struct ipcc_freq *out, double hz, double step_hz, enum ipcc_freq_source src)
{
	out->hz = hz;
	out->khz = (uint64_t)(hz / 1000.0 + 0.5);
	out->source = src;
	out->ppm = step_hz / 2.0 / hz * 1e6;
	out->cost_ns = 0;
}

int clock_tcfreq_from_cpuid(const struct cpuid_tsc *l, struct ipcc_freq *out)
{
	/*
	 * Leaf 15h: TSC = crystal x EBX / EAX. An exact ratio of a nominal crystal: its only
	 * uncertainty is the crystal's own tolerance, which no CPUID leaf states.
	 */
	if (l->max_leaf >= 0x15 && l->l15_eax && l->l15_ebx && l->l15_ecx) {
		stated(out, (double)l->l15_ecx * l->l15_ebx / l->l15_eax, 0, IPCC_FREQ_CPUID_15H);
		if (out->ppm <= CLOCK_TARGET_PPM)
			return 0;
	}
	/* Leaf 16h: the base frequency, which the TSC runs at, in whole MHz (as Linux uses it). */
	if (l->max_leaf >= 0x16 && l->l16_eax) {
		stated(out, l->l16_eax * 1e6, 1e6, IPCC_FREQ_CPUID_16H);
		if (out->ppm <= CLOCK_TARGET_PPM)
			return 0;
	}
	/* Leaf 40000010h (VMware's convention, also KVM's): TSC in whole kHz. */
	if (l->hv_max_leaf >= 0x40000010 && l->hv10_eax) {
		stated(out, l->hv10_eax * 1e3, 1e3, IPCC_FREQ_HYPERVISOR);
		if (out->ppm <= CLOCK_TARGET_PPM)
			return 0;
	}
	*out = (struct ipcc_freq){ 0 };
	return err_set(IPCC_ENOTSUP, "no CPUID leaf states the TSC frequency to within %.0f ppm",
		       CLOCK_TARGET_PPM);
}
