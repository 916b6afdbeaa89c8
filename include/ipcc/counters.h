/*
 * counters.h - counter sets: per-thread counters read in one call, and intervals between
 * two readings.
 *
 * A counter set is opened for one thread (or one task and, with `inherit`, its children)
 * and read with ipcc_read() into a reading: the time counter plus the raw count of every
 * event the set opened. ipcc_interval() subtracts two readings of the same set and turns the
 * raw counts into counters: instructions, cycles, reference cycles, the four slot counters
 * (total, filled, issued, retired), kernel-mode instructions and cycles, and software
 * counters. Which events give which counter is the CPU family's recipe (see recipes.h).
 *
 * Every counter has a validity bit. A counter the set could not count is absent, and
 * ipcc_counters_absent() says why ("no hardware PMU ...", "perf_event_paranoid is 2 ...");
 * it is never reported as 0.
 *
 * Backends: `perf` (the hardware PMU through perf_event_open; the reading uses rdpmc on the
 * mmap page, no system call), `time` (no PMU: the time counter and software events), and
 * `model` (the pipeline model over a whole program under Valgrind: ipcc_counters_model()). The caller owns the set and frees it with
 * ipcc_counters_free(); readings and intervals live in caller storage.
 */
#ifndef IPCC_COUNTERS_H
#define IPCC_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The counters an interval reports. */
enum ipcc_counter {
	IPCC_INSTRUCTIONS,     /* instructions retired (user mode) */
	IPCC_CYCLES,	       /* core cycles, not halted (user mode) */
	IPCC_REF_CYCLES,       /* reference (constant-rate) cycles, not halted */
	IPCC_SLOTS_TOTAL,      /* issue slots: width x cycles */
	IPCC_SLOTS_FILLED,     /* slots the front end delivered into */
	IPCC_SLOTS_ISSUED,     /* slots actually issued (allocated) */
	IPCC_SLOTS_RETIRED,    /* slots whose work retired */
	IPCC_SLOTS_SMT,	       /* slots lost to the SMT sibling (part of filled - issued) */
	IPCC_INSTRUCTIONS_K,   /* instructions retired in kernel mode */
	IPCC_CYCLES_K,	       /* core cycles in kernel mode */
	IPCC_TASK_CLOCK_NS,    /* software: ns on a CPU */
	IPCC_CONTEXT_SWITCHES, /* software */
	IPCC_MIGRATIONS,       /* software: moves between CPUs */
	IPCC_PAGE_FAULTS,      /* software */
	IPCC_NCOUNTERS
};

/* A stable name for a counter: "instructions", "slots_total", "page_faults", ... */
const char *ipcc_counter_name(enum ipcc_counter c);

enum ipcc_backend {
	IPCC_BACKEND_AUTO, /* perf where the PMU can be opened, otherwise time */
	IPCC_BACKEND_PERF,
	IPCC_BACKEND_TIME,
	IPCC_BACKEND_MODEL
};

const char *ipcc_backend_name(enum ipcc_backend b);

/* The most events a set opens: the recipe's, kernel-mode, software and extra ones. */
#define IPCC_MAX_EVENTS 24
#define IPCC_MAX_EXTRA	8

struct ipcc_counters_opts {
	enum ipcc_backend backend;
	pid_t pid;		  /* 0: the calling thread; otherwise that task */
	bool inherit;		  /* count the task's future children too (read() only) */
	bool enable_on_exec;	  /* start counting when the task calls exec */
	bool kernel;		  /* add kernel-mode instructions and cycles */
	bool software;		  /* add task-clock, context switches, migrations, page faults */
	const char *const *extra; /* more events, by libpfm4 name */
	unsigned nextra;
};

/* One snapshot of every event of a set, at one instant. */
struct ipcc_reading {
	uint64_t ticks;		       /* the time counter, raw (ipcc_ticks()); ns in intervals */
	uint64_t raw[IPCC_MAX_EVENTS]; /* the set's events, in its order */
	uint64_t enabled[IPCC_MAX_EVENTS]; /* ns each was enabled (multiplexing) */
	uint64_t running[IPCC_MAX_EVENTS]; /* ns each was counting */
	uint32_t valid;			   /* bit e: raw[e] was read */
	uint32_t via_read;		   /* bit e: read() had to stand in for rdpmc */
};

