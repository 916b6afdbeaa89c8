/*
 * cli.h - what every ipcc subcommand shares: the command table's row, exit codes, option
 * parsing helpers and the error messages. Only the CLI prints; the library returns codes.
 *
 * Adding a command:
 *   1. tools/ipcc/cmd_<name>.c with `int cmd_<name>(int argc, char **argv)` and its help
 *      text `cmd_<name>_help`, both declared below;
 *   2. a row in `commands[]` in main.c and the file in CMakeLists.txt;
 *   3. docs/ipcc-<name>.1, and its options in the SYNOPSIS (tests/cli checks they agree);
 *   4. tests under tests/cli/ (golden outputs for help and errors).
 */
#ifndef IPCC_CLI_H
#define IPCC_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes, documented in ipcc(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1, /* the command ran but a measurement or check failed */
	EXIT_USAGE = 2 /* bad command line: unknown command or option, bad value */
};

enum cli_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV, FORMAT_OPENMETRICS };

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line for 'ipcc --help' */
	const char *help;    /* the whole of 'ipcc help <name>' */
};

/* "ipcc CMD: MSG (see 'ipcc help CMD')" on stderr; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * What kind of failure an IPCC_E* code is, in the words the tests match: "permission denied"
 * (IPCC_EACCES: perf_event_paranoid, capabilities), "not supported here" (IPCC_ENOTSUP: no
 * PMU for it), "failed" (anything else: a bug or a broken system, never a reason to skip).
 */
const char *cli_error_kind(int code);

/* "ipcc CMD: error: MSG" on stderr; returns EXIT_FAIL. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The usage error for what getopt_long() just rejected (it returned '?' or ':' with an
 * optstring that starts with ':').
 */
int cli_bad_option(const char *cmd, int opt, char **argv);

/* Parse --format's value; `allowed` is a mask of 1 << FORMAT_*. EXIT_USAGE on failure. */
int cli_parse_format(const char *cmd, const char *arg, unsigned allowed, enum cli_format *out);

/*
 * -o FILE, replaced atomically (what node_exporter's textfile collector needs: a reader sees
 * the old file or the whole new one): cli_output_open() creates FILE.tmp.PID in FILE's
 * folder (so a bad path fails before any work); cli_output_commit() flushes, fsyncs, closes
 * and renames it onto FILE; cli_output_abort() removes it. Where FILE exists and is not a
 * regular file (a device such as /dev/null, a FIFO, a symbolic link such as /dev/stdout), the
 * output goes straight to it (tmp NULL): a rename would put a regular file in its place. With a NULL path the output is
 * `fallback` and both are no-ops. Errors are printed; EXIT_FAIL.
 */
struct cli_output {
	FILE *f;
	const char *path;
	char *tmp;
};

int cli_output_open(const char *cmd, const char *path, FILE *fallback, struct cli_output *o);
int cli_output_commit(const char *cmd, struct cli_output *o);
void cli_output_abort(struct cli_output *o);

/* Parse an unsigned integer option value in [min, max]. EXIT_USAGE on failure. */
int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max,
		  uint64_t *out);

struct ipcc_model_profile;

/*
 * Look up a pipeline-model profile by name (or "auto") for --profile, or, when the name is
 * no built-in's and is a readable file, load that profile file; EXIT_USAGE with the known
 * names, why auto found none, or the file's PATH:LINE: error, on failure. For "auto", `note`
 * (len bytes) gets "ipcc CMD: profile auto is P, for CPU[; an approximation: ...]", for the
 * command to print (to stderr) with its results; "" for a named profile.
 */
int cli_parse_profile(const char *cmd, const char *name, struct ipcc_model_profile *out, char *note,
		      size_t len);

int cmd_calibrate(int argc, char **argv);
extern const char cmd_calibrate_help[];
int cmd_stat(int argc, char **argv);
extern const char cmd_stat_help[];
int cmd_sim(int argc, char **argv);
extern const char cmd_sim_help[];
int cmd_metrics(int argc, char **argv);
extern const char cmd_metrics_help[];
int cmd_record(int argc, char **argv);
extern const char cmd_record_help[];
int cmd_annotate(int argc, char **argv);
extern const char cmd_annotate_help[];
int cmd_skid(int argc, char **argv);
extern const char cmd_skid_help[];
int cmd_bench(int argc, char **argv);
extern const char cmd_bench_help[];
int cmd_report(int argc, char **argv);
extern const char cmd_report_help[];

#endif
