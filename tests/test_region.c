/*
 * test_region.c - regions: nesting, accumulation, per-thread results, mismatched ends,
 * limits, and the JSON written for IPCC_OUTPUT.
 */
#include <jansson.h>
#include <pthread.h>
#include <unistd.h>

#include "ipcc/error.h"
#include "ipcc/region.h"
#include "test.h"

static volatile uint64_t sink;

static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += (uint64_t)i;
}

/* Write the regions to a temporary file and read them back. */
static json_t *written(void)
{
	char path[] = "/tmp/ipcc-test-regions-XXXXXX";
	int fd = mkstemp(path);
	json_t *root;

	close(fd);
	CHECK_EQ(int, ipcc_regions_write(path), 0);
	root = json_load_file(path, 0, NULL);
	unlink(path);
	CHECK(root != NULL);
	return root;
}

static json_t *find(json_t *root, const char *name, long thread)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(root, "regions"), i, r)
	{
		if (strcmp(json_string_value(json_object_get(r, "name")), name) == 0 &&
		    (thread == 0 || json_integer_value(json_object_get(r, "thread")) == thread))
			return r;
	}
	return NULL;
}

static double figure(json_t *r, const char *what)
{
	return json_number_value(
	    json_object_get(json_object_get(json_object_get(r, "counters"), "elapsed_ns"), what));
}

TEST(nested_regions_accumulate_calls_total_min_max)
{
	json_t *root, *outer, *inner;

	for (int i = 0; i < 10; i++) {
		CHECK_EQ(int, ipcc_region_begin("outer"), 0);
		spin(20000);
		IPCC_REGION("inner")
		{
			spin(i == 9 ? 200000 : 10000); /* the last call is much longer */
		}
		CHECK_EQ(int, ipcc_region_end("outer"), 0);
	}
	root = written();
	outer = find(root, "outer", 0);
	inner = find(root, "inner", 0);
	CHECK(outer && inner);
	if (outer && inner) {
		CHECK_EQ(i64, json_integer_value(json_object_get(outer, "calls")), 10);
		CHECK_EQ(i64, json_integer_value(json_object_get(inner, "calls")), 10);
		/* inclusive: the outer region holds the inner one */
		CHECK_CMP(dbl, figure(outer, "total"), >, figure(inner, "total"));
		CHECK_CMP(dbl, figure(inner, "min"), <=, figure(inner, "max"));
		CHECK_CMP(dbl, figure(inner, "max"), >, 2 * figure(inner, "min"));
		CHECK_CMP(dbl, figure(inner, "total"), <=, 10 * figure(inner, "max"));
		CHECK(json_is_null(
			  json_object_get(json_object_get(inner, "counters"), "instructions")) ||
		      json_is_object(
			  json_object_get(json_object_get(inner, "counters"), "instructions")));
		CHECK(json_integer_value(json_object_get(root, "tcfreq_khz")) > 0);
		CHECK(json_number_value(json_object_get(root, "overhead_ns")) > 0);
		/* the overhead probe is not among the regions */
		CHECK(find(root, "ipcc overhead probe", 0) == NULL);
	}
	json_decref(root);
	return TEST_OK;
}

TEST(empty_region_costs_about_nothing_after_subtraction)
{
	json_t *root, *r;

	for (int i = 0; i < 10000; i++) {
		ipcc_region_begin("empty");
		ipcc_region_end("empty");
	}
	root = written();
	r = find(root, "empty", 0);
	CHECK(r != NULL);
	/* the median call is the measured overhead, so at least one call comes out as 0 */
	if (r)
		CHECK_CMP(dbl, figure(r, "min"), ==, 0.0);
	json_decref(root);
	return TEST_OK;
}

TEST(mismatched_end_is_refused_and_counted)
{
	json_t *root;

	CHECK_EQ(int, ipcc_region_end("never begun"), IPCC_EINVAL);
	CHECK_EQ(int, ipcc_region_begin("a"), 0);
	CHECK_EQ(int, ipcc_region_end("b"), IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "inside 'a'") != NULL);
	CHECK_EQ(int, ipcc_region_end("a"), 0); /* still open, so this end matches */
	root = written();
	CHECK_CMP(i64, json_integer_value(json_object_get(root, "errors")), >=, 1);
	json_decref(root);
	return TEST_OK;
}

static void *thread_body(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		IPCC_REGION("per thread") spin(1000);
	return NULL;
}

TEST(each_thread_has_its_own_regions)
{
	pthread_t t[2];
	json_t *root, *r;
	size_t i;
	int seen = 0;

	for (int k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, thread_body, NULL);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	root = written();
	json_array_foreach(json_object_get(root, "regions"), i, r)
	{
		if (strcmp(json_string_value(json_object_get(r, "name")), "per thread") == 0) {
			CHECK_EQ(i64, json_integer_value(json_object_get(r, "calls")), 3);
			seen++;
		}
	}
	CHECK_EQ(int, seen, 2);
	json_decref(root);
	return TEST_OK;
}

TEST(limits_are_errors_not_crashes)
{
	char names[IPCC_REGION_MAX + 1][16];
	int refused = 0;

	for (int i = 0; i <= IPCC_REGION_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "r%d", i);
		if (ipcc_region_begin(names[i]) == 0)
			ipcc_region_end(names[i]);
		else
			refused++;
	}
	CHECK_CMP(int, refused, >=, 1);
	for (int d = 0; d < IPCC_REGION_DEPTH; d++)
		ipcc_region_begin("r0");
	CHECK_EQ(int, ipcc_region_begin("r0"), IPCC_EINVAL);
	return TEST_OK;
}
