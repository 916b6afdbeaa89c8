/*
 * vg_tool.c - the Valgrind tool of the model backend ("--tool=ipcc").
 *
 * Built against Valgrind's tool kit (pub_tool_*.h, libcoregrind, libvex) and run without
 * libc: only VG_(...) functions. It counts, and models nothing of the pipeline; ipcc's own
 * process does that from what this tool writes (src/backend/model/account.c reads it).
 *
 * What it keeps, per *segment*: a run of guest instructions that either all execute or none
 * does after the first (a superblock cut at each branch's side exit). The segment's entry counter
 * times its instructions gives the exact instructions retired; the same product for the
 * instructions that read or write memory gives loads and stores. Each segment keeps, too:
 * - data-cache misses at L1d, L2 and LLC, from an LRU model of this machine's caches
 *   (private L1d, L1i and L2 per thread, one shared LLC), with a next-line stream
 *   prefetcher into L2 and LLC (lines going up or down) and a spatial one (a line that
 *   misses L2 brings its 128-byte pair's other line); and the written lines L1d evicts
 *   (its write-backs to L2);
 * - data-TLB misses, where ipcc names the TLBs (--ipcc-dtlb, --ipcc-stlb): 4 KiB pages
 *   through an LRU first level and second level per thread; a miss of both is a page walk;
 * - instruction-cache misses, one fetch per cache line the segment's bytes span, with a
 *   tagged next-line prefetcher;
 * - conditional branches, taken, and mispredicted by a TAGE predictor; indirect jumps and
 *   calls, mispredicted by its indirect sibling (ITTAGE; both in predictor.h, per thread);
 *   returns, mispredicted by a 32-entry return-address stack;
 * - taken branches whose target a branch-target buffer (--ipcc-btb: LRU, per thread) did
 *   not hold: a segment's direct jumps, calls and returns each time it runs, its conditional
 *   branch when taken, its indirect jump or call; and of them, those its second level
 *   (--ipcc-btb2: the first's evictions) did not hold either (btb_ref()).
 *
 * Regions: libipcc's ipcc_region_begin/end, with IPCC_REGION_BACKEND=model, send the tool a
 * client request (vg_requests.h). Each thread keeps its stack of open regions as a node of a
 * tree of region paths, and each segment keeps its counts apart for each path it ran under,
 * so that ipcc can give each region what ran inside it, nested regions included.
 *
 * At exit it writes, to --ipcc-out (%p expands to the pid, so each child process of a
 * --trace-children run has its own file), a header and each executed segment with its
 * instructions' addresses and bytes, the function and object they belong to, and the two
 * segments entered after it and the two it was entered from most often (for ipcc's
 * traces). The format is described in docs/internals/model-backend.md.
 *
 * With --ipcc-defs, it also writes each segment's instructions to that file the first time
 * the segment runs, a buffer at a time, so that ipcc can model them while the program runs
 * (account.c's stream); a forked child that does not exec writes none.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clreq.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_aspacemgr.h"
#include "libvex_guest_amd64.h"

#include "predictor.h"
#include "vg_requests.h"

#define MAX_SEG_INSNS  512
#define MAX_THREADS    1024
#define RAS_DEPTH      32
#define STREAMS	       16
#define PREFETCH_DEPTH 4

/* ---- options --------------------------------------------------------------------------- */

/*
 * What runs on every access, branch or segment the program runs and is called from there
 * (the caches' lookups, the TLBs', the branch-target buffer's, a line's fetch): inlined into
 * the callbacks, whatever the compiler would choose. bzip2 and xz under the tool, the fewest
 * user+sys seconds of seven and five interleaved runs, 9.57 -> 9.15 and 41.9 -> 40.0 (the
 * medians 10.11 -> 9.58 and 45.1 -> 41.0); every count the same.
 */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

static const HChar *clo_out = "ipcc-vg.%p";
static const HChar *clo_defs = NULL; /* none: the segments are written at exit alone */
static const HChar *clo_l1d = "49152,12,64";
static const HChar *clo_l1i = "32768,8,64";
static const HChar *clo_l2 = "1048576,16,64";
static const HChar *clo_ll = "33554432,16,64";
static const HChar *clo_dtlb = NULL; /* none: no TLB is modelled */
static const HChar *clo_stlb = NULL;
static const HChar *clo_itlb = NULL; /* none, or no data TLBs: no instruction TLB */
static const HChar *clo_btb = NULL;  /* none: no branch-target buffer is modelled */
static const HChar *clo_btb2 = NULL; /* none: the buffer has one level (btb_ref()) */
/* none: a mispredict costs the same however many sites mispredict (btb_ref()) */
static const HChar *clo_btb_restart = NULL;
static const HChar *clo_fe = NULL;	/* none: no limit on taken branches a line (fe_mark()) */
static const HChar *clo_opcache = NULL; /* none: every fetch through L1i (op_cache_hit()) */
static const HChar *clo_tage = NULL;	/* none: predictor.h's default sizes */
static Bool clo_prefetch = True;
static Bool clo_l1_prefetch = True;   /* with clo_prefetch: the L1 prefetcher too */
static Bool clo_ptr_prefetch = False; /* the pointer prefetcher: ptr_prefetch() */
static Bool clo_frames = True;	  /* L2 and the LLC indexed by a page's frame, not its address */
static Bool clo_zero_page = True; /* a page read first maps the zero page (page_fault()) */
/* A page a system call faulted in costs the program's first touch again (kernel_wrote()) */
static Bool clo_kernel_touch = False;
/*
 * The order the segments run in, for bench/trace_windows (a diagnostic, not for ipcc stat):
 * with --ipcc-trace=FILE, the segments the running thread enters in a window of
 * --ipcc-trace-len instructions every --ipcc-trace-every (trace_note()), written at exit
 * after the counts, a window a line of the counts file's segment numbers (trace_write()).
 */
static const HChar *clo_trace = NULL;
static Long clo_trace_every = 20000000, clo_trace_len = 10000;
static Long clo_window = 512;	 /* the out-of-order window, in instructions; 0: no overlap */
static Long clo_shadow = 16;	 /* a mispredict's shadow, in instructions (mispredicted()) */
static Long clo_llc_share = 0;	 /* llc_hit(): bytes; 0, the whole LLC is the program's */
static Long clo_llc_foreign = 0; /* llc_hit(): other tenants' lines a million cycles */
static const HChar *clo_llc_clock = NULL; /* the clock they come on (ll_clock_init()) */

static Bool opt_process(const HChar *arg)
{
	if VG_STR_CLO (arg, "--ipcc-out", clo_out) {
	} else if VG_STR_CLO (arg, "--ipcc-defs", clo_defs) {
	} else if VG_STR_CLO (arg, "--ipcc-l1d", clo_l1d) {
	} else if VG_STR_CLO (arg, "--ipcc-l1i", clo_l1i) {
	} else if VG_STR_CLO (arg, "--ipcc-l2", clo_l2) {
	} else if VG_STR_CLO (arg, "--ipcc-ll", clo_ll) {
	} else if VG_STR_CLO (arg, "--ipcc-dtlb", clo_dtlb) {
	} else if VG_STR_CLO (arg, "--ipcc-stlb", clo_stlb) {
	} else if VG_STR_CLO (arg, "--ipcc-itlb", clo_itlb) {
	} else if VG_STR_CLO (arg, "--ipcc-btb", clo_btb) {
	} else if VG_STR_CLO (arg, "--ipcc-btb2", clo_btb2) {
	} else if VG_STR_CLO (arg, "--ipcc-btb-restart", clo_btb_restart) {
	} else if VG_STR_CLO (arg, "--ipcc-fe", clo_fe) {
	} else if VG_STR_CLO (arg, "--ipcc-opcache", clo_opcache) {
	} else if VG_STR_CLO (arg, "--ipcc-tage", clo_tage) {
	} else if VG_BOOL_CLO (arg, "--ipcc-prefetch", clo_prefetch) {
	} else if VG_BOOL_CLO (arg, "--ipcc-l1-prefetch", clo_l1_prefetch) {
	} else if VG_BOOL_CLO (arg, "--ipcc-pointer-prefetch", clo_ptr_prefetch) {
	} else if VG_BOOL_CLO (arg, "--ipcc-frames", clo_frames) {
	} else if VG_BOOL_CLO (arg, "--ipcc-zero-page", clo_zero_page) {
	} else if VG_BOOL_CLO (arg, "--ipcc-kernel-touch", clo_kernel_touch) {
	} else if VG_BINT_CLO (arg, "--ipcc-window", clo_window, 0, 1 << 20) {
	} else if VG_BINT_CLO (arg, "--ipcc-shadow", clo_shadow, 0, 1 << 20) {
	} else if VG_STR_CLO (arg, "--ipcc-trace", clo_trace) {
	} else if VG_BINT_CLO (arg, "--ipcc-trace-every", clo_trace_every, 1, 1ll << 50) {
	} else if VG_BINT_CLO (arg, "--ipcc-trace-len", clo_trace_len, 1, 1 << 20) {
	} else if VG_BINT_CLO (arg, "--ipcc-llc-share", clo_llc_share, 0, 1ll << 50) {
	} else if VG_BINT_CLO (arg, "--ipcc-llc-foreign", clo_llc_foreign, 0, 1ll << 30) {
	} else if VG_STR_CLO (arg, "--ipcc-llc-clock", clo_llc_clock) {
	} else
		return False;
	return True;
}

static void opt_usage(void)
{
	VG_(printf)
	("    --ipcc-out=FILE            where to write the counts [ipcc-vg.%%p]\n"
	 "    --ipcc-defs=FILE           where to write each segment as it first runs [none]\n"
	 "    --ipcc-l1d=SIZE,ASSOC,LINE  L1 data cache [49152,12,64]\n"
	 "    --ipcc-l1i=SIZE,ASSOC,LINE  L1 instruction cache [32768,8,64]\n"
	 "    --ipcc-l2=SIZE,ASSOC,LINE[,FOLD]  L2 cache [1048576,16,64]; FOLD: bits\n"
	 "                               above its index XORed into its lowest bits\n"
	 "    --ipcc-ll=SIZE,ASSOC,LINE   last-level cache [33554432,16,64]\n"
	 "    --ipcc-dtlb=SIZE,ASSOC,4096 first-level data TLB, SIZE = entries x 4096 [none]\n"
	 "    --ipcc-stlb=SIZE,ASSOC,4096 second-level TLB [none]\n"
	 "    --ipcc-itlb=SIZE,ASSOC,4096 instruction TLB, whose misses look in the\n"
	 "                               second level too [none]\n"
	 "    --ipcc-btb=SIZE,ASSOC,8    branch-target buffer, SIZE = entries x 8 [none]\n"
	 "    --ipcc-btb2=SIZE,ASSOC,8   its second level, which holds what the first\n"
	 "                               evicts [none]\n"
	 "    --ipcc-btb-restart=ENTRIES,WINDOW,SITES  after a mispredict at a site not\n"
	 "                               among the last SITES that mispredicted, the next\n"
	 "                               WINDOW taken branches not among the last ENTRIES\n"
	 "                               taken ones (the buffer's sets' first ways) count\n"
	 "                               as the buffer's misses [none; needs --ipcc-btb]\n"
	 "    --ipcc-fe=LINE,HALF        taken branches a 64-byte line holds at full speed, and\n"
	 "                               a 32-byte half at all [none: no limit]\n"
	 "    --ipcc-opcache=ENTRIES,ASSOC,OPS  an op cache of ENTRIES entries of OPS ops\n"
	 "                               each; a fetch block it holds skips L1i [none]\n"
	 "    --ipcc-tage=ENTRIES,BASE   the conditional predictor's tagged tables' entries\n"
	 "                               each and its base's counters [1024,16384]\n"
	 "    --ipcc-prefetch=yes|no     model the L2 stream prefetcher [yes]\n"
	 "    --ipcc-l1-prefetch=yes|no  and the L1 next-line prefetcher [yes]\n"
	 "    --ipcc-pointer-prefetch=yes|no  a pointer prefetcher: an array of pointers\n"
	 "                               read in order has its targets fetched into L2 [no]\n"
	 "    --ipcc-frames=yes|no       index L2 and the LLC by a page frame of its own for\n"
	 "                               each page, as the kernel's scattered frames [yes]\n"
	 "    --ipcc-zero-page=yes|no    an anonymous page read before it is written maps\n"
	 "                               the kernel's zero page, and the write faults again;\n"
	 "                               no: the read's fault gives the page its own [yes]\n"
	 "    --ipcc-kernel-touch=yes|no count the program's first touches of pages a system\n"
	 "                               call faulted in (a second fault on some guests) [no]\n"
	 "    --ipcc-window=N            out-of-order window in instructions, 0: none [512]\n"
	 "    --ipcc-shadow=N            a mispredict's shadow: the instructions after it whose\n"
	 "                               misses still overlap an LLC or memory miss's epoch [16]\n"
	 "    --ipcc-llc-share=BYTES     the LLC a program keeps on a shared host: a line\n"
	 "                               reused after D bytes of lines brought forward is\n"
	 "                               in memory with the chance D^4 / (D^4 + BYTES^4)\n"
	 "                               [0: all the LLC]\n"
	 "    --ipcc-llc-foreign=N       with a share: other tenants bring N lines into the\n"
	 "                               LLC a million cycles, and D counts them too [0]\n"
	 "    --ipcc-llc-clock=CPI,L2,LLC,MEM,MISP  the cycles they come in: an\n"
	 "                               instruction's in thousandths, a stalling miss's\n"
	 "                               to each level, a mispredict's [250,11,95,375,26]\n");
}

static void opt_debug_usage(void)
{
	VG_(printf)
	("    --ipcc-trace=FILE          the order of the segments entered, in windows, for\n"
	 "                               bench/trace_windows [none]\n"
	 "    --ipcc-trace-every=N       a window every N instructions [20000000]\n"
	 "    --ipcc-trace-len=N         of N instructions [10000]\n");
}

/*
 * A bad value of one of the tool's options: said, and the run ends. VG_(fmsg_bad_option)
 * ends it only while Valgrind parses the options; in post_clo_init() it returns, and the
 * tool went on with the value (--ipcc-fe=0,0 ran, --ipcc-opcache=1024,16 divided by zero).
 */
#define BAD_OPTION(...)                            \
	do {                                       \
		VG_(fmsg_bad_option)(__VA_ARGS__); \
		VG_(exit)(1);                      \
	} while (0)

/* ---- caches ---------------------------------------------------------------------------- */

typedef struct {
	ULong size;
	UInt assoc, line, shift, sets;
	Addr mask;     /* sets - 1 where sets is a power of two (no division); else 0 */
	UInt set_bits; /* log2(sets) where mask */
	Addr fold;     /* the bits above the index folded into it (L2 alone; 0: none) */
	Addr *tag;     /* sets x assoc line numbers, most recently used first */
} Cache;

/* The first of line's set's tags. */
static inline Addr *cache_set(const Cache *c, Addr line)
{
	return c->tag + (SizeT)(c->mask ? (line ^ ((line >> c->set_bits) & c->fold)) & c->mask
					: line % c->sets) *
			    c->assoc;
}

static void cache_geometry(Cache *c, const HChar *name, const HChar *spec, Bool fold_ok)
{
	const HChar *p = spec;
	HChar *end;

	c->size = (ULong)VG_(strtoll10)(p, &end);
	if (*end == ',')
		c->assoc = (UInt)VG_(strtoll10)(end + 1, &end);
	if (*end == ',')
		c->line = (UInt)VG_(strtoll10)(end + 1, &end);
	c->fold = 0;
	if (*end == ',' && fold_ok) { /* L2's fourth field: the bits its index folds */
		Long bits = VG_(strtoll10)(end + 1, &end);

		if (bits < 0 || bits > 6)
			BAD_OPTION(name, "its fold is 0 to 6 bits, got '%s'\n", spec);
		c->fold = ((Addr)1 << bits) - 1;
	}
	if (*end || c->size == 0 || c->assoc == 0 || c->line < 8 || (c->line & (c->line - 1)) ||
	    c->size % ((ULong)c->assoc * c->line))
		BAD_OPTION(name, "expected SIZE,ASSOC,LINE, got '%s'\n", spec);
	c->sets = (UInt)(c->size / ((ULong)c->assoc * c->line));
	c->mask = (c->sets & (c->sets - 1)) == 0 && c->sets > 1 ? c->sets - 1 : 0;
	for (c->set_bits = 0; c->mask && (1u << c->set_bits) < c->sets; c->set_bits++)
		;
	for (c->shift = 0; (1u << c->shift) < c->line; c->shift++)
		;
	c->tag = NULL;
}

static void cache_alloc(Cache *c, const Cache *geometry)
{
	*c = *geometry;
	c->tag = VG_(malloc)("ipcc.cache", sizeof(Addr) * c->sets * c->assoc);
	for (UInt i = 0; i < c->sets * c->assoc; i++)
		c->tag[i] = ~(Addr)0;
}

/*
 * The caches past L1 are indexed by physical address, and the kernel gives a process's
 * pages frames scattered over memory: a page's lines land in one of L2's "colours" (2 MiB,
 * 16-way: 32 of them, a page's worth of sets each) by its frame, not by its virtual
 * address, and a buffer the size of L2 has colours that take more than their ways hold.
 * ipcc bench latency on a Granite Rapids-class guest (L2 2 MiB): 20.5 cycles a load at 1
 * MiB and 1280 KiB, 29 at 1536 KiB, 42 at 1792 KiB, 67 at 2 MiB, where virtual indexing
 * gives 21.7 at 2 MiB. Valgrind cannot know the frames: each page gets a frame number of
 * its own from a fixed bijection of its page number (the same in every run), and L2's and
 * the LLC's lines are (frame, line within the page). L1 (its sets within a page) is
 * indexed by the virtual line.
 */
