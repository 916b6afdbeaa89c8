/*
 * test_report.c - the report page (report.h): each input's figures on the page, absent
 * figures said with their reason and never drawn, names escaped, bad inputs refused, a
 * recording's functions and footprint. The page in a real browser: tests/cli/report_browser.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipcc/error.h"
#include "ipcc/recording.h"
#include "ipcc/report.h"
#include "own_text.h"
#include "test.h"

/* The page of report r, as a string the caller frees. */
static char *page(struct ipcc_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (ipcc_report_write(r, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static const char time_stat[] =
    "{\"command\": [\"./prog\", \"<script>alert(1)</script>\"], \"backend\": \"time\", "
    "\"elapsed_ns\": 2000000, \"tcfreq_khz\": 2096018, \"tcfreq_source\": \"cached\", "
    "\"core_khz\": null, \"core_source\": \"none\", \"counters\": {\"instructions\": null, "
    "\"slots_total\": null, \"slots_filled\": null, \"slots_issued\": null, "
    "\"slots_retired\": null}, \"absent\": {\"instructions\": \"no hardware PMU: test\", "
    "\"slots_total\": \"no hardware PMU: test\"}, \"breakdown\": null, \"ipc\": null, "
    "\"ipcc\": null}";

TEST(absent_split_is_said_with_its_reason_and_not_drawn)
{
	struct ipcc_report *r;
	char *html;

	CHECK_EQ(int, ipcc_report_new(NULL, &r), 0);
	CHECK_EQ(
	    int,
	    ipcc_report_parse(r, IPCC_REPORT_STAT_JSON, "t.json", time_stat, strlen(time_stat)), 0);
	html = page(r);
	CHECK(html != NULL);
	if (html) {
		CHECK(strstr(html, "<strong>Absent:</strong> no hardware PMU: test") != NULL);
		CHECK_EQ(u64, count(html, "<svg class=\"split\""), 0);
		CHECK(strstr(html, "IPC <span class=\"na\" title=\"absent: no hardware PMU: test\">"
				   "n/a</span>") != NULL);
		/* TCFREQ from the file, with its source; no core frequency: said, not 0. */
		CHECK(strstr(html, "2\u202f096\u202f018 kHz (2.10 GHz)") != NULL);
		CHECK(strstr(html, "cached: ") != NULL);
		CHECK(strstr(html, "0 kHz") == NULL);
	}
	free(html);
	ipcc_report_free(r);
	return TEST_OK;
}

TEST(names_from_inputs_are_escaped)
{
	struct ipcc_report *r;
	char *html;

	CHECK_EQ(int, ipcc_report_new(&(struct ipcc_report_opts){ "a <b> & c", NULL, 0 }, &r), 0);
	CHECK_EQ(
	    int,
	    ipcc_report_parse(r, IPCC_REPORT_STAT_JSON, "t\".json", time_stat, strlen(time_stat)),
	    0);
	html = page(r);
	CHECK(html != NULL);
	if (html) {
		CHECK(strstr(html, "<script>alert") == NULL);
		CHECK(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
		CHECK(strstr(html, "<title>a &lt;b&gt; &amp; c</title>") != NULL);
		CHECK(strstr(html, "t&quot;.json") != NULL);
		/* One script on the page: the report's own. */
		CHECK_EQ(u64, count(html, "<script>"), 1);
	}
	free(html);
	ipcc_report_free(r);
	return TEST_OK;
}

TEST(model_backend_is_drawn_modelled)
{
	struct ipcc_report *r;
	char *html;

	CHECK_EQ(int, ipcc_report_new(NULL, &r), 0);
	CHECK_EQ(
	    int,
	    ipcc_report_load(r, IPCC_REPORT_STAT_JSON, test_data("report/stat-model-fixture.json")),
	    0);
	CHECK_EQ(int,
		 ipcc_report_load(r, IPCC_REPORT_STAT_JSON, test_data("counts/ipcc-stat.json")), 0);
	html = page(r);
	CHECK(html != NULL);
	if (html) {
		/* The run and its two regions, modelled and hatched; the perf file measured. */
		CHECK_EQ(u64, count(html, "<svg class=\"split\""), 4);
		CHECK_EQ(u64, count(html, "<span class=\"tag modelled\">"), 3);
		CHECK_EQ(u64, count(html, "height=\"30\" fill=\"url(#hatch)\""), 3);
		CHECK_EQ(u64, count(html, "<span class=\"tag measured\">"), 1);
		CHECK(strstr(html, "back end 30.0%") != NULL);
		CHECK(strstr(html, "back end 55.0%") != NULL);
		/* ipcc-stat.json has slot counters and no "breakdown": made from its counters. */
		CHECK(strstr(html, "speculation 17.5%") != NULL);
		CHECK(strstr(html, "IPC 2.00 · IPCC 1.50") != NULL);
		CHECK(strstr(html, "FIXTURE: hand-made") != NULL);
	}
	free(html);
	ipcc_report_free(r);
	return TEST_OK;
}

TEST(inputs_of_the_wrong_shape_are_refused)
{
	struct ipcc_report *r;

	CHECK_EQ(int, ipcc_report_new(NULL, &r), 0);
	CHECK_EQ(int, ipcc_report_parse(r, IPCC_REPORT_STAT_JSON, "x.json", "{\"a\": ", 6),
		 IPCC_EINVAL);
	CHECK(strncmp(ipcc_last_error(), "x.json:1:", 9) == 0);
	CHECK_EQ(int,
		 ipcc_report_parse(r, IPCC_REPORT_STAT_JSON, "m.json", "{\"metrics\": []}", 15),
		 IPCC_EINVAL);
	CHECK(strstr(ipcc_last_error(), "not ipcc stat --format json output") != NULL);
	CHECK_EQ(
	    int,
	    ipcc_report_parse(r, IPCC_REPORT_BENCH_JSON, "s.json", time_stat, strlen(time_stat)),
	    IPCC_EINVAL);
	CHECK_EQ(int, ipcc_report_load(r, IPCC_REPORT_METRICS_JSON, "/nonexistent/m.json"),
		 IPCC_ESYS);
	ipcc_report_free(r);
	ipcc_report_free(NULL);
	return TEST_OK;
}

TEST(sections_without_inputs_say_why)
{
	struct ipcc_report *r;
	char *html;

	CHECK_EQ(int, ipcc_report_new(NULL, &r), 0);
	CHECK_EQ(int, ipcc_report_absent(r, IPCC_REPORT_LOOPS, "not asked for"), 0);
	html = page(r);
	CHECK(html != NULL);
	if (html) {
		/* split, cycle tree, functions, loops, footprint, bench */
		CHECK_EQ(u64, count(html, "<p class=\"absent\">"), 6);
		CHECK(strstr(html, "<strong>Absent:</strong> not asked for") != NULL);
		CHECK(strstr(html, "no ipcc metrics --format json output") != NULL);
		CHECK_EQ(u64, count(html, "<td class=\"na\""), 5); /* the machine's five facts */
		CHECK(strstr(html, "0.0%") == NULL);
	}
	free(html);
	ipcc_report_free(r);
	return TEST_OK;
}

TEST(cycle_tree_and_bench)
{
	static const char metrics[] =
	    "{\"metrics\": [{\"name\": \"slots\", \"value\": 4000, \"unit\": \"slots\", "
	    "\"parent\": null, \"cycles\": 4000, \"share_of_parent\": null, \"missing\": [], "
	    "\"flags\": []}, {\"name\": \"frontend stall\", \"value\": 0.15, \"unit\": "
	    "\"fraction\", \"parent\": \"slots\", \"cycles\": 600, \"share_of_parent\": 0.15, "
	    "\"missing\": [], \"flags\": []}, {\"name\": \"load latency\", \"value\": null, "
	    "\"unit\": \"fraction\", \"parent\": \"slots\", \"cycles\": null, \"share_of_parent\": "
	    "null, \"missing\": [\"MEM_LOAD\"], \"flags\": [\"missing_events\"]}, {\"name\": "
	    "\"ratio x\", \"value\": null, \"unit\": \"ratio\", \"parent\": null, \"cycles\": "
	    "null, "
	    "\"missing\": [\"X\"], \"flags\": [\"missing_events\"]}], \"notes\": []}";
	static const char bench[] =
	    "{\"core_khz\": 3600000, \"core_source\": \"add-chain\", \"tcfreq_khz\": 2096018, "
	    "\"kernels\": [{\"name\": \"latency\", \"unit\": \"ns/load\", \"threads\": 1, "
	    "\"points\": [{\"size_bytes\": 4096, \"value\": 1.1, \"ns_per_iter\": 9, "
	    "\"cycles_per_iter\": 32, \"spread\": 0.01, \"reps\": 3}, {\"size_bytes\": 8192, "
	    "\"value\": 1.2, \"ns_per_iter\": 9, \"cycles_per_iter\": 32, \"spread\": 0.01, "
	    "\"reps\": 3}, {\"size_bytes\": 16384, \"value\": 4.5, \"ns_per_iter\": 36, "
	    "\"cycles_per_iter\": 130, \"spread\": 0.01, \"reps\": 3}], \"error\": null, "
	    "\"validation\": null, \"validation_absent\": \"no PMU here\"}, {\"name\": "
	    "\"chain.add\", \"unit\": \"cycles/add\", \"points\": [], \"error\": \"it broke\"}]}";
	struct ipcc_report *r;
	char *html;

	CHECK_EQ(int, ipcc_report_new(NULL, &r), 0);
	CHECK_EQ(int,
		 ipcc_report_parse(r, IPCC_REPORT_METRICS_JSON, "m.json", metrics, strlen(metrics)),
		 0);
	CHECK_EQ(int, ipcc_report_parse(r, IPCC_REPORT_BENCH_JSON, "b.json", bench, strlen(bench)),
		 0);
	html = page(r);
	CHECK(html != NULL);
	if (html) {
		CHECK(strstr(html, "<details open><summary><span class=\"nm\">slots</span>") !=
		      NULL);
		CHECK(strstr(html, "600 slots") != NULL);
		CHECK(strstr(html, "absent: events not in the counts: MEM_LOAD") != NULL);
		CHECK(strstr(html, "other metrics") != NULL);
		CHECK(strstr(html, "latency: ns/load against the size") != NULL);
		CHECK(strstr(html, "absent: it broke") != NULL);
		CHECK(strstr(html, "checked against the PMU: absent: no PMU here") != NULL);
		CHECK(strstr(html, "3\u202f600\u202f000 kHz (3.60 GHz)") != NULL);
	}
	free(html);
	ipcc_report_free(r);
	return TEST_OK;
}

__attribute__((noinline)) int report_test_hot(int x);
__attribute__((noinline)) int report_test_hot(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int report_test_cold(int x);
__attribute__((noinline)) int report_test_cold(int x)
{
	return x * 5 + 2;
}

TEST(recording_functions_flame_graph_and_footprint)
{
	uint64_t hot = (uint64_t)(uintptr_t)report_test_hot;
	uint64_t cold = (uint64_t)(uintptr_t)report_test_cold;
	uint64_t at[10] = { hot, hot, hot, hot, hot, hot, hot, hot + 1, cold, cold };
	struct ipcc_recording *p = test_own_recording(hot, at, 10);
	struct ipcc_symbols *syms = NULL;
	struct ipcc_report *r;
	char *html;

	if (!p)
		SKIP("no mapping of this program's text in /proc/self/maps");
	CHECK_EQ(int, ipcc_symbols_new(p, &syms), 0);
	CHECK_EQ(int, ipcc_report_new(NULL, &r), 0);
	CHECK_EQ(int, ipcc_report_add_recording(r, "rec", p, syms), 0);
	CHECK_EQ(int, ipcc_report_add_recording(r, "rec", p, syms), IPCC_EINVAL);
	html = page(r);
	CHECK(html != NULL);
	if (html) {
		const char *h = strstr(html, ">report_test_hot<");
		const char *c = strstr(html, ">report_test_cold<");

		CHECK(strstr(html, "holds 10 samples") != NULL);
		/* hottest first: 8 samples, then 2 */
		CHECK(h && c && h < c);
		CHECK(strstr(html, "data-v=\"0.800000\"") != NULL);
		CHECK(strstr(html, "data-n=\"report_test_hot\"") != NULL);
		CHECK(strstr(html, "all (10 samples)") != NULL);
		/* 50% and 75% in the hot line; 90% and 99% need the cold one too. */
		CHECK(strstr(html,
			     "<td class=\"n\">75%</td><td class=\"n\">1</td><td class=\"n\">64"
			     "</td><td class=\"n\">1</td>") != NULL);
		CHECK(strstr(html,
			     "<td class=\"n\">99%</td><td class=\"n\">2</td><td class=\"n\">128"
			     "</td><td class=\"n\">2</td>") != NULL);
		CHECK(strstr(html, "holds no call stacks") != NULL);
	}
	free(html);
	ipcc_report_free(r);
	ipcc_symbols_free(syms);
	ipcc_recording_free(p);
	return TEST_OK;
}
