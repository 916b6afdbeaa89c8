/*
 * counters.c - counter sets: opening a recipe's events through the kernel seam, reading them
 * with rdpmc from the mmap page, and turning two readings into an interval.
 *
 * A set holds up to three perf groups: the recipe's events (leader pinned, so the slot
 * counters are always counted together or not at all), the kernel-mode and extra events (not
 * pinned: they may multiplex), and each software event on its own. The `time` backend opens
 * only the software events. See docs/internals/counters.md.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch_int.h"
#include "error_int.h"
#include "ipcc/cpu.h"
#include "ipcc/clock.h"
#include "ipcc/counters.h"
#include "perf_sys_int.h"
#include "pmu_int.h"
#include "recipes_int.h"

#define REASON_LEN 224

enum ev_kind { EV_RECIPE, EV_KERNEL, EV_SOFTWARE, EV_EXTRA };

struct event {
	enum ev_kind kind;
	char name[96];
	int fd;				   /* -1: not open */
	struct perf_event_mmap_page *page; /* NULL: read() only */
	char absent[REASON_LEN];	   /* why it is not counted; "" if it is */
};

struct ipcc_counter_set {
	struct ipcc_counters_opts opts;
	enum ipcc_backend backend;
	const struct recipe *recipe;
	const struct recipe *cpu_recipe; /* this CPU's, counting or not */
	char cpu[128];			 /* ipcc_cpu_describe() */
	unsigned width;
	struct event ev[IPCC_MAX_EVENTS];
	unsigned nev;
	int recipe_ev[RECIPE_MAX_EVENTS]; /* the set's event for each recipe event, or -1 */
	int counter_ev[IPCC_NCOUNTERS];	  /* kernel-mode and software counters' events, or -1 */
	int extra_ev[IPCC_MAX_EXTRA];
	int leaders[2];		    /* the recipe group's and the other hardware group's */
	char hw_reason[REASON_LEN]; /* why hardware counting is off, "" if it is on */
	char absent[IPCC_NCOUNTERS][REASON_LEN];
	char notes[1024];
	size_t page_size;
	/* The read path's view: events read with rdpmc, then those read with read(). */
	struct fast_event {
		const struct perf_event_mmap_page *page;
		uint8_t slot; /* its index in the reading */
		bool timed;   /* not pinned: may be multiplexed, so read its times */
	} fast[IPCC_MAX_EVENTS];
	unsigned nfast;
	uint8_t slow[IPCC_MAX_EVENTS];
	unsigned nslow;
	int (*read)(struct ipcc_counter_set *set, struct ipcc_reading *r);
};

static const char *const counter_names[IPCC_NCOUNTERS] = {
	[IPCC_INSTRUCTIONS] = "instructions",
	[IPCC_CYCLES] = "cycles",
	[IPCC_REF_CYCLES] = "ref_cycles",
	[IPCC_SLOTS_TOTAL] = "slots_total",
	[IPCC_SLOTS_FILLED] = "slots_filled",
	[IPCC_SLOTS_ISSUED] = "slots_issued",
	[IPCC_SLOTS_RETIRED] = "slots_retired",
	[IPCC_SLOTS_SMT] = "slots_smt",
	[IPCC_INSTRUCTIONS_K] = "instructions_kernel",
	[IPCC_CYCLES_K] = "cycles_kernel",
	[IPCC_TASK_CLOCK_NS] = "task_clock_ns",
	[IPCC_CONTEXT_SWITCHES] = "context_switches",
	[IPCC_MIGRATIONS] = "migrations",
	[IPCC_PAGE_FAULTS] = "page_faults",
};

const char *ipcc_counter_name(enum ipcc_counter c)
{
	return (unsigned)c < IPCC_NCOUNTERS ? counter_names[c] : "unknown";
}

const char *ipcc_backend_name(enum ipcc_backend b)
{
	static const char *const names[] = { "auto", "perf", "time", "model" };

	return (unsigned)b < sizeof(names) / sizeof(names[0]) ? names[b] : "unknown";
}

/* ---- opening --------------------------------------------------------------------------- */

static struct event *add_event(struct ipcc_counter_set *set, enum ev_kind kind, const char *name)
{
	struct event *e;

	if (set->nev == IPCC_MAX_EVENTS)
		return NULL;
	e = &set->ev[set->nev++];
	e->kind = kind;
	e->fd = -1;
	snprintf(e->name, sizeof(e->name), "%s", name);
	return e;
}

