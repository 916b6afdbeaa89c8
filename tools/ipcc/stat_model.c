/*
 * stat_model.c - ipcc stat --backend model: the parts of each output only the model backend
 * has (its profile and caches, loads, stores, branches, mispredicts, cache misses, where the
 * cycles went, what it leaves out, with --per-function each function and with --regions each
 * of the program's regions). The usual
 * counters and the split are printed by stat_output.c, as for any backend.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ipcc/export.h"
#include "stat_int.h"

/*
 * What the model leaves out, said in every output: this, and the allocator's binding of
 * micro-ops to ports where the profile does not model it (ports_left_out), and the
 * branch-target buffer's second level, or all of it where the profile names none
 * (btb_left_out), and the front end's limits on branches where it has neither
 * (branches_left_out), and the op cache, all of it, its capacity, or what its model simplifies
 * (op_cache_left_out), and
 * the LLC's other tenants, as a share or not at all (share_left_out),
 * and the core's own branch predictors, with the sizes of the ones that stand for them, and
 * a mispredict's cost where many branch sites mispredict (predictor_said()).
 */
static const char *const kernel_left_out[2] = {
	"the kernel's work but for a fixed cost a page fault, a system call and a byte it reads "
	"or writes (a page's first touch faults, a file's pages read 64 KiB at a time, and an "
	"anonymous page read before it is written faults once: this kernel maps no zero page)",
	"the kernel's work but for a fixed cost a page fault, a system call and a byte it reads "
	"or writes (a page's first touch faults, a file's pages read 64 KiB at a time, and a "
	"page read before it is written faults again at the write)"
};
static const char left_out[] =
    "; other processes and other "
    "threads' contention for caches and memory bandwidth (each thread has its own L1 and "
    "L2, and all share one LLC); an SMT sibling; the hardware "
    "prefetchers but a stream one into L2 and the spatial one (a line's 128-byte pair); the "
    "page frames the kernel gives the program (L2 and the LLC are indexed by frames "
    "scattered by a fixed rule, not by the real ones); huge pages (the TLB model's pages "
    "are 4 KiB) and where a page walk's entries are (its latency is fixed); memory's "
    "bandwidth (L2's, streaming stores' and, where the profile measured it, the LLC's are "
    "modelled); the overlap of cache "
    "misses is estimated (an epoch over the reorder buffer: a load's miss within it, "
    "independent of an earlier one, costs nothing; a lone one, where no load of its "
    "segment chases a pointer, costs what is left of its latency once the reorder buffer "
    "fills at the segment's pace; a mispredicted branch ends it but for "
    "the next few instructions' loads, and what a wrong path fetches further on is left "
    "out) and a store's miss costs nothing; the segments' steady states are modelled as "
    "loops; Valgrind presents its own CPU (no AVX-512), so libraries may take other code "
    "paths than on this machine";
static const char *const btb_left_out[3] = {
	"; the branch-target buffer (this profile names none: a taken branch costs the front "
	"end the same wherever its target is held)",
	"; the branch-target buffer's second level (a taken branch that its one level misses "
	"costs the same wherever its target is held)",
	"; the branch-target buffer's own organisation (two LRU levels stand for it, the second "
	"holding what the first evicts)"
};
static const char ports_left_out[] =
    "; the allocator's binding of micro-ops to ports (this profile gives each any free port "
    "of its class)";
static const char pointer_left_out[] =
    "; when the pointer prefetcher's fetches come (what an array of pointers read in order "
    "points to is in L2 by the time it is loaded)";
static const char branches_left_out[] =
    "; the front end's limits on taken branches packed close and on branches that go both "
    "ways (this profile has neither: each taken branch costs it the same)";
/*
 * The op cache: all of it where the profile has no entries, its capacity where it has them
 * and not that, and where it has both what the tool's op cache simplifies.
 */
static const char *const op_cache_left_out[3] = {
	"; the op cache and the decoders (this profile models no op cache's entries: "
	"instructions come at the allocation's width, or a line a cycle where it has the line "
	"rule)",
	"; the op cache's capacity (every fetch block comes from it, two entries a cycle: past "
	"it a Zen 5 thread decodes four instructions a cycle), and a taken branch where a call "
	"through a table returns (three cycles more natively on Zen 5)",
	"; the op cache's entries for a fetch block that starts inside a line (the model keys a "
	"line's entries by the line alone, so that two such blocks share them), its replacement "
	"beyond LRU, and a taken branch where a call through a table returns (three cycles more "
	"natively on Zen 5)"
};

