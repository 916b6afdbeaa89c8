/*
 * cmd_stat.c - ipcc stat: run a command (or watch a process) with counters that follow it,
 * then say how long it took and where its issue slots went.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ipcc/breakdown.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
#include "ipcc/model_backend.h"
#include "stat_int.h"

extern char **environ;

const char cmd_stat_help[] =
    "usage: ipcc stat [options] [--] command [args...]\n"
    "       ipcc stat [options] -p PID\n"
    "\n"
    "Run a command with counters that follow it and its children, then print the elapsed\n"
    "time, TCFREQ and the core frequency, user and system time, instructions, IPC, IPCC,\n"
    "where the issue slots went (front-end stall, back-end stall, wasted speculation,\n"
    "retired), utilisation and frequency metrics, and every absent counter with the reason.\n"
    "\n"
    "options:\n"
    "  -e, --event NAME     also count NAME, a libpfm4 event (repeatable, up to 8)\n"
    "  -r, --repeat N       run the command N times; show the median, min and max\n"
    "  -p, --pid PID        watch a running process's threads until it exits (or Ctrl-C)\n"
    "      --per-thread     with -p: one row per thread\n"
    "      --regions        also show the command's ipcc regions (see ipcc-stat(1))\n"
    "      --backend B      auto (default), perf, time, or model: the pipeline model over\n"
    "                       the whole run under Valgrind, every counter modelled\n"
    "      --profile P      with model: the model profile (auto, a built-in or a file)\n"
    "      --per-function   with model: also every function, hottest first, and\n"
    "                       the page faults and system calls its code took\n"
    "      --llc SIZE       with model: the last-level cache this machine gets (K, M or G),\n"
    "                       where it is less than its geometry (a shared host's guests)\n"
    "      --kernel         also count instructions and cycles in kernel mode\n"
    "      --format FMT     text (default), json, csv or openmetrics (for Prometheus)\n"
    "  -o, --output FILE    write the result to FILE (default: standard error), replacing\n"
    "                       it atomically (for node_exporter's textfile collector);\n"
    "                       a device, a FIFO or a link (/dev/null) is written as it is\n"
    "  -h, --help           show this help\n"
    "\n"
    "Exit status: the command's (128 + N if signal N ended it), 127 if it could not be run,\n"
    "1 if counting failed, 2 for bad usage.\n";

struct stat_opts {
	const char *extra[IPCC_MAX_EXTRA];
	unsigned nextra;
	uint64_t repeat;
	pid_t pid;
	bool per_thread;
	bool regions;
	bool kernel;
	enum ipcc_backend backend;
	const char *profile; /* --profile, for the model backend */
	bool per_function;
	uint64_t llc; /* --llc: the LLC the model's caches have, bytes (0: the geometry's) */
	enum cli_format format;
	const char *output;
	char **argv; /* the command, NULL-terminated */
	int argc;
};