static void note(struct ipcc_counter_set *set, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(struct ipcc_counter_set *set, const char *fmt, ...)
{
	size_t len = strlen(set->notes);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set->notes + len, sizeof(set->notes) - len, fmt, ap);
	va_end(ap);
	len = strlen(set->notes);
	if (len + 1 < sizeof(set->notes)) {
		set->notes[len] = '\n';
		set->notes[len + 1] = '\0';
	}
}

/*
 * Open one hardware event into group *leader (or as a new group's leader). Returns the errno
 * of a failed open (the reason is in e->absent), 0 on success.
 */
static int open_hw(struct ipcc_counter_set *set, struct event *e, struct perf_event_attr *attr,
		   int *leader, bool pinned, bool kmode)
{
	const struct ipcc_counters_opts *o = &set->opts;
	int fd;

	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->inherit = o->inherit;
	attr->exclude_hv = 1;
	if (*leader < 0) {
		attr->pinned = pinned;
		attr->disabled = o->enable_on_exec;
		attr->enable_on_exec = o->enable_on_exec;
	}
	fd = perf_sys->perf_event_open(attr, o->pid, -1, *leader, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		pmu_open_reason(err, e->name, kmode, e->absent, sizeof(e->absent));
		return err;
	}
	e->fd = fd;
	if (*leader < 0)
		*leader = fd;
	/* Only a thread's own, non-inherited events can be read from user space. */
	if (o->pid == 0 && !o->inherit) {
		void *page = perf_sys->mmap(set->page_size, fd);

		if (page != MAP_FAILED)
			e->page = page;
	}
	return 0;
}

/* Encode a recipe or extra event, checking libpfm4 against the vendor's encoding. */
static int encode(struct ipcc_counter_set *set, struct event *e, const char *name,
		  uint64_t vendor_config, bool kmode, struct perf_event_attr *attr)
{
	if (pmu_encode(name, kmode, attr)) {
		if (!vendor_config) {
			snprintf(e->absent, sizeof(e->absent), "%s", ipcc_last_error());
			return -1;
		}
		/* A table older than the core: the vendor's raw encoding stands alone. */
		if (!kmode)
			note(set, "%s; using the vendor's encoding %#llx", ipcc_last_error(),
			     (unsigned long long)vendor_config);
		memset(attr, 0, sizeof(*attr));
		attr->size = sizeof(*attr);
		attr->type = PERF_TYPE_RAW;
		attr->config = vendor_config;
		attr->exclude_kernel = !kmode;
		attr->exclude_user = kmode;
		return 0;
	}
	if (vendor_config && attr->type == PERF_TYPE_RAW && attr->config != vendor_config) {
		if (!kmode)
			note(set,
			     "libpfm4 %s encodes %s as %#llx; the vendor documents %#llx: using "
			     "the vendor's encoding",
			     pmu_libpfm_version(), name, (unsigned long long)attr->config,
			     (unsigned long long)vendor_config);
		attr->config = vendor_config;
	}
	return 0;
}

/* This CPU and its recipe, from the CPU table alone: no libpfm4, so it costs ~nothing. */
static void describe_cpu(struct ipcc_counter_set *set)
{
	struct ipcc_cpu cpu;

	if (ipcc_cpu_identify(&cpu) != 0) {
		snprintf(set->cpu, sizeof(set->cpu), "unknown CPU");
		return;
	}
	ipcc_cpu_describe(&cpu, set->cpu, sizeof(set->cpu));
	set->cpu_recipe = recipe_for_pmu(cpu.pmu);
}

/*
 * The recipe: IPCC_RECIPE's; with LIBPFM_FORCE_PMU set, the forced PMU's; else the one for
 * the core the CPU table names (libpfm4 may be older than the CPU); else libpfm4's detected
 * PMU's; else the kernel's generic events.
 */
static const struct recipe *pick_recipe(struct ipcc_counter_set *set)
{
	const char *forced = getenv("IPCC_RECIPE");
	const char *pfm_forced = getenv("LIBPFM_FORCE_PMU");
	const char *pmu = pmu_detected();
	const struct recipe *r = NULL;
	struct ipcc_cpu cpu;
	char what[128] = "this CPU";

	if (*pmu_table_note())
		note(set, "%s", pmu_table_note());
	if (forced && *forced) {
		r = recipe_by_name(forced);
		if (r)
			return r;
		note(set, "IPCC_RECIPE=%s names no recipe: ignored", forced);
	}
	if (!(pfm_forced && *pfm_forced) && ipcc_cpu_identify(&cpu) == 0) {
		ipcc_cpu_describe(&cpu, what, sizeof(what));
		r = recipe_for_pmu(cpu.pmu);
	}
	if (!r)
		r = recipe_for_pmu(pmu);
	if (!r) {
		r = recipe_by_name("generic");
		note(set, "no recipe for %s%s%s: only the kernel's generic events", what,
		     *pmu ? ", libpfm4 PMU " : " (libpfm4 detects no core PMU)", pmu);
	}
	return r;
}

