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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ipcc/breakdown.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
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
    "      --backend B      auto (default), perf or time\n"
    "      --kernel         also count instructions and cycles in kernel mode\n"
    "      --format FMT     text (default), json, csv or openmetrics (for Prometheus)\n"
    "  -o, --output FILE    write the result to FILE (default: standard error), replacing\n"
    "                       it atomically (for node_exporter's textfile collector)\n"
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
	enum cli_format format;
	const char *output;
	char **argv; /* the command, NULL-terminated */
	int argc;
};

static int parse(int argc, char **argv, struct stat_opts *o)
{
	enum { OPT_PER_THREAD = 256, OPT_REGIONS, OPT_BACKEND, OPT_KERNEL, OPT_FORMAT };
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
			else
				return cli_usage_error(
				    "stat", "unknown backend '%s' (expected auto, perf, time)",
				    optarg);
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
 * less than fork on a guest), its environment ipcc's own plus IPCC_OUTPUT for --regions,
 * the forwarded signals back to their defaults in it. Returns 0 or an errno.
 */
static int spawn(const struct stat_opts *o, const char *regions_file, pid_t *pid)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	const char *old = getenv("IPCC_OUTPUT");
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
	if (regions_file)
		setenv("IPCC_OUTPUT", regions_file, 1);
	fflush(NULL);
	err = posix_spawnp(pid, o->argv[0], NULL, &attr, o->argv, environ);
	if (regions_file && saved)
		setenv("IPCC_OUTPUT", saved, 1);
	else if (regions_file)
		unsetenv("IPCC_OUTPUT");
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
		    struct ipcc_counter_set **set_out, struct stat_run *res, struct ipcc_freq *core)
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
	ipcc_read(*set_out, &a);
	t0 = ipcc_ticks();
	ret = spawn(o, regions_file, &pid);
	if (ret) {
		fprintf(stderr, "ipcc stat: cannot run '%s': %s\n", o->argv[0], strerror(ret));
		return STAT_NOT_RUN;
	}
	child_pid = pid;
	/*
	 * While the command runs: TCFREQ, where it must be calibrated (the first ipcc of a boot
	 * on a guest without an exact source), in a thread of its own, so that the command's
	 * end is seen when it happens; and the core frequency (~100 us of this CPU).
	 */
	if (ipcc_clock_init_quick() != 0)
		calibrating = pthread_create(&calibrator, NULL, calibrate, NULL) == 0;
	if (!core->khz && !calibrating)
		ipcc_corefreq_khz(core);
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
	if (o.regions) {
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
	if (o.pid) {
		ret = watch_pid(&o, &r);
	} else {
		for (uint64_t i = 0; i < o.repeat && !interrupted; i++) {
			struct ipcc_counter_set *set = NULL;

			ret =
			    run_once(&o, o.regions ? regions_file : NULL, &set, &r.run[i], &r.core);
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
		/* Only where the first run had to calibrate TCFREQ: never the common case. */
		if (!r.core.khz) {
			ipcc_corefreq_khz(&r.core);
			r.core_after = true;
		}
		r.interrupted = interrupted;
		r.regions_file = o.regions ? regions_file : NULL;
		if (stat_print(out.f, o.format, &r)) {
			ret = cli_error("stat", "%s", ipcc_last_error());
		} else {
			whole = true;
			ret = r.watched ? EXIT_OK : r.run[r.nruns - 1].exit_status;
		}
	}
done:
	if (o.regions)
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
