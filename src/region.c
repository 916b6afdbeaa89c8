/*
 * region.c - named regions in the user's code, per thread, written out as JSON at exit.
 *
 * The time backend's begin and end are a lookup, one tick read and a push or pop; ticks
 * become ns only when the results are written. The perf backend reads the thread's counter
 * set (rdpmc) at both ends instead. The model backend, for a program that `ipcc stat --backend
 * model` runs under its Valgrind tool, tells the tool at both ends (a client request,
 * backend/model/vg_requests.h) and the tool counts what runs in between; natively the
 * request is a few no-op instructions.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>

#include "backend/model/vg_requests.h"
#define TELL_TOOL(req, name) VALGRIND_DO_CLIENT_REQUEST_STMT(req, name, 0, 0, 0, 0)
#else
/* Built without Valgrind's header: the model backend cannot see regions (ipcc stat says). */
#define TELL_TOOL(req, name) ((void)(name))
#endif

#include "error_int.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/region.h"

/* Figure 0 is the elapsed time (ticks until written); 1 + c is counter c. */
#define NFIG (1 + IPCC_NCOUNTERS)

struct region_stat {
	const char *name; /* the caller's pointer, for the fast comparison */
	char *copy;	  /* our copy, for output and the slow comparison */
	uint64_t calls;
	int64_t total[NFIG], min[NFIG], max[NFIG];
	uint32_t valid; /* bit f: figure f measured in every call */
};

struct frame {
	struct region_stat *stat;
	uint64_t t0;
	struct ipcc_reading start;
};

struct thread_regions {
	pid_t tid;
	struct ipcc_counter_set *set; /* NULL: the time backend */
	struct region_stat reg[IPCC_REGION_MAX];
	unsigned nreg;
	struct frame stack[IPCC_REGION_DEPTH];
	unsigned depth;
	uint64_t errors;
	struct thread_regions *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_regions *threads; /* every thread that used a region, never freed */
static _Thread_local struct thread_regions *self;
static enum ipcc_backend backend = IPCC_BACKEND_TIME;
static bool exit_registered;
/* The median cost of an empty begin/end pair, subtracted from every call. */
static int64_t overhead[NFIG];
static bool overhead_known;

/*
 * IPCC_OUTPUT as a folder (one that exists, or a path ending in '/', made if missing):
 * FOLDER/HOST-PID.json, so that many processes, on many hosts, can share one folder.
 */
static const char *output_path(const char *out, char *buf, size_t len)
{
	size_t n = strlen(out);
	struct stat st;
	char host[256];

	if (out[n - 1] == '/')
		mkdir(out, 0777); /* EEXIST, or it fails at the write */
	else if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode))
		return out;
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	for (char *p = host; *p; p++)
		if (*p == '/')
			*p = '_';
	snprintf(buf, len, "%s%s%s-%ld.json", out, out[n - 1] == '/' ? "" : "/", host,
		 (long)getpid());
	return buf;
}

static void write_at_exit(void)
{
	const char *out = getenv("IPCC_OUTPUT");
	char buf[4096];

	if (out && *out)
		ipcc_regions_write(output_path(out, buf, sizeof(buf)));
}

static void measure_overhead(void);

static struct thread_regions *thread_init(void)
{
	struct thread_regions *t = calloc(1, sizeof(*t));
	const char *b = getenv("IPCC_REGION_BACKEND");
	bool first;

	if (!t)
		return NULL;
	t->tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	first = !exit_registered;
	if (first) {
		if (b && strcmp(b, "perf") == 0)
			backend = IPCC_BACKEND_PERF;
		else if (b && strcmp(b, "auto") == 0)
			backend = IPCC_BACKEND_AUTO;
		else if (b && strcmp(b, "model") == 0)
			backend = IPCC_BACKEND_MODEL;
		atexit(write_at_exit);
		exit_registered = true;
	}
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&lock);
	if (backend == IPCC_BACKEND_PERF || backend == IPCC_BACKEND_AUTO) {
		struct ipcc_counters_opts o = { .backend = backend };

		if (ipcc_counters_open(&o, &t->set) == 0 &&
		    ipcc_counters_backend(t->set) != IPCC_BACKEND_PERF) {
			ipcc_counters_free(t->set); /* no PMU: the time counter alone is cheaper */
			t->set = NULL;
		}
	}
	self = t;
	if (first && backend != IPCC_BACKEND_MODEL) /* the tool would count the probe */
		measure_overhead();
	return t;
}

