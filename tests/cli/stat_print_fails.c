/*
 * stat_print_fails.c - `ipcc stat` whose printer fails halfway: the real cmd_stat.c and cli.c,
 * with a stat_print() that writes the first part of a result and then fails the way an
 * encoder error inside the printer would, unseen by the stream (which stays good). ipcc stat
 * must then leave an existing -o file as it was (stat_print_failure.sh).
 */
#include <stdio.h>

#include "error_int.h"
#include "stat_int.h"

int stat_print(FILE *out, enum cli_format format, const struct stat_result *r)
{
	(void)format;
	fprintf(out, "# a partial result of %d runs\n", r->nruns);
	return err_set(IPCC_EINVAL, "the printer failed halfway (a test's printer)");
}

int main(int argc, char **argv)
{
	return cmd_stat(argc - 1, argv + 1);
}
