/*
 * test_export.c - the OpenMetrics writer: names, units, escaping, absent values, # EOF.
 */
#include <math.h>

#include "ipcc/error.h"
#include "ipcc/export.h"
#include "test.h"

/* A writer on a memory buffer. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct ipcc_openmetrics *w;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->f = open_memstream(&m->buf, &m->len);
	m->w = ipcc_openmetrics_new(m->f);
}

static void mem_close(struct mem *m)
{
	ipcc_openmetrics_free(m->w);
	fclose(m->f);
	free(m->buf);
}

TEST(whole_exposition)
{
	struct mem m;
	const struct ipcc_om_label base[] = { { "command", "make -j8" } };
	const struct ipcc_om_label c[] = { { "counter", "instructions" } };

	mem_open(&m);
	CHECK_EQ(int, ipcc_openmetrics_labels(m.w, base, 1), 0);
	CHECK_EQ(int,
		 ipcc_openmetrics_family(m.w, "ipcc_elapsed_seconds", IPCC_OM_GAUGE, "seconds",
					 "Elapsed time."),
		 0);
	CHECK_EQ(int, ipcc_openmetrics_sample(m.w, NULL, 0, 1.25), 0);
	CHECK_EQ(int,
		 ipcc_openmetrics_family(m.w, "ipcc_count_total", IPCC_OM_COUNTER, NULL, "Counts."),
		 0);
	CHECK_EQ(int, ipcc_openmetrics_sample(m.w, c, 1, 12345678901234.0), 0);
	CHECK_EQ(int, ipcc_openmetrics_end(m.w), 0);
	CHECK_STR(m.buf, "# TYPE ipcc_elapsed_seconds gauge\n"
			 "# UNIT ipcc_elapsed_seconds seconds\n"
			 "# HELP ipcc_elapsed_seconds Elapsed time.\n"
			 "ipcc_elapsed_seconds{command=\"make -j8\"} 1.25\n"
			 "# TYPE ipcc_count_total counter\n"
			 "# HELP ipcc_count_total Counts.\n"
			 "ipcc_count_total{command=\"make -j8\",counter=\"instructions\"} "
			 "12345678901234\n"
			 "# EOF\n");
	mem_close(&m);
	return TEST_OK;
}

TEST(label_values_and_help_are_escaped)
{
	struct mem m;
	const struct ipcc_om_label l[] = { { "command", "a\"b\\c\nd\xff"
							"e" } };

	mem_open(&m);
	ipcc_openmetrics_family(m.w, "x_info", IPCC_OM_INFO, NULL, "back\\slash\nnewline");
	ipcc_openmetrics_sample(m.w, l, 1, 0);
	ipcc_openmetrics_end(m.w);
	/* The info metric is a gauge of value 1; invalid UTF-8 becomes '?'. */
	CHECK_STR(m.buf, "# TYPE x_info gauge\n"
			 "# HELP x_info back\\\\slash\\nnewline\n"
			 "x_info{command=\"a\\\"b\\\\c\\nd?e\"} 1\n"
			 "# EOF\n");
	mem_close(&m);
	return TEST_OK;
}

TEST(absent_values_are_left_out)
{
	struct mem m;

	mem_open(&m);
	ipcc_openmetrics_family(m.w, "a_ratio", IPCC_OM_GAUGE, "ratio", NULL);
	CHECK_EQ(int, ipcc_openmetrics_sample(m.w, NULL, 0, NAN), 0);
	ipcc_openmetrics_family(m.w, "b_ratio", IPCC_OM_GAUGE, "ratio", NULL);
	ipcc_openmetrics_sample(m.w, NULL, 0, 0.1);
	ipcc_openmetrics_end(m.w);
	/* A family without a sample writes nothing; 0.1 is written as the shortest exact form. */
	CHECK_STR(m.buf, "# TYPE b_ratio gauge\n# UNIT b_ratio ratio\nb_ratio 0.1\n# EOF\n");
	mem_close(&m);
	return TEST_OK;
}

TEST(bad_names_are_refused)
{
	struct mem m;
	const struct ipcc_om_label bad[] = { { "9lives", "x" } },
				   reserved[] = { { "__name__", "x" } };

	mem_open(&m);
	CHECK_EQ(int, ipcc_openmetrics_sample(m.w, NULL, 0, 1), IPCC_EINVAL); /* no family */
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "1x", IPCC_OM_GAUGE, NULL, NULL), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "a-b", IPCC_OM_GAUGE, NULL, NULL), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "x", IPCC_OM_COUNTER, NULL, NULL), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "x_total", IPCC_OM_GAUGE, NULL, NULL),
		 IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "x", IPCC_OM_INFO, NULL, NULL), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "x_ms", IPCC_OM_GAUGE, "seconds", NULL),
		 IPCC_EINVAL);
	CHECK_EQ(int,
		 ipcc_openmetrics_family(m.w, "t_seconds_total", IPCC_OM_COUNTER, "seconds", NULL),
		 0);
	CHECK_EQ(int, ipcc_openmetrics_family(m.w, "t_seconds_total", IPCC_OM_COUNTER, NULL, NULL),
		 IPCC_EINVAL); /* twice */
	CHECK_EQ(int, ipcc_openmetrics_sample(m.w, bad, 1, 1), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_labels(m.w, reserved, 1), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_openmetrics_end(m.w), 0);
	CHECK_STR(m.buf, "# EOF\n");
	mem_close(&m);
	return TEST_OK;
}