static UInt page_shift; /* lines a page: 1 << page_shift */

static inline Addr frame_line(Addr line)
{
	if (!clo_frames)
		return line;
	const ULong m = (1ull << 52) - 1;
	ULong x = (ULong)(line >> page_shift) & m;

	/* odd multipliers and xor-shifts: each step a bijection of 52-bit numbers */
	x = (x * 0x9E3779B97F4A7C15ull) & m;
	x ^= x >> 26;
	x = (x * 0xBF58476D1CE4E5B9ull) & m;
	x ^= x >> 23;
	return (Addr)(x << page_shift) | (line & (((Addr)1 << page_shift) - 1));
}

/*
 * Look up a line and make it the most recent of its set: where it was in the set's order
 * (0 the most recent), or assoc on a miss.
 */
ALWAYS_INLINE UInt cache_pos(Cache *c, Addr line)
{
	Addr *s = cache_set(c, line);
	UInt i;

	if (s[0] == line)
		return 0;
	for (i = 1; i < c->assoc && s[i] != line; i++)
		;
	UInt pos = i;

	if (i == c->assoc)
		i = c->assoc - 1; /* a miss: the least recent makes way */
	for (; i > 0; i--)
		s[i] = s[i - 1];
	s[0] = line;
	return pos;
}

/* Look up a line and make it the most recent of its set: True on a hit. */
ALWAYS_INLINE Bool cache_ref(Cache *c, Addr line)
{
	return cache_pos(c, line) < c->assoc;
}

/*
 * L1d's access: as cache_ref, and a store marks its line written (WRITTEN, the tag's top
 * bit: a line number never has it); *wb says whether the line it evicted had been written
 * (L1 writes it back to L2). A line the L1 prefetcher brought in carries PREFETCHED until
 * its first use: *pf says the access was that use. A line of a page the kernel mapped
 * read-only carries ROPAGE until a store: *ro says the access hit such a line.
 */
#define WRITTEN	   ((Addr)1 << 63)
#define PREFETCHED ((Addr)1 << 62)
#define ROPAGE	   ((Addr)1 << 61)
#define FLAGS	   (WRITTEN | PREFETCHED | ROPAGE)

ALWAYS_INLINE Bool cache_ref_write(Cache *c, Addr line, Bool store, Bool *wb, Bool *pf, Bool *ro)
{
	Addr *s = cache_set(c, line), mark = store ? WRITTEN : 0;
	UInt i;

	*wb = False;
	*ro = False;
	if ((s[0] & ~FLAGS) == line) {
		*pf = (s[0] & PREFETCHED) != 0;
		*ro = (s[0] & ROPAGE) != 0;
		s[0] = (s[0] & ~(PREFETCHED | (store ? ROPAGE : 0))) | mark;
		return True;
	}
	for (i = 1; i < c->assoc && (s[i] & ~FLAGS) != line; i++)
		;
	Bool hit = i < c->assoc;

	if (!hit)
		i = c->assoc - 1; /* a miss: the least recent makes way */
	Addr old = s[i];

	*wb = !hit && old != ~(Addr)0 && (old & WRITTEN);
	*pf = hit && (old & PREFETCHED);
	*ro = hit && (old & ROPAGE);
	if (hit)
		mark |= (old & WRITTEN) | (store ? 0 : old & ROPAGE);
	for (; i > 0; i--)
		s[i] = s[i - 1];
	s[0] = line | mark;
	return hit;
}

/*
 * Pages touched so far (4 KiB, every thread's): the first touch of a page faults, and the
 * kernel fills it (zeroes it, or copies a file's bytes in) through the cache, so the page's
 * lines are then in L2 and the LLC, not in memory. An open-addressing set of page numbers,
 * and of the 64 KiB windows of a file that a fault has mapped (WINDOW); a page unmapped is
 * marked GONE, which a lookup passes over and a rehash drops.
 */
#define EMPTY	   (~(Addr)0)
#define GONE	   (~(Addr)1)
#define WINDOW	   ((Addr)1 << 62)
#define RO	   ((Addr)1 << 61) /* on a page's key: mapped read-only (page_fault()) */
#define KT	   ((Addr)1 << 60) /* ... a system call faulted it in, the program has not touched it */
#define PAGE_FLAGS (RO | KT)
static Addr *pages;
static SizeT pages_cap, pages_used, pages_ro;

static void pages_grow(void)
{
	SizeT cap = pages_cap ? pages_cap * 2 : 1 << 16, live = 0;
	Addr *t = VG_(malloc)("ipcc.pages", cap * sizeof(Addr));

	for (SizeT i = 0; i < cap; i++)
		t[i] = EMPTY;
	for (SizeT i = 0; i < pages_cap; i++)
		if (pages[i] != EMPTY && pages[i] != GONE) {
			SizeT h = ((pages[i] & ~PAGE_FLAGS) * 0x9E3779B97F4A7C15ull) & (cap - 1);

			while (t[h] != EMPTY)
				h = (h + 1) & (cap - 1);
			t[h] = pages[i];
			live++;
		}
	if (pages)
		VG_(free)(pages);
	pages = t;
	pages_cap = cap;
	pages_used = live;
}

/* A key's slot: where it is, or where it goes (EMPTY there), with room for one more. */
static Addr *page_slot(Addr page)
{
	if (pages_used * 2 >= pages_cap)
		pages_grow();
	SizeT h = (page * 0x9E3779B97F4A7C15ull) & (pages_cap - 1);

	while (pages[h] != EMPTY && (pages[h] & ~PAGE_FLAGS) != page)
		h = (h + 1) & (pages_cap - 1);
	return &pages[h];
}

/* Add a key: True when it was not there. */
static Bool page_first_touch(Addr page)
{
	Addr *e = page_slot(page);

	if (*e != EMPTY)
		return False;
	*e = page;
	pages_used++;
	return True;
}

static void page_forget(Addr page)
{
	if (!pages_cap)
		return;
	Addr *e = page_slot(page);

	if (*e == EMPTY)
		return;
	pages_ro -= (*e & RO) != 0;
	*e = GONE;
}

/*
 * The kernel's part, which account.c charges at the profile's costs: page faults, system
 * calls and the bytes those that read or write move (this process's, every thread's). A
 * page's first touch faults, but for a read of a file's page in a 64 KiB window that an
 * earlier fault mapped: the kernel maps the pages around a file's fault that its page cache
 * holds (fault_around_bytes, 64 KiB by default), where an anonymous page, or a private
 * file's page written, faults on its own. A page read first is mapped read-only (an
 * anonymous one to the zero page, where the kernel has one: --ipcc-zero-page; a file's to
 * its page cache), and its first write faults again (copy on write): its key carries RO
 * until then, and so do its lines in L1d (ROPAGE), which a store that hits them finds
 * (page_written()).
 */
static ULong k_faults, k_syscalls, k_bytes;
static ULong k_file_faults; /* of the faults, a file's page read: its 64 KiB window mapped */
static ULong k_touches;	    /* the program's first touches of pages a system call faulted in */
static void fault_counted(Bool file);
static void touch_counted(void);

/*
 * A page's first touch (its key just added): a fault, or none where fault-around mapped it.
 * A data page read (ro) is mapped read-only: a file's always, an anonymous one where the
 * kernel maps its zero page (--ipcc-zero-page; a kernel that does not gives the read a page
 * of its own, and the write after it does not fault). True where it was; *is_file (where
 * not NULL) whether it was a file's page read, which the kernel maps from its page cache
 * without reading it (no line of it comes nearer than the LLC).
 */
static Bool page_fault(Addr page, Bool write, Bool ro, Bool *is_file)
{
	Bool file = False;

	if (!write) {
		NSegment const *seg = VG_(am_find_nsegment)(page << 12);

		file = seg && seg->kind == SkFileC;
	}
	ro = ro && (file || clo_zero_page);
	if (ro) {
		*page_slot(page) |= RO;
		pages_ro++;
	}
	if (!file || page_first_touch((page >> 4) | WINDOW))
		fault_counted(file);
	if (is_file)
		*is_file = file;
	return ro;
}

/* A write to a page touched before: where it was mapped read-only, the copy's fault. */
static void page_written(Addr page)
{
	if (!pages_ro)
		return;
	Addr *e = page_slot(page);

	if (*e != EMPTY && (*e & RO)) {
		*e &= ~RO;
		pages_ro--;
		fault_counted(False);
	}
}

/*
 * Any unmapping or protection change forgets the pages ptr_prefetch() found readable (ptr_gen
 * moves on) and the page it last found touched.
 */
static UInt ptr_gen = 1;
static Addr ptr_touched = ~(Addr)0;

/* Unmapped (munmap, brk lowered): a touch after faults again. */
static void pages_unmapped(Addr a, SizeT len)
{
	ptr_gen++;
	ptr_touched = ~(Addr)0;
	if (!len)
		return;
	for (Addr p = a >> 12; p <= (a + len - 1) >> 12; p++)
		page_forget(p);
	for (Addr w = a >> 16; w <= (a + len - 1) >> 16; w++)
		page_forget(w | WINDOW);
}

static void pages_protected(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	(void)a, (void)len, (void)rr, (void)ww, (void)xx;
	ptr_gen++;
	ptr_touched = ~(Addr)0;
}

/* mremap moves the pages with their frames: no fault at the new address. */
static void pages_moved(Addr from, Addr to, SizeT len)
{
	ptr_gen++;
	ptr_touched = ~(Addr)0;
	for (SizeT off = 0; off < len; off += 4096) {
		Addr *e = page_slot((from + off) >> 12);

		if (*e == EMPTY)
			continue;
		Bool ro = (*e & RO) != 0;

		if (page_first_touch((to + off) >> 12) && ro) {
			*page_slot((to + off) >> 12) |= RO;
			pages_ro++;
		}
	}
}

/* ---- counts and region paths ------------------------------------------------------------ */

/*
 * What one segment counts, under one region path. What every run of it or of its branches
 * adds to comes first, in one line of the host's (the Seg that holds it starts a line).
 */
typedef struct {
	ULong execs;
	ULong cond, taken, ind, ret;
	ULong fe_slow, fe_full; /* taken branches past a line's limits: fe_mark() */
	ULong l1d;
	ULong l2, ll, l1i, l2i, lli; /* misses (l1d's too) */
	ULong cond_miss, ind_miss, ret_miss;
	ULong stall_l2, stall_llc, stall_mem; /* load misses that stall: see miss_stalls() */
	ULong dtlb, walk;		      /* first-level TLB misses; of them, page walks */
	ULong wb;			      /* written lines L1d evicted (to L2) */
	ULong btb;			      /* taken branches the branch-target buffer missed */
	ULong btb2;			      /* ... and its second level too (btb_ref()) */
	ULong btb_restart; /* taken branches just after a mispredict, not among the recent */
	ULong stall_stlb, stall_walk; /* ... of loads that stall */
	/* Of the stalls, those whose address no earlier miss gave (miss_stalls()'s dep) */
	ULong lone_l2, lone_llc, lone_mem, lone_stlb, lone_walk;
	ULong itlb, iwalk; /* instruction fetches' first-level TLB misses; of them, walks */
	ULong l2i_restart; /* fetches that restarted after a mispredict and missed L1i for L2 */
	ULong rep_iters;   /* a rep movs/stos segment: its iterations (execs counts its starts) */
	ULong rep_runs;	   /* ... and the runs of it that started at the end of another segment */
	/*
	 * The kernel's part that its runs caused: page faults (its loads, stores, fetches, or its
	 * system calls' writes), system calls, the bytes those moved (fault_counted()).
	 */
	ULong faults, syscalls, bytes;
	ULong file_faults; /* of the faults, a file's page read (page_fault()) */
	ULong decoded;	   /* runs the op cache did not hold: through the decoders */
	ULong touches;	   /* first touches of pages a system call faulted in (kernel_wrote()) */
} Counts;

/* A stack of open regions: the innermost region's name, under its parent's path. */
typedef struct Path {
	struct Path *parent, *child, *sibling, *all_next;
	HChar *name;
	UInt id; /* 1, 2, ... in order of first entry; no path (outside every region) is 0 */
	ULong calls;
	ULong faults, syscalls, bytes; /* the kernel's part while it was the innermost open */
	ULong file_faults;	       /* of the faults, a file's page read */
	ULong touches;		       /* first touches of pages a system call faulted in */
} Path;

static Path *paths; /* every path, newest first */
static Path *tops;  /* the paths of one region, opened outside every other */
static UInt npaths;

static Path *path_enter(Path *parent, const HChar *name)
{
	Path **first = parent ? &parent->child : &tops;

	for (Path *p = *first; p; p = p->sibling)
		if (VG_(strcmp)(p->name, name) == 0)
			return p;
	Path *p = VG_(calloc)("ipcc.path", 1, sizeof(Path));

	p->parent = parent;
	p->name = VG_(strdup)("ipcc.path.name", name);
	p->id = ++npaths;
	p->sibling = *first;
	*first = p;
	p->all_next = paths;
	paths = p;
	return p;
}

/* One memory access of a superblock, for on_access. */
typedef struct {
	Addr pc;
	Bool store;
	UInt index;	 /* among the superblock's accesses (< 64: it has a bit) */
	ULong dep_loads; /* its address's provenance */
	UShort dep_regs;
	UShort out_regs; /* the registers its value reaches by the superblock's end */
	Addr last;	 /* its last address (a load of 8 bytes: ptr_prefetch()) */
	Addr page;	 /* ... and the page it last found readable, as of ptr_gen */
	UInt gen;
	UChar pad[12]; /* a host line each: access_new() */
} Access;

/* What the end of a superblock (or a taken side exit) does to the registers. */
typedef struct {
	UShort written;	 /* the registers it writes */
	UShort pass[16]; /* each written register's provenance: entry registers */
} SBEnd;

/* A conditional branch, for on_cond: where it is and what its condition is computed from. */
typedef struct {
	Addr pc;
	ULong loads; /* its condition's provenance (Prov) */
	UShort regs;
} Cond;

/* ---- per-thread state ------------------------------------------------------------------- */

#define INFLIGHT 16 /* the lines of an epoch's load misses that a later hit is checked against */
/* The lines ptr_prefetch() fetched last, a thread's: a direct-mapped filter of this many. */
#define PTR_SEEN 256

typedef struct {
	Bool ready;
	Path *regions;	      /* the regions open on this thread (NULL: none) */
	struct Seg *last_seg; /* the segment entered last */
	ULong insns;	      /* instructions entered so far */
	Long wait_start;      /* a waiting system call's start, real ns (vclock_pre()) */
	/* The open miss epoch (see miss_stalls()). */
	ULong epoch_end;  /* it closes when insns reaches this */
	UInt epoch_level; /* where its first miss was served (0: a TLB miss alone) */
	/* The epoch's last lone stall (miss_stalls()): where it counted, its line's level
	 * and its page's (0: none) */
	Counts *lone_at;
	UInt lone_level, lone_tlb;
	/* Dependences between misses (see Prov): */
	UShort miss_regs;	 /* registers holding a value computed from a miss of this epoch */
	UShort pending;		 /* ... that this superblock's misses reach by its end */
	ULong sb_missed;	 /* this superblock's accesses that missed (bit: Access.index) */
	Addr inflight[INFLIGHT]; /* lines this epoch's load misses fetch (see inflight_hit()) */
	UInt inflight_n;
	ULong inflight_bits; /* bit (line % 64) of each: most hits are told apart by it alone */
	Counts *cnt;	     /* where the segment running now counts: set on its entry */
	Cache l1d, l1i, l2;
	Cache oc; /* when oc_on: the op cache's entries (op_cache_hit()) */
	/* The fetch block op_cache_hit() saw last: the address after it, its last line, and
	 * the instructions it has there so far */
	Addr oc_next, oc_line;
	UInt oc_have;
	Addr ptr_seen[PTR_SEEN];
	Cache dtlb, stlb;   /* when tlb_on: lines of 4 KiB, pages */
	Cache itlb;	    /* when itlb_on: the instruction TLB, beside stlb */
	Addr last_ipage;    /* the code page translated last */
	Cache btb;	    /* when btb_on: taken branches' addresses (btb_key()) */
	Cache btb2;	    /* when btb2_on: its second level */
	Cache misp_recent;  /* when btb_restart_on: the sites that mispredicted last */
	UInt restart_taken; /* taken branches after a mispredict still to be checked */
	Addr last_page;	    /* the page translated last: the first level's most recent */
	Addr *l1d_last;	    /* the first tag of the L1d set data_line() looked in last */
	Predictor bp;	    /* conditional and indirect branches */
	Addr ras[RAS_DEPTH];
	UInt ras_top;		   /* entries pushed, modulo RAS_DEPTH */
	Addr stream[STREAMS];	   /* the next line each recent miss stream expects, going up */
	Addr stream_down[STREAMS]; /* and going down, from the same miss */
	Addr ifetch_next;	   /* the line the instruction prefetcher brought in last */
	Bool restart; /* a branch was mispredicted: the next fetch restarts the front end */
	UInt stream_next;
} Thread;

