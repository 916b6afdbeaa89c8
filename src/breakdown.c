/*
 * breakdown.c - the top-down level-1 split and the derived metrics of an interval.
 */
#include <math.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/breakdown.h"

static bool has(const struct ipcc_interval *iv, enum ipcc_counter c)
{
	return iv->valid & (1u << c);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi, uint32_t *flags, uint32_t flag)
{
	if (v < lo || v > hi) {
		*flags |= flag;
		return v < lo ? lo : hi;
	}
	return v;
}

int ipcc_breakdown(const struct ipcc_interval *iv, struct ipcc_breakdown *bd)
{
	int64_t t, f, i, r;
	double total;

	memset(bd, 0, sizeof(*bd));
	bd->frontend = bd->backend = bd->speculation = bd->retiring = bd->smt = NAN;
	if (!has(iv, IPCC_SLOTS_TOTAL) || !has(iv, IPCC_SLOTS_FILLED) ||
	    !has(iv, IPCC_SLOTS_ISSUED) || !has(iv, IPCC_SLOTS_RETIRED))
		return err_set(IPCC_ENOTSUP, "the slot counters were not all measured");
	bd->total = iv->value[IPCC_SLOTS_TOTAL];
	bd->filled = iv->value[IPCC_SLOTS_FILLED];
	bd->issued = iv->value[IPCC_SLOTS_ISSUED];
	bd->retired = iv->value[IPCC_SLOTS_RETIRED];
	if (bd->total <= 0)
		return err_set(IPCC_EINVAL, "no slots in the interval (total %lld)",
			       (long long)bd->total);

	t = bd->total;
	f = clamp(bd->filled, 0, t, &bd->flags, IPCC_BD_FILLED_OUT_OF_RANGE);
	i = clamp(bd->issued, 0, f, &bd->flags, IPCC_BD_ISSUED_OUT_OF_RANGE);
	r = clamp(bd->retired, 0, i, &bd->flags, IPCC_BD_RETIRED_OUT_OF_RANGE);
	total = (double)t;
	/* Integer differences first: the four parts then sum to exactly t. */
	bd->frontend = (double)(t - f) / total;
	bd->backend = (double)(f - i) / total;
	bd->speculation = (double)(i - r) / total;
	bd->retiring = (double)r / total;
	if (has(iv, IPCC_SLOTS_SMT)) {
		int64_t smt = iv->value[IPCC_SLOTS_SMT];

		bd->smt =
		    (double)clamp(smt, 0, f - i, &bd->flags, IPCC_BD_SMT_OUT_OF_RANGE) / total;
	}
	bd->valid = true;
	return 0;
}

static double ratio(const struct ipcc_interval *iv, enum ipcc_counter a, enum ipcc_counter b)
{
	if (!has(iv, a) || !has(iv, b) || iv->value[b] <= 0)
		return NAN;
	return (double)iv->value[a] / (double)iv->value[b];
}

/* part / (part + rest) */
static double share(const struct ipcc_interval *iv, enum ipcc_counter part, enum ipcc_counter rest)
{
	double sum;

	if (!has(iv, part) || !has(iv, rest))
		return NAN;
	sum = (double)iv->value[part] + (double)iv->value[rest];
	return sum > 0 ? (double)iv->value[part] / sum : NAN;
}

void ipcc_metrics(const struct ipcc_interval *iv, uint64_t tcfreq_khz, struct ipcc_metrics *m)
{
	/* Constant cycles: elapsed ns x ticks per ns. */
	double ticks = (double)iv->elapsed_ns * (double)tcfreq_khz / 1e6;
	double ns = (double)iv->elapsed_ns;

	m->ipc = ratio(iv, IPCC_INSTRUCTIONS, IPCC_CYCLES);
	m->ipcc = has(iv, IPCC_INSTRUCTIONS) && ticks > 0
		      ? (double)iv->value[IPCC_INSTRUCTIONS] / ticks
		      : NAN;
	m->utilisation = has(iv, IPCC_REF_CYCLES) && ticks > 0
			     ? (double)iv->value[IPCC_REF_CYCLES] / ticks
			     : NAN;
	m->avg_khz = ratio(iv, IPCC_CYCLES, IPCC_REF_CYCLES) * (double)tcfreq_khz;
	m->net_khz =
	    has(iv, IPCC_CYCLES) && ns > 0 ? (double)iv->value[IPCC_CYCLES] / ns * 1e6 : NAN;
	m->kernel_instructions = share(iv, IPCC_INSTRUCTIONS_K, IPCC_INSTRUCTIONS);
	m->kernel_cycles = share(iv, IPCC_CYCLES_K, IPCC_CYCLES);
	m->cpu_utilisation = has(iv, IPCC_TASK_CLOCK_NS) && ns > 0
				 ? (double)iv->value[IPCC_TASK_CLOCK_NS] / ns
				 : NAN;
}