/*
 * Open the recipe group, then the kernel-mode and extra events. Returns 0 when the recipe
 * group has a leader; otherwise the reason is in set->hw_reason.
 */
static int open_hardware(struct ipcc_counter_set *set)
{
	const struct ipcc_counters_opts *o = &set->opts;
	const struct recipe *r = pick_recipe(set);
	int leader = -1, other = -1;

	set->recipe = r;
	set->width = r->width ? r->width : pmu_sysfs_slots();
	for (unsigned i = 0; i < r->nev; i++) {
		struct perf_event_attr attr;
		struct event *e = add_event(set, EV_RECIPE, r->ev[i].name);

		set->recipe_ev[i] = (int)(e - set->ev);
		if (encode(set, e, r->ev[i].name, r->ev[i].config, false, &attr))
			continue;
		int err = open_hw(set, e, &attr, &leader, true, false);

		/* No PMU or no permission: nothing else will open either. */
		if (err && leader < 0 &&
		    (err == ENOENT || err == ENODEV || err == EACCES || err == EPERM)) {
			snprintf(set->hw_reason, sizeof(set->hw_reason), "%s", e->absent);
			return -1;
		}
	}
	if (leader < 0) {
		snprintf(set->hw_reason, sizeof(set->hw_reason),
			 "no event of recipe %s could be opened", r->name);
		return -1;
	}
	set->leaders[0] = leader;

	if (o->kernel) {
		const int which[2] = { r->instructions, r->cycles };
		const enum ipcc_counter ctr[2] = { IPCC_INSTRUCTIONS_K, IPCC_CYCLES_K };

		for (int k = 0; k < 2; k++) {
			struct perf_event_attr attr;
			struct event *e;
			char name[96];

			if (which[k] < 0)
				continue;
			snprintf(name, sizeof(name), "%s:k", r->ev[which[k]].name);
			e = add_event(set, EV_KERNEL, name);
			if (!e)
				break;
			set->counter_ev[ctr[k]] = (int)(e - set->ev);
			if (encode(set, e, r->ev[which[k]].name, r->ev[which[k]].config, true,
				   &attr))
				continue;
			open_hw(set, e, &attr, &other, false, true);
		}
	}
	for (unsigned x = 0; x < o->nextra; x++) {
		struct perf_event_attr attr;
		struct event *e = add_event(set, EV_EXTRA, o->extra[x]);

		if (!e)
			break;
		set->extra_ev[x] = (int)(e - set->ev);
		if (encode(set, e, o->extra[x], 0, false, &attr))
			continue;
		open_hw(set, e, &attr, &other, false, false);
	}
	set->leaders[1] = other;
	return 0;
}

