/*
 * region.h - measure named regions of your own code: read, run, read again, subtract.
 *
 *     ipcc_region_begin("parse");
 *     parse(input);
 *     ipcc_region_end("parse");
 *
 *     IPCC_REGION("sort") {        // the same, around a block (do not leave it with
 *             qsort(...);          // break, goto or return: the end would be skipped)
 *     }
 *
 * Regions are per thread and nest (a region's figures include those of the regions inside
 * it). Each accumulates its number of calls and, for the elapsed time and every counter its
 * thread's counter set measures, the total, the smallest and the largest, with the measured
 * cost of the reads themselves subtracted from each call.
 *
 * The backend comes from the environment variable IPCC_REGION_BACKEND: "time" (the default:
 * the time counter alone, one rdtsc at each end), "perf" or "auto" (a per-thread counter set
 * read with rdpmc, opened on the thread's first region) or "model" (set by `ipcc stat --backend
 * model --regions`: no clock is read, and ipcc's Valgrind tool is told where each region
 * begins and ends and counts it with the model). At process exit the results are
 * written as JSON to the file IPCC_OUTPUT names (nothing when it is unset); `ipcc stat
 * --regions -- ./prog` sets it and prints a table. The file format is in ipcc-stat(1).
 * IPCC_OUTPUT may name a folder (one that exists, or a path ending in '/', made if missing):
 * each process then writes FOLDER/HOST-PID.json, so that any number of processes can share
 * it. Every file is written whole or not at all (a temporary file, then rename).
 *
 * All functions are thread-safe; names are copied on first use. Up to IPCC_REGION_MAX
 * distinct regions per thread, nested up to IPCC_REGION_DEPTH deep.
 */
#ifndef IPCC_REGION_H
#define IPCC_REGION_H

#define IPCC_REGION_MAX	  64
#define IPCC_REGION_DEPTH 32

/*
 * Begin or end region `name` on the calling thread. 0, or IPCC_EINVAL when the end does not
 * match the innermost begin or the limits above are reached (the call is then not counted,
 * and the error is counted in the output).
 */
int ipcc_region_begin(const char *name);
int ipcc_region_end(const char *name);

/* Write every thread's regions as JSON to `path` now (also done at exit for IPCC_OUTPUT). */
int ipcc_regions_write(const char *path);

#define IPCC_REGION(name)                                                             \
	for (int ipcc_region_once_ = (ipcc_region_begin(name), 1); ipcc_region_once_; \
	     ipcc_region_once_ = (ipcc_region_end(name), 0))

#endif