static struct region_stat *lookup(struct thread_regions *t, const char *name)
{
	for (unsigned i = 0; i < t->nreg; i++)
		if (t->reg[i].name == name)
			return &t->reg[i];
	for (unsigned i = 0; i < t->nreg; i++)
		if (strcmp(t->reg[i].copy, name) == 0)
			return &t->reg[i];
	if (t->nreg == IPCC_REGION_MAX)
		return NULL;
	struct region_stat *r = &t->reg[t->nreg];

	r->copy = strdup(name);
	if (!r->copy)
		return NULL;
	r->name = name;
	t->nreg++;
	return r;
}

int ipcc_region_begin(const char *name)
{
	struct thread_regions *t = self ? self : thread_init();
	struct region_stat *r;
	struct frame *f;

	if (!t)
		return err_set(IPCC_ENOMEM, "regions: out of memory");
	r = lookup(t, name);
	if (!r || t->depth == IPCC_REGION_DEPTH) {
		t->errors++;
		return err_set(IPCC_EINVAL, "regions: more than %d regions or %d deep",
			       IPCC_REGION_MAX, IPCC_REGION_DEPTH);
	}
	f = &t->stack[t->depth++];
	f->stat = r;
	if (backend == IPCC_BACKEND_MODEL) {
		/* The tool counts; no clock here (its readings would steer the code). */
		TELL_TOOL(IPCC_VG_REGION_BEGIN, r->copy);
		return 0;
	}
	if (t->set)
		ipcc_read(t->set, &f->start);
	f->t0 = ipcc_ticks();
	return 0;
}

static void add(struct region_stat *r, int fig, int64_t v)
{
	if (r->calls == 0 || v < r->min[fig])
		r->min[fig] = v;
	if (r->calls == 0 || v > r->max[fig])
		r->max[fig] = v;
	r->total[fig] += v;
}

int ipcc_region_end(const char *name)
{
	/* first, for the measurement; under the model backend no clock is read */
	uint64_t t1 = backend == IPCC_BACKEND_MODEL ? 0 : ipcc_ticks();
	struct thread_regions *t = self;
	struct region_stat *r;
	struct frame *f;
	uint32_t valid = 1;
	int64_t v;

	if (!t || t->depth == 0)
		return err_set(IPCC_EINVAL, "regions: end of '%s' without a begin", name);
	f = &t->stack[t->depth - 1];
	r = f->stat;
	if (r->name != name && strcmp(r->copy, name) != 0) {
		t->errors++;
		return err_set(IPCC_EINVAL, "regions: end of '%s' inside '%s'", name, r->copy);
	}
	t->depth--;
	if (backend == IPCC_BACKEND_MODEL) {
		TELL_TOOL(IPCC_VG_REGION_END, r->copy);
		r->calls++;
		return 0;
	}
	v = (int64_t)(t1 - f->t0) - overhead[0];
	add(r, 0, v > 0 ? v : 0);
	if (t->set) {
		struct ipcc_reading end;
		struct ipcc_interval iv;

		ipcc_read(t->set, &end);
		ipcc_interval(t->set, &f->start, &end, &iv);
		for (int c = 0; c < IPCC_NCOUNTERS; c++) {
			if (!(iv.valid & (1u << c)))
				continue;
			v = iv.value[c] - overhead[1 + c];
			add(r, 1 + c, v > 0 ? v : 0);
			valid |= 1u << (1 + c);
		}
	}
	r->valid = r->calls == 0 ? valid : r->valid & valid;
	r->calls++;
	return 0;
}