static void open_software(struct ipcc_counter_set *set)
{
	static const struct {
		enum ipcc_counter ctr;
		uint64_t config;
		const char *name;
		bool kernel_only; /* happens in kernel mode: invisible with exclude_kernel */
	} sw[] = {
		{ IPCC_TASK_CLOCK_NS, PERF_COUNT_SW_TASK_CLOCK, "task-clock", false },
		{ IPCC_CONTEXT_SWITCHES, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", true },
		{ IPCC_MIGRATIONS, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", true },
		{ IPCC_PAGE_FAULTS, PERF_COUNT_SW_PAGE_FAULTS, "page-faults", false },
	};
	const struct ipcc_counters_opts *o = &set->opts;

	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_SOFTWARE,
			.config = sw[i].config,
			.read_format =
			    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
			.inherit = o->inherit,
			.disabled = o->enable_on_exec,
			.enable_on_exec = o->enable_on_exec,
			.exclude_hv = 1,
		};
		struct event *e = add_event(set, EV_SOFTWARE, sw[i].name);
		int fd;

		if (!e)
			break;
		set->counter_ev[sw[i].ctr] = (int)(e - set->ev);
		fd = perf_sys->perf_event_open(&attr, o->pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			/* Without kernel-mode counting, only what user mode causes is seen. */
			if (sw[i].kernel_only) {
				pmu_open_reason(errno, e->name, true, e->absent, sizeof(e->absent));
				continue;
			}
			attr.exclude_kernel = 1;
			fd = perf_sys->perf_event_open(&attr, o->pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			pmu_open_reason(errno, e->name, false, e->absent, sizeof(e->absent));
			continue;
		}
		e->fd = fd;
	}
}

/* Why an event of the set is not counted, in words; "" if it is. */
static const char *event_absent(const struct ipcc_counter_set *set, int i)
{
	if (i < 0)
		return "not asked for";
	if (set->ev[i].fd >= 0)
		return "";
	if (set->ev[i].kind != EV_SOFTWARE && *set->hw_reason)
		return set->hw_reason;
	return set->ev[i].absent;
}

static void set_absent(struct ipcc_counter_set *set, enum ipcc_counter c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_absent(struct ipcc_counter_set *set, enum ipcc_counter c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set->absent[c], sizeof(set->absent[c]), fmt, ap);
	va_end(ap);
}

/* The recipe events a slot counter depends on, directly or through earlier slot counters. */
static uint32_t slot_deps(const struct recipe *r, int s)
{
	uint32_t deps = 0;

	for (unsigned t = 0; t < r->slot[s].n; t++) {
		int src = r->slot[s].t[t].src;

		deps |= src >= SRC_TOTAL ? slot_deps(r, src - SRC_TOTAL) : 1u << src;
	}
	if (s == SLOT_RETIRED && r->op_spec >= 0)
		deps |= slot_deps(r, SLOT_ISSUED) | 1u << r->op_retired | 1u << r->op_spec;
	return deps;
}

static void explain_slots(struct ipcc_counter_set *set)
{
	const struct recipe *r = set->recipe;

	for (int s = SLOT_TOTAL; s < NSLOTS; s++) {
		enum ipcc_counter c = IPCC_SLOTS_TOTAL + s;
		uint32_t deps = slot_deps(r, s);

		if (!deps) {
			set_absent(set, c, "recipe %s has no %s", r->name,
				   s == SLOT_SMT ? "SMT-contention event" : "slot events");
			continue;
		}
		if (set->width == 0) {
			set_absent(set, c,
				   "the slot width is unknown (PMMIR_EL1.SLOTS, sysfs "
				   "caps/slots, reads 0)");
			continue;
		}
		for (unsigned i = 0; i < r->nev; i++) {
			const char *why = event_absent(set, set->recipe_ev[i]);

			if ((deps & (1u << i)) && *why) {
				set_absent(set, c, "needs %s: %s", r->ev[i].name, why);
				break;
			}
		}
	}
}

/* The reason for every absent counter. */
static void explain(struct ipcc_counter_set *set)
{
	const struct recipe *r = set->recipe;
	const char *why;

	if (!r) { /* time backend chosen: no recipe was looked at */
		for (int c = IPCC_INSTRUCTIONS; c <= IPCC_CYCLES_K; c++)
			if (c >= IPCC_INSTRUCTIONS_K && !set->opts.kernel)
				set_absent(set, c, "kernel-mode counting not asked for");
			else
				set_absent(set, c, "%s",
					   *set->hw_reason ? set->hw_reason
							   : "the time backend "
							     "counts no hardware "
							     "events");
	} else {
		const int single[3] = { r->instructions, r->cycles, r->ref_cycles };

		for (int c = IPCC_INSTRUCTIONS; c <= IPCC_REF_CYCLES; c++) {
			if (single[c] < 0) {
				set_absent(set, c, "%s",
					   r->no_ref_cycles ? r->no_ref_cycles
							    : "not in the recipe");
				continue;
			}
			why = event_absent(set, set->recipe_ev[single[c]]);
			if (*why)
				set_absent(set, c, "%s", why);
		}
		explain_slots(set);
		for (int c = IPCC_INSTRUCTIONS_K; c <= IPCC_CYCLES_K; c++) {
			if (!set->opts.kernel) {
				set_absent(set, c, "kernel-mode counting not asked for");
				continue;
			}
			why = event_absent(set, set->counter_ev[c]);
			if (*why)
				set_absent(set, c, "%s", why);
		}
	}
	for (int c = IPCC_TASK_CLOCK_NS; c <= IPCC_PAGE_FAULTS; c++) {
		why = set->opts.software ? event_absent(set, set->counter_ev[c])
					 : "software counters not asked for";
		if (*why)
			set_absent(set, c, "%s", why);
	}
}

/* ---- reading --------------------------------------------------------------------------- */

/* read() of one event: {value, time_enabled, time_running}. */
static int read_fd(int fd, uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	uint64_t buf[3];

	if (perf_sys->read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return -1; /* 0 bytes: a pinned group the kernel could not schedule */
	*value = buf[0];
	*enabled = buf[1];
	*running = buf[2];
	return 0;
}

/*
 * The read path, written once and instantiated twice: with the rdpmc instruction inlined
 * (the real kernel), and with the seam's rdpmc (a fake kernel in the tests). Per event: the
 * mmap page's seqlock loop, rdpmc(index - 1) sign-extended from pmc_width bits, plus offset;
 * read() only when the page says the counter is not on the PMU now (index 0).
 */
static inline __attribute__((always_inline)) int
read_set(struct ipcc_counter_set *set, struct ipcc_reading *r, uint64_t (*rdpmc)(uint32_t))
{
	uint32_t valid = 0, via_read = 0;

	for (unsigned k = 0; k < set->nfast; k++) {
		const volatile struct perf_event_mmap_page *pg = set->fast[k].page;
		const bool timed = set->fast[k].timed;
		const unsigned i = set->fast[k].slot;
		uint64_t count, enabled = 0, running = 0;
		uint32_t seq, idx;
		bool user;

		do {
			seq = pg->lock;
			__asm__ volatile("" ::: "memory");
			idx = pg->index;
			user = pg->cap_user_rdpmc;
			count = pg->offset;
			if (timed) {
				enabled = pg->time_enabled;
				running = pg->time_running;
			}
			if (user && idx) {
				unsigned width = pg->pmc_width;
				uint64_t pmc = rdpmc(idx - 1);

				if (width > 0 && width < 64) {
					pmc <<= 64 - width;
					pmc = (uint64_t)((int64_t)pmc >> (64 - width));
				}
				count += pmc;
			}
			__asm__ volatile("" ::: "memory");
		} while (pg->lock != seq);
		if (user && idx) {
			/* A pinned event's times are not needed: ipcc_interval() ignores them. */
			r->raw[i] = count;
			if (timed) {
				r->enabled[i] = enabled;
				r->running[i] = running;
			}
			valid |= 1u << i;
			continue;
		}
		via_read |= 1u << i;
		if (read_fd(set->ev[i].fd, &r->raw[i], &r->enabled[i], &r->running[i]) == 0)
			valid |= 1u << i;
	}
	r->ticks = ipcc_ticks();
	for (unsigned k = 0; k < set->nslow; k++) {
		const unsigned i = set->slow[k];

		if (read_fd(set->ev[i].fd, &r->raw[i], &r->enabled[i], &r->running[i]) == 0)
			valid |= 1u << i;
	}
	r->valid = valid;
	r->via_read = via_read;
	return 0;
}

static uint64_t rdpmc_insn(uint32_t counter)
{
	return arch_rdpmc(counter);
}

static int read_native(struct ipcc_counter_set *set, struct ipcc_reading *r)
{
	return read_set(set, r, rdpmc_insn);
}

static int read_seam(struct ipcc_counter_set *set, struct ipcc_reading *r)
{
	return read_set(set, r, perf_sys->rdpmc);
}

/* Sort the open events into the read path's two lists. */
static void plan_reads(struct ipcc_counter_set *set)
{
	set->nfast = set->nslow = 0;
	for (unsigned i = 0; i < set->nev; i++) {
		const struct event *e = &set->ev[i];

		if (e->fd < 0)
			continue;
		if (e->page)
			set->fast[set->nfast++] =
			    (struct fast_event){ e->page, (uint8_t)i, e->kind != EV_RECIPE };
		else
			set->slow[set->nslow++] = (uint8_t)i;
	}
}

int ipcc_read(struct ipcc_counter_set *set, struct ipcc_reading *r)
{
	if (!set->read)
		return err_set(IPCC_ENOTSUP, "the model backend's counts are read from its run, "
					     "not from the set");
	return set->read(set, r);
}

/* ---- lifecycle ------------------------------------------------------------------------- */

static void close_events(struct ipcc_counter_set *set, bool hardware_only)
{
	for (unsigned i = 0; i < set->nev; i++) {
		struct event *e = &set->ev[i];

		if (hardware_only && e->kind == EV_SOFTWARE)
			continue;
		if (e->page)
			perf_sys->munmap(e->page, set->page_size);
		if (e->fd >= 0)
			perf_sys->close(e->fd);
		e->page = NULL;
		e->fd = -1;
	}
}

int ipcc_counters_open(const struct ipcc_counters_opts *opts, struct ipcc_counter_set **out)
{
	struct ipcc_counter_set *set;
	int ret;

	*out = NULL;
	if (opts->nextra > IPCC_MAX_EXTRA)
		return err_set(IPCC_EINVAL, "at most %d extra events, not %u", IPCC_MAX_EXTRA,
			       opts->nextra);
	if (opts->backend == IPCC_BACKEND_MODEL)
		return err_set(IPCC_ENOTSUP,
			       "the model backend counts whole programs under Valgrind (ipcc stat "
			       "--backend model); a set opened in the program cannot use it");
	set = calloc(1, sizeof(*set));
	if (!set)
		return err_set(IPCC_ENOMEM, "counter set: out of memory");
	set->opts = *opts;
	set->page_size = (size_t)sysconf(_SC_PAGESIZE);
	set->leaders[0] = set->leaders[1] = -1;
	memset(set->recipe_ev, -1, sizeof(set->recipe_ev));
	memset(set->counter_ev, -1, sizeof(set->counter_ev));
	memset(set->extra_ev, -1, sizeof(set->extra_ev));

	describe_cpu(set);
	set->backend = opts->backend == IPCC_BACKEND_TIME ? IPCC_BACKEND_TIME : IPCC_BACKEND_PERF;
	/* auto, and sysfs shows no core PMU: skip libpfm4 and the opens (~1 ms) that would fail. */
	if (opts->backend == IPCC_BACKEND_AUTO && !pmu_sysfs_present()) {
		pmu_open_reason(ENOENT, "cycles", false, set->hw_reason, sizeof(set->hw_reason));
		set->backend = IPCC_BACKEND_TIME;
	}
	if (set->backend == IPCC_BACKEND_PERF && open_hardware(set) != 0) {
		if (opts->backend == IPCC_BACKEND_PERF) {
			ret =
			    err_set(strstr(set->hw_reason, "paranoid") ? IPCC_EACCES : IPCC_ENOTSUP,
				    "the perf backend cannot count: %s", set->hw_reason);
			ipcc_counters_free(set);
			return ret;
		}
		/* Keep the extra events' names for the reasons; drop the rest. */
		close_events(set, true);
		set->backend = IPCC_BACKEND_TIME;
		set->recipe = NULL;
	}
	if (set->backend == IPCC_BACKEND_TIME) {
		/* Hardware-event slots are not counted; only extra names survive, for reasons. */
		unsigned kept = 0;

		for (unsigned i = 0; i < set->nev; i++)
			if (set->ev[i].kind == EV_EXTRA)
				set->extra_ev[kept++] = (int)i;
		memset(set->recipe_ev, -1, sizeof(set->recipe_ev));
	}
	for (unsigned x = 0; x < opts->nextra; x++)
		if (set->extra_ev[x] < 0) {
			struct event *e = add_event(set, EV_EXTRA, opts->extra[x]);

			if (e)
				set->extra_ev[x] = (int)(e - set->ev);
		}
	if (opts->software)
		open_software(set);
	explain(set);
	set->opts.extra = NULL; /* the names are copied into the events: the caller's may go */
	plan_reads(set);
	set->read = perf_sys == &perf_sys_linux ? read_native : read_seam;
	*out = set;
	return 0;
}

int ipcc_counters_model(unsigned width, bool kernel, struct ipcc_counter_set **out)
{
	struct ipcc_counter_set *set = calloc(1, sizeof(*set));

	*out = NULL;
	if (!set)
		return err_set(IPCC_ENOMEM, "counter set: out of memory");
	set->opts.backend = IPCC_BACKEND_MODEL;
	set->backend = IPCC_BACKEND_MODEL;
	set->width = width;
	set->leaders[0] = set->leaders[1] = -1;
	memset(set->recipe_ev, -1, sizeof(set->recipe_ev));
	memset(set->counter_ev, -1, sizeof(set->counter_ev));
	memset(set->extra_ev, -1, sizeof(set->extra_ev));
	describe_cpu(set);
	for (int c = 0; c < IPCC_NCOUNTERS; c++)
		snprintf(set->absent[c], sizeof(set->absent[c]), "%s",
			 c == IPCC_SLOTS_SMT ? "the model runs each thread alone: no SMT sibling"
			 : c == IPCC_INSTRUCTIONS_K
			     ? "the model backend runs user-mode code only: the kernel's part is "
			       "modelled as cycles, from the run's page faults and system calls"
			 : c == IPCC_CYCLES_K
			     ? "this profile has no fault_cycles: the kernel's part is left out"
			     : "a run under Valgrind is not the program's own: the model backend "
			       "counts no software events");
	for (int c = IPCC_INSTRUCTIONS; c <= IPCC_CYCLES_K; c++)
		if (c != IPCC_SLOTS_SMT && c != IPCC_INSTRUCTIONS_K &&
		    (c != IPCC_CYCLES_K || kernel))
			set->absent[c][0] = 0;
	set->absent[IPCC_PAGE_FAULTS][0] = 0; /* a page's first touch, the tool's count */
	set->read = NULL;
	*out = set;
	return 0;
}

void ipcc_counters_free(struct ipcc_counter_set *set)
{
	if (!set)
		return;
	close_events(set, false);
	free(set);
}

static int ioctl_all(struct ipcc_counter_set *set, unsigned long req)
{
	for (int g = 0; g < 2; g++)
		if (set->leaders[g] >= 0 &&
		    perf_sys->ioctl(set->leaders[g], req, PERF_IOC_FLAG_GROUP) != 0)
			return err_sys("perf event ioctl");
	for (unsigned i = 0; i < set->nev; i++)
		if (set->ev[i].kind == EV_SOFTWARE && set->ev[i].fd >= 0 &&
		    perf_sys->ioctl(set->ev[i].fd, req, 0) != 0)
			return err_sys("perf event ioctl");
	return 0;
}

int ipcc_counters_enable(struct ipcc_counter_set *set)
{
	return ioctl_all(set, PERF_EVENT_IOC_ENABLE);
}

int ipcc_counters_disable(struct ipcc_counter_set *set)
{
	return ioctl_all(set, PERF_EVENT_IOC_DISABLE);
}

/* ---- intervals ------------------------------------------------------------------------- */

int ipcc_interval(const struct ipcc_counter_set *set, const struct ipcc_reading *a,
		  const struct ipcc_reading *b, struct ipcc_interval *out)
{
	const struct recipe *r = set->recipe;
	double d[IPCC_MAX_EVENTS], cov[IPCC_MAX_EVENTS];
	uint32_t ok = a->valid & b->valid;

	memset(out, 0, sizeof(*out));
	out->elapsed_ns = ipcc_clock_init() == 0 ? ipcc_ticks_to_ns(b->ticks - a->ticks) : 0;
	out->width = r ? set->width : 0;
	out->via_read = (a->via_read | b->via_read) != 0;

	/*
	 * Per event: the difference (wrap-safe in 64 bits), scaled where it was multiplexed. The
	 * recipe's group is pinned: it is on the PMU all the time or in error (then read() fails
	 * and the event is invalid), never multiplexed, so its times are not needed, nor read
	 * on the rdpmc path.
	 */
	for (unsigned i = 0; i < set->nev; i++) {
		bool pinned = set->ev[i].kind == EV_RECIPE;
		uint64_t delta = b->raw[i] - a->raw[i];
		uint64_t en = pinned ? 0 : b->enabled[i] - a->enabled[i];
		uint64_t run = pinned ? 0 : b->running[i] - a->running[i];

		if (!(ok & (1u << i)))
			continue;
		if (en == 0 || run >= en) {
			d[i] = (double)delta;
			cov[i] = 1.0;
		} else if (run == 0) {
			ok &= ~(1u << i); /* never on the PMU during the interval */
		} else {
			d[i] = (double)delta * (double)en / (double)run;
			cov[i] = (double)run / (double)en;
		}
	}

	if (r) {
		double rv[RECIPE_MAX_EVENTS] = { 0 }, slots[NSLOTS], rcov = 1.0;
		uint32_t rvalid = 0;
		unsigned have;
		const int single[3] = { r->instructions, r->cycles, r->ref_cycles };

		for (unsigned k = 0; k < r->nev; k++) {
			int i = set->recipe_ev[k];

			if (i >= 0 && (ok & (1u << i))) {
				rv[k] = d[i];
				rvalid |= 1u << k;
				rcov = fmin(rcov, cov[i]);
			}
		}
		for (int c = 0; c < 3; c++) {
			if (single[c] >= 0 && (rvalid & (1u << single[c]))) {
				int i = set->recipe_ev[single[c]];

				out->value[c] = llround(rv[single[c]]);
				out->coverage[c] = cov[i];
				out->valid |= 1u << c;
			}
		}
		have = recipe_slots(r, set->width, rv, rvalid, slots);
		for (int s = 0; s < NSLOTS; s++) {
			if (have & (1u << s)) {
				out->value[IPCC_SLOTS_TOTAL + s] = llround(slots[s]);
				out->coverage[IPCC_SLOTS_TOTAL + s] = rcov;
				out->valid |= 1u << (IPCC_SLOTS_TOTAL + s);
			}
		}
	}
	for (int c = IPCC_INSTRUCTIONS_K; c < IPCC_NCOUNTERS; c++) {
		int i = set->counter_ev[c];

		if (i >= 0 && (ok & (1u << i))) {
			out->value[c] = llround(d[i]);
			out->coverage[c] = cov[i];
			out->valid |= 1u << c;
		}
	}
	for (unsigned x = 0; x < set->opts.nextra; x++) {
		int i = set->extra_ev[x];

		if (i >= 0 && set->ev[i].fd >= 0 && (ok & (1u << i))) {
			out->extra[x] = (uint64_t)llround(d[i]);
			out->extra_coverage[x] = cov[i];
			out->extra_valid |= 1u << x;
		}
	}
	return 0;
}

void ipcc_interval_add(struct ipcc_interval *sum, const struct ipcc_interval *iv)
{
	static const struct ipcc_interval zero;

	if (memcmp(sum, &zero, sizeof(zero)) == 0) {
		*sum = *iv;
		return;
	}
	if (iv->elapsed_ns > sum->elapsed_ns)
		sum->elapsed_ns = iv->elapsed_ns;
	sum->valid &= iv->valid;
	for (int c = 0; c < IPCC_NCOUNTERS; c++) {
		sum->value[c] += iv->value[c];
		sum->coverage[c] = fmin(sum->coverage[c], iv->coverage[c]);
	}
	sum->extra_valid &= iv->extra_valid;
	for (int x = 0; x < IPCC_MAX_EXTRA; x++) {
		sum->extra[x] += iv->extra[x];
		sum->extra_coverage[x] = fmin(sum->extra_coverage[x], iv->extra_coverage[x]);
	}
	sum->via_read |= iv->via_read;
}

/* ---- what the set is ------------------------------------------------------------------- */

enum ipcc_backend ipcc_counters_backend(const struct ipcc_counter_set *set)
{
	return set->backend;
}

const char *ipcc_counters_cpu(const struct ipcc_counter_set *set)
{
	return set->cpu;
}

const char *ipcc_counters_cpu_recipe(const struct ipcc_counter_set *set)
{
	return set->cpu_recipe ? set->cpu_recipe->name : NULL;
}

const char *ipcc_counters_recipe(const struct ipcc_counter_set *set)
{
	return set->recipe ? set->recipe->name : NULL;
}

const char *ipcc_counters_approximation(const struct ipcc_counter_set *set)
{
	return set->recipe ? set->recipe->approximation : NULL;
}

const char *ipcc_counters_differs_from_kernel(const struct ipcc_counter_set *set)
{
	return set->recipe ? recipe_kernel_difference(set->recipe) : NULL;
}

const char *ipcc_counters_absent(const struct ipcc_counter_set *set, enum ipcc_counter c)
{
	if ((unsigned)c >= IPCC_NCOUNTERS)
		return "no such counter";
	return *set->absent[c] ? set->absent[c] : NULL;
}

const char *ipcc_counters_notes(const struct ipcc_counter_set *set)
{
	return set->notes;
}

unsigned ipcc_counters_nextra(const struct ipcc_counter_set *set)
{
	return set->opts.nextra;
}

const char *ipcc_counters_extra_name(const struct ipcc_counter_set *set, unsigned i)
{
	return i < set->opts.nextra && set->extra_ev[i] >= 0 ? set->ev[set->extra_ev[i]].name
							     : NULL;
}

const char *ipcc_counters_extra_absent(const struct ipcc_counter_set *set, unsigned i)
{
	const char *why;

	if (i >= set->opts.nextra || set->extra_ev[i] < 0)
		return "no such extra event";
	why = event_absent(set, set->extra_ev[i]);
	if (!*why && set->backend == IPCC_BACKEND_TIME)
		return "the time backend counts no hardware events";
	return *why ? why : NULL;
}

int ipcc_event_check(const char *name)
{
	return pmu_event_check(name);
}