static Cache geom_l1d, geom_l1i, geom_l2, geom_ll, geom_dtlb, geom_stlb, geom_btb, geom_btb2;
static Bool btb_on, btb2_on, btb_restart_on;
static Cache geom_misp_recent;
static UInt btb_recent_ways; /* the ways of the buffer's sets that hold the recent branches */
static UInt btb_restart_window;
static Bool fe_on;
static Bool oc_on;
static Cache geom_oc;
static UInt oc_ops;		      /* --ipcc-opcache's OPS: an entry's ops */
static UInt fe_line_max, fe_half_max; /* --ipcc-fe */
static UInt tage_log, tage_base_log;  /* --ipcc-tage; 0: the defaults */
static Bool tlb_on, itlb_on;
static Cache geom_itlb;
static Cache ll; /* shared by every thread */

/*
 * The LLC's share (--ipcc-llc-share). On a shared host other tenants' lines take the LLC's
 * ways too, and a line the program left is the likelier gone the more it has used since:
 * ipcc bench latency on an Emerald Rapids guest (its sysfs: a 260 MiB LLC, 20-way), the
 * fewest cycles a load of three sweeps, was 4 MiB 99, 8 MiB 116, 16 MiB 143, 32 MiB 211,
 * 64 MiB 311, 128 MiB 422 (memory), where an LRU cache of any size gives one step. The
 * LLC keeps a clock, a tick each time a line comes to the front of its set (it is new
 * there, or it was behind another), and each line's tick at its last use: a line found D
 * ticks after it (D lines, D x 64 bytes) comes from memory with the chance D^4 / (D^4 +
 * S^4), S the share in lines, drawn from a hash of the line and the count of draws (the
 * same in every run). The ticks count a line the program used twice since twice, and the
 * spatial prefetcher's touch of a miss's pair as one.
 * The other tenants bring lines in as time passes, not as the program's own do: the same
 * chase, 8 MiB of lines, measured 116 cycles a load with none between its loads and 194
 * with 240 cycles of multiplies between them (docs/internals/model-backend.md, stop 53).
 * With --ipcc-llc-foreign the clock also ticks N lines a million cycles, counted on a
 * clock of the program's own (ll_clock_init()). S and N are fitted on that chase at 4 to
 * 32 MiB with 0 to 240 cycles between its loads.
 */
static ULong *ll_time; /* beside ll.tag, where there is a share: each line's last tick */
static ULong ll_clock; /* in 1/65536 of a line: TICK a line, and other tenants' lines */
#define TICK 65536
static ULong ll_per_insn, ll_per_stall[4], ll_per_miss; /* other tenants' lines: ll_clock_init() */
static double share_sq;					/* S^2, in ll_clock's units (TICK a line) */
static ULong share_draws;

/*
 * Other tenants' lines, counted on a clock of the program's own: an instruction CPI/1000
 * cycles, a stalling miss its level's latency, a mispredict MISP cycles
 * (--ipcc-llc-clock=CPI,L2,LLC,MEM,MISP).
 */
static void ll_clock_init(void)
{
	double per = (double)clo_llc_foreign / 1e6 * TICK;
	ULong v[5] = { 250, 11, 95, 375, 26 };
	const HChar *c = clo_llc_clock;

	for (UInt i = 0; c && i < 5; i++) {
		HChar *end;

		v[i] = VG_(strtoull10)(c, &end);
		c = *end == ',' ? end + 1 : NULL;
	}
	ll_per_insn = (ULong)(per * (double)v[0] / 1000.0 + 0.5);
	for (UInt i = 1; i < 4; i++)
		ll_per_stall[i] = (ULong)(per * (double)v[i] + 0.5);
	ll_per_miss = (ULong)(per * (double)v[4] + 0.5);
}

/* cache_pos() on the LLC, keeping the lines' times: *age, the ticks since line's last use. */
static inline UInt ll_ref(Addr line, ULong *age)
{
	if (!ll_time)
		return cache_pos(&ll, line);

	Addr *s = cache_set(&ll, line);
	ULong *t = ll_time + (s - ll.tag);
	UInt i;

	if (s[0] == line) {
		*age = ll_clock - t[0];
		t[0] = ll_clock;
		return 0;
	}
	for (i = 1; i < ll.assoc && s[i] != line; i++)
		;
	UInt pos = i;

	if (i == ll.assoc)
		i = ll.assoc - 1; /* a miss: the least recent makes way */
	else
		*age = ll_clock - t[i];
	for (; i > 0; i--)
		s[i] = s[i - 1], t[i] = t[i - 1];
	s[0] = line;
	t[0] = ll_clock += TICK;
	return pos;
}

static inline void ll_touch(Addr line)
{
	ULong age;

	ll_ref(line, &age);
}

/* An LLC lookup of a line L2 misses: True when the LLC serves it. */
static inline Bool llc_hit(Addr line)
{
	ULong age = 0;

	if (ll_ref(line, &age) == ll.assoc)
		return False;
	if (!ll_time || !age)
		return True;
	double d = (double)age, x = d * d / share_sq;

	x *= x;
	double odds = 4294967296.0 * (x / (x + 1));
	ULong h = (ULong)line ^ (++share_draws * 0x9E3779B97F4A7C15ull);

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return (double)(h >> 32) >= odds;
}

static Thread *threads[MAX_THREADS];
static Thread *cur;
static UInt nthreads;

/* What a system call wrote into the program's memory: the kernel faulted it in. */
static void kernel_wrote(CorePart part, ThreadId tid, Addr a, SizeT size)
{
	(void)part, (void)tid;
	if (!size)
		return;
	for (Addr p = a >> 12; p <= (a + size - 1) >> 12; p++)
		if (!page_first_touch(p))
			page_written(p);
		else {
			page_fault(p, True, False, NULL);
			if (clo_kernel_touch)
				*page_slot(p) |= KT;
			for (Addr l = p << (12 - geom_l1d.shift);
			     l < (p + 1) << (12 - geom_l1d.shift); l++)
				ll_touch(frame_line(l));
		}
}

/* Thread tid's state (NULL before it started); beyond MAX_THREADS they share the last one's. */
static Thread *thread_of(ThreadId tid)
{
	return threads[tid < MAX_THREADS ? tid : MAX_THREADS - 1];
}

/* The regions open on thread tid (NULL: none). */
static Path *open_regions(ThreadId tid)
{
	return thread_of(tid) ? thread_of(tid)->regions : NULL;
}

/*
 * A fault, in the run's count, the running thread's innermost region's, and the segment's
 * that ran last on it (the one whose access or system call faulted; a fetch's fault is the
 * segment's before it).
 */
static void fault_counted(Bool file)
{
	k_faults++;
	k_file_faults += file;
	if (cur && cur->regions) {
		cur->regions->faults++;
		cur->regions->file_faults += file;
	}
	if (cur && cur->cnt) {
		cur->cnt->faults++;
		cur->cnt->file_faults += file;
	}
}

/*
 * The program's first touch of a page a system call faulted in (--ipcc-kernel-touch): where
 * the kernel's mapping is not yet the program's (a PVM guest fills its shadow page table for
 * user mode there), a second fault that the guest never counts, charged to the segment that
 * touched it (bench/kernel_costs measures it).
 */
static void touch_counted(void)
{
	k_touches++;
	if (cur && cur->regions)
		cur->regions->touches++;
	if (cur && cur->cnt)
		cur->cnt->touches++;
}

/* The counts of the segment that ran last on thread tid (its system call's), or NULL. */
static Counts *syscall_counts(ThreadId tid)
{
	return thread_of(tid) ? thread_of(tid)->cnt : NULL;
}

static void vclock_pre(ThreadId tid, UInt no);
static void exec_before(UInt no, const UWord *args);
static void exec_failed(void);
static HChar exec_out[600], exec_defs[600]; /* the files of an exec under way; "": none */

static void pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
	Path *r = open_regions(tid);
	Counts *c = syscall_counts(tid);

	(void)args, (void)nargs;
	vclock_pre(tid, no);
	k_syscalls++;
	if (r)
		r->syscalls++;
	if (c)
		c->syscalls++;
	if (no == __NR_execve || no == __NR_execveat)
		exec_before(no, args);
}

/*
 * The clocks a program reads run on virtual time under the tool, so that a program that
 * branches on them counts the same from run to run: two runs of `lz4 -9` counted 2
 * instructions apart in 180 million, one time in three, as it timed itself on the real
 * clock (under Valgrind every clock read is a system call: its vDSO is hidden). Virtual
 * time is a nanosecond for each instruction the process ran so far (each thread's own for
 * CLOCK_THREAD_CPUTIME_ID), plus the time it waited: a sleep's asked time (to an absolute
 * deadline, the time left to it), and the real time of a wait for something outside it (poll,
 * select, epoll, futex, wait4, waitid), which only a program that waits on others differs by.
 * The wall and monotonic clocks start from the real ones at the tool's start, rounded down
 * to a whole second, so that the nanoseconds a program reads are the same each run too
 * (model_counts' deadline 10 ms on carries into the next second for one start in a
 * hundred, a 10 ms window of each second, and counts 5 instructions more: 20,134,720
 * against 20,134,715, and once a CPU time of 20,130 us where it reads 20,129); the CPU-time
 * clocks from 0. time() and rdtsc stay the machine's.
 */
static Long vclock_mono, vclock_real; /* the real clocks at the start, whole seconds, ns */
static ULong vclock_waited;	      /* ns the process waited, by the rules above */