/* The difference of two readings, as counters. */
struct ipcc_interval {
	uint64_t elapsed_ns;
	/*
	 * Scaled by enabled/running where multiplexed. Signed: a slot counter derived from raw
	 * counts that disagree can come out negative, and is kept as it came out.
	 */
	int64_t value[IPCC_NCOUNTERS];
	double coverage[IPCC_NCOUNTERS]; /* the share of the interval its events counted, 0..1 */
	uint32_t valid;			 /* bit c: value[c] is a measurement */
	uint64_t extra[IPCC_MAX_EXTRA];	 /* the extra events, scaled */
	double extra_coverage[IPCC_MAX_EXTRA];
	uint32_t extra_valid;
	unsigned width; /* slots per cycle of the recipe, 0 if none */
	bool via_read;	/* some event needed read() in either reading */
};

struct ipcc_counter_set;

/* Open a counter set. On failure *out is NULL and ipcc_last_error() says why. */
int ipcc_counters_open(const struct ipcc_counters_opts *opts, struct ipcc_counter_set **out);

/*
 * A set for counts the model backend gives (model_backend.h): no events of its own; it names
 * the backend, the CPU and why the counters the model cannot give are absent. `width` is
 * the model's slots per cycle; `kernel`, whether the profile gives the kernel's cycles
 * (its page faults count either way). ipcc_read() on it fails.
 */
int ipcc_counters_model(unsigned width, bool kernel, struct ipcc_counter_set **out);

/* Close every fd and mapping of the set and free it. NULL is a no-op. */
void ipcc_counters_free(struct ipcc_counter_set *set);

/* Read every event of the set (the calling thread's own set: rdpmc, no system call). */
int ipcc_read(struct ipcc_counter_set *set, struct ipcc_reading *r);

/* Start, stop and zero counting (a set opened with enable_on_exec starts by itself). */
int ipcc_counters_enable(struct ipcc_counter_set *set);
int ipcc_counters_disable(struct ipcc_counter_set *set);

/* b - a as counters. Both readings must come from `set`. */
int ipcc_interval(const struct ipcc_counter_set *set, const struct ipcc_reading *a,
		  const struct ipcc_reading *b, struct ipcc_interval *out);

/*
 * Add interval `iv` (another thread's, say) into `sum`: values add, a counter stays valid only
 * if it is valid in both, coverage is the lower, elapsed the longer. A zeroed `sum` (all
 * fields 0) takes `iv` as it is.
 */
void ipcc_interval_add(struct ipcc_interval *sum, const struct ipcc_interval *iv);

/* The backend the set ended up with (never AUTO). */
enum ipcc_backend ipcc_counters_backend(const struct ipcc_counter_set *set);

/*
 * Whether `name` (an -e event) names an event: one of libpfm4's table for this CPU's core
 * (forced to the closest table where libpfm4 is older than the CPU), of the PMU it names
 * ("pmu::EVENT"), or of perf's generic events. 0 when it does, even where this machine
 * cannot count it (a machine without a PMU: the event is then absent, with the reason);
 * IPCC_EINVAL when no table knows it, with the three nearest names in ipcc_last_error();
 * IPCC_ENOTSUP when there is no table to look in.
 */
int ipcc_event_check(const char *name);

/* The CPU, as ipcc_cpu_describe() writes it ("AMD family 0x1a model 0x2 (Zen 5)"). */
const char *ipcc_counters_cpu(const struct ipcc_counter_set *set);

/*
 * The recipe the CPU table names for this CPU, whether or not the set counts with it (a
 * machine without a PMU still has one); NULL when the table has none.
 */
const char *ipcc_counters_cpu_recipe(const struct ipcc_counter_set *set);

/* The recipe's name ("amd-zen3"), or NULL when the set counts with none. */
const char *ipcc_counters_recipe(const struct ipcc_counter_set *set);

/* When the recipe's slot counters are an approximation, why; otherwise NULL. */
const char *ipcc_counters_approximation(const struct ipcc_counter_set *set);

/*
 * When the recipe's top-down level 1 differs from the kernel's own (perf's TopdownL1) on this
 * machine, how; otherwise NULL (the two agree on the same counts).
 */
const char *ipcc_counters_differs_from_kernel(const struct ipcc_counter_set *set);

/* Why counter `c` is absent from this set, or NULL if the set counts it. */
const char *ipcc_counters_absent(const struct ipcc_counter_set *set, enum ipcc_counter c);

/* Notes about how the set was built (encodings corrected, ...), one per line, or "". */
const char *ipcc_counters_notes(const struct ipcc_counter_set *set);

/* The extra events: their names, and why one is absent (NULL if counted). */
unsigned ipcc_counters_nextra(const struct ipcc_counter_set *set);
const char *ipcc_counters_extra_name(const struct ipcc_counter_set *set, unsigned i);
const char *ipcc_counters_extra_absent(const struct ipcc_counter_set *set, unsigned i);

#endif
