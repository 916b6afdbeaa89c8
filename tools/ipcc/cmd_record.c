/*
 * cmd_record.c - ipcc record: sample a command (and its threads and children) and write a
 * recording for ipcc annotate.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ipcc/counters.h"
#include "ipcc/error.h"
#include "ipcc/recording.h"
#include "ipcc/sample.h"

const char cmd_record_help[] =
    "usage: ipcc record [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Run COMMAND and sample it, its threads and its children: the instruction pointer,\n"
    "process, thread, CPU and time of each sample, and the executable mappings, written to a\n"
    "recording for 'ipcc annotate'. Samples the kernel lost and throttling are reported.\n"
    "\n"
    "options:\n"
    "  -F, --freq HZ       samples per second of CPU time (default 4000)\n"
    "  -c, --period N      one sample every N events instead (ns for task-clock)\n"
    "  -e, --event EVENT   task-clock (default: works without a PMU), cpu-clock, cycles,\n"
    "                      instructions or a libpfm4 event name\n"
    "  -o, --output FILE   the recording (default ipcc.profile)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 recorded (whatever COMMAND's own status, which is reported), 1 COMMAND\n"
    "could not run or sampling failed, 2 bad usage.\n";

struct record_opts {
	struct ipcc_sampler_opts s;
	const char *output;
	char **argv;
};

static int parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "period", required_argument, NULL, 'c' },
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->output = "ipcc.profile";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:F:c:e:o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			ret = cli_parse_u64("record", "--freq", optarg, 1, 1000000, &o->s.freq);
			break;
		case 'c':
			ret = cli_parse_u64("record", "--period", optarg, 1, UINT64_MAX / 2,
					    &o->s.period);
			break;
		case 'e':
			/* A name no table knows is a typo: say so before anything runs. */
			if (ipcc_event_check(optarg) == IPCC_EINVAL)
				return cli_usage_error("record", "%s", ipcc_last_error());
			o->s.event = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		default:
			return cli_bad_option("record", c, argv);
		}
		if (ret)
			return ret;
	}
	if (o->s.freq && o->s.period)
		return cli_usage_error("record", "--freq and --period: one or the other");
	if (optind == argc)
		return cli_usage_error("record", "no command to record (ipcc record -- COMMAND)");
	o->argv = argv + optind;
	return 0;
}

struct sink {
	FILE *f;
	int err;
};

static void on_sample(void *arg, const struct ipcc_sample *s)
{
	struct sink *k = arg;

	if (!k->err)
		k->err = ipcc_recording_write_sample(k->f, s);
}

static void on_mmap(void *arg, const struct ipcc_sample_mmap *m)
{
	struct sink *k = arg;

	if (!k->err)
		k->err = ipcc_recording_write_mmap(k->f, m);
}