static const char *const share_left_out[3] = {
	"; the host's other tenants of the LLC (this profile gives the program all of it: a "
	"line is evicted only by the program's own)",
	"; the host's other tenants of the LLC as they come and go (this profile's share of it "
	"is fixed: a line reused after more of the program's others is the likelier in memory)",
	"; the host's other tenants of the LLC as they come and go (this profile's share of it "
	"and the lines they bring in a million cycles are fixed: a line reused after more of "
	"the program's others, or after longer on a clock of a quarter cycle an instruction, "
	"each stalling miss's latency and each mispredict's cost, is the likelier in memory)"
};

/* The predictors' part of what is left out: the sizes the profile gave the tool's TAGE. */
static const char *predictor_said(char *buf, size_t size, const struct stat_result *r)
{
	const struct ipcc_mb_caches *c = &r->model_caches;

	snprintf(buf, size,
		 "; the core's own branch predictors (a TAGE of six tagged tables of %u entries "
		 "and a base of %u counters stands for the conditional one, an ITTAGE of four "
		 "tables of 512 targets for the indirect one), and what makes a mispredict dearer "
		 "where thousands of branch sites mispredict (%s: bench/mispredict_sites.py)",
		 c->tage, c->tage_base,
		 c->btb_restart.size
		     ? "a rule stands for it: the taken branches just after a mispredict that are "
		       "not among the recent ones cost as the buffer's misses"
		     : "this profile charges a mispredict the same wherever it is; on a Zen 5 "
		       "guest its cost doubles or triples where 2,000 to 6,000 sites mispredict");
	return buf;
}

/* Which of share_left_out says what the profile leaves out of the LLC. */
static unsigned share_said(const struct stat_result *r)
{
	return r->model.llc_share ? 1 + (r->model_caches.llc_foreign != 0) : 0;
}

/* Per-function rows shown in text: those above this share of the cycles. */
#define TEXT_FN_SHARE 0.001