/* --llc: bytes, or KiB, MiB, GiB with K, M, G; 64 KiB to 1 TiB. */
static int size_arg(const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && (*end == 'K' || *end == 'M' || *end == 'G') && !end[1]) {
		v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
		end++;
	}
	if (errno || end == arg || *end || *arg == '-' || v < (64u << 10) || v > (1ull << 40))
		return cli_usage_error("stat", "--llc: expected a size of 64K to 1024G, got '%s'",
				       arg);
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, struct stat_opts *o)
{
	enum {
		OPT_PER_THREAD = 256,
		OPT_REGIONS,
		OPT_BACKEND,
		OPT_KERNEL,
		OPT_FORMAT,
		OPT_PROFILE,
		OPT_PER_FUNCTION,
		OPT_LLC
	};
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "regions", no_argument, NULL, OPT_REGIONS },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "per-function", no_argument, NULL, OPT_PER_FUNCTION },
		{ "llc", required_argument, NULL, OPT_LLC },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->repeat = 1;
	optind = 1;
	/* '+': options end at the command, whose own options are its business. */
	while ((c = getopt_long(argc, argv, "+:e:r:p:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (o->nextra == IPCC_MAX_EXTRA)
				return cli_usage_error("stat", "at most %d events with -e",
						       IPCC_MAX_EXTRA);
			o->extra[o->nextra++] = optarg;
			break;
		case 'r':
			ret = cli_parse_u64("stat", "--repeat", optarg, 1, 100000, &o->repeat);
			break;
		case 'p':
			ret = cli_parse_u64("stat", "--pid", optarg, 1, INT32_MAX, &v);
			o->pid = (pid_t)v;
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_PER_THREAD:
			o->per_thread = true;
			break;
		case OPT_REGIONS:
			o->regions = true;
			break;
		case OPT_KERNEL:
			o->kernel = true;
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "auto") == 0)
				o->backend = IPCC_BACKEND_AUTO;
			else if (strcmp(optarg, "perf") == 0)
				o->backend = IPCC_BACKEND_PERF;
			else if (strcmp(optarg, "time") == 0)
				o->backend = IPCC_BACKEND_TIME;
			else if (strcmp(optarg, "model") == 0)
				o->backend = IPCC_BACKEND_MODEL;
			else
				return cli_usage_error(
				    "stat",
				    "unknown backend '%s' (expected auto, perf, time, model)",
				    optarg);
			break;
		case OPT_PROFILE:
			o->profile = optarg;
			break;
		case OPT_PER_FUNCTION:
			o->per_function = true;
			break;
		case OPT_LLC:
			ret = size_arg(optarg, &o->llc);
			break;
		case OPT_FORMAT:
			ret = cli_parse_format("stat", optarg,
					       1u << FORMAT_TEXT | 1u << FORMAT_JSON |
						   1u << FORMAT_CSV | 1u << FORMAT_OPENMETRICS,
					       &o->format);
			break;
		default:
			return cli_bad_option("stat", c, argv);
		}
		if (ret)
			return ret;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (o->pid && o->argc)
		return cli_usage_error("stat", "give a command or -p PID, not both");
	if (!o->pid && !o->argc)
		return cli_usage_error("stat", "no command to run");
	if (o->per_thread && !o->pid)
		return cli_usage_error("stat",
				       "--per-thread needs -p (a launched command's threads "
				       "are summed into it)");
	if (o->pid && (o->repeat > 1 || o->regions))
		return cli_usage_error("stat", "-r and --regions need a command, not -p");
	if (o->backend == IPCC_BACKEND_MODEL && (o->pid || o->nextra || o->kernel))
		return cli_usage_error("stat", "the model backend runs a command from its start "
					       "and models user-mode code: no -p, -e or --kernel "
					       "with it");
	if (o->backend != IPCC_BACKEND_MODEL && (o->profile || o->per_function || o->llc))
		return cli_usage_error("stat",
				       "--profile, --per-function and --llc need --backend model");
	/* A name no table knows is a typo, not an absent counter. */
	for (unsigned i = 0; i < o->nextra; i++)
		if (ipcc_event_check(o->extra[i]) == IPCC_EINVAL)
			return cli_usage_error("stat", "%s", ipcc_last_error());
	return 0;
}

/* ---- running a command ----------------------------------------------------------------- */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t interrupted;

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT: pass them on to the command and keep going. */
static void forward_signal(int sig)
{
	interrupted = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static void install_forwarding(bool on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { 0 };

	sa.sa_handler = on ? forward_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static uint64_t timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

#define STAT_NOT_RUN 127

static void *calibrate(void *arg)
{
	(void)arg;
	ipcc_clock_init();
	return NULL;
}

/*
 * Start the command with posix_spawn (a vfork: no copy of ipcc's page tables, about 1.5 ms
 * less than fork on a guest), its environment ipcc's own plus `env` (IPCC_OUTPUT for
 * --regions, VALGRIND_LIB for the model backend),
 * the forwarded signals back to their defaults in it. Returns 0 or an errno.
 */
static int spawn(char *const *argv, const char *env, const char *value, pid_t *pid)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	const char *old = env ? getenv(env) : NULL;
	char *saved = old ? strdup(old) : NULL;
	posix_spawnattr_t attr;
	sigset_t dfl;
	int err;

	posix_spawnattr_init(&attr);
	sigemptyset(&dfl);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&dfl, sigs[i]);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	/* Single-threaded here: the environment can be changed for the spawn and put back. */
	if (env && value)
		setenv(env, value, 1);
	fflush(NULL);
	err = posix_spawnp(pid, argv[0], NULL, &attr, argv, environ);
	if (env && value && saved)
		setenv(env, saved, 1);
	else if (env && value)
		unsetenv(env);
	free(saved);
	posix_spawnattr_destroy(&attr);
	return err;
}