/*
 * The cost of the measurement itself: the median of many empty begin/end pairs on the first
 * thread, on a region that is then forgotten.
 */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void measure_overhead(void)
{
	enum { N = 1001 };
	static int64_t samples[NFIG][N];
	struct thread_regions *t = self;
	static const char probe[] = "ipcc overhead probe";

	for (int i = 0; i < N; i++) {
		struct region_stat *r;

		ipcc_region_begin(probe);
		ipcc_region_end(probe);
		r = lookup(t, probe);
		for (int f = 0; f < NFIG; f++) {
			samples[f][i] = r->total[f];
			r->total[f] = 0;
		}
		r->calls = 0;
	}
	for (int f = 0; f < NFIG; f++) {
		qsort(samples[f], N, sizeof(samples[f][0]), cmp_i64);
		overhead[f] = samples[f][N / 2];
	}
	overhead_known = true;
	/* Forget the probe region. */
	t->nreg--;
	free(t->reg[t->nreg].copy);
	memset(&t->reg[t->nreg], 0, sizeof(t->reg[0]));
}

/*
 * Write the JSON to path whole or not at all: PATH.tmp.PID in the same folder, fsync, rename
 * (a reader never sees half a file). Where path is something other than a regular file (a
 * device, a pipe, a symbolic link such as /dev/stdout), straight to it: a rename would put a
 * regular file in its place.
 */
static int dump_atomic(json_t *root, const char *path)
{
	const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(12);
	char tmp[4096 + 32];
	struct stat st;
	FILE *f;
	int bad;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return json_dump_file(root, path, flags) != 0
			   ? err_set(IPCC_ESYS, "regions: cannot write %s", path)
			   : 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return err_sys("regions: cannot write %s", tmp);
	bad = json_dumpf(root, f, flags) != 0 || fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		unlink(tmp);
		return err_sys("regions: cannot write %s", path);
	}
	return 0;
}

int ipcc_regions_write(const char *path)
{
	json_t *root = json_object(), *regions = json_array();
	uint64_t errors = 0;
	double ns_per_tick;
	int ret = 0;

	ipcc_clock_init();
	ns_per_tick = 1e6 / (double)ipcc_tcfreq_khz(NULL);
	pthread_mutex_lock(&lock);
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(
	    root, "backend",
	    json_string(ipcc_backend_name(backend == IPCC_BACKEND_MODEL ? IPCC_BACKEND_MODEL
					  : threads && threads->set	? IPCC_BACKEND_PERF
									: IPCC_BACKEND_TIME)));
	json_object_set_new(root, "tcfreq_khz", json_integer((json_int_t)ipcc_tcfreq_khz(NULL)));
	json_object_set_new(root, "overhead_ns",
			    overhead_known ? json_real((double)overhead[0] * ns_per_tick)
					   : json_null());
	for (struct thread_regions *t = threads; t; t = t->next) {
		for (unsigned i = 0; i < t->nreg; i++) {
			const struct region_stat *r = &t->reg[i];
			json_t *ctr = json_object();

			for (int f = 0; f < NFIG; f++) {
				double k = f == 0 ? ns_per_tick : 1.0;
				const char *key = f == 0 ? "elapsed_ns" : ipcc_counter_name(f - 1);

				json_object_set_new(ctr, key,
						    (r->valid & (1u << f)) && r->calls
							? json_pack("{s:f,s:f,s:f}", "total",
								    (double)r->total[f] * k, "min",
								    (double)r->min[f] * k, "max",
								    (double)r->max[f] * k)
							: json_null());
			}
			json_array_append_new(regions,
					      json_pack("{s:s,s:i,s:I,s:o}", "name", r->copy,
							"thread", (int)t->tid, "calls",
							(json_int_t)r->calls, "counters", ctr));
		}
		errors += t->errors;
	}
	pthread_mutex_unlock(&lock);
	json_object_set_new(root, "errors", json_integer((json_int_t)errors));
	json_object_set_new(root, "regions", regions);
	ret = dump_atomic(root, path);
	json_decref(root);
	return ret;
}