static Long real_ns(vki_clockid_t clock)
{
	struct vki_timespec ts;

	VG_(clock_gettime)(&ts, clock);
	return (Long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static ULong vclock_now(void)
{
	ULong ns = vclock_waited;

	for (UInt i = 0; i < MAX_THREADS; i++)
		ns += threads[i] ? threads[i]->insns : 0;
	return ns;
}

static void vclock_init(void)
{
	vclock_mono = real_ns(VKI_CLOCK_MONOTONIC) / 1000000000LL * 1000000000LL;
	vclock_real = real_ns(VKI_CLOCK_REALTIME) / 1000000000LL * 1000000000LL;
}

static Long ts_ns(const struct vki_timespec *ts)
{
	return (Long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static Bool clock_is_wall(UWord c)
{
	return c == VKI_CLOCK_REALTIME || c == 5 /* REALTIME_COARSE */ || c == 11 /* TAI */;
}

static Bool clock_is_mono(UWord c)
{
	return c == VKI_CLOCK_MONOTONIC || c == 4 /* MONOTONIC_RAW */ ||
	       c == 6 /* MONOTONIC_COARSE */ || c == 7 /* BOOTTIME */;
}

/* A clock's virtual reading, ns; False for a clock left as it is. */
static Bool vclock_read(ThreadId tid, UWord clock, Long *ns)
{
	if (clock_is_wall(clock))
		*ns = vclock_real + (Long)vclock_now();
	else if (clock_is_mono(clock))
		*ns = vclock_mono + (Long)vclock_now();
	else if (clock == VKI_CLOCK_PROCESS_CPUTIME_ID)
		*ns = (Long)(vclock_now() - vclock_waited);
	else if (clock == VKI_CLOCK_THREAD_CPUTIME_ID)
		*ns = thread_of(tid) ? (Long)thread_of(tid)->insns : 0;
	else
		return False;
	return True;
}

/* A system call that waits for something outside the process: its real time is added. */
static Bool waits_on_others(UInt no)
{
	switch (no) {
	case __NR_poll:
	case __NR_ppoll:
	case __NR_select:
	case __NR_pselect6:
	case __NR_epoll_wait:
	case __NR_epoll_pwait:
	case __NR_futex:
	case __NR_wait4:
	case __NR_waitid:
		return True;
	default:
		return False;
	}
}

/* Before a system call that waits: its start, for vclock_post(). */
static void vclock_pre(ThreadId tid, UInt no)
{
	if (waits_on_others(no) && thread_of(tid))
		thread_of(tid)->wait_start = real_ns(VKI_CLOCK_MONOTONIC);
}

/* A sleep that slept, or that a signal woke. */
static Bool slept(SysRes res)
{
	return !sr_isError(res) || sr_Err(res) == VKI_EINTR;
}

/* After a system call (failed ones too: an interrupted sleep, a wait timed out). */
static void vclock_post(ThreadId tid, UInt no, UWord *args, SysRes res)
{
	Thread *t = thread_of(tid);
	Long ns;

	switch (no) {
	case __NR_clock_gettime:
		if (!sr_isError(res) && args[1] && vclock_read(tid, args[0], &ns)) {
			struct vki_timespec *ts = (struct vki_timespec *)args[1];

			ts->tv_sec = ns / 1000000000LL;
			ts->tv_nsec = ns % 1000000000LL;
		}
		break;
	case __NR_gettimeofday:
		if (!sr_isError(res) && args[0]) {
			struct vki_timeval *tv = (struct vki_timeval *)args[0];

			ns = vclock_real + (Long)vclock_now();
			tv->tv_sec = ns / 1000000000LL;
			tv->tv_usec = ns % 1000000000LL / 1000;
		}
		break;
	case __NR_nanosleep:
		/* Slept, or woken by a signal: the time asked was readable (not EFAULT, EINVAL). */
		if (slept(res) && args[0])
			vclock_waited += (ULong)ts_ns((const struct vki_timespec *)args[0]);
		break;
	case __NR_clock_nanosleep:
		/* flags (args[1]) TIMER_ABSTIME: until a reading of the clock (args[0]) */
		if (!slept(res) || !args[2])
			break;
		ns = ts_ns((const struct vki_timespec *)args[2]);
		if (args[1] & 1) {
			Long now;

			if (vclock_read(tid, args[0], &now) && ns > now)
				vclock_waited += (ULong)(ns - now);
		} else {
			vclock_waited += (ULong)ns;
		}
		break;
	default:
		if (waits_on_others(no) && t && t->wait_start) {
			vclock_waited += (ULong)(real_ns(VKI_CLOCK_MONOTONIC) - t->wait_start);
			t->wait_start = 0;
		}
		break;
	}
}

static void post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
	(void)nargs;
	vclock_post(tid, no, args, res);
	if (exec_out[0] && (no == __NR_execve || no == __NR_execveat))
		exec_failed(); /* one that succeeds does not come back */
	if (sr_isError(res))
		return;
	switch (no) {
	case __NR_read:
	case __NR_write:
	case __NR_pread64:
	case __NR_pwrite64:
	case __NR_readv:
	case __NR_writev:
	case __NR_preadv:
	case __NR_pwritev:
	case __NR_sendfile:
	case __NR_sendto:
	case __NR_recvfrom:
		k_bytes += sr_Res(res);
		if (open_regions(tid))
			open_regions(tid)->bytes += sr_Res(res);
		if (syscall_counts(tid))
			syscall_counts(tid)->bytes += sr_Res(res);
		break;
	default:
		break;
	}
}

/* A forked child's kernel time is its own from the fork on. */
static void kernel_child(ThreadId tid)
{
	(void)tid;
	k_faults = k_syscalls = k_bytes = k_file_faults = k_touches = 0;
}
/*
 * The line the running thread accessed last, while it is its L1d set's most recent and was
 * not brought in by the prefetcher (else ~0); fast_st the same line once it is written. An
 * access within it changes nothing (cache_ref_write()'s first case, its TLB page the last
 * one, no miss): the instrumentation reads these and calls on_access only for the others.
 */
static Addr fast_ld = ~(Addr)0, fast_st = ~(Addr)0;

static void thread_start(ThreadId tid, ULong blocks)
{
	(void)blocks;
	if (tid >= MAX_THREADS)
		tid = MAX_THREADS - 1; /* beyond: they share the last one's state */
	if (!threads[tid]) {
		Thread *t = VG_(calloc)("ipcc.thread", 1, sizeof(Thread));

		cache_alloc(&t->l1d, &geom_l1d);
		cache_alloc(&t->l1i, &geom_l1i);
		if (oc_on)
			cache_alloc(&t->oc, &geom_oc);
		cache_alloc(&t->l2, &geom_l2);
		if (tlb_on) {
			cache_alloc(&t->dtlb, &geom_dtlb);
			cache_alloc(&t->stlb, &geom_stlb);
			if (itlb_on)
				cache_alloc(&t->itlb, &geom_itlb);
			t->last_ipage = ~(Addr)0;
		}
		if (btb_on)
			cache_alloc(&t->btb, &geom_btb);
		if (btb2_on)
			cache_alloc(&t->btb2, &geom_btb2);
		if (btb_restart_on)
			cache_alloc(&t->misp_recent, &geom_misp_recent);
		predictor_init(&t->bp, tage_log, tage_base_log);
		threads[tid] = t;
		nthreads++;
	}
	cur = threads[tid];
	fast_ld = fast_st = ~(Addr)0;
}

/* ---- segments --------------------------------------------------------------------------- */

#define SEG_JUMPS_IN 2

typedef struct Seg {
	/*
	 * What running it reads (on_enter()), together in its first line: a segment is entered
	 * every few instructions, and in a program of many segments each entry misses in the
	 * host's caches once a line.
	 */
	UInt ninsns, njumps;
	Bool defined; /* written to --ipcc-defs */
	Bool contiguous;
	Bool rep;      /* one rep movs or rep stos: VEX runs each iteration apart */
	UChar fe_last; /* its last instruction's: FE_SEEN taken once, FE_SLOW, FE_FULL; FE_MARKED */
	/* When fe_on: of its jumps, those past a line's limits (fe_refresh()), as of fe_gen. */
	UInt fe_gen;
	UShort fe_slow, fe_full;
	Addr line_first, line_last; /* instruction-cache lines its bytes span (when contiguous) */
	Addr *jumps;		    /* its direct jumps and calls and its returns: always taken */
	Addr *addr;
	struct SegRegion *regions; /* under each region path it ran under */
	/*
	 * Its second line, which entering it reads too (edge() writes pred): the segments
	 * entered next after it, the most frequent first, and those it was entered from most
	 * often (see edge()); the counts saturate. Then up to SEG_JUMPS_IN of its jumps, where
	 * jumps points when it has no more (one host line fewer to miss an entry).
	 */
	struct Seg *succ[2];
	UInt succ_n[2];
	struct Seg *pred[2];
	UInt pred_n[2];
	Addr jumps_in[SEG_JUMPS_IN];
	Counts c; /* outside every region */
	struct Seg *hash_next, *all_next;
	UInt nbytes;
	UInt loads, stores; /* instructions of the segment that read / write memory */
	UChar *len, *bytes;
	const HChar *fn, *obj;
	UInt id;  /* in the file: 1, 2, ... in the order written; 0: not written */
	UInt noc; /* when oc_on: its pieces of lines (seg_op_cache()) */
	Addr *oc;
} Seg;

typedef struct SegRegion {
	struct SegRegion *next;
	Path *path;
	Counts c;
} SegRegion;

#define SEG_HASH 65536
static Seg *seg_hash[SEG_HASH];
static Seg *seg_all;

/* --ipcc-trace's windows: the segments entered, a NULL after each window. */
#define TRACE_CAP (1u << 22)
static Seg **trace_buf;
static UInt trace_n;
static ULong trace_next; /* the running thread's instruction count the next window starts at */

static void trace_note(Seg *s)
{
	if (cur->insns < trace_next || trace_n >= TRACE_CAP - 1)
		return;
	if (cur->insns < trace_next + (ULong)clo_trace_len) {
		trace_buf[trace_n++] = s;
		return;
	}
	trace_buf[trace_n++] = NULL;
	while (trace_next <= cur->insns)
		trace_next += (ULong)clo_trace_every;
}

static UInt seg_key(const Addr *addr, UInt n)
{
	Addr h = addr[0] * 0x9E3779B97F4A7C15ull ^ (n * 0x85EBCA6Bu) ^ addr[n - 1];

	return (UInt)((h >> 17) ^ h) & (SEG_HASH - 1);
}

/* Whether the instruction is rep movs or rep stos (prefixes: operand size, REX). */
static Bool is_rep_move(const UChar *p, UInt len)
{
	const UChar *end = p + len;
	Bool rep = False;

	for (; p < end && (*p == 0xf3 || *p == 0x66 || (*p >= 0x40 && *p <= 0x4f)); p++)
		rep |= *p == 0xf3;
	return rep && p + 1 == end && (*p == 0xa4 || *p == 0xa5 || *p == 0xaa || *p == 0xab);
}

/* The opcode of the len bytes of an instruction at p, past legacy and REX prefixes; NULL if
 * there is none. */
static const UChar *opcode(const UChar *p, UInt len)
{
	const UChar *end = p + len;

	while (p < end && (*p == 0x66 || *p == 0x67 || *p == 0xf2 || *p == 0xf3 || *p == 0x2e ||
			   *p == 0x3e || (*p >= 0x40 && *p <= 0x4f)))
		p++;
	return p < end ? p : NULL;
}

/* Whether the instruction at p is a branch always taken: a direct call or jmp, or a ret (an
 * indirect one is looked up with its target: on_indirect). */
static Bool always_taken(const UChar *p, UInt len)
{
	const UChar *op = opcode(p, len);

	return op && (*op == 0xe8 || *op == 0xe9 || *op == 0xeb || *op == 0xc2 || *op == 0xc3);
}

/*
 * A new segment, zeroed, at the start of a 64-byte line of the host's (Seg's first line
 * holds what running it reads). Segments live as long as the tool: they come from chunks
 * that are never freed.
 */
static Seg *seg_new(void)
{
	static UChar *next, *end;
	const SizeT size = (sizeof(Seg) + 63) & ~(SizeT)63;

	if (!next || (SizeT)(end - next) < size) {
		const SizeT chunk = 256 * size + 64;

		next = VG_(calloc)("ipcc.seg", 1, chunk);
		end = next + chunk;
		next += (64 - ((Addr)next & 63)) & 63;
	}
	Seg *s = (Seg *)next;

	STATIC_ASSERT(__builtin_offsetof(Seg, succ) == 64 &&
		      __builtin_offsetof(Seg, jumps_in) + sizeof(s->jumps_in) <= 128);
	next += size;
	return s;
}

/*
 * A segment's pieces for the op cache: each 64-byte line's run of its instructions (an
 * instruction belongs to the line it ends in, as in sim.c), as the line's number shifted
 * left 8 bits and the run's instructions (at most 255; the decoders' fused pairs counted as
 * two). op_cache_hit() makes entries of them.
 */
static void seg_op_cache(Seg *s)
{
	UInt n = 0, run = 0;
	Addr line = ~(Addr)0;

	s->oc = VG_(malloc)("ipcc.seg.oc", s->ninsns * sizeof(Addr));
	for (UInt i = 0; i <= s->ninsns; i++) {
		Addr l = i < s->ninsns ? (s->addr[i] + s->len[i] - 1) >> geom_l1i.shift : ~(Addr)0;

		if (l == line && run < 255) {
			run++;
			continue;
		}
		if (line != ~(Addr)0)
			s->oc[n++] = line << 8 | run;
		line = l;
		run = 1;
	}
	s->noc = n;
}

static Seg *seg_find(const Addr *addr, const UChar *len, UInt n, const UChar *bytes, UInt nbytes)
{
	UInt k = seg_key(addr, n);

	for (Seg *s = seg_hash[k]; s; s = s->hash_next)
		if (s->ninsns == n && s->nbytes == nbytes &&
		    VG_(memcmp)(s->addr, addr, n * sizeof(Addr)) == 0 &&
		    VG_(memcmp)(s->len, len, n) == 0 && VG_(memcmp)(s->bytes, bytes, nbytes) == 0)
			return s;
	Seg *s = seg_new();
	const HChar *name;
	DiEpoch ep = VG_(current_DiEpoch)();

	s->ninsns = n;
	s->nbytes = nbytes;
	s->addr = VG_(malloc)("ipcc.seg.addr", n * sizeof(Addr));
	s->len = VG_(malloc)("ipcc.seg.len", n);
	s->bytes = VG_(malloc)("ipcc.seg.bytes", nbytes);
	VG_(memcpy)(s->addr, addr, n * sizeof(Addr));
	VG_(memcpy)(s->len, len, n);
	VG_(memcpy)(s->bytes, bytes, nbytes);
	s->fn = VG_(strdup)("ipcc.seg.fn", VG_(get_fnname)(ep, addr[0], &name) ? name : "?");
	s->obj = VG_(strdup)("ipcc.seg.obj", VG_(get_objname)(ep, addr[0], &name) ? name : "?");
	s->contiguous = True;
	s->rep = n == 1 && is_rep_move(bytes, nbytes);
	for (UInt i = 1; i < n; i++)
		if (addr[i] != addr[i - 1] + len[i - 1])
			s->contiguous = False;
	for (UInt i = 0, off = 0; i < n; off += len[i], i++)
		s->njumps += always_taken(bytes + off, len[i]);
	s->jumps = s->njumps <= SEG_JUMPS_IN
		       ? s->jumps_in
		       : VG_(malloc)("ipcc.seg.jumps", s->njumps * sizeof(Addr));
	for (UInt i = 0, off = 0, k = 0; i < n; off += len[i], i++)
		if (always_taken(bytes + off, len[i]))
			s->jumps[k++] = addr[i];
	s->line_first = addr[0] >> geom_l1i.shift;
	s->line_last = (addr[n - 1] + len[n - 1] - 1) >> geom_l1i.shift;
	if (oc_on)
		seg_op_cache(s);
	s->hash_next = seg_hash[k];
	seg_hash[k] = s;
	s->all_next = seg_all;
	seg_all = s;
	return s;
}

/* ---- what the instrumented code calls ---------------------------------------------------- */

/* An instruction fetch of one line: 0 it hit L1i, 1 L2, 2 further. */
ALWAYS_INLINE UInt fetch_line(Addr line)
{
	Bool hit = cache_ref(&cur->l1i, line);

	/*
	 * The code page's translation: a fetch from a page the instruction TLB misses waits
	 * for the second level, or a walk (account.c charges them; the front end cannot fetch
	 * past it).
	 */
	if (itlb_on) {
		Addr page = line >> (12 - geom_l1i.shift);

		if (page != cur->last_ipage) {
			cur->last_ipage = page;
			if (!cache_ref(&cur->itlb, page)) {
				cur->cnt->itlb++;
				if (!cache_ref(&cur->stlb, page))
					cur->cnt->iwalk++;
			}
		}
	}
	UInt per_page = 4096 >> geom_l1i.shift;

	/*
	 * A tagged next-line instruction prefetcher: a miss, or a fetch of the line it
	 * prefetched last, brings in the next line; code run in order misses once. The line
	 * comes through L2 as a fetch's does, where it is in the same page: code that skips the
	 * line after it (a branch over it, a function's end) still takes L2's room for it, and
	 * one that L2 misses is counted and costed with the fetches that missed L2. That is a
	 * rule, not a known structure: functions called in a random order, each a line or two
	 * (bench/code_footprint.py, stop 73), took natively 45 and 100 cycles a call at 1.0
	 * and 1.5 MB of code, about 0.5 and 1.0 lines from past L2 a call; the model's L2 lost
	 * 0.04 and 0.22 of the lines run (24 and 52 cycles), 0.29 and 0.60 with the prefetched
	 * lines in it, costed where run next (38 and 73), and 0.44 and 0.92 so (45 and 89).
	 */
	if (!hit || line == cur->ifetch_next) {
		if (!cache_ref(&cur->l1i, line + 1) && ((line + 1) & (per_page - 1))) {
			Addr f = frame_line(line + 1);

			if (!cache_ref(&cur->l2, f)) {
				cur->cnt->l2i++;
				if (!llc_hit(f))
					cur->cnt->lli++;
			}
		}
		cur->ifetch_next = line + 1;
	}
	if (hit)
		return 0;
	cur->cnt->l1i++;
	/*
	 * A code page's first touch maps it from the page cache: a program's code, read from
	 * the file (and run before), is taken to be in the LLC then, not in memory.
	 */
	Addr first = line & ~(Addr)(per_page - 1);

	if (page_first_touch(first / per_page)) {
		page_fault(first / per_page, False, False, NULL);
		for (Addr l = first; l < first + per_page; l++)
			ll_touch(frame_line(l));
	}
	Addr f = frame_line(line);

	if (cache_ref(&cur->l2, f))
		return 1;
	cur->cnt->l2i++;
	if (!llc_hit(f))
		cur->cnt->lli++;
	/* The spatial prefetcher takes a code line's 128-byte pair too (data_line()). */
	if (clo_prefetch) {
		ll_touch(f ^ 1);
		cache_ref(&cur->l2, f ^ 1);
	}
	return 2;
}

/*
 * A taken branch's key in the branch-target buffer: its address, mixed so that branches 16
 * or 64 bytes apart spread over the sets (x ^ x >> 4 ^ x >> 10 is one-to-one).
 */
static inline Addr btb_key(Addr pc)
{
	return pc ^ pc >> 4 ^ pc >> 10;
}

/*
 * A taken branch at pc looks up the branch-target buffer (btb_on). A miss in its first level
 * looks in the second (btb2_on), which holds the entries the first evicts: one found there
 * moves back to the first. A chain of N jmps 8 or 16 bytes apart, in a loop, on Emerald
 * Rapids: 1.8-2.0 cycles a jmp from 1,024 to 4,096 jmps, 3.7-4.0 at 8,192, 6.6-6.9 at
 * 16,384 and 12.6-13.2 at 32,768 and 65,536 (the code in L2, whose fetch costs nothing at
 * 4,096 jmps 16 bytes apart): past the first level a cycle more, past both about 11.
 */
ALWAYS_INLINE void btb_ref(Addr pc)
{
	Addr key = btb_key(pc), *s = cache_set(&cur->btb, key);

	/*
	 * Where thousands of branch sites mispredict, a mispredict costs two or three times
	 * what it costs among a few (bench/mispredict_sites.py, Zen 5): after one, a taken
	 * branch that is not among the recent ones costs as a miss would. Recent: in the first
	 * btb_recent_ways of its set (the most recent first), which hold about as many of the
	 * last taken branches as those ways of every set do (a cache of its own for them made
	 * gcc's run 6% slower).
	 */
	if (cur->restart_taken) {
		UInt i = 0;

		cur->restart_taken--;
		while (i < btb_recent_ways && s[i] != key)
			i++;
		if (i == btb_recent_ways)
			cur->cnt->btb_restart++;
	}
	if (s[0] == key)
		return;
	Addr victim = s[cur->btb.assoc - 1];

	if (cache_ref(&cur->btb, key))
		return;
	cur->cnt->btb++;
	if (!btb2_on)
		return;
	Addr *t = cache_set(&cur->btb2, key);
	UInt i;

	for (i = 0; i < cur->btb2.assoc && t[i] != key; i++)
		;
	if (i == cur->btb2.assoc) {
		cur->cnt->btb2++;
	} else {
		for (; i + 1 < cur->btb2.assoc; i++)
			t[i] = t[i + 1];
		t[i] = ~(Addr)0;
	}
	if (victim != ~(Addr)0)
		cache_ref(&cur->btb2, victim);
}

/*
 * The front end's limits on taken branches close together (--ipcc-fe; measured on Emerald
 * Rapids, docs/internals/model-backend.md): a 64-byte line's first fe_line_max taken branches
 * (by address) go at full speed, each one after them is slow (fe_slow: a cycle or two more to
 * fetch); a 32-byte half keeps branch-target entries for its first fe_half_max, and each one
 * after them has none (fe_full: the decoder finds it and steers fetch again). A line's taken
 * branches are every branch in it taken once so far (fe_tab). Each segment keeps what its
 * branches are (fe_refresh()) until a line past a limit gains a branch (fe_gen), so that
 * running it costs two additions: looking each taken branch up made the tool 5% slower on gcc.
 */
#define FE_SEEN	  1
#define FE_SLOW	  2
#define FE_FULL	  4
#define FE_MARKED 8 /* (its jumps are in fe_tab) */

typedef struct {
	Addr line;   /* its number + 1 (0: a free slot) */
	ULong taken; /* a bit a byte: the branches in it taken once */
} FeLine;

static FeLine *fe_tab; /* open addressing, fe_cap slots (a power of two), at most half full */
static UInt fe_cap, fe_used, fe_gen = 1;

static FeLine *fe_slot(FeLine *tab, UInt cap, Addr line)
{
	UInt i = (UInt)(line ^ line >> 13) * 2654435761u & (cap - 1);

	while (tab[i].line && tab[i].line != line + 1)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Whether x has more than n bits set: n of them cleared, lowest first. */
static Bool more_than(ULong x, UInt n)
{
	for (; n && x; n--)
		x &= x - 1;
	return x != 0;
}

/* The taken branch at pc: FE_SLOW and FE_FULL as its line's branches make it. */
static UChar fe_status(Addr pc)
{
	FeLine *e = fe_slot(fe_tab, fe_cap, pc >> 6);
	ULong below = e->taken & ((1ull << (pc & 63)) - 1);
	ULong half = below & (pc & 32 ? ~0ull << 32 : ~0ull);

	return (UChar)((more_than(below, fe_line_max - 1) ? FE_SLOW : 0) |
		       (more_than(half, fe_half_max - 1) ? FE_FULL : 0));
}

/* The branch at pc is taken: its line holds it from now on. */
static void fe_mark(Addr pc)
{
	if (2 * (fe_used + 1) > fe_cap) {
		UInt cap = fe_cap ? 2 * fe_cap : 4096;
		FeLine *tab = VG_(calloc)("ipcc.fe", cap, sizeof(FeLine));

		for (UInt i = 0; i < fe_cap; i++)
			if (fe_tab[i].line)
				*fe_slot(tab, cap, fe_tab[i].line - 1) = fe_tab[i];
		if (fe_tab)
			VG_(free)(fe_tab);
		fe_tab = tab;
		fe_cap = cap;
	}
	FeLine *e = fe_slot(fe_tab, fe_cap, pc >> 6);
	ULong bit = 1ull << (pc & 63);

	if (!e->line) {
		e->line = (pc >> 6) + 1;
		fe_used++;
	}
	if (!(e->taken & bit)) {
		e->taken |= bit;
		/* No branch of a line of fewer is past a limit: most lines never are. */
		if (more_than(e->taken, fe_line_max < fe_half_max ? fe_line_max : fe_half_max))
			fe_gen++;
	}
}

static void fe_refresh(Seg *s)
{
	s->fe_slow = s->fe_full = 0;
	for (UInt i = 0; i < s->njumps; i++) {
		UChar f = fe_status(s->jumps[i]);

		s->fe_slow += (f & FE_SLOW) != 0;
		s->fe_full += (f & FE_FULL) != 0;
	}
	if (s->fe_last & FE_SEEN)
		s->fe_last =
		    (s->fe_last & (FE_SEEN | FE_MARKED)) | fe_status(s->addr[s->ninsns - 1]);
	s->fe_gen = fe_gen;
}

/* A conditional branch taken, or an indirect one, at pc: the last of the segment running. */
static inline void fe_last_taken(Addr pc)
{
	Seg *s = cur->last_seg;
	UChar f;

	if (s && s->addr[s->ninsns - 1] == pc) {
		if (!(s->fe_last & FE_SEEN)) {
			fe_mark(pc);
			s->fe_last |= FE_SEEN;
			fe_refresh(s);
		} else if (s->fe_gen != fe_gen)
			fe_refresh(s);
		f = s->fe_last;
	} else {
		fe_mark(pc);
		f = fe_status(pc);
	}
	cur->cnt->fe_slow += (f & FE_SLOW) != 0;
	cur->cnt->fe_full += (f & FE_FULL) != 0;
}

/* The counts of segment s under the regions open now. */
ALWAYS_INLINE Counts *seg_counts(Seg *s)
{
	Path *p = cur->regions;

	if (!p)
		return &s->c;
	for (SegRegion *r = s->regions; r; r = r->next)
		if (r->path == p)
			return &r->c;
	SegRegion *r = VG_(calloc)("ipcc.seg.region", 1, sizeof(SegRegion));

	r->path = p;
	r->next = s->regions;
	s->regions = r;
	return &r->c;
}

/*
 * One of x's two most frequent neighbours (v, n: successors or predecessors) is s. A third
 * takes the lesser one's place once that one's count has run down (each other neighbour
 * takes one off), so that the most frequent holds the first place.
 */
ALWAYS_INLINE void top2(Seg **v, UInt *n, Seg *s)
{
	if (v[0] == s) {
		n[0] += n[0] != ~0u;
	} else if (v[1] == s) {
		n[1] += n[1] != ~0u;
		if (n[1] > n[0]) {
			Seg *t = v[0];
			UInt m = n[0];

			v[0] = s, n[0] = n[1];
			v[1] = t, n[1] = m;
		}
	} else if (!v[0]) {
		v[0] = s, n[0] = 1;
	} else if (!v[1] || n[1] == 0) {
		v[1] = s, n[1] = 1;
	} else {
		n[1]--;
	}
}

/* Segment l was followed by s: s among l's two successors, l among s's two predecessors. */
ALWAYS_INLINE void edge(Seg *l, Seg *s)
{
	top2(l->succ, l->succ_n, s);
	top2(s->pred, s->pred_n, l);
}

/*
 * --ipcc-defs: each segment's instructions, as the I lines of the counts file, after a line
 * "D N" (N instructions), written the first time it runs; a buffer at a time, and what is
 * left at exit. The file starts "ipcc-defs 1".
 */
static Int defs_fd = -1;
static HChar defs_buf[1 << 16];
static UInt defs_used;

static void defs_flush(void)
{
	if (defs_fd >= 0 && defs_used &&
	    VG_(write)(defs_fd, defs_buf, (Int)defs_used) != (Int)defs_used) {
		VG_(close)(defs_fd); /* a short write: ipcc models the rest after the run */
		defs_fd = -1;
	}
	defs_used = 0;
}

static void defs_put(const HChar *p, UInt n)
{
	if (defs_used + n > sizeof(defs_buf))
		defs_flush();
	VG_(memcpy)(defs_buf + defs_used, p, n);
	defs_used += n;
}

static void define(Seg *s)
{
	static const HChar digit[] = "0123456789abcdef";
	HChar line[64 + 2 * 16];

	s->defined = True;
	defs_put(line, (UInt)VG_(sprintf)(line, "D %u\n", s->ninsns));
	for (UInt i = 0, off = 0; i < s->ninsns; off += s->len[i], i++) {
		Int n = (Int)VG_(sprintf)(line, "I %lx ", s->addr[i]);

		for (UInt b = 0; b < s->len[i]; b++) {
			line[n++] = digit[s->bytes[off + b] >> 4];
			line[n++] = digit[s->bytes[off + b] & 15];
		}
		line[n++] = '\n';
		defs_put(line, (UInt)n);
	}
}

/*
 * A forked child counts from the fork on: the copy of its parent's counts it starts with is
 * the parent's to write. (Before, a child that did not exec wrote them again: a program
 * that ran counted(N) and forked counted 2 (3 + 4N) there.) Its caches, TLBs and
 * predictors stay as the fork found them, warm, as the hardware's are; its one thread is
 * the one that forked.
 */
static void counts_child(ThreadId tid)
{
	(void)tid;
	for (Seg *s = seg_all; s; s = s->all_next) {
		VG_(memset)(&s->c, 0, sizeof(s->c));
		for (SegRegion *r = s->regions; r; r = r->next)
			VG_(memset)(&r->c, 0, sizeof(r->c));
		s->succ[0] = s->succ[1] = s->pred[0] = s->pred[1] = NULL;
		s->succ_n[0] = s->succ_n[1] = s->pred_n[0] = s->pred_n[1] = 0;
	}
	for (Path *p = paths; p; p = p->all_next)
		p->calls = p->faults = p->syscalls = p->bytes = p->file_faults = p->touches = 0;
	nthreads = 1;
	trace_n = 0; /* the parent's windows are the parent's to write */
}

/* A forked child: the parent writes what the buffer holds; the child writes no more. */
static void defs_child(ThreadId tid)
{
	(void)tid;
	if (defs_fd >= 0)
		VG_(close)(defs_fd);
	defs_fd = -1;
	defs_used = 0;
}

/*
 * Whether the op cache holds all of a segment's entries, each then the most recent of its
 * set; it holds them after. A fetch block runs from a branch's target to a taken branch,
 * and a line's piece of it takes an entry for each oc_ops of its instructions, keyed by the
 * line and the entry's place (bits 58 and up: no line number reaches them). VEX cuts one
 * fetch block into segments (at each conditional branch, and where a superblock ends): a
 * segment that starts where the one before it ended, in the same line, goes on in that
 * line's entries (bench/op_cache's blocks of 13 instructions, 448 of them, missed the op
 * cache one block in two, each block's second segment finding the first's entries). Two
 * fetch blocks that enter one line at different places share its entries (an
 * approximation: each has entries of its own there).
 */
static Bool op_cache_hit(const Seg *s)
{
	Bool hit = True;
	UInt base = s->noc && s->addr[0] == cur->oc_next && s->oc[0] >> 8 == cur->oc_line
			? cur->oc_have
			: 0;

	for (UInt i = 0; i < s->noc; i++) {
		Addr line = s->oc[i] >> 8;
		UInt from = i ? 0 : base, n = (UInt)(s->oc[i] & 255);

		for (UInt e = from / oc_ops; e <= (from + n - 1) / oc_ops && e < 32; e++)
			hit &= cache_ref(&cur->oc, line | (Addr)e << 58);
		cur->oc_line = line;
		cur->oc_have = from + n;
	}
	cur->oc_next = s->addr[s->ninsns - 1] + s->len[s->ninsns - 1];
	return hit;
}

static VG_REGPARM(1) void on_enter(Seg *s)
{
	if (!s->defined && defs_fd >= 0)
		define(s);
	/*
	 * VEX runs a rep movs or rep stos one iteration a superblock, jumping back to it: the
	 * instruction retires once (as a PMU counts it), its iterations are counted apart.
	 */
	if (s->rep && cur->last_seg) {
		Seg *l = cur->last_seg;

		if (l == s) {
			cur->cnt->rep_iters++;
			return;
		}
		if (l->addr[l->ninsns - 1] == s->addr[0]) {
			/* Its first iteration ran at the end of the segment before. */
			cur->last_seg = s;
			cur->cnt = seg_counts(s);
			cur->cnt->rep_iters++;
			cur->cnt->rep_runs++;
			return;
		}
	}
	if (cur->last_seg)
		edge(cur->last_seg, s);
	/* The segment most often entered next: its two lines while this one runs. */
	if (s->succ[0]) {
		__builtin_prefetch(s->succ[0]);
		__builtin_prefetch((const UChar *)s->succ[0] + 64);
	}
	cur->last_seg = s;
	cur->cnt = seg_counts(s);
	cur->cnt->execs++;
	if (trace_buf)
		trace_note(s);
	cur->insns += s->ninsns;
	ll_clock += s->ninsns * ll_per_insn;
	if (btb_on)
		for (UInt i = 0; i < s->njumps; i++)
			btb_ref(s->jumps[i]);
	if (fe_on && s->njumps) {
		if (!(s->fe_last & FE_MARKED)) {
			for (UInt i = 0; i < s->njumps; i++)
				fe_mark(s->jumps[i]);
			s->fe_last |= FE_MARKED;
		}
		if (s->fe_gen != fe_gen)
			fe_refresh(s);
		cur->cnt->fe_slow += s->fe_slow;
		cur->cnt->fe_full += s->fe_full;
	}
	/*
	 * A fetch block the op cache holds skips L1i; one it lacks comes through the decoders
	 * (account.c charges them) and fills it. Each entry is looked up, so that all become
	 * the most recent.
	 */
	if (oc_on) {
		Bool hit = op_cache_hit(s);

		if (hit) {
			cur->restart = False;
			return;
		}
		cur->cnt->decoded++;
	}
	/*
	 * After a mispredict the front end restarts at the right path's first line, and no
	 * prefetch along the predicted path hid its fetch: one that L2 serves is counted
	 * apart (account.c charges it; one from further is charged as every fetch from there).
	 */
	if (cur->restart) {
		cur->restart = False;
		if (fetch_line(s->line_first) == 1)
			cur->cnt->l2i_restart++;
	}
	if (s->contiguous) {
		for (Addr l = s->line_first; l <= s->line_last; l++)
			fetch_line(l);
	} else {
		Addr last = ~(Addr)0;

		for (UInt i = 0; i < s->ninsns; i++) {
			Addr a = s->addr[i] >> geom_l1i.shift,
			     b = (s->addr[i] + s->len[i] - 1) >> geom_l1i.shift;
			for (Addr l = a; l <= b; l++)
				if (l != last)
					fetch_line(last = l);
		}
	}
}

/* The start of a superblock's run: on_enter() for its first segment. */
static VG_REGPARM(1) void on_sb_start(Seg *s)
{
	cur->pending = 0;
	cur->sb_missed = 0;
	on_enter(s);
}

/*
 * The stream prefetcher: an L1 miss on the line a recent miss stream expects brings the
 * next PREFETCH_DEPTH lines into L2 and the LLC (uncounted) and moves the stream on; any
 * other miss starts a stream each way. Intel's L2 streamer follows descending addresses as
 * it does ascending ones (its optimization manual: a forward and a backward stream a 4 KiB
 * page), and so does the machine here: a read of a word a line over 64 or 256 MiB took
 * 7.9-9.8 TSC ticks a line either way (three runs of each). Python frees a list's
 * items last first: `python3 -c` splitting 2 MB of text into 300,000 words, then exiting,
 * spent 25 million cycles natively after the split (elapsed, against an os._exit() at
 * once) and 44 million modelled while only ascending streams were followed (154,000
 * misses to memory, where the items' and the list's lines come down in order). True when
 * the miss continued a stream (the L1 prefetcher goes up only: it follows those).
 */
static void stream_fetch(Addr line, Long step)
{
	for (Long d = 1; d <= PREFETCH_DEPTH; d++) {
		Addr f = frame_line(line + (Addr)(d * step));

		cache_ref(&cur->l2, f);
		ll_touch(f);
	}
}

static Bool prefetch(Addr line)
{
	for (UInt i = 0; i < STREAMS; i++)
		if (cur->stream[i] == line) {
			stream_fetch(line, 1);
			cur->stream[i] = line + 1;
			return True;
		}
	for (UInt i = 0; i < STREAMS; i++)
		if (cur->stream_down[i] == line) {
			stream_fetch(line, -1);
			cur->stream_down[i] = line - 1;
			return False;
		}
	cur->stream[cur->stream_next] = line + 1;
	cur->stream_down[cur->stream_next] = line - 1;
	cur->stream_next = (cur->stream_next + 1) % STREAMS;
	return False;
}

/*
 * The L1 prefetcher: a miss that continues a stream, or the first use of a line this
 * brought in, brings the next line of the page into L1d (a fill, counted as a miss is, that
 * no load waits for). So a stream read in order misses L1 where it starts and at each page.
 */
static void l1_prefetch(Addr line)
{
	UInt per_page = 4096 >> geom_l1d.shift;
	Bool wb, pf, ro;

	if (!(line & (per_page - 1)) || cache_ref_write(&cur->l1d, line, False, &wb, &pf, &ro))
		return;
	/* The line that brought it in is the most recent of its set, in the same page. */
	cache_set(&cur->l1d, line)[0] |= PREFETCHED | (cur->l1d_last[0] & ROPAGE);
	cur->cnt->l1d++;
	if (wb)
		cur->cnt->wb++;
	Addr f = frame_line(line);

	if (!cache_ref(&cur->l2, f)) {
		cur->cnt->l2++;
		if (!llc_hit(f))
			cur->cnt->ll++;
	}
}

/* One line's access: 0 when it hits L1, else where it was served (1 L2, 2 LLC, 3 memory). */
ALWAYS_INLINE UInt data_line(Addr line, Bool store)
{
	UInt level = 1;
	Bool wb, pf, ro;
	UInt per_page = 4096 >> geom_l1d.shift;
	Addr first = line & ~(Addr)(per_page - 1);

	cur->l1d_last = cache_set(&cur->l1d, line);
	if (cache_ref_write(&cur->l1d, line, store, &wb, &pf, &ro)) {
		if (store && ro)
			page_written(first / per_page);
		if (pf && clo_l1_prefetch)
			l1_prefetch(line + 1);
		return 0;
	}
	if (wb)
		cur->cnt->wb++;
	cur->cnt->l1d++;
	/*
	 * A page's first touch: the kernel has just filled it through L2 and the LLC (zeroed,
	 * or a file's page copied for a write); a file's page read is mapped from the page
	 * cache untouched, and taken to be in the LLC, as code is (fetch_line()). Touched
	 * before: a store to it mapped read-only faults, a load's line is marked so.
	 */
	Addr *e = page_slot(first / per_page);

	if (*e != EMPTY) {
		if (*e & KT) {
			*e &= ~KT;
			touch_counted();
		}
		if ((*e & RO) && store) {
			*e &= ~RO;
			pages_ro--;
			fault_counted(False);
		} else if (*e & RO)
			cur->l1d_last[0] |= ROPAGE;
	} else {
		*e = first / per_page;
		pages_used++;
		Bool file = False;

		if (page_fault(first / per_page, store, !store, &file))
			cur->l1d_last[0] |= ROPAGE;
		for (Addr l = first; l < first + per_page; l++) {
			Addr f = frame_line(l);

			ll_touch(f);
			if (!file)
				cache_ref(&cur->l2, f);
		}
	}
	Addr f = frame_line(line);
	Bool l2_hit = cache_ref(&cur->l2, f);

	if (!l2_hit) {
		cur->cnt->l2++;
		level = 2;
		if (!llc_hit(f)) {
			cur->cnt->ll++;
			level = 3;
		}
		/*
		 * The spatial prefetcher: a line that misses L2 brings the other line of its
		 * 128-byte pair into L2 (uncounted). A random chase over a 64 MiB buffer's pairs,
		 * each pair's two lines in turn, measured 340-350 cycles a load here where one line
		 * a pair measured 630: the second line of a pair is all but a hit.
		 */
		if (clo_prefetch) {
			ll_touch(f ^ 1);
			cache_ref(&cur->l2, f ^ 1);
		}
	}
	if (clo_prefetch && prefetch(line) && clo_l1_prefetch)
		l1_prefetch(line + 1);
	return level;
}

/* One page's translation: 0 when the first-level TLB holds it, 1 the second, 2 a walk. */
ALWAYS_INLINE UInt data_page(Addr page)
{
	if (page == cur->last_page)
		return 0;
	cur->last_page = page;
	if (cache_ref(&cur->dtlb, page))
		return 0;
	cur->cnt->dtlb++;
	if (cache_ref(&cur->stlb, page))
		return 1;
	cur->cnt->walk++;
	return 2;
}

/* The epoch's lone stall was on the way to something: it is lone no more. */
static void unlone(Thread *t)
{
	Counts *c = t->lone_at;

	c->lone_l2 -= t->lone_level == 1, c->lone_llc -= t->lone_level == 2;
	c->lone_mem -= t->lone_level == 3;
	c->lone_stlb -= t->lone_tlb == 1, c->lone_walk -= t->lone_tlb == 2;
	t->lone_at = NULL;
}

/*
 * Memory-level parallelism, after the epoch model of Chou, Fahs and Abraham (ISCA 2004): an
 * out-of-order core keeps working past a load that misses, and the misses it meets within
 * its window (clo_window instructions from the first) overlap the first one's: the epoch
 * costs the first miss's latency, not theirs. A miss stalls (starts an epoch of its own)
 * when no epoch is open, when it is served further away than the epoch's first (it is
 * charged in full), or when it depends on an earlier miss: its address comes from a load
 * whose address is computed from an earlier miss's value of this epoch (Prov: through the
 * superblock's temporaries and registers, and from one superblock to the next through the
 * registers). A miss that waited for another waited for the whole epoch's (they were in
 * flight together): it starts an epoch in which none of them counts as a miss any more, so
 * that two misses computed from one earlier miss overlap (model_counts.c's walk over 9 MiB,
 * a byte and a link a step, each addressed by the node the link before gave: 116 cycles a
 * step on Emerald Rapids, 112 modelled, 150 while the second was charged in full; the link
 * picked by the byte, 149 and 158). A store's miss never stalls: the store buffer holds it.
 * ipcc charges each stalling miss its level's latency (account.c). A first-level TLB miss
 * (tlb 1: the second level holds the page, 2: a walk) stalls on the same terms but for the
 * distance (its cost is a few cycles, or a walk that the core overlaps as it does a miss),
 * and wherever its load's line stalls: the line is fetched after the translation.
 */
static void miss_stalls(UInt level, UInt tlb, Bool store, Bool dep)
{
	Thread *t = cur;
	Bool open = t->insns < t->epoch_end;
	Bool line = level && (!open || dep || level > t->epoch_level);
	Bool page = tlb && (!open || dep || line);

	if (store || (!line && !page))
		return;
	if (!line)
		level = 0;
	ll_clock += ll_per_stall[level];
	/*
	 * A lone stall (its address from no miss of the epoch) keeps nothing but its users
	 * waiting (account.c charges it less), unless a later miss of the epoch is addressed
	 * from what came in: then it was on the way to that one, and is lone no more.
	 */
	if (dep && open && t->lone_at)
		unlone(t);
	t->lone_at = dep ? NULL : t->cnt;
	t->lone_level = level, t->lone_tlb = page ? tlb : 0;
	if (level == 1)
		t->cnt->stall_l2++, t->cnt->lone_l2 += !dep;
	else if (level == 2)
		t->cnt->stall_llc++, t->cnt->lone_llc += !dep;
	else if (level == 3)
		t->cnt->stall_mem++, t->cnt->lone_mem += !dep;
	if (page && tlb == 1)
		t->cnt->stall_stlb++, t->cnt->lone_stlb += !dep;
	else if (page && tlb == 2)
		t->cnt->stall_walk++, t->cnt->lone_walk += !dep;
	if (!open || dep) {
		/*
		 * The misses before have been served (a dependent miss waited for them, and
		 * they were in flight together): nothing depends on them any more, and a miss
		 * computed from them alone overlaps this one.
		 */
		t->miss_regs = t->pending = 0;
		t->sb_missed = 0;
		t->inflight_n = 0;
		t->inflight_bits = 0;
	}
	if (!open || dep)
		t->epoch_end = t->insns + (ULong)clo_window;
	if (line || !open)
		t->epoch_level = level;
}

/*
 * Whether a load that hits L1 reads a line a load miss of the open epoch fetches: the line is
 * still on its way, and the load's value comes with it (a node's link read after its key, in
 * the key's line: mawk's hash chains, 4.4 million a run, each the address of the next). Such
 * a load carries the miss to what is computed from it, as the miss itself does; the lines
 * that missed are not fast_ld's, so that the next access to them comes here.
 */
ALWAYS_INLINE Bool inflight_hit(const Thread *t, Addr a, Addr b)
{
	UInt n = t->inflight_n < INFLIGHT ? t->inflight_n : INFLIGHT;

	if (!((t->inflight_bits >> (a & 63) | t->inflight_bits >> (b & 63)) & 1) ||
	    t->insns >= t->epoch_end)
		return False;
	for (UInt i = 0; i < n; i++)
		if (t->inflight[i] == a || t->inflight[i] == b)
			return True;
	return False;
}

/* A line the pointer prefetcher brings into L2 (uncounted, as the stream prefetcher's). */
static void ptr_fill(Addr line)
{
	Addr f = frame_line(line);

	if (!cache_ref(&cur->l2, f))
		ll_touch(f);
}

#define PTR_AHEAD 2 /* lines */

/*
 * The pointer prefetcher (a data-dependent prefetcher): where a load of 8 bytes walks up an
 * array, the core reads the array ahead of it and brings in the lines its values point to.
 * A walk in series over 8 MiB of records shuffled over memory, each step's index hanging on
 * the record the step before loaded, runs at 35 cycles a step here through an array of
 * pointers read in order and at 113-124 through one of 32-bit indices (model_counts' parray
 * and iarray; bench/merge_sort.c's records are reached the same way). Each time such a load
 * enters a new line, the 8-byte values PTR_AHEAD lines on that lie in pages the program has
 * touched are taken for pointers and their lines brought into L2, each once while the
 * thread's filter (ptr_seen) holds it. When they come is left out: they are there at once.
 * The machine's own rule is not published and is not all of this: the same walk with the
 * array's base in rbp ran at the indices' speed (docs/internals/model-backend.md, stop 57).
 */
static void ptr_prefetch(Access *x, Addr addr)
{
	Addr last = x->last;

	x->last = addr;
	if (addr <= last || addr - last > 64 ||
	    (addr >> geom_l1d.shift) == (last >> geom_l1d.shift))
		return;
	Addr ahead = ((addr >> geom_l1d.shift) + PTR_AHEAD) << geom_l1d.shift;

	if (ahead >> 12 != x->page || x->gen != ptr_gen) {
		if (!VG_(am_is_valid_for_client)(ahead, geom_l1d.line, VKI_PROT_READ))
			return;
		x->page = ahead >> 12;
		x->gen = ptr_gen;
	}
	for (UInt i = 0; i < geom_l1d.line / 8; i++) {
		ULong v = ((const ULong *)ahead)[i];
		Addr line = v >> geom_l1d.shift, *seen = &cur->ptr_seen[line % PTR_SEEN];

		if (v < 0x10000 || v >= 0x800000000000ull || *seen == line)
			continue;
		if (v >> 12 != ptr_touched) {
			if (*page_slot(v >> 12) == EMPTY)
				continue;
			ptr_touched = v >> 12;
		}
		*seen = line;
		ptr_fill(line);
	}
}

static VG_REGPARM(3) void on_access(Addr addr, SizeT size, HWord desc)
{
	Access *x = (Access *)desc;
	Thread *t = cur;

	__builtin_prefetch(x + 1); /* the superblock's next access, most often */
	Addr a = addr >> geom_l1d.shift, b = (addr + (size ? size : 1) - 1) >> geom_l1d.shift;
	UInt level = data_line(a, x->store), tlb = 0;
	Addr *s0;

	if (b != a) {
		UInt l2 = data_line(b, x->store);

		level = l2 > level ? l2 : level;
	}
	if (tlb_on) {
		Addr pa = addr >> 12, pb = (addr + (size ? size : 1) - 1) >> 12;

		tlb = pa == t->last_page ? 0 : data_page(pa);
		if (pb != pa) {
			UInt t2 = data_page(pb);

			tlb = t2 > tlb ? t2 : tlb;
		}
	}
	Bool flight = False;

	if ((level || tlb) && !x->store) {
		Bool dep = (x->dep_loads & t->sb_missed) || (x->dep_regs & t->miss_regs);

		miss_stalls(level, tlb, x->store, dep);
		if (x->index < 64)
			t->sb_missed |= 1ull << x->index;
		t->pending |= x->out_regs;
		if (level) {
			t->inflight[t->inflight_n++ % INFLIGHT] = a;
			t->inflight_bits |= 1ull << (a & 63);
			flight = True;
		}
	} else if (!x->store && inflight_hit(t, a, b)) {
		/* Its value comes with the miss's line: what depends on it waits for the miss. */
		if (x->index < 64)
			t->sb_missed |= 1ull << x->index;
		t->pending |= x->out_regs;
		flight = True;
	}
	if (clo_ptr_prefetch && size == 8 && !x->store)
		ptr_prefetch(x, addr);
	s0 = t->l1d_last;
	if (!flight && s0 && (*s0 & ~(WRITTEN | ROPAGE)) == b) {
		fast_ld = b;
		fast_st = *s0 & WRITTEN ? b : ~(Addr)0;
	} else
		fast_ld = fast_st = ~(Addr)0;
}

/* Its end (or a taken side exit): the registers it wrote now hold what it computed. */
static void sb_end(const SBEnd *e)
{
	Thread *t = cur;

	if (!(t->miss_regs | t->pending))
		return; /* no register holds a miss's value, nor will: most superblocks */
	UShort m = t->miss_regs & (UShort)~e->written;

	for (UInt w = e->written; w; w &= w - 1) {
		UInt r = (UInt)__builtin_ctz(w);

		if ((e->pass[r] & t->miss_regs) || (t->pending >> r & 1))
			m |= (UShort)(1u << r);
	}
	t->miss_regs = m;
}

static VG_REGPARM(1) void on_sb_end(HWord e)
{
	sb_end((const SBEnd *)e);
}

static void sb_end(const SBEnd *e);

/*
 * A mispredicted branch ends the miss epoch: the core throws away the work after it, and
 * the misses it meets once it has refilled overlap none of those before. Except in its
 * shadow, where the epoch's first miss came from the LLC or memory: while such a miss is
 * on its way the core runs down the wrong path, and the loads there just after the branch
 * are often the right path's too, or read their lines (the other arm's pair[1] for
 * pair[0]: xz's binary-tree match finder, `model_counts N branch`). The misses of the next
 * SHADOW instructions still overlap the epoch's; after them it ends. Further down, the
 * wrong path's loads are often the right path's too (random reads from a sequential
 * index, a branch on each: 57 cycles a read measured, 180 modelled, 52 with no end), but
 * the compressors' match finders, whose misses the LLC's law already undercharges, fall
 * further under with them (64 instructions: xz and zstd 3.8 points, perl 2 nearer; no
 * end: xz -20%, zstd -23%; docs/internals/model-backend.md, stop 45). On Zen 5 (stop 72)
 * the same loop over 16 MiB measured 37 cycles a read, modelled 137 and 34 with no end
 * (--ipcc-shadow=512, a diagnostic option that ipcc stat does not give: VALGRIND_OPTS);
 * the fourteen programs came out alike either way (xz -6.1% -> -12.5%, zstd +11.8% ->
 * -4.6%), so the default stands. And where the branch waited for a lone miss of any level
 * (`waited`, on_cond()): the wrong path's first loads, often the right path's, overlap it
 * as well (model_counts' pick walk, an L2 hit and a branch on it each step: natively
 * 19.3-19.6 cycles a step on a Granite Rapids-class guest; 23.5 modelled with the epoch
 * ended at the branch, 21.1 with the shadow, 16.2 with the miss left lone).
 */
#define SHADOW ((ULong)clo_shadow)

static void mispredicted(Addr pc, Bool waited)
{
	Thread *t = cur;

	t->restart = True;
	/*
	 * The front end restarts slowly only where the branch is not among the sites that
	 * mispredicted lately (bench/mispredict_sites.py: 1,024 random sites among 8,192 blocks
	 * cost 21-34 cycles a mispredict, 2,048 89-91): btb_ref() counts the taken branches after.
	 */
	if (btb_restart_on)
		t->restart_taken = cache_ref(&t->misp_recent, btb_key(pc)) ? 0 : btb_restart_window;
	if (t->epoch_level < 2 && !waited)
		t->epoch_end = t->insns;
	else if (t->epoch_end > t->insns + SHADOW)
		t->epoch_end = t->insns + SHADOW;
}

/*
 * A conditional branch: taken or not. end is its superblock's SBEnd, its low bit set where
 * VEX inverted the exit (the exit goes to the fall-through, the branch's target is the
 * superblock's next): the superblock is left where the exit is taken, and its registers
 * then hold what sb_end() reads.
 */
static VG_REGPARM(3) void on_cond(const Cond *cd, ULong taken, HWord end)
{
	Addr pc = cd->pc;

	cur->cnt->cond++;
	cur->cnt->taken += taken != 0;
	if (taken && btb_on)
		btb_ref(pc);
	if (taken && fe_on)
		fe_last_taken(pc);
	if (predict_cond(&cur->bp, pc, taken != 0)) {
		Thread *t = cur;

		t->cnt->cond_miss++;
		ll_clock += ll_per_miss;
		/*
		 * A branch on a missed value resolves when the miss is served: the lone miss it
		 * waited for hid nothing, and the core ran on down the wrong path meanwhile,
		 * whose first loads are often the right path's (its shadow, mispredicted())
		 */
		Bool waited =
		    t->lone_at && ((cd->loads & t->sb_missed) || (cd->regs & t->miss_regs));

		if (waited)
			unlone(t);
		mispredicted(pc, waited);
	}
	if ((taken != 0) != (end & 1))
		sb_end((const SBEnd *)(end & ~(HWord)1));
}

static VG_REGPARM(2) void on_indirect(Addr pc, Addr target)
{
	cur->cnt->ind++;
	if (btb_on)
		btb_ref(pc);
	if (fe_on)
		fe_last_taken(pc);
	if (predict_indirect(&cur->bp, pc, target)) {
		cur->cnt->ind_miss++;
		ll_clock += ll_per_miss;
		mispredicted(pc, False);
	}
}

static VG_REGPARM(1) void on_call(Addr return_to)
{
	cur->ras[cur->ras_top++ % RAS_DEPTH] = return_to;
}

static VG_REGPARM(1) void on_ret(Addr target)
{
	cur->cnt->ret++;
	if (cur->ras_top == 0 || cur->ras[--cur->ras_top % RAS_DEPTH] != target) {
		cur->cnt->ret_miss++;
		ll_clock += ll_per_miss;
		mispredicted(target, False);
	}
}

/* ---- instrumentation -------------------------------------------------------------------- */

static IRExpr *seg_expr(Seg *s)
{
	return mkIRExpr_HWord((HWord)s);
}

/*
 * Where each value of the superblock being instrumented comes from (its *provenance*): which
 * of the superblock's loads (bit i: the i-th access descriptor, up to 64) and which of the
 * general registers it held on entry (bit r: rax = 0 ... r15 = 15) it was computed from.
 * Other guest state (vector registers, flags) carries none. With the runtime's record of
 * which loads missed (Thread.sb_missed) and which registers hold a value computed from a
 * miss (Thread.miss_regs), a load's miss is known to depend on an earlier one.
 */
typedef struct {
	ULong loads;
	UShort regs;
} Prov;

static Prov *tmp_prov;
static Int tmp_prov_n;
static Prov gpr_prov[16];
static Access *sb_access[64];
static UInt sb_naccess;

static Int gpr_of(Int offset)
{
	Int first = offsetof(VexGuestAMD64State, guest_RAX);

	if (offset < first || offset >= first + 16 * 8)
		return -1;
	return (offset - first) / 8;
}

static Prov prov_or(Prov a, Prov b)
{
	a.loads |= b.loads;
	a.regs |= b.regs;
	return a;
}

static Prov prov_of(const IRExpr *e)
{
	Prov none = { 0, 0 };
	Int r;

	switch (e->tag) {
	case Iex_RdTmp:
		return e->Iex.RdTmp.tmp < (IRTemp)tmp_prov_n ? tmp_prov[e->Iex.RdTmp.tmp] : none;
	case Iex_Get:
		r = gpr_of(e->Iex.Get.offset);
		return r < 0 ? none : gpr_prov[r];
	case Iex_Load:
		return prov_of(e->Iex.Load.addr);
	case Iex_Unop:
		return prov_of(e->Iex.Unop.arg);
	case Iex_Binop:
		return prov_or(prov_of(e->Iex.Binop.arg1), prov_of(e->Iex.Binop.arg2));
	case Iex_Triop:
		return prov_or(prov_of(e->Iex.Triop.details->arg1),
			       prov_or(prov_of(e->Iex.Triop.details->arg2),
				       prov_of(e->Iex.Triop.details->arg3)));
	case Iex_Qop:
		return prov_or(
		    prov_or(prov_of(e->Iex.Qop.details->arg1), prov_of(e->Iex.Qop.details->arg2)),
		    prov_or(prov_of(e->Iex.Qop.details->arg3), prov_of(e->Iex.Qop.details->arg4)));
	case Iex_ITE:
		return prov_or(prov_of(e->Iex.ITE.cond),
			       prov_or(prov_of(e->Iex.ITE.iftrue), prov_of(e->Iex.ITE.iffalse)));
	case Iex_CCall: {
		Prov p = none;

		for (Int i = 0; e->Iex.CCall.args[i]; i++)
			p = prov_or(p, prov_of(e->Iex.CCall.args[i]));
		return p;
	}
	default:
		return none;
	}
}

static void prov_tmp(IRTemp t, Prov p)
{
	if (t != IRTemp_INVALID && t < (IRTemp)tmp_prov_n)
		tmp_prov[t] = p;
}

static Access *last_access; /* the access of the statement being followed */

/* A loaded value: its address's provenance and the load itself. */
static Prov loaded(void)
{
	Access *a = last_access;
	Prov p = { 0, 0 };

	if (a) {
		p.loads = a->dep_loads | (a->index < 64 ? 1ull << a->index : 0);
		p.regs = a->dep_regs;
	}
	return p;
}

/* Follow one statement of the input superblock (after its access, if any, was made). */
static void prov_stmt(const IRStmt *st, SBEnd *end)
{
	Int r;

	switch (st->tag) {
	case Ist_WrTmp:
		prov_tmp(st->Ist.WrTmp.tmp, st->Ist.WrTmp.data->tag == Iex_Load
						? loaded()
						: prov_of(st->Ist.WrTmp.data));
		break;
	case Ist_Put:
		r = gpr_of(st->Ist.Put.offset);
		if (r >= 0) {
			gpr_prov[r] = prov_of(st->Ist.Put.data);
			end->written |= (UShort)(1u << r);
		}
		break;
	case Ist_LoadG:
		prov_tmp(st->Ist.LoadG.details->dst, loaded());
		break;
	case Ist_CAS:
		prov_tmp(st->Ist.CAS.details->oldLo, loaded());
		prov_tmp(st->Ist.CAS.details->oldHi, loaded());
		break;
	case Ist_LLSC:
		if (!st->Ist.LLSC.storedata)
			prov_tmp(st->Ist.LLSC.result, loaded());
		break;
	case Ist_Dirty:
		prov_tmp(st->Ist.Dirty.details->tmp,
			 st->Ist.Dirty.details->mFx == Ifx_Read ||
				 st->Ist.Dirty.details->mFx == Ifx_Modify
			     ? loaded()
			     : (Prov){ 0, 0 });
		break;
	default:
		break;
	}
}

static void call(IRSB *sb, Int regparms, const HChar *name, void *fn, IRExpr **args, IRExpr *guard)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);

	if (guard)
		di->guard = guard;
	addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* e (its operands atoms) into a new temporary of type ty: the atom that reads it. */
static IRExpr *flat(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

/*
 * A new access, zeroed, a host line of its own; a superblock's follow one another, so that
 * on_access() can fetch the next one's line while the program runs up to it. They live as
 * long as the tool (as segments do).
 */
static Access *access_new(void)
{
	static Access *next, *end;

	STATIC_ASSERT(sizeof(Access) == 64);
	if (next == end) {
		const SizeT n = 1024;
		UChar *p = VG_(calloc)("ipcc.access", 1, n * sizeof(Access) + 64);

		next = (Access *)(p + ((64 - ((Addr)p & 63)) & 63));
		end = next + n;
	}
	return next++;
}

static void access(IRSB *sb, IRExpr *addr, Int size, IRExpr *guard, Addr pc, Bool store)
{
	Access *a = access_new();
	Prov p = prov_of(addr);

	a->pc = pc;
	a->store = store;
	a->index = sb_naccess < 64 ? sb_naccess : 64;
	a->dep_loads = p.loads;
	a->dep_regs = p.regs;
	if (sb_naccess < 64)
		sb_access[sb_naccess++] = a;
	last_access = a;
	/* Called unless the access lies within the line fast_ld (a store: fast_st) names. */
	IRExpr *shift = IRExpr_Const(IRConst_U8((UChar)geom_l1d.shift));
	IRExpr *end = flat(
	    sb, Ity_I64,
	    IRExpr_Binop(Iop_Add64, addr, IRExpr_Const(IRConst_U64((ULong)(size ? size - 1 : 0)))));
	IRExpr *first = flat(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, addr, shift));
	IRExpr *last = flat(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, end, shift));
	IRExpr *fast = flat(
	    sb, Ity_I64,
	    IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)(store ? &fast_st : &fast_ld))));
	IRExpr *when =
	    flat(sb, Ity_I1,
		 IRExpr_Binop(Iop_Or1, flat(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, first, fast)),
			      flat(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, last, fast))));

	if (guard)
		when = flat(sb, Ity_I1, IRExpr_Binop(Iop_And1, guard, when));
	call(sb, 3, "on_access", on_access,
	     mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size), mkIRExpr_HWord((HWord)a)), when);
}