/*
 * Run the command once. Its counters are opened on ipcc itself, disabled, inherited by every
 * task ipcc starts and enabled in a task only when it execs (enable_on_exec): so they count
 * the command and its children from its exec on, and never ipcc, which never execs, nor its
 * calibration thread. Returns 0 with the result filled, STAT_NOT_RUN (with a message
 * printed) when the command could not be run, or EXIT_FAIL when counting failed.
 */
static int run_once(const struct stat_opts *o, const char *regions_file,
		    struct ipcc_counter_set **set_out, struct stat_run *res)
{
	struct ipcc_counters_opts co = {
		.backend = o->backend,
		.inherit = true,
		.enable_on_exec = true,
		.kernel = o->kernel,
		.software = true,
		.extra = o->extra,
		.nextra = o->nextra,
	};
	struct ipcc_reading a, b;
	struct rusage ru;
	int status, ret;
	pthread_t calibrator;
	bool calibrating = false;
	uint64_t t0, t1;
	pid_t pid;

	ret = ipcc_counters_open(&co, set_out);
	if (ret)
		return cli_error("stat", "cannot count '%s': %s", o->argv[0], ipcc_last_error());
	/*
	 * TCFREQ before the command starts: from the cache of this boot, or, where it must be
	 * calibrated (the first ipcc of a boot on a guest without an exact source), in a thread
	 * of its own while the command runs, so that the command's end is seen when it happens.
	 * Nothing else of ipcc's runs while the command does: a vforked child starts on ipcc's
	 * CPU, and ipcc's work there (the core frequency's chain, ~2 ms) made /bin/true's
	 * elapsed 5.5 ms where perf stat's is 3.0. The core frequency is measured after the
	 * last run (cmd_stat()).
	 */
	if (ipcc_clock_init_quick() != 0)
		calibrating = pthread_create(&calibrator, NULL, calibrate, NULL) == 0;
	ipcc_read(*set_out, &a);
	t0 = ipcc_ticks();
	ret = spawn(o->argv, regions_file ? "IPCC_OUTPUT" : NULL, regions_file, &pid);
	if (ret) {
		if (calibrating)
			pthread_join(calibrator, NULL);
		fprintf(stderr, "ipcc stat: cannot run '%s': %s\n", o->argv[0], strerror(ret));
		return STAT_NOT_RUN;
	}
	child_pid = pid;
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	t1 = ipcc_ticks();
	if (calibrating)
		pthread_join(calibrator, NULL);
	else
		ipcc_clock_init(); /* no thread: calibrate here */
	res->elapsed_ns = ipcc_ticks_to_ns(t1 - t0);
	child_pid = 0;
	ipcc_read(*set_out, &b);
	ipcc_interval(*set_out, &a, &b, &res->iv);
	res->iv.elapsed_ns = res->elapsed_ns;
	res->user_ns = timeval_ns(ru.ru_utime);
	res->sys_ns = timeval_ns(ru.ru_stime);
	res->exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	return 0;
}

/* ---- the model backend ------------------------------------------------------------------ */

