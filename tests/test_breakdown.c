/*
 * test_breakdown.c - the four-way split (tests/data/breakdown.txt) and the metrics.
 */
#include <math.h>

#include "ipcc/breakdown.h"
#include "ipcc/error.h"
#include "test.h"

static bool close_to(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want));
}

static uint32_t parse_flags(const char *s)
{
	uint32_t f = 0;

	for (; *s && *s != '-'; s++)
		f |= *s == 'F'	 ? IPCC_BD_FILLED_OUT_OF_RANGE
		     : *s == 'I' ? IPCC_BD_ISSUED_OUT_OF_RANGE
		     : *s == 'R' ? IPCC_BD_RETIRED_OUT_OF_RANGE
				 : IPCC_BD_SMT_OUT_OF_RANGE;
	return f;
}

TEST(breakdown_matches_data_file)
{
	FILE *f = fopen(test_data("breakdown.txt"), "r");
	char line[512];
	int lineno = 0, rows = 0;

	CHECK(f != NULL);
	if (!f)
		return TEST_OK;
	while (fgets(line, sizeof(line), f)) {
		long long t, fi, is, re;
		char smt[32], wsmt[32], flags[16];
		double fe, be, sp, rt;
		struct ipcc_interval iv = { 0 };
		struct ipcc_breakdown bd;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%lld %lld %lld %lld %31s | %lf %lf %lf %lf %31s %15s", &t, &fi,
			   &is, &re, smt, &fe, &be, &sp, &rt, wsmt, flags) != 11) {
			fprintf(stderr, "breakdown.txt:%d: bad row\n", lineno);
			test_failures++;
			continue;
		}
		rows++;
		iv.value[IPCC_SLOTS_TOTAL] = t;
		iv.value[IPCC_SLOTS_FILLED] = fi;
		iv.value[IPCC_SLOTS_ISSUED] = is;
		iv.value[IPCC_SLOTS_RETIRED] = re;
		iv.valid = 0xf << IPCC_SLOTS_TOTAL;
		if (strcmp(smt, "-") != 0) {
			iv.value[IPCC_SLOTS_SMT] = atoll(smt);
			iv.valid |= 1u << IPCC_SLOTS_SMT;
		}
		CHECK_EQ(int, ipcc_breakdown(&iv, &bd), 0);
		if (!close_to(bd.frontend, fe) || !close_to(bd.backend, be) ||
		    !close_to(bd.speculation, sp) || !close_to(bd.retiring, rt) ||
		    bd.flags != parse_flags(flags) ||
		    (strcmp(wsmt, "-") == 0 ? !isnan(bd.smt) : !close_to(bd.smt, atof(wsmt)))) {
			fprintf(
			    stderr,
			    "breakdown.txt:%d: got %.10g %.10g %.10g %.10g smt %.10g flags %#x\n",
			    lineno, bd.frontend, bd.backend, bd.speculation, bd.retiring, bd.smt,
			    bd.flags);
			test_failures++;
		}
		/* Always non-negative, always summing to exactly 1, raw numbers kept. */
		CHECK(bd.frontend >= 0 && bd.backend >= 0 && bd.speculation >= 0 &&
		      bd.retiring >= 0);
		CHECK(close_to(bd.frontend + bd.backend + bd.speculation + bd.retiring, 1.0));
		CHECK_EQ(i64, bd.filled, fi);
		CHECK_EQ(i64, bd.issued, is);
	}
	fclose(f);
	CHECK_CMP(int, rows, >=, 8);
	return TEST_OK;
}

TEST(breakdown_absent_without_all_slot_counters)
{
	struct ipcc_interval iv = { 0 };
	struct ipcc_breakdown bd;

	iv.value[IPCC_SLOTS_TOTAL] = 4000;
	iv.valid = 1u << IPCC_SLOTS_TOTAL | 1u << IPCC_SLOTS_FILLED | 1u << IPCC_SLOTS_ISSUED;
	CHECK_EQ(int, ipcc_breakdown(&iv, &bd), IPCC_ENOTSUP);
	CHECK(!bd.valid && isnan(bd.frontend) && isnan(bd.retiring));
	iv.valid |= 1u << IPCC_SLOTS_RETIRED;
	iv.value[IPCC_SLOTS_TOTAL] = 0;
	CHECK_EQ(int, ipcc_breakdown(&iv, &bd), IPCC_EINVAL);
	return TEST_OK;
}

TEST(metrics_from_counters)
{
	struct ipcc_interval iv = { 0 };
	struct ipcc_metrics m;

	/* 1 ms at TCFREQ 2 000 000 kHz = 2 000 000 constant cycles. */
	iv.elapsed_ns = 1000000;
	iv.value[IPCC_INSTRUCTIONS] = 3000000;
	iv.value[IPCC_CYCLES] = 1500000;
	iv.value[IPCC_REF_CYCLES] = 1000000;
	iv.value[IPCC_INSTRUCTIONS_K] = 1000000;
	iv.value[IPCC_CYCLES_K] = 500000;
	iv.value[IPCC_TASK_CLOCK_NS] = 500000;
	iv.valid = 1u << IPCC_INSTRUCTIONS | 1u << IPCC_CYCLES | 1u << IPCC_REF_CYCLES |
		   1u << IPCC_INSTRUCTIONS_K | 1u << IPCC_CYCLES_K | 1u << IPCC_TASK_CLOCK_NS;
	ipcc_metrics(&iv, 2000000, &m);
	CHECK(close_to(m.ipc, 2.0));
	CHECK(close_to(m.ipcc, 1.5));
	CHECK(close_to(m.utilisation, 0.5));
	CHECK(close_to(m.avg_khz, 3000000)); /* 1.5 cycles per reference cycle */
	CHECK(close_to(m.net_khz, 1500000)); /* 1.5e6 cycles in 1 ms */
	CHECK(close_to(m.kernel_instructions, 0.25));
	CHECK(close_to(m.kernel_cycles, 0.25));
	CHECK(close_to(m.cpu_utilisation, 0.5));

	/* Only time and task-clock (the time backend): everything else is n/a, not 0. */
	iv.valid = 1u << IPCC_TASK_CLOCK_NS;
	ipcc_metrics(&iv, 2000000, &m);
	CHECK(isnan(m.ipc) && isnan(m.ipcc) && isnan(m.utilisation) && isnan(m.avg_khz));
	CHECK(isnan(m.net_khz) && isnan(m.kernel_instructions) && isnan(m.kernel_cycles));
	CHECK(close_to(m.cpu_utilisation, 0.5));
	return TEST_OK;
}