/* Whether the guest instruction at a is a conditional branch (jcc, loop, jrcxz). */
static Bool is_jcc(Addr a, UInt len)
{
	const UChar *p = opcode((const UChar *)a, len), *end = (const UChar *)a + len;

	if (!p)
		return False;
	if ((*p >= 0x70 && *p <= 0x7f) || (*p >= 0xe0 && *p <= 0xe3))
		return True;
	return p + 1 < end && p[0] == 0x0f && p[1] >= 0x80 && p[1] <= 0x8f;
}

/* Whether the guest instruction at a is a call (direct, or indirect through FF /2). */
static Bool is_call(Addr a, UInt len)
{
	const UChar *p = opcode((const UChar *)a, len), *end = (const UChar *)a + len;

	if (!p)
		return False;
	return *p == 0xe8 || (*p == 0xff && p + 1 < end && ((p[1] >> 3) & 7) == 2);
}

/* What the first pass learns of one instruction. */
typedef struct {
	Bool load, store;
} InsnMem;

static void note_mem(IRStmt *st, InsnMem *m)
{
	switch (st->tag) {
	case Ist_WrTmp:
		if (st->Ist.WrTmp.data->tag == Iex_Load)
			m->load = True;
		break;
	case Ist_Store:
	case Ist_StoreG:
		m->store = True;
		break;
	case Ist_LoadG:
		m->load = True;
		break;
	case Ist_CAS:
		m->load = m->store = True;
		break;
	case Ist_LLSC:
		if (st->Ist.LLSC.storedata)
			m->store = True;
		else
			m->load = True;
		break;
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;

		if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
			m->load = True;
		if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
			m->store = True;
		break;
	}
	default:
		break;
	}
}