static void remove_folder(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

/*
 * Run the command to its end under Valgrind with ipcc's tool, then account what the tool
 * wrote with the model (model_backend.h). The counters come out as one run's interval, every
 * one modelled: elapsed is the modelled cycles at this machine's core frequency. Returns 0,
 * STAT_NOT_RUN or EXIT_FAIL (a message printed), or 128 + N when signal N interrupted it.
 */
static int run_model(const struct stat_opts *o, struct stat_result *r)
{
	const char *tmpdir = getenv("TMPDIR");
	struct ipcc_mb_engine engine;
	struct ipcc_model_profile prof;
	struct ipcc_mb_stream *stream = NULL;
	char dir[512], **argv = NULL;
	struct rusage ru;
	int status, ret;
	uint64_t t0;
	pid_t pid;
	int pers;

	if (cli_parse_profile("stat", o->profile ? o->profile : "auto", &prof, r->model_note,
			      sizeof(r->model_note)))
		return EXIT_USAGE;
	if (ipcc_mb_engine(&engine))
		return cli_error("stat", "the model backend cannot run here: %s",
				 ipcc_last_error());
	ipcc_mb_caches(&r->model_caches);
	ipcc_mb_tlbs(&r->model_caches, &prof);
	r->model_caches.zero_page = ipcc_mb_zero_page();
	r->model_caches.kernel_touch = ipcc_mb_kernel_touch();
	if (o->llc) { /* whole sets of the geometry's ways and lines */
		struct ipcc_mb_cache *l = &r->model_caches.llc;
		uint64_t set = (uint64_t)l->assoc * l->line, size = o->llc / set * set;
		size_t n = strlen(r->model_caches.source);

		l->size = size ? size : set;
		snprintf(r->model_caches.source + n, sizeof(r->model_caches.source) - n,
			 "; LLC %llu KiB from --llc", (unsigned long long)(l->size >> 10));
	}
	snprintf(dir, sizeof(dir), "%s/ipcc-model-XXXXXX",
		 tmpdir && *tmpdir == '/' ? tmpdir : "/tmp");
	if (!mkdtemp(dir))
		return cli_error("stat", "cannot make a folder for the model's counts: %s",
				 strerror(errno));
	/* The window misses overlap in: the reorder buffer (a profile without one: 512). */
	if (ipcc_mb_argv(&engine, &r->model_caches, prof.rob ? prof.rob : 512, dir, o->argv,
			 &argv)) {
		ret = cli_error("stat", "%s", ipcc_last_error());
		goto out;
	}
	ipcc_clock_init();
	t0 = ipcc_ticks();
	/* The program's regions tell the tool where they begin and end (src/region.c). */
	if (o->regions)
		setenv("IPCC_REGION_BACKEND", "model", 1);
	/*
	 * Address-space randomisation off in the program (setarch -R), so that where its
	 * stack and buffers land is the same each run: an alignment-dependent path (memcpy's,
	 * a hash of a pointer) would otherwise change its counts, and two runs must count the
	 * same. Inherited through the spawn; ipcc's own put back after it.
	 */
	pers = personality(0xffffffff);
	if (pers != -1)
		personality((unsigned long)pers | ADDR_NO_RANDOMIZE);
	ret = spawn(argv, "VALGRIND_LIB", engine.lib, &pid);
	if (pers != -1)
		personality((unsigned long)pers);
	if (ret) {
		fprintf(stderr, "ipcc stat: cannot run valgrind: %s\n", strerror(ret));
		ret = STAT_NOT_RUN;
		goto out;
	}
	child_pid = pid;
	/*
	 * The segments modelled as they first run, on a CPU the tool leaves idle: none where
	 * there is one CPU, or IPCC_MODEL_STREAM=0 says so (all of them after the run, to the
	 * same figures); then the core frequency, once a boot.
	 */
	const char *want = getenv("IPCC_MODEL_STREAM");

	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 && !(want && !strcmp(want, "0")))
		ipcc_mb_stream_start(dir, &prof, &stream);
	ipcc_mb_core_khz(&r->core);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	child_pid = 0;
	ipcc_mb_stream_stop(stream);
	r->model_wall_ns = ipcc_ticks_to_ns(ipcc_ticks() - t0);
	if (interrupted) {
		/* Counts of a part of the run would read as the whole run's: none. */
		fprintf(stderr,
			"ipcc stat: interrupted by signal %d: no counts (the model "
			"backend counts whole runs)\n",
			(int)interrupted);
		ret = 128 + (int)interrupted;
		goto out;
	}
	if (ipcc_mb_account(dir, &prof, stream, &r->model)) {
		ret = cli_error("stat", "valgrind ran '%s' but %s", o->argv[0], ipcc_last_error());
		if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !r->model.processes)
			ret = STAT_NOT_RUN;
		goto out;
	}
	r->has_model = true;
	r->model_regions = o->regions;
	if (ipcc_counters_model(prof.width, prof.fault_cycles != 0, &r->set)) {
		ret = cli_error("stat", "%s", ipcc_last_error());
		goto out;
	}

	const struct ipcc_mb_counts *c = &r->model.total;
	struct ipcc_interval *iv = &r->run[0].iv;
	double khz = r->core.khz ? (double)r->core.khz : 1e6;

	memset(iv, 0, sizeof(*iv));
	iv->value[IPCC_INSTRUCTIONS] = (int64_t)c->instructions;
	iv->value[IPCC_CYCLES] = llround(c->cycles);
	/* Constant-rate cycles: the modelled cycles at this core's frequency, in TCFREQ ticks. */
	ipcc_tcfreq_khz(&r->tc);
	iv->value[IPCC_REF_CYCLES] = llround(c->cycles * (double)r->tc.khz / khz);
	iv->value[IPCC_SLOTS_TOTAL] = llround(c->slots_total);
	iv->value[IPCC_SLOTS_FILLED] = llround(c->slots_filled);
	iv->value[IPCC_SLOTS_ISSUED] = llround(c->slots_issued);
	iv->value[IPCC_SLOTS_RETIRED] = llround(c->slots_retired);
	iv->value[IPCC_CYCLES_K] = llround(r->model.kernel.cycles);
	iv->value[IPCC_PAGE_FAULTS] = (int64_t)r->model.kernel.faults;
	for (int k = 0; k < IPCC_NCOUNTERS; k++)
		if (!ipcc_counters_absent(r->set, (enum ipcc_counter)k)) {
			iv->valid |= 1u << k;
			iv->coverage[k] = 1.0;
		}
	iv->width = prof.width;
	/*
	 * The modelled time, at this machine's core frequency (cycles / kHz = ms): user mode's
	 * cycles and the kernel's, from the run's faults and system calls at the profile's costs.
	 */
	r->run[0].elapsed_ns = (uint64_t)llround((c->cycles + r->model.kernel.cycles) / khz * 1e6);
	iv->elapsed_ns = r->run[0].elapsed_ns;
	r->run[0].exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	r->nruns = 1;
	ret = 0;
