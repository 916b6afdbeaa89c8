/*
 * cli.c - option parsing helpers and error messages shared by the subcommands.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "ipcc/cpu.h"
#include "ipcc/error.h"
#include "ipcc/model.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ipcc %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'ipcc help %s')\n", cmd);
	return EXIT_USAGE;
}

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ipcc %s: error: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}

const char *cli_error_kind(int code)
{
	return code == IPCC_EACCES    ? "permission denied"
	       : code == IPCC_ENOTSUP ? "not supported here"
				      : "failed";
}

int cli_bad_option(const char *cmd, int opt, char **argv)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	if (optopt && strncmp(arg, "--", 2) != 0)
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_parse_format(const char *cmd, const char *arg, unsigned allowed, enum cli_format *out)
{
	static const char *const names[] = { "text", "json", "csv", "openmetrics" };
	char list[48] = "";

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(allowed & (1u << i)))
			continue;
		if (strcmp(arg, names[i]) == 0) {
			*out = (enum cli_format)i;
			return 0;
		}
		if (*list)
			strcat(list, ", ");
		strcat(list, names[i]);
	}
	return cli_usage_error(cmd, "unknown format '%s' (expected %s)", arg, list);
}

int cli_output_open(const char *cmd, const char *path, FILE *fallback, struct cli_output *o)
{
	struct stat st;
	size_t len;
	int fd;

	memset(o, 0, sizeof(*o));
	o->f = fallback;
	if (!path)
		return 0;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		if (!o->f)
			return cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
		o->path = path;
		return 0;
	}
	len = strlen(path) + 32;
	o->tmp = malloc(len);
	if (!o->tmp)
		return cli_error(cmd, "out of memory");
	snprintf(o->tmp, len, "%s.tmp.%ld", path, (long)getpid());
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		o->f = NULL;
		return cli_error(cmd, "cannot write '%s': %s", path, strerror(e));
	}
	o->path = path;
	return 0;
}

int cli_output_commit(const char *cmd, struct cli_output *o)
{
	int ret = 0;

	if (!o->path)
		return 0;
	/* Straight to a device or a pipe: nothing to fsync (it fails there) or rename. */
	if (fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0))
		ret = cli_error(cmd, "writing '%s': %s", o->path, strerror(errno));
	if (fclose(o->f) != 0 && !ret)
		ret = cli_error(cmd, "writing '%s': %s", o->path, strerror(errno));
	o->f = NULL;
	if (!ret && o->tmp && rename(o->tmp, o->path) != 0)
		ret = cli_error(cmd, "cannot replace '%s': %s", o->path, strerror(errno));
	if (ret && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	o->path = NULL;
	return ret;
}

void cli_output_abort(struct cli_output *o)
{
	if (!o->path)
		return;
	fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->f = NULL;
	o->tmp = NULL;
	o->path = NULL;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	char *end;
	uintmax_t v;

	errno = 0;
	v = strtoumax(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || v < min || v > max)
		return cli_usage_error(
		    cmd, "%s wants a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'", opt,
		    min, max, arg);
	*out = v;
	return 0;
}

int cli_parse_profile(const char *cmd, const char *name, struct ipcc_model_profile *out, char *note,
		      size_t len)
{
	char list[200] = "";
	int ret = ipcc_model_profile(name, out);

	if (ret == IPCC_ENOTSUP)
		return cli_usage_error(cmd, "%s", ipcc_last_error());
	if (len)
		note[0] = '\0';
	if (!ret && !strcmp(name, "auto")) {
		/* Which profile auto chose, for which CPU, and what it approximates. */
		struct ipcc_cpu cpu = { 0 };
		char what[128] = "this CPU";

		if (ipcc_cpu_identify(&cpu) == 0)
			ipcc_cpu_describe(&cpu, what, sizeof(what));
		snprintf(note, len, "ipcc %s: profile auto is %s, for %s%s%s", cmd, out->name, what,
			 *cpu.profile_approx ? "; an approximation: " : "", cpu.profile_approx);
	}
	if (!ret)
		return 0;
	/* Not a built-in: a profile file, when one can be read by that name. */
	if (access(name, R_OK) == 0) {
		ret = ipcc_model_profile_load(name, out);
		if (ret)
			return cli_usage_error(cmd, "%s", ipcc_last_error());
		return 0;
	}
	for (int i = 0; ipcc_model_profiles[i]; i++) {
		strncat(list, ipcc_model_profiles[i], sizeof(list) - strlen(list) - 1);
		strncat(list, ", ", sizeof(list) - strlen(list) - 1);
	}
	strncat(list, "auto or a profile file", sizeof(list) - strlen(list) - 1);
	return cli_usage_error(cmd, "unknown profile '%s' (expected %s)", name, list);
}