/*
 * Pass 1 cuts the superblock into segments at each side exit and where the function
 * changes (VEX follows calls and jumps), and finds (or makes) each
 * segment's record; pass 2 copies the statements, calling on_sb_start where the first
 * segment starts and on_enter where each other one does, on_access for each memory access
 * outside the line the last one touched (fast_ld), on_cond before a conditional branch's
 * exit, and at the end on_sb_end, then on_indirect, on_call or on_ret as the superblock's
 * jump kind says.
 */
static IRSB *instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gwty,
			IRType hwty)
{
	static Addr addr[MAX_SEG_INSNS];
	static UChar len[MAX_SEG_INSNS];
	static UChar bytes[MAX_SEG_INSNS * 16];
	Seg *segs[256];
	UInt nsegs = 0, n = 0, nbytes = 0, loads = 0, stores = 0;
	IRSB *out;
	Int i;

	(void)closure, (void)layout, (void)vge, (void)archinfo;
	if (gwty != hwty)
		VG_(tool_panic)("host and guest word sizes differ");

	/* Which instructions read or write memory: any of their statements does. */
	static InsnMem insn_mem[MAX_SEG_INSNS * 4];
	UInt ninsn = 0;

	for (i = 0; i < in->stmts_used; i++) {
		if (in->stmts[i]->tag == Ist_IMark) {
			if (ninsn == MAX_SEG_INSNS * 4)
				VG_(tool_panic)("a superblock longer than ipcc's tool can keep");
			insn_mem[ninsn].load = insn_mem[ninsn].store = False;
			ninsn++;
		} else if (ninsn) {
			note_mem(in->stmts[i], &insn_mem[ninsn - 1]);
		}
	}

	/* Pass 1. */
	static UInt seg_of[MAX_SEG_INSNS * 4];
	static HChar fn_first[256];
	DiEpoch ep = VG_(current_DiEpoch)();
#define END_SEGMENT()                                                    \
	do {                                                             \
		if (n) {                                                 \
			Seg *s_ = seg_find(addr, len, n, bytes, nbytes); \
			s_->loads = loads, s_->stores = stores;          \
			segs[nsegs++] = s_;                              \
		}                                                        \
		n = nbytes = loads = stores = 0;                         \
	} while (0)
	ninsn = 0;
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark) {
			const HChar *fn;
			Addr a = (Addr)st->Ist.IMark.addr;

			/*
			 * VEX follows calls and jumps into other functions: a segment ends where
			 * the function does, so that each instruction is its own function's.
			 */
			if (!VG_(get_fnname)(ep, a, &fn))
				fn = "?";
			if (n && VG_(strcmp)(fn, fn_first) != 0)
				END_SEGMENT();
			if (n == 0)
				VG_(strncpy)(fn_first, fn, sizeof(fn_first) - 1);
			if (n == MAX_SEG_INSNS || nsegs == 255)
				VG_(tool_panic)("a superblock longer than ipcc's tool can keep");
			/*
			 * VEX marks a client request (four rol of rdi, then xchg rbx,rbx: 19
			 * bytes) as one instruction: it is five, each kept as its own.
			 */
			UInt left = st->Ist.IMark.len;
			const UChar *code = (const UChar *)a;

			while (st->Ist.IMark.len > 15 && left > 4 && code[0] == 0x48 &&
			       code[1] == 0xc1 && code[2] == 0xc7 && n + 1 < MAX_SEG_INSNS) {
				addr[n] = a;
				len[n] = 4;
				VG_(memcpy)(bytes + nbytes, code, 4);
				nbytes += 4, a += 4, code += 4, left -= 4;
				n++;
			}
			if (left > 15)
				VG_(tool_panic)("an instruction longer than 15 bytes");
			addr[n] = a;
			len[n] = (UChar)left;
			VG_(memcpy)(bytes + nbytes, code, left);
			nbytes += len[n];
			loads += insn_mem[ninsn].load;
			stores += insn_mem[ninsn].store;
			seg_of[ninsn] = nsegs;
			ninsn++;
			n++;
		} else if (st->tag == Ist_Exit && st->Ist.Exit.jk == Ijk_Boring) {
			/*
			 * A branch or a rep iteration. The other exits are faults VEX checks for
			 * (a misaligned movapd's SIGSEGV, ...): not taken, unless the program is
			 * about to get a signal; cutting there would make loops of single
			 * instructions.
			 */
			END_SEGMENT();
		}
	}
	END_SEGMENT();