out:
	ipcc_mb_stream_free(stream);
	free(argv);
	remove_folder(dir);
	return ret;
}

/* ---- watching a process ---------------------------------------------------------------- */

static int list_threads(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) != NULL && n < max)
		if (d->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(d->d_name);
	closedir(dir);
	return n;
}

static int watch_pid(const struct stat_opts *o, struct stat_result *r)
{
	struct ipcc_counters_opts co = {
		.backend = o->backend,
		.kernel = o->kernel,
		.software = true,
		.extra = o->extra,
		.nextra = o->nextra,
	};
	static struct ipcc_reading start[STAT_MAX_THREADS], end;
	pid_t tids[STAT_MAX_THREADS];
	int n = list_threads(o->pid, tids, STAT_MAX_THREADS), pidfd;
	uint64_t t0;

	if (n <= 0)
		return cli_error("stat", "no process %d", (int)o->pid);
	pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
	for (int i = 0; i < n; i++) {
		co.pid = tids[i];
		if (ipcc_counters_open(&co, &r->thread_set[r->nthreads])) {
			cli_error("stat", "thread %d: %s", (int)tids[i], ipcc_last_error());
			continue;
		}
		r->tid[r->nthreads] = tids[i];
		ipcc_read(r->thread_set[r->nthreads], &start[r->nthreads]);
		r->nthreads++;
	}
	if (r->nthreads == 0) {
		if (pidfd >= 0)
			close(pidfd);
		return EXIT_FAIL;
	}
	ipcc_clock_init();
	t0 = ipcc_now_ns();
	/* Until the process exits or we are interrupted. */
	while (!interrupted) {
		if (pidfd >= 0) {
			struct pollfd p = { pidfd, POLLIN, 0 };

			if (poll(&p, 1, -1) > 0)
				break;
		} else {
			if (kill(o->pid, 0) != 0 && errno == ESRCH)
				break;
			usleep(10000);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	r->run[0].elapsed_ns = ipcc_now_ns() - t0;
	for (int i = 0; i < r->nthreads; i++) {
		ipcc_read(r->thread_set[i], &end);
		ipcc_interval(r->thread_set[i], &start[i], &end, &r->thread_iv[i]);
		r->thread_iv[i].elapsed_ns = r->run[0].elapsed_ns;
		ipcc_interval_add(&r->run[0].iv, &r->thread_iv[i]);
	}
	r->run[0].iv.elapsed_ns = r->run[0].elapsed_ns;
	r->set = r->thread_set[0];
	r->nruns = 1;
	r->watched = true;
	return 0;
}

/* ---- the command ----------------------------------------------------------------------- */

static void free_result(struct stat_result *r)
{
	for (int i = 0; i < r->nthreads; i++)
		ipcc_counters_free(r->thread_set[i]);
	if (!r->watched)
		ipcc_counters_free(r->set);
	if (r->has_model)
		ipcc_mb_result_release(&r->model);
	free(r->run);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	struct stat_result r = { 0 };
	const char *tmpdir = getenv("TMPDIR");
	char regions_file[512];
	struct cli_output out;
	bool whole = false; /* a whole result was printed */
	int ret;

	snprintf(regions_file, sizeof(regions_file), "%s/ipcc-regions-XXXXXX",
		 tmpdir && *tmpdir == '/' ? tmpdir : "/tmp");

	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	/* A bad output path fails before the command runs, not after. */
	if (cli_output_open("stat", o.output, stderr, &out))
		return EXIT_FAIL;
	/* The model backend's tool counts the regions itself: no file. */
	bool regions_file_used = o.regions && o.backend != IPCC_BACKEND_MODEL;

	if (regions_file_used) {
		int fd = mkstemp(regions_file);

		if (fd < 0) {
			ret = cli_error("stat", "cannot make a file for regions: %s",
					strerror(errno));
			goto done;
		}
		close(fd);
	}
	r.run = calloc(o.repeat, sizeof(*r.run));
	if (!r.run) {
		ret = cli_error("stat", "out of memory");
		goto done;
	}
	r.argv = o.argv;
	r.argc = o.argc;
	r.pid = o.pid;
	r.per_thread = o.per_thread;
	r.backend_asked = o.backend;
	install_forwarding(true);
	r.per_function = o.per_function;
	if (o.backend == IPCC_BACKEND_MODEL) {
		/* Deterministic: one run says what any number would. */
		ret = run_model(&o, &r);
	} else if (o.pid) {
		ret = watch_pid(&o, &r);
	} else {
		for (uint64_t i = 0; i < o.repeat && !interrupted; i++) {
			struct ipcc_counter_set *set = NULL;

			ret = run_once(&o, o.regions ? regions_file : NULL, &set, &r.run[i]);
			if (ret) {
				ipcc_counters_free(set);
				break;
			}
			ipcc_counters_free(r.set);
			r.set = set;
			r.nruns++;
		}
	}
	install_forwarding(false);
	if (r.nruns > 0) {
		ipcc_tcfreq_khz(&r.tc);
		/* Just after the last run, the core still at the clock it ran the command at. */
		if (!r.core.khz) {
			ipcc_corefreq_khz(&r.core);
			r.core_after = true;
		}
		r.interrupted = interrupted;
		r.regions_file = regions_file_used ? regions_file : NULL;
		if (stat_print(out.f, o.format, &r)) {
			ret = cli_error("stat", "%s", ipcc_last_error());
		} else {
			whole = true;
			ret = r.watched ? EXIT_OK : r.run[r.nruns - 1].exit_status;
		}
	}
done:
	if (regions_file_used)
		unlink(regions_file);
	free_result(&r);
	/*
	 * Replace -o's file only with a whole result: after a printer that failed (however
	 * little the stream saw of it), or with no run to print, the old file stays.
	 */
	if (!whole)
		cli_output_abort(&out);
	else if (cli_output_commit("stat", &out))
		ret = EXIT_FAIL;
	return ret;
}