/* Drain until the command exits; then once more. Returns the drain's error, if any. */
static int follow(struct ipcc_sampler *s, pid_t pid, const struct ipcc_sample_handler *h,
		  int *status)
{
	struct pollfd fds[256];
	unsigned n = ipcc_sampler_nfds(s) < 256 ? ipcc_sampler_nfds(s) : 256;
	int ret = 0;

	for (unsigned i = 0; i < n; i++)
		fds[i] = (struct pollfd){ .fd = ipcc_sampler_fd(s, i), .events = POLLIN };
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		poll(fds, n, 50);
		if (ipcc_sampler_drain(s, h) < 0 && !ret)
			ret = IPCC_EINVAL;
	}
	if (ipcc_sampler_drain(s, h) < 0 && !ret)
		ret = IPCC_EINVAL;
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct ipcc_sampler *s = NULL;
	struct sink sink = { NULL, 0 };
	struct ipcc_sample_handler h = { on_sample, on_mmap, &sink };
	struct ipcc_recording_summary sum = { 0 };
	const struct ipcc_sampler_stats *st;
	int go[2], err[2], status = 0, exec_errno = 0, out_errno = 0, ret;
	void (*old_int)(int);
	struct stat sb;
	bool regular;
	ssize_t n;
	pid_t pid;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return cli_error("record", "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cli_error("record", "fork: %s", strerror(errno));
	if (pid == 0) {
		char c;

		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1) /* EOF: the parent gave up */
			_exit(127);
		execvp(o.argv[0], o.argv);
		exec_errno = errno;
		if (write(err[1], &exec_errno, sizeof(exec_errno)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	o.s.pid = pid;
	o.s.inherit = true;
	o.s.enable_on_exec = true;
	o.s.mmaps = true;
	ret = ipcc_sampler_new(&o.s, &s);
	if (!ret && !(sink.f = fopen(o.output, "wb")))
		out_errno = errno;
	if (ret || out_errno) {
		/* The command never runs: without the go byte it exits at once. */
		close(go[1]);
		close(err[0]);
		waitpid(pid, NULL, 0);
		ipcc_sampler_free(s);
		if (out_errno)
			return cli_error("record", "cannot write %s: %s", o.output,
					 strerror(out_errno));
		return cli_error("record", "cannot sample '%s' (%s): %s", o.argv[0],
				 cli_error_kind(ret), ipcc_last_error());
	}
	/* Only a file this run created is removed again if the command cannot run. */
	regular = fstat(fileno(sink.f), &sb) == 0 && S_ISREG(sb.st_mode);
	ipcc_recording_write_header(sink.f);
	/* The command gets the terminal's ^C; we wait for it to finish. */
	old_int = signal(SIGINT, SIG_IGN);
	if (write(go[1], "x", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	n = read(err[0], &exec_errno, sizeof(exec_errno));
	close(err[0]);
	ret = follow(s, pid, &h, &status);
	signal(SIGINT, old_int);
	st = ipcc_sampler_stats(s);
	sum = (struct ipcc_recording_summary){ .samples = st->samples,
					       .lost = st->lost,
					       .throttles = st->throttles,
					       .period = o.s.period,
					       .freq = o.s.period ? 0
						       : o.s.freq ? o.s.freq
								  : IPCC_SAMPLE_DEFAULT_FREQ };
	snprintf(sum.event, sizeof(sum.event), "%s", o.s.event ? o.s.event : "task-clock");
	if (!sink.err)
		sink.err = ipcc_recording_write_summary(sink.f, &sum);
	ipcc_sampler_free(s);
	if (fclose(sink.f) && !sink.err)
		sink.err = IPCC_ESYS;
	if (n == (ssize_t)sizeof(exec_errno)) {
		if (regular)
			remove(o.output);
		return cli_error("record", "cannot run '%s': %s", o.argv[0], strerror(exec_errno));
	}
	if (sink.err)
		return cli_error("record", "writing %s: %s", o.output, ipcc_last_error());
	if (ret)
		return cli_error("record", "reading the samples: %s", ipcc_last_error());
	fprintf(stderr,
		"ipcc record: %" PRIu64 " samples (%s, %s %" PRIu64 "%s), %" PRIu64
		" lost, throttled %" PRIu64 " times, written to %s; '%s' %s %d\n",
		sum.samples, sum.event, sum.period ? "period" : "freq",
		sum.period ? sum.period : sum.freq, sum.period ? "" : " Hz", sum.lost,
		sum.throttles, o.output, o.argv[0],
		WIFSIGNALED(status) ? "was killed by signal" : "exited with",
		WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	if (sum.lost)
		fprintf(stderr,
			"ipcc record: the ring filled up %" PRIu64 " samples' worth: "
			"a lower rate (-F) loses none\n",
			sum.lost);
	if (sum.throttles)
		fprintf(stderr, "ipcc record: the kernel throttled sampling "
				"(perf_cpu_time_max_percent): fewer samples than asked for\n");
	return EXIT_OK;
}