static double pct(double part, double whole)
{
	return whole > 0 ? 100 * part / whole : 0;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void text_cache(FILE *out, const char *name, const struct ipcc_mb_cache *c)
{
	if (c->size >= 1024 * 1024)
		fprintf(out, " %s %" PRIu64 " MiB %u-way", name, c->size / (1024 * 1024), c->assoc);
	else
		fprintf(out, " %s %" PRIu64 " KiB %u-way", name, c->size / 1024, c->assoc);
}

/* A share of the slots, in percent. */
static double slot_pct(double part, const struct ipcc_mb_counts *c)
{
	return pct(part, c->slots_total);
}

static void text_regions(FILE *out, const struct stat_result *r)
{
	const struct ipcc_mb_result *m = &r->model;

	fprintf(out,
		"\n  regions (all threads; each holds the regions inside it)\n"
		"  %-24s %8s %14s %14s %6s %9s %8s %12s %9s %12s %8s\n",
		"region", "calls", "instructions", "cycles", "IPC", "frontend", "backend",
		"speculation", "retiring", "kernel", "faults");
	if (!m->nregion)
		fprintf(out, "  none: the command entered no region (is it linked with libipcc, "
			     "built with Valgrind's valgrind.h?)\n");
	for (size_t i = 0; i < m->nregion; i++) {
		const struct ipcc_mb_counts *c = &m->region[i].c;

		char kernel[24] = "n/a"; /* the profile has no costs for the kernel's part */

		if (m->kernel_costed)
			snprintf(kernel, sizeof(kernel), "%.0f", m->region[i].kernel.cycles);
		fprintf(out,
			"  %-24.24s %8" PRIu64 " %14" PRIu64 " %14.0f %6.2f %8.1f%% %7.1f%% "
			"%11.1f%% %8.1f%% %12s %8" PRIu64 "\n",
			m->region[i].name, m->region[i].calls, c->instructions, c->cycles,
			c->cycles > 0 ? (double)c->instructions / c->cycles : 0,
			slot_pct(c->slots_total - c->slots_filled, c),
			slot_pct(c->slots_filled - c->slots_issued, c),
			slot_pct(c->slots_issued - c->slots_retired, c),
			slot_pct(c->slots_retired, c), kernel, m->region[i].kernel.faults);
	}
}

void stat_model_text(FILE *out, const struct stat_result *r)
{
	const struct ipcc_mb_result *m = &r->model;
	const struct ipcc_mb_counts *c = &m->total;
	const struct ipcc_mb_caches *k = &m->caches;
	double cyc = c->cycles;

	fprintf(out, "\nthe model (every figure modelled but instructions, loads, stores, "
		     "branches):\n");
	const char *note = r->model_note;

	/* The note is a whole message ("ipcc stat: profile auto is ..."): its words only. */
	if (!strncmp(note, "ipcc ", 5) && strstr(note, ": "))
		note = strstr(note, ": ") + 2;
	fprintf(out,
		"  profile %s%s%s%s; ran under Valgrind in %.2f s: %u process%s, %u thread%s, "
		"%" PRIu64 " segments\n",
		m->profile, *note ? " (" : "", note, *note ? ")" : "", r->model_wall_ns / 1e9,
		m->processes, m->processes == 1 ? "" : "es", m->threads, m->threads == 1 ? "" : "s",
		m->segments);
	fprintf(out, "  caches, from %s:", r->model_caches.source);
	text_cache(out, "L1d", &k->l1d);
	text_cache(out, "L1i", &k->l1i);
	text_cache(out, "L2", &k->l2);
	text_cache(out, "LLC", &k->llc);
	fprintf(out, ", %u-byte lines", k->l1d.line);
	if (k->dtlb.size)
		fprintf(out, "; data TLBs, from the profile: %" PRIu64 " and %" PRIu64 " pages",
			k->dtlb.size / k->dtlb.line, k->stlb.size / k->stlb.line);
	if (k->itlb.size)
		fprintf(out, "; an instruction TLB of %" PRIu64 " pages",
			k->itlb.size / k->itlb.line);
	else if (k->dtlb.size)
		fprintf(out, "; no instruction TLB (the profile names none)");
	else
		fprintf(out, "; no TLB (the profile names none)");
	if (k->btb.size)
		fprintf(out, "; a branch-target buffer of %" PRIu64 " taken branches",
			k->btb.size / k->btb.line);
	if (k->btb2.size)
		fprintf(out, " and %" PRIu64 " more", k->btb2.size / k->btb2.line);
	if (r->model_caches.pointer_prefetch)
		fprintf(out, "; a pointer prefetcher");
	if (r->model_caches.opcache)
		fprintf(out, "; an op cache of %u entries of %u ops", r->model_caches.opcache,
			r->model_caches.opcache_ops);
	fprintf(out, "\n\n");
	fprintf(out, "  %-24s %18" PRIu64 "  exact\n", "loads", c->loads);
	fprintf(out, "  %-24s %18" PRIu64 "  exact\n", "stores", c->stores);
	fprintf(out, "  %-24s %18" PRIu64 "  exact\n", "branches", c->branches);
	fprintf(out, "  %-24s %18" PRIu64 "  exact, %.1f%% taken\n", "conditional branches",
		c->cond_branches, pct((double)c->cond_taken, (double)c->cond_branches));
	fprintf(out,
		"  %-24s %18" PRIu64 "  %.2f%% of branches (%" PRIu64 " indirect, %" PRIu64
		" returns among the branches)\n",
		"mispredicts", c->mispredicts, pct((double)c->mispredicts, (double)c->branches),
		c->indirect, c->returns);
	fprintf(out,
		"  %-24s %18" PRIu64 "  %.2f%% of loads and stores; %" PRIu64 " stall (a store's "
		"or an overlapped one does not)\n",
		"L1d misses", c->l1d_misses,
		pct((double)c->l1d_misses, (double)(c->loads + c->stores)), c->stalling_misses);
	fprintf(out, "  %-24s %18" PRIu64 "\n", "L2 misses (data)", c->l2_misses);
	fprintf(out, "  %-24s %18" PRIu64 "\n", "LLC misses (data)", c->llc_misses);
	fprintf(out,
		"  %-24s %18" PRIu64 "  (%" PRIu64 " code lines from past L2, the L1i "
		"prefetcher's among them; %" PRIu64
		" from L2 where a mispredict restarted the fetch)\n",
		"L1i misses", c->l1i_misses, c->l2i_misses, c->l1i_restarts);
	if (r->model_caches.opcache)
		fprintf(out,
			"  %-24s %18" PRIu64 "  runs of a segment the op cache did not hold "
			"(through L1i and the decoders)\n",
			"op cache misses", c->decoded);
	if (k->dtlb.size)
		fprintf(out, "  %-24s %18" PRIu64 "  %" PRIu64 " page walks\n", "DTLB misses",
			c->dtlb_misses, c->page_walks);
	if (k->itlb.size)
		fprintf(out, "  %-24s %18" PRIu64 "  %" PRIu64 " page walks\n", "ITLB misses",
			c->itlb_misses, c->itlb_walks);
	if (k->btb.size) {
		fprintf(out, "  %-24s %18" PRIu64 "  %.2f%% of taken branches", "BTB misses",
			c->btb_misses,
			pct((double)c->btb_misses,
			    (double)(c->cond_taken + c->branches - c->cond_branches)));
		if (k->btb2.size)
			fprintf(out, "; %" PRIu64 " missed the second level too", c->btb2_misses);
		if (r->model_caches.btb_restart.size)
			fprintf(out, "; %" PRIu64 " just after a mispredict were not recent",
				c->btb_restarts);
		fputc('\n', out);
	}
	fprintf(out, "\n  where the cycles went (%.0f cycles)\n", cyc);
	fprintf(out, "    %-36s %5.1f%%\n", "the pipeline, every load hitting L1",
		pct(c->core_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "L1d misses served by L2", pct(c->l2_hit_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "L2 misses served by the LLC",
		pct(c->llc_hit_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "LLC misses served by memory",
		pct(c->memory_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "data TLB misses", pct(c->tlb_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "instruction-cache and -TLB misses",
		pct(c->icache_cycles, cyc));
	if (r->model_caches.opcache)
		fprintf(out, "    %-36s %5.1f%%\n", "op cache misses, the decoders",
			pct(c->decode_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "branch-target buffer misses", pct(c->btb_cycles, cyc));
	fprintf(out, "    %-36s %5.1f%%\n", "mispredicted branches",
		pct(c->mispredict_cycles, cyc));
	const struct ipcc_mb_kernel *kn = &m->kernel;

	if (m->kernel_costed)
		fprintf(out, "    and in the kernel %.0f cycles more:", kn->cycles);
	else
		fprintf(out, "    and in the kernel (this profile has no costs for it):");
	fprintf(out,
		" %" PRIu64 " page faults (%" PRIu64 " of a file's pages), %" PRIu64
		" system calls, %" PRIu64 " bytes read or written, %" PRIu64
		" process%s started and ended%s",
		kn->faults, kn->file_faults, kn->syscalls, kn->bytes, kn->processes,
		kn->processes == 1 ? "" : "es",
		m->kernel_costed && !m->process_costed ? " (this profile has no cost for those)"
						       : "");
	if (r->model_caches.kernel_touch)
		fprintf(out,
			", %" PRIu64 " first touches of pages a system call faulted in (a fault "
			"this kernel does not count%s)",
			kn->touches,
			m->kernel_costed && !m->touch_costed ? "; this profile has no cost for it"
							     : "");
	fprintf(out, "\n");
	fprintf(out, "\n  approximated: %" PRIu64 " instructions (%.3f%%)%s%s\n", c->approximated,
		pct((double)c->approximated, (double)c->instructions),
		*m->approximated_names ? ": " : "", m->approximated_names);
	if (m->unmodelled)
		fprintf(out,
			"  %" PRIu64 " segments the model could not parse: one instruction "
			"a slot\n",
			m->unmodelled);
	char said[512];

	fprintf(out, "  left out: %s%s%s%s%s%s%s%s%s\n", kernel_left_out[r->model_caches.zero_page],
		left_out, btb_left_out[k->btb2.size ? 2 : k->btb.size != 0],
		m->port_binding ? "" : ports_left_out, m->branch_limits ? "" : branches_left_out,
		op_cache_left_out[m->op_cache], share_left_out[share_said(r)],
		r->model_caches.pointer_prefetch ? pointer_left_out : "",
		predictor_said(said, sizeof(said), r));
	if (r->model_regions)
		text_regions(out, r);
	if (!r->per_function)
		return;
	fprintf(out, "\n  %-40s %-16s %14s %7s %6s %12s %12s %11s\n", "function", "object",
		"instructions", "cycles", "IPC", "L1d misses", "mispredicts", "page faults");
	size_t shown = 0;

	for (size_t i = 0; i < m->nfn; i++) {
		const struct ipcc_mb_function *f = &m->fn[i];

		if (f->c.cycles < TEXT_FN_SHARE * cyc)
			break;
		fprintf(out,
			"  %-40.40s %-16.16s %14" PRIu64 " %6.2f%% %6.2f %12" PRIu64 " %12" PRIu64
			" %11" PRIu64 "\n",
			f->name, base(f->object), f->c.instructions, pct(f->c.cycles, cyc),
			f->c.cycles > 0 ? (double)f->c.instructions / f->c.cycles : 0,
			f->c.l1d_misses, f->c.mispredicts, f->kernel.faults);
		shown++;
	}
	if (shown < m->nfn)
		fprintf(out,
			"  ... %zu more functions, each under %.1f%% of the cycles (all in "
			"--format json)\n",
			m->nfn - shown, 100 * TEXT_FN_SHARE);
}

/*
 * The kernel's part: page faults, system calls, the bytes they moved, and their cycles
 * (null where the profile has no costs for them: not 0).
 */
static json_t *kernel_json(const struct ipcc_mb_kernel *k, bool costed, bool touch)
{
	return json_pack("{sI sI sI sI so so}", "page_faults", (json_int_t)k->faults,
			 "file_page_faults", (json_int_t)k->file_faults, "syscalls",
			 (json_int_t)k->syscalls, "bytes", (json_int_t)k->bytes, "page_touches",
			 touch ? json_integer((json_int_t)k->touches) : json_null(), "cycles",
			 costed ? json_real(k->cycles) : json_null());
}

/* opcache: the profile models the op cache's capacity; where not, its counts are null, not 0. */
static json_t *counts_json(const struct ipcc_mb_counts *c, bool opcache)
{
	json_t *o = json_pack(
	    "{sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI s{sf sf sf sf sf "
	    "sf "
	    "sf "
	    "sf sf}"
	    " s{sf sf sf sf}}",
	    "instructions", (json_int_t)c->instructions, "loads", (json_int_t)c->loads, "stores",
	    (json_int_t)c->stores, "branches", (json_int_t)c->branches, "cond_branches",
	    (json_int_t)c->cond_branches, "cond_taken", (json_int_t)c->cond_taken, "mispredicts",
	    (json_int_t)c->mispredicts, "indirect", (json_int_t)c->indirect, "returns",
	    (json_int_t)c->returns, "l1d_misses", (json_int_t)c->l1d_misses, "l2_misses",
	    (json_int_t)c->l2_misses, "llc_misses", (json_int_t)c->llc_misses, "stalling_misses",
	    (json_int_t)c->stalling_misses, "l1i_misses", (json_int_t)c->l1i_misses, "l2i_misses",
	    (json_int_t)c->l2i_misses, "llci_misses", (json_int_t)c->llci_misses, "dtlb_misses",
	    (json_int_t)c->dtlb_misses, "page_walks", (json_int_t)c->page_walks, "btb_misses",
	    (json_int_t)c->btb_misses, "btb2_misses", (json_int_t)c->btb2_misses, "btb_restarts",
	    (json_int_t)c->btb_restarts, "approximated", (json_int_t)c->approximated, "cycles",
	    "total", c->cycles, "pipeline", c->core_cycles, "l2_hits", c->l2_hit_cycles, "llc_hits",
	    c->llc_hit_cycles, "memory", c->memory_cycles, "tlb", c->tlb_cycles, "icache",
	    c->icache_cycles, "btb", c->btb_cycles, "mispredicts", c->mispredict_cycles, "slots",
	    "total", c->slots_total, "filled", c->slots_filled, "issued", c->slots_issued,
	    "retired", c->slots_retired);

	json_object_set_new(o, "itlb_misses", json_integer((json_int_t)c->itlb_misses));
	json_object_set_new(o, "itlb_walks", json_integer((json_int_t)c->itlb_walks));
	json_object_set_new(o, "l1i_restarts", json_integer((json_int_t)c->l1i_restarts));
	json_object_set_new(o, "opcache_misses",
			    opcache ? json_integer((json_int_t)c->decoded) : json_null());
	json_object_set_new(json_object_get(o, "cycles"), "decode",
			    opcache ? json_real(c->decode_cycles) : json_null());
	return o;
}

static json_t *cache_json(const struct ipcc_mb_cache *c)
{
	return json_pack("{sI sI sI}", "size", (json_int_t)c->size, "assoc", (json_int_t)c->assoc,
			 "line", (json_int_t)c->line);
}

void stat_model_json(json_t *root, const struct stat_result *r)
{
	const struct ipcc_mb_result *m = &r->model;
	json_t *model = json_object(), *fns = json_array();

	json_object_set_new(model, "profile", json_string(m->profile));
	json_object_set_new(model, "profile_note", json_string(r->model_note));
	json_object_set_new(model, "modelled",
			    json_string("every figure but instructions, "
					"loads, stores and branches"));
	json_object_set_new(model, "wall_ns", json_integer((json_int_t)r->model_wall_ns));
	json_object_set_new(model, "processes", json_integer(m->processes));
	json_object_set_new(model, "threads", json_integer(m->threads));
	json_object_set_new(model, "segments", json_integer((json_int_t)m->segments));
	json_object_set_new(model, "unmodelled_segments", json_integer((json_int_t)m->unmodelled));
	json_object_set_new(model, "approximated_names", json_string(m->approximated_names));
	json_object_set_new(model, "caches",
			    json_pack("{so so so so ss sb}", "l1d", cache_json(&m->caches.l1d),
				      "l1i", cache_json(&m->caches.l1i), "l2",
				      cache_json(&m->caches.l2), "llc", cache_json(&m->caches.llc),
				      "source", r->model_caches.source, "pointer_prefetch",
				      r->model_caches.pointer_prefetch));
	json_object_set_new(
	    model, "tlbs",
	    m->caches.dtlb.size
		? json_pack(
		      "{sI sI so}", "dtlb_entries", (json_int_t)(m->caches.dtlb.size / 4096),
		      "stlb_entries", (json_int_t)(m->caches.stlb.size / 4096), "itlb_entries",
		      m->caches.itlb.size ? json_integer((json_int_t)(m->caches.itlb.size / 4096))
					  : json_null())
		: json_null());
	json_object_set_new(
	    model, "btb_entries",
	    m->caches.btb.size ? json_integer((json_int_t)(m->caches.btb.size / m->caches.btb.line))
			       : json_null());
	json_object_set_new(model, "btb2_entries",
			    m->caches.btb2.size ? json_integer((json_int_t)(m->caches.btb2.size /
									    m->caches.btb2.line))
						: json_null());
	json_object_set_new(model, "opcache",
			    r->model_caches.opcache
				? json_pack("{sI sI}", "entries",
					    (json_int_t)r->model_caches.opcache, "ops",
					    (json_int_t)r->model_caches.opcache_ops)
				: json_null());
	json_object_set_new(model, "btb_restart",
			    r->model_caches.btb_restart.size
				? json_pack("{sI sI sI}", "entries",
					    (json_int_t)(r->model_caches.btb_restart.size / 8),
					    "window",
					    (json_int_t)r->model_caches.btb_restart_window, "sites",
					    (json_int_t)r->model_caches.btb_restart_sites)
				: json_null());
	json_object_set_new(model, "counts", counts_json(&m->total, r->model_caches.opcache));
	json_t *kernel = kernel_json(&m->kernel, m->kernel_costed, r->model_caches.kernel_touch);

	/* the run's alone: a function or a region starts no process */
	json_object_set_new(kernel, "processes", json_integer((json_int_t)m->kernel.processes));
	json_object_set_new(model, "kernel", kernel);
	json_object_set_new(model, "zero_page", json_boolean(r->model_caches.zero_page));
	json_object_set_new(model, "kernel_touch", json_boolean(r->model_caches.kernel_touch));
	char lo[sizeof(left_out) + sizeof(ports_left_out) + sizeof(branches_left_out) +
		sizeof(pointer_left_out) + 3072],
	    said[512];

	snprintf(lo, sizeof(lo), "%s%s%s%s%s%s%s%s%s", kernel_left_out[r->model_caches.zero_page],
		 left_out, btb_left_out[m->caches.btb2.size ? 2 : m->caches.btb.size != 0],
		 m->port_binding ? "" : ports_left_out, m->branch_limits ? "" : branches_left_out,
		 op_cache_left_out[m->op_cache], share_left_out[share_said(r)],
		 r->model_caches.pointer_prefetch ? pointer_left_out : "",
		 predictor_said(said, sizeof(said), r));
	json_object_set_new(model, "left_out", json_string(lo));
	for (size_t i = 0; r->per_function && i < m->nfn; i++)
		json_array_append_new(
		    fns,
		    json_pack("{ss ss so so}", "function", m->fn[i].name, "object", m->fn[i].object,
			      "counts", counts_json(&m->fn[i].c, r->model_caches.opcache), "kernel",
			      kernel_json(&m->fn[i].kernel, m->kernel_costed,
					  r->model_caches.kernel_touch)));
	json_object_set_new(model, "functions", r->per_function ? fns : json_null());
	if (!r->per_function)
		json_decref(fns);
	json_object_set_new(root, "model", model);
}

/* A total, in the regions file's {total, min, max} (the model sums: no call's own figure). */
static json_t *total_only(double v)
{
	return json_pack("{sf so so}", "total", v, "min", json_null(), "max", json_null());
}

json_t *stat_model_regions_json(const struct stat_result *r)
{
	const struct ipcc_mb_result *m = &r->model;
	json_t *regions = json_array();
	double khz = r->core.khz ? (double)r->core.khz : 1e6;

	for (size_t i = 0; i < m->nregion; i++) {
		const struct ipcc_mb_counts *c = &m->region[i].c;
		const struct ipcc_mb_kernel *kn = &m->region[i].kernel;
		json_t *ctr = json_object();

		for (int k = 0; k < IPCC_NCOUNTERS; k++)
			json_object_set_new(ctr, ipcc_counter_name(k), json_null());
		json_object_set_new(ctr, "elapsed_ns",
				    total_only((c->cycles + kn->cycles) / khz * 1e6));
		const struct {
			enum ipcc_counter k;
			double v;
		} given[] = {
			{ IPCC_INSTRUCTIONS, (double)c->instructions },
			{ IPCC_CYCLES, c->cycles },
			{ IPCC_REF_CYCLES, c->cycles * (double)r->tc.khz / khz },
			{ IPCC_SLOTS_TOTAL, c->slots_total },
			{ IPCC_SLOTS_FILLED, c->slots_filled },
			{ IPCC_SLOTS_ISSUED, c->slots_issued },
			{ IPCC_SLOTS_RETIRED, c->slots_retired },
			{ IPCC_PAGE_FAULTS, (double)kn->faults },
			{ IPCC_CYCLES_K, kn->cycles },
		};

		for (size_t g = 0; g < sizeof(given) / sizeof(given[0]); g++)
			if (given[g].k != IPCC_CYCLES_K || m->kernel_costed)
				json_object_set_new(ctr, ipcc_counter_name(given[g].k),
						    total_only(given[g].v));
		json_t *mc = counts_json(c, r->model_caches.opcache);

		json_object_set_new(
		    mc, "kernel", kernel_json(kn, m->kernel_costed, r->model_caches.kernel_touch));
		json_array_append_new(regions,
				      json_pack("{ss sn sI so so}", "name", m->region[i].name,
						"thread", "calls", (json_int_t)m->region[i].calls,
						"counters", ctr, "model", mc));
	}
	return json_pack("{sI ss sI sn sn so}", "version", (json_int_t)1, "backend", "model",
			 "tcfreq_khz", (json_int_t)r->tc.khz, "overhead_ns", "errors", "regions",
			 regions);
}

void stat_model_csv(FILE *out, const struct stat_result *r)
{
	const struct ipcc_mb_counts *c = &r->model.total;
	const struct {
		const char *name;
		double v;
	} rows[] = {
		{ "model_loads", (double)c->loads },
		{ "model_stores", (double)c->stores },
		{ "model_branches", (double)c->branches },
		{ "model_cond_branches", (double)c->cond_branches },
		{ "model_mispredicts", (double)c->mispredicts },
		{ "model_l1d_misses", (double)c->l1d_misses },
		{ "model_l2_misses", (double)c->l2_misses },
		{ "model_llc_misses", (double)c->llc_misses },
		{ "model_l1i_misses", (double)c->l1i_misses },
		{ "model_dtlb_misses", (double)c->dtlb_misses },
		{ "model_page_walks", (double)c->page_walks },
		{ "model_btb_misses", (double)c->btb_misses },
		{ "model_btb2_misses", (double)c->btb2_misses },
		{ "model_cycles_pipeline", c->core_cycles },
		{ "model_cycles_l2_hits", c->l2_hit_cycles },
		{ "model_cycles_llc_hits", c->llc_hit_cycles },
		{ "model_cycles_memory", c->memory_cycles },
		{ "model_cycles_tlb", c->tlb_cycles },
		{ "model_cycles_icache", c->icache_cycles },
		{ "model_cycles_decode", c->decode_cycles },
		{ "model_cycles_btb", c->btb_cycles },
		{ "model_cycles_mispredicts", c->mispredict_cycles },
		{ "model_approximated", (double)c->approximated },
		{ "model_syscalls", (double)r->model.kernel.syscalls },
		{ "model_syscall_bytes", (double)r->model.kernel.bytes },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(out, "%s,%.0f,count,,,,\n", rows[i].name, rows[i].v);
	for (size_t i = 0; r->per_function && i < r->model.nfn; i++) {
		const struct ipcc_mb_function *f = &r->model.fn[i];

		/* A function's name may hold commas and quotes: CSV quotes it. */
		fprintf(out, "\"function:");
		for (const char *p = f->name; *p; p++)
			fprintf(out, *p == '"' ? "\"\"" : "%c", *p);
		fprintf(out, "\",%.0f,cycles,,,,\n", f->c.cycles);
	}
}

int stat_model_openmetrics(struct ipcc_openmetrics *w, const struct stat_result *r)
{
	const struct ipcc_mb_counts *c = &r->model.total;
	const struct {
		const char *name, *help;
		double v;
	} rows[] = {
		{ "ipcc_model_loads_total", "Instructions that read memory (exact).",
		  (double)c->loads },
		{ "ipcc_model_stores_total", "Instructions that write memory (exact).",
		  (double)c->stores },
		{ "ipcc_model_branches_total", "Branch instructions (exact).",
		  (double)c->branches },
		{ "ipcc_model_mispredicts_total", "Mispredicted branches (the predictor model).",
		  (double)c->mispredicts },
		{ "ipcc_model_l1d_misses_total", "Data accesses that missed L1 (the cache model).",
		  (double)c->l1d_misses },
		{ "ipcc_model_l2_misses_total", "Data accesses that missed L2 (the cache model).",
		  (double)c->l2_misses },
		{ "ipcc_model_llc_misses_total",
		  "Data accesses that missed the LLC (the cache model).", (double)c->llc_misses },
		{ "ipcc_model_l1i_misses_total",
		  "Instruction fetches that missed L1i (the cache model).", (double)c->l1i_misses },
		{ "ipcc_model_dtlb_misses_total",
		  "Data accesses that missed the first-level TLB (the TLB model).",
		  (double)c->dtlb_misses },
		{ "ipcc_model_page_walks_total",
		  "Data accesses that missed both TLB levels (the TLB model).",
		  (double)c->page_walks },
		{ "ipcc_model_syscalls_total", "System calls the program made (exact).",
		  (double)r->model.kernel.syscalls },
		{ "ipcc_model_syscall_bytes_total",
		  "Bytes the program's reads and writes moved (exact).",
		  (double)r->model.kernel.bytes },
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !ret; i++) {
		ret = ipcc_openmetrics_family(w, rows[i].name, IPCC_OM_COUNTER, NULL, rows[i].help);
		if (!ret)
			ret = ipcc_openmetrics_sample(w, NULL, 0, rows[i].v);
	}
	if (!ret)
		ret = ipcc_openmetrics_family(w, "ipcc_model_cycles_total", IPCC_OM_COUNTER, NULL,
					      "Modelled cycles, by where they went.");
	const struct {
		const char *part;
		double v;
	} parts[] = { { "pipeline", c->core_cycles },
		      { "l2_hits", c->l2_hit_cycles },
		      { "llc_hits", c->llc_hit_cycles },
		      { "memory", c->memory_cycles },
		      { "tlb", c->tlb_cycles },
		      { "icache", c->icache_cycles },
		      { "decode", c->decode_cycles },
		      { "btb", c->btb_cycles },
		      { "mispredicts", c->mispredict_cycles } };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && !ret; i++) {
		const struct ipcc_om_label l[] = { { "part", parts[i].part } };

		ret = ipcc_openmetrics_sample(w, l, 1, parts[i].v);
	}
	return ret;
}