#undef END_SEGMENT

	/* Pass 2. */
	out = deepCopyIRSBExceptStmts(in);
	UInt k = 0;
	Int entered = -1; /* the segment whose on_enter was called last */
	Addr pc = 0, next_pc = 0;
	UInt pclen = 0;

	ninsn = 0;
	if (tmp_prov_n < in->tyenv->types_used) {
		if (tmp_prov)
			VG_(free)(tmp_prov);
		tmp_prov_n = in->tyenv->types_used * 2;
		tmp_prov = VG_(malloc)("ipcc.prov", (SizeT)tmp_prov_n * sizeof(Prov));
	}
	VG_(memset)(tmp_prov, 0, (SizeT)tmp_prov_n * sizeof(Prov));
	for (UInt r = 0; r < 16; r++)
		gpr_prov[r] = (Prov){ 0, (UShort)(1u << r) };
	sb_naccess = 0;
	last_access = NULL;

	SBEnd *end = VG_(calloc)("ipcc.sbend", 1, sizeof(SBEnd));

	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st || st->tag == Ist_NoOp)
			continue;
		switch (st->tag) {
		case Ist_IMark:
			k = seg_of[ninsn++];
			if ((Int)k != entered) {
				if (entered < 0)
					call(out, 1, "on_sb_start", on_sb_start,
					     mkIRExprVec_1(seg_expr(segs[k])), NULL);
				else
					call(out, 1, "on_enter", on_enter,
					     mkIRExprVec_1(seg_expr(segs[k])), NULL);
				entered = (Int)k;
			}
			pc = (Addr)st->Ist.IMark.addr;
			pclen = st->Ist.IMark.len;
			next_pc = pc + pclen;
			addStmtToIRSB(out, st);
			/* VEX follows a call into its callee: push where it returns to here. */
			if (is_call(pc, pclen))
				call(out, 1, "on_call", on_call,
				     mkIRExprVec_1(mkIRExpr_HWord(next_pc)), NULL);
			break;
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load)
				access(out, st->Ist.WrTmp.data->Iex.Load.addr,
				       sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty), NULL, pc,
				       False);
			addStmtToIRSB(out, st);
			break;
		case Ist_Store:
			access(out, st->Ist.Store.addr,
			       sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)), NULL, pc,
			       True);
			addStmtToIRSB(out, st);
			break;
		case Ist_StoreG: {
			IRStoreG *g = st->Ist.StoreG.details;

			access(out, g->addr, sizeofIRType(typeOfIRExpr(in->tyenv, g->data)),
			       g->guard, pc, True);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *g = st->Ist.LoadG.details;
			IRType wide = Ity_INVALID, narrow = Ity_INVALID;

			typeOfIRLoadGOp(g->cvt, &wide, &narrow);
			access(out, g->addr, sizeofIRType(narrow), g->guard, pc, False);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_CAS: {
			IRCAS *c = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(in->tyenv, c->dataLo));

			access(out, c->addr, c->dataHi ? 2 * size : size, NULL, pc, False);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_LLSC:
			if (st->Ist.LLSC.storedata)
				access(
				    out, st->Ist.LLSC.addr,
				    sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)),
				    NULL, pc, True);
			else
				access(out, st->Ist.LLSC.addr,
				       sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)),
				       NULL, pc, False);
			addStmtToIRSB(out, st);
			break;
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx != Ifx_None && d->mAddr)
				access(out, d->mAddr, d->mSize, d->guard, pc, d->mFx == Ifx_Write);
			addStmtToIRSB(out, st);
			break;
		}
		case Ist_Exit: {
			IRStmt *e = st;

			if (e->Ist.Exit.jk == Ijk_Boring && is_jcc(pc, pclen)) {
				IRTemp g = newIRTemp(out->tyenv, Ity_I64);
				Addr dst = (Addr)e->Ist.Exit.dst->Ico.U64;
				IRExpr *taken = IRExpr_RdTmp(g);

				addStmtToIRSB(out, IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64,
									       e->Ist.Exit.guard)));
				/* VEX may invert the condition, the exit going to the fall-through. */
				if (dst == next_pc) {
					IRTemp t = newIRTemp(out->tyenv, Ity_I64);

					addStmtToIRSB(
					    out,
					    IRStmt_WrTmp(
						t, IRExpr_Binop(Iop_Xor64, taken,
								IRExpr_Const(IRConst_U64(1)))));
					taken = IRExpr_RdTmp(t);
				}
				Cond *cd = VG_(calloc)("ipcc.cond", 1, sizeof(Cond));
				Prov gp = prov_of(e->Ist.Exit.guard);

				cd->pc = pc, cd->loads = gp.loads, cd->regs = gp.regs;
				STATIC_ASSERT(_Alignof(SBEnd) > 1);
				call(out, 3, "on_cond", on_cond,
				     mkIRExprVec_3(mkIRExpr_HWord((HWord)cd), taken,
						   mkIRExpr_HWord((HWord)end | (dst == next_pc))),
				     NULL);
			}
			addStmtToIRSB(out, st);
			break;
		}
		default:
			addStmtToIRSB(out, st);
			break;
		}
		prov_stmt(st, end);
		last_access = NULL;
	}
	/* What the superblock leaves in the registers, for the next one's loads. */
	for (UInt r = 0; r < 16; r++) {
		end->pass[r] = gpr_prov[r].regs;
		for (UInt k = 0; k < sb_naccess; k++)
			if (gpr_prov[r].loads >> sb_access[k]->index & 1)
				sb_access[k]->out_regs |= (UShort)(1u << r);
	}
	/*
	 * Called only where a register holds a miss's value or will (cur->miss_regs and
	 * cur->pending, side by side, read as one word): elsewhere sb_end() returns at once,
	 * and the call alone cost sqlite3 2% under the tool (19.12 -> 18.69 s, the fewest
	 * user+sys of five interleaved runs).
	 */
	STATIC_ASSERT(__builtin_offsetof(Thread, pending) ==
		      __builtin_offsetof(Thread, miss_regs) + sizeof(UShort));
	IRExpr *thread =
	    flat(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&cur)));
	IRExpr *live =
	    flat(out, Ity_I32,
		 IRExpr_Load(Iend_LE, Ity_I32,
			     flat(out, Ity_I64,
				  IRExpr_Binop(Iop_Add64, thread,
					       mkIRExpr_HWord(offsetof(Thread, miss_regs))))));
	call(out, 1, "on_sb_end", on_sb_end, mkIRExprVec_1(mkIRExpr_HWord((HWord)end)),
	     flat(out, Ity_I1, IRExpr_Binop(Iop_CmpNE32, live, IRExpr_Const(IRConst_U32(0)))));
	/* The end of the superblock: where it goes decides the branch kind. */
	if (in->jumpkind == Ijk_Ret) {
		call(out, 1, "on_ret", on_ret, mkIRExprVec_1(in->next), NULL);
	} else if ((in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call) &&
		   in->next->tag != Iex_Const) {
		call(out, 2, "on_indirect", on_indirect,
		     mkIRExprVec_2(mkIRExpr_HWord(pc), in->next), NULL);
	}
	return out;
}

/* ---- start and end ---------------------------------------------------------------------- */

/* An option's A,B,C into v: False where it is not three numbers (v's missing ones 0). */
static Bool three_numbers(const HChar *spec, Long v[3])
{
	HChar *end;

	v[0] = VG_(strtoll10)(spec, &end);
	v[1] = v[2] = 0;
	for (UInt i = 1; i < 3 && *end == ','; i++)
		v[i] = VG_(strtoll10)(end + 1, &end);
	return *end == 0;
}

