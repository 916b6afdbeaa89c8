/*
 * stat_int.h - what ipcc stat measured, handed from cmd_stat.c to its printer
 * (stat_output.c).
 */
#ifndef IPCC_STAT_INT_H
#define IPCC_STAT_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "ipcc/model_backend.h"

#define STAT_MAX_THREADS 256

/* One run of the command (or the whole watch of a process). */
struct stat_run {
	struct ipcc_interval iv;
	uint64_t elapsed_ns;
	uint64_t user_ns, sys_ns;
	int exit_status;
};

struct stat_result {
	char **argv; /* the command (argc words), or NULL with -p */
	int argc;
	pid_t pid;			 /* -p */
	struct ipcc_counter_set *set;	 /* the last run's set: backend, recipe, reasons */
	enum ipcc_backend backend_asked; /* --backend */
	struct stat_run *run;		 /* nruns runs */
	unsigned nruns;
	struct ipcc_freq tc, core;
	bool core_after;	  /* the core frequency was measured after the run, not during it */
	int interrupted;	  /* the signal that cut the run short, or 0 */
	const char *regions_file; /* IPCC_OUTPUT of the command, with --regions */
	/* -p: one set and interval per thread */
	bool watched, per_thread;
	int nthreads;
	pid_t tid[STAT_MAX_THREADS];
	struct ipcc_counter_set *thread_set[STAT_MAX_THREADS];
	struct ipcc_interval thread_iv[STAT_MAX_THREADS];
	/* --backend model */
	bool has_model, per_function;
	bool model_regions; /* --regions: the tool counted the program's regions */
	struct ipcc_mb_result model;
	struct ipcc_mb_caches model_caches;
	char model_note[256];	/* how --profile auto chose */
	uint64_t model_wall_ns; /* the run under Valgrind, wall clock */
};

/* The model backend's own parts of each format (stat_model.c). */
void stat_model_text(FILE *out, const struct stat_result *r);
struct json_t;
void stat_model_json(struct json_t *root, const struct stat_result *r);
/* With --regions: the regions in the schema of a program's regions file, backend "model". */
struct json_t *stat_model_regions_json(const struct stat_result *r);
void stat_model_csv(FILE *out, const struct stat_result *r);
struct ipcc_openmetrics;
int stat_model_openmetrics(struct ipcc_openmetrics *w, const struct stat_result *r);

/* 0, or a negative IPCC_E* code (the OpenMetrics writer's) with ipcc_last_error() set. */
int stat_print(FILE *out, enum cli_format format, const struct stat_result *r);

#endif
