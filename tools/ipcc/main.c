/*
 * main.c - the ipcc command: global options and the table of subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* ipcc stat finds TCFREQ while the command runs; the others ask for it when they need it. */
const int ipcc_clock_manual_init = 1;

static int cmd_help(int argc, char **argv);

static const char help_help[] =
    "usage: ipcc help [<command>]\n"
    "\n"
    "Show the list of commands, or one command's options (the same as 'ipcc <command> --help').\n";

static const struct cli_command commands[] = {
	{ "calibrate", cmd_calibrate,
	  "measure the time counter: TCFREQ, core frequency, read costs, cross-core order",
	  cmd_calibrate_help },
	{ "stat", cmd_stat, "run a command and show its time, IPCC and where its issue slots went",
	  cmd_stat_help },
	{ "sim", cmd_sim,
	  "run assembly through the pipeline model: cycles, blamed instructions, slots",
	  cmd_sim_help },
	{ "metrics", cmd_metrics, "evaluate metric files over counts and print the cycle tree",
	  cmd_metrics_help },
	{ "bench", cmd_bench, "run microkernels: latency, bandwidth, penalties, FMA peak, skid",
	  cmd_bench_help },
	{ "record", cmd_record, "sample a command and write a recording", cmd_record_help },
	{ "annotate", cmd_annotate,
	  "show a recording: functions, instructions, folded stacks, code footprint",
	  cmd_annotate_help },
	{ "report", cmd_report, "write one HTML page: machine, slots, functions, loops, figures",
	  cmd_report_help },
	{ "skid", cmd_skid, "sample the skid kernels and compare with the pipeline model",
	  cmd_skid_help },
	{ "help", cmd_help, "show help for ipcc or one of its commands", help_help },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fputs("usage: ipcc [--version] [--help] <command> [<args>]\n"
	      "\n"
	      "ipcc tells how fast a piece of code ran, in nanoseconds with known units, and why\n"
	      "it was not faster.\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "'ipcc help <command>' shows a command's options.\n"
	      "Exit status: 0 success, 1 a measurement or check failed, 2 bad usage.\n",
	      out);
}

static int cmd_help(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error("help", "expects one command name, got %d", argc - 1);
	cmd = find_command(argv[1]);
	if (!cmd)
		return cli_usage_error("help", "'%s' is not an ipcc command", argv[1]);
	fputs(cmd->help, stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ipcc %s\n", IPCC_VERSION);
		return EXIT_OK;
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "ipcc: unknown option '%s' (see 'ipcc --help')\n", argv[1]);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "ipcc: '%s' is not an ipcc command (see 'ipcc --help')\n", argv[1]);
		return EXIT_USAGE;
	}
	/* A command sees its own name as argv[0]; --help anywhere shows its help. */
	for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(cmd->help, stdout);
			return EXIT_OK;
		}
	}
	return cmd->run(argc - 1, argv + 1);
}