static void post_clo_init(void)
{
	vclock_init();
	if (clo_trace)
		trace_buf = VG_(malloc)("ipcc.trace", TRACE_CAP * sizeof(Seg *));
	cache_geometry(&geom_l1d, "--ipcc-l1d", clo_l1d, False);
	cache_geometry(&geom_l1i, "--ipcc-l1i", clo_l1i, False);
	cache_geometry(&geom_l2, "--ipcc-l2", clo_l2, True);
	cache_geometry(&geom_ll, "--ipcc-ll", clo_ll, False);
	if (clo_btb) {
		cache_geometry(&geom_btb, "--ipcc-btb", clo_btb, False);
		btb_on = True;
		if (clo_btb2) {
			cache_geometry(&geom_btb2, "--ipcc-btb2", clo_btb2, False);
			btb2_on = True;
		}
		if (clo_btb_restart) {
			Long v[3];

			if (!three_numbers(clo_btb_restart, v))
				v[0] = 0; /* refused below */
			Long n = v[0], w = v[1], m = v[2];

			if (n < 8 || n > (1 << 20) || w < 1 || w > 64 || m < 8 || m > (1 << 20))
				BAD_OPTION("--ipcc-btb-restart",
					   "ENTRIES,WINDOW,SITES: 8 to 1048576 entries "
					   "and sites, a window of 1 to 64\n");
			HChar g[64];

			/* the recent ENTRIES: as many of the first ways of each set of the buffer */
			Long sets = (Long)geom_btb.sets;

			btb_recent_ways = (UInt)(sets > 0 ? (n + sets - 1) / sets : 1);
			if (btb_recent_ways < 1)
				btb_recent_ways = 1;
			if (btb_recent_ways > geom_btb.assoc)
				btb_recent_ways = geom_btb.assoc;
			VG_(sprintf)(g, "%lld,8,8", (m & ~7ll) * 8);
			cache_geometry(&geom_misp_recent, "--ipcc-btb-restart", g, False);
			btb_restart_window = (UInt)w;
			btb_restart_on = True;
		}
	}
	if (clo_fe) {
		const HChar *p = clo_fe;
		HChar *end;

		fe_line_max = (UInt)VG_(strtoll10)(p, &end);
		if (*end != ',')
			BAD_OPTION("--ipcc-fe", "LINE,HALF: two numbers\n");
		fe_half_max = (UInt)VG_(strtoll10)(end + 1, &end);
		if (*end || fe_line_max < 1 || fe_line_max > 64 || fe_half_max < 1 ||
		    fe_half_max > 32)
			BAD_OPTION("--ipcc-fe", "LINE 1-64, HALF 1-32\n");
		fe_on = True;
	}
	if (clo_opcache) {
		Long v[3];

		if (!three_numbers(clo_opcache, v))
			v[0] = 0; /* refused below */
		Long n = v[0], w = v[1], ops = v[2];

		if (n < 8 || n > (1 << 20) || w < 1 || w > 64 || n % w || ops < 1 || ops > 64)
			BAD_OPTION("--ipcc-opcache",
				   "ENTRIES,ASSOC,OPS: 8 to 1048576 entries, a multiple of the "
				   "1 to 64 ways; 1 to 64 ops an entry\n");
		HChar g[64];

		/* as a cache of lines of 64 bytes, an entry each: its keys are line numbers */
		VG_(sprintf)(g, "%lld,%lld,64", n * 64, w);
		cache_geometry(&geom_oc, "--ipcc-opcache", g, False);
		oc_ops = (UInt)ops;
		oc_on = True;
	}
	if (clo_tage) {
		HChar *end;
		ULong n = (ULong)VG_(strtoll10)(clo_tage, &end), base = 0;

		if (*end == ',')
			base = (ULong)VG_(strtoll10)(end + 1, &end);
		while (tage_log < 31 && (1ull << tage_log) < n)
			tage_log++;
		while (tage_base_log < 31 && (1ull << tage_base_log) < base)
			tage_base_log++;
		if (*end || (1ull << tage_log) != n || (1ull << tage_base_log) != base ||
		    tage_log < 4 || tage_log > TAGE_LOG_MAX || tage_base_log < 4 ||
		    tage_base_log > TAGE_BASE_LOG_MAX)
			BAD_OPTION("--ipcc-tage",
				   "ENTRIES,BASE: powers of two, 16-16384 and 16-65536\n");
	}
	if (geom_l1d.line != geom_l2.line || geom_l2.line != geom_ll.line ||
	    geom_l1i.line != geom_l2.line)
		BAD_OPTION("--ipcc-l2", "every cache must have the same line size\n");
	if (geom_l2.line > 4096)
		BAD_OPTION("--ipcc-l2", "a line of at most a page\n");
	for (page_shift = 0; (geom_l2.line << page_shift) < 4096; page_shift++)
		;
	cache_alloc(&ll, &geom_ll);
	if (clo_llc_share) {
		double lines = (double)clo_llc_share / ll.line;

		share_sq = lines * lines * TICK * TICK;
		if (clo_llc_foreign)
			ll_clock_init();
		ll_time = VG_(calloc)("ipcc.ll_time", (SizeT)ll.sets * ll.assoc, sizeof(ULong));
	}
	if (clo_dtlb || clo_stlb) {
		if (!clo_dtlb || !clo_stlb)
			BAD_OPTION("--ipcc-dtlb", "--ipcc-dtlb and --ipcc-stlb go together\n");
		cache_geometry(&geom_dtlb, "--ipcc-dtlb", clo_dtlb, False);
		cache_geometry(&geom_stlb, "--ipcc-stlb", clo_stlb, False);
		if (geom_dtlb.line != 4096 || geom_stlb.line != 4096)
			BAD_OPTION("--ipcc-dtlb", "a TLB's line is a 4096-byte page\n");
		tlb_on = True;
		if (clo_itlb) {
			cache_geometry(&geom_itlb, "--ipcc-itlb", clo_itlb, False);
			if (geom_itlb.line != 4096)
				BAD_OPTION("--ipcc-itlb", "a TLB's line is a 4096-byte page\n");
			itlb_on = True;
		}
	}
	if (clo_defs) {
		HChar *path = VG_(expand_file_name)("--ipcc-defs", clo_defs);
		SysRes r = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
				     VKI_S_IRUSR | VKI_S_IWUSR);

		if (!sr_isError(r)) {
			defs_fd = (Int)sr_Res(r);
			defs_put("ipcc-defs 1\n", 12);
		}
		VG_(free)(path);
		VG_(atfork)(NULL, NULL, defs_child);
	}
}

static void hex(VgFile *f, const UChar *p, UInt n)
{
	static const HChar digit[] = "0123456789abcdef";
	HChar buf[2 * 16 + 1];

	for (UInt i = 0; i < n && i < 16; i++) {
		buf[2 * i] = digit[p[i] >> 4];
		buf[2 * i + 1] = digit[p[i] & 15];
	}
	buf[2 * (n < 16 ? n : 16)] = 0;
	VG_(fprintf)(f, "%s", buf);
}

static void cache_line(VgFile *f, const HChar *name, const Cache *c)
{
	VG_(fprintf)(f, "cache %s %llu %u %u\n", name, c->size, c->assoc, c->line);
}

static void counts_add(Counts *t, const Counts *c)
{
	t->execs += c->execs;
	t->l1d += c->l1d, t->l2 += c->l2, t->ll += c->ll;
	t->l1i += c->l1i, t->l2i += c->l2i, t->lli += c->lli;
	t->cond += c->cond, t->taken += c->taken, t->cond_miss += c->cond_miss;
	t->ind += c->ind, t->ind_miss += c->ind_miss;
	t->ret += c->ret, t->ret_miss += c->ret_miss;
	t->stall_l2 += c->stall_l2, t->stall_llc += c->stall_llc, t->stall_mem += c->stall_mem;
	t->dtlb += c->dtlb, t->walk += c->walk, t->wb += c->wb, t->btb += c->btb;
	t->btb2 += c->btb2;
	t->btb_restart += c->btb_restart;
	t->fe_slow += c->fe_slow, t->fe_full += c->fe_full;
	t->stall_stlb += c->stall_stlb, t->stall_walk += c->stall_walk;
	t->itlb += c->itlb, t->iwalk += c->iwalk;
	t->rep_iters += c->rep_iters, t->rep_runs += c->rep_runs;
	t->faults += c->faults, t->syscalls += c->syscalls, t->bytes += c->bytes;
	t->file_faults += c->file_faults;
	t->lone_l2 += c->lone_l2, t->lone_llc += c->lone_llc, t->lone_mem += c->lone_mem;
	t->lone_stlb += c->lone_stlb, t->lone_walk += c->lone_walk;
	t->l2i_restart += c->l2i_restart;
	t->decoded += c->decoded;
	t->touches += c->touches;
}

/* A segment's events (not its executions), in the file's order. */
static void counts_write(VgFile *f, const Counts *c)
{
	VG_(fprintf)
	(f,
	 "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
	 "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
	 "%llu %llu %llu %llu %llu %llu %llu %llu",
	 c->l1d, c->l2, c->ll, c->l1i, c->l2i, c->lli, c->cond, c->taken, c->cond_miss, c->ind,
	 c->ind_miss, c->ret, c->ret_miss, c->stall_l2, c->stall_llc, c->stall_mem, c->rep_iters,
	 c->rep_runs, c->dtlb, c->walk, c->stall_stlb, c->stall_walk, c->wb, c->btb, c->fe_slow,
	 c->fe_full, c->btb2, c->itlb, c->iwalk, c->faults, c->syscalls, c->bytes, c->lone_l2,
	 c->lone_llc, c->lone_mem, c->lone_stlb, c->lone_walk, c->l2i_restart, c->btb_restart,
	 c->file_faults, c->decoded, c->touches);
}

/*
 * The counts file at path: what this image of the process counted. exec: the image is
 * about to be replaced by an exec (an "exec" line where an exit's status would be).
 */
static void write_counts(const HChar *path, Int exitcode, Bool exec)
{
	VgFile *f =
	    VG_(fopen)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);

	if (!f) {
		VG_(umsg)("ipcc: cannot write '%s'\n", path);
		return;
	}
	VG_(fprintf)(f, "ipcc-vg 18\n");
	VG_(fprintf)(f, "pid %d\nppid %d\n", VG_(getpid)(), VG_(getppid)());
	if (exec)
		VG_(fprintf)(f, "exec\n");
	else
		VG_(fprintf)(f, "exit %d\n", exitcode);
	VG_(fprintf)(f, "threads %u\n", nthreads);
	VG_(fprintf)(f, "exe %s\n", VG_(args_the_exename) ? VG_(args_the_exename) : "?");
	cache_line(f, "l1d", &geom_l1d);
	cache_line(f, "l1i", &geom_l1i);
	cache_line(f, "l2", &geom_l2);
	cache_line(f, "ll", &geom_ll);
	if (tlb_on) {
		cache_line(f, "dtlb", &geom_dtlb);
		cache_line(f, "stlb", &geom_stlb);
		if (itlb_on)
			cache_line(f, "itlb", &geom_itlb);
	}
	if (btb_on)
		cache_line(f, "btb", &geom_btb);
	if (btb2_on)
		cache_line(f, "btb2", &geom_btb2);
	VG_(fprintf)(f, "prefetch %s\n", clo_prefetch ? "yes" : "no");
	VG_(fprintf)(f, "frames %s\n", clo_frames ? "yes" : "no");
	VG_(fprintf)(f, "window %lld\n", clo_window);
	VG_(fprintf)
	(f, "kernel %llu %llu %llu %llu %llu\n", k_faults, k_syscalls, k_bytes, k_file_faults,
	 k_touches);
	/* Oldest first, so that a parent's line comes before its children's. */
	for (UInt id = 1; id <= npaths; id++)
		for (Path *p = paths; p; p = p->all_next)
			if (p->id == id) {
				for (HChar *c = p->name; *c; c++)
					if (*c == '\t' || *c == '\n')
						*c = ' ';
				VG_(fprintf)
				(f, "region %u %u %llu\t%s\n", p->id, p->parent ? p->parent->id : 0,
				 p->calls, p->name);
				if (p->faults || p->syscalls || p->bytes || p->touches)
					VG_(fprintf)
				(f, "RK %u %llu %llu %llu %llu %llu\n", p->id, p->faults,
				 p->syscalls, p->bytes, p->file_faults, p->touches);
			}
	/* The ids the N lines name: the segments written, in order. */
	UInt next_id = 0;

	for (Seg *s = seg_all; s; s = s->all_next) {
		Counts t = s->c;

		for (SegRegion *r = s->regions; r; r = r->next)
			counts_add(&t, &r->c);
		s->id = t.execs || t.rep_runs ? ++next_id : 0;
	}
	for (Seg *s = seg_all; s; s = s->all_next) {
		Counts t = s->c;

		for (SegRegion *r = s->regions; r; r = r->next)
			counts_add(&t, &r->c);
		if (!s->id)
			continue;
		VG_(fprintf)(f, "S %llu %u %u %u ", t.execs, s->ninsns, s->loads, s->stores);
		counts_write(f, &t);
		VG_(fprintf)(f, "\t%s\t%s\n", s->fn, s->obj);
		for (UInt i = 0, off = 0; i < s->ninsns; off += s->len[i], i++) {
			VG_(fprintf)(f, "I %lx ", s->addr[i]);
			hex(f, s->bytes + off, s->len[i]);
			VG_(fprintf)(f, "\n");
		}
		VG_(fprintf)
		(f, "N %u %u %u %u %u %u %u %u\n", s->succ[0] ? s->succ[0]->id : 0, s->succ_n[0],
		 s->succ[1] ? s->succ[1]->id : 0, s->succ_n[1], s->pred[0] ? s->pred[0]->id : 0,
		 s->pred_n[0], s->pred[1] ? s->pred[1]->id : 0, s->pred_n[1]);
		for (SegRegion *r = s->regions; r; r = r->next)
			if (r->c.execs || r->c.rep_runs) {
				VG_(fprintf)(f, "R %u %llu ", r->path->id, r->c.execs);
				counts_write(f, &r->c);
				VG_(fprintf)(f, "\n");
			}
	}
	VG_(fprintf)(f, "end\n");
	VG_(fclose)(f);
}

/* --ipcc-trace's file: a window a line, the numbers write_counts() gave its segments. */
static void trace_write(void)
{
	HChar *path = VG_(expand_file_name)("--ipcc-trace", clo_trace);
	VgFile *f =
	    VG_(fopen)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);

	if (!f) {
		VG_(umsg)("ipcc: cannot write '%s'\n", path);
		VG_(free)(path);
		return;
	}
	for (UInt i = 0; i < trace_n; i++)
		if (trace_buf[i])
			VG_(fprintf)(f, "%u ", trace_buf[i]->id);
		else
			VG_(fprintf)(f, "\n");
	if (trace_n && trace_buf[trace_n - 1])
		VG_(fprintf)(f, "\n");
	VG_(fclose)(f);
	VG_(free)(path);
}

static void fini(Int exitcode)
{
	defs_flush();
	if (defs_fd >= 0)
		VG_(close)(defs_fd);
	defs_fd = -1;

	HChar *path = VG_(expand_file_name)("--ipcc-out", clo_out);

	write_counts(path, exitcode, False);
	VG_(free)(path);
	if (trace_buf)
		trace_write();
}

/*
 * An exec replaces this image, the tool's state with it: Valgrind starts afresh in the new
 * program, under the same pid, and writes to the same names. So what this image counted
 * is written before the exec, to the counts file's name with ".xN" added (the first N
 * free), and its segments' file is moved to that name too; the new image's files take the
 * plain names. An exec that fails (post_syscall()) takes both back: the counts go on, and
 * fini() writes them whole. A path that names no executable file is not written for: it
 * fails (execvp() tries one such a directory of PATH). Before this, `env true` counted
 * true alone.
 */
static void exec_before(UInt no, const UWord *args)
{
	struct vg_stat st;
	HChar *out, *defs = NULL;

	if (no == __NR_execve && (!args[0] || sr_isError(VG_(stat)((const HChar *)args[0], &st)) ||
				  !VKI_S_ISREG(st.mode) || !(st.mode & 0111)))
		return;
	out = VG_(expand_file_name)("--ipcc-out", clo_out);
	if (clo_defs)
		defs = VG_(expand_file_name)("--ipcc-defs", clo_defs);
	for (UInt n = 1; n < 10000; n++) {
		VG_(snprintf)(exec_out, sizeof(exec_out), "%s.x%u", out, n);
		if (!sr_isError(VG_(stat)(exec_out, &st)))
			continue;
		if (defs) {
			VG_(snprintf)(exec_defs, sizeof(exec_defs), "%s.x%u", defs, n);
			if (!sr_isError(VG_(stat)(exec_defs, &st)))
				continue;
		}
		break;
	}
	write_counts(exec_out, 0, True);
	defs_flush();
	if (defs_fd >= 0) {
		VG_(close)(defs_fd);
		defs_fd = -1;
		if (VG_(rename)(defs, exec_defs))
			exec_defs[0] = 0;
	} else {
		exec_defs[0] = 0;
	}
	VG_(free)(out);
	if (defs)
		VG_(free)(defs);
}

/* The exec failed: this image goes on counting, its files back as they were. */
static void exec_failed(void)
{
	VG_(unlink)(exec_out);
	exec_out[0] = 0;
	if (exec_defs[0]) {
		HChar *defs = VG_(expand_file_name)("--ipcc-defs", clo_defs);

		if (!VG_(rename)(exec_defs, defs)) {
			SysRes r = VG_(open)(defs, VKI_O_WRONLY | VKI_O_APPEND, 0);

			defs_fd = sr_isError(r) ? -1 : (Int)sr_Res(r);
		}
		VG_(free)(defs);
		exec_defs[0] = 0;
	}
}

/*
 * libipcc's regions (vg_requests.h): arg[1] is the region's name in the client's memory.
 * libipcc checks the nesting before it asks, so an end always closes the innermost region.
 * The answer, 1, tells libipcc that the tool counts its regions (natively the request
 * answers 0).
 */
static Bool on_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
	if (!VG_IS_TOOL_USERREQ('I', 'P', arg[0]))
		return False;
	if (tid >= MAX_THREADS)
		tid = MAX_THREADS - 1;
	if (!threads[tid])
		thread_start(tid, 0);
	Thread *t = threads[tid];

	switch (arg[0]) {
	case IPCC_VG_REGION_BEGIN:
		t->regions = path_enter(t->regions, arg[1] ? (const HChar *)arg[1] : "?");
		t->regions->calls++;
		break;
	case IPCC_VG_REGION_END:
		if (t->regions)
			t->regions = t->regions->parent;
		break;
	default:
		return False;
	}
	*ret = 1;
	return True;
}

static void pre_clo_init(void)
{
	VG_(details_name)("ipcc");
	VG_(details_version)("1");
	VG_(details_description)("the counts of ipcc's model backend");
	VG_(details_copyright_author)("ipcc's authors");
	VG_(details_bug_reports_to)("ipcc's issue tracker");
	VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
	VG_(needs_command_line_options)(opt_process, opt_usage, opt_debug_usage);
	VG_(track_start_client_code)(thread_start);
	VG_(needs_client_requests)(on_client_request);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	VG_(track_post_mem_write)(kernel_wrote);
	VG_(track_die_mem_munmap)(pages_unmapped);
	VG_(track_die_mem_brk)(pages_unmapped);
	VG_(track_copy_mem_remap)(pages_moved);
	VG_(track_change_mem_mprotect)(pages_protected);
	VG_(atfork)(NULL, NULL, kernel_child);
	VG_(atfork)(NULL, NULL, counts_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
