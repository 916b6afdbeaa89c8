/*
 * sim.c - running the model: one pass over the dynamic instructions, in program order.
 *
 * State is O(ROB + registers + program): the retire cycles of the last B instructions (a
 * ring), each register's completion time, the last MODEL_STORES stores' addresses and data
 * (model_int.h: the dataflow rules), the allocation and retirement cursors, and running
 * totals of the allocation stage's slots. Every slot of every allocation cycle the cursor has
 * passed is accounted exactly once: a correct-path micro-op, a wrong-path one (allocated
 * after a mispredicted branch until it completes), a front-end stall (the front end had
 * nothing to offer that cycle) or a back-end stall (it had, but the ROB was full; or, after
 * the last instruction of a run, the machine waits for work in flight). The summary takes
 * the differences of those totals over a window of whole cycles, so the four slot counters
 * are ordered and their split sums to the total by construction. See
 * docs/internals/model.md.
 */
#include <stddef.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "ipcc/breakdown.h"
#include "model_int.h"

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* How far the op cache's delivery runs ahead of allocation, in cycles (opcache_line_ops) */
#define FE_AHEAD 16

/* The allocation stage: a cursor and the running totals of every closed cycle's slots. */
struct alloc {
	unsigned width, rob;
	int64_t cur;		/* the cycle being filled */
	unsigned cur_used;	/* its correct-path micro-ops */
	unsigned cur_insns;	/* its instructions */
	int64_t fe_ready;	/* the first cycle the front end can offer the next one */
	uint64_t uops, insns;	/* correct path, allocated so far (including cycle cur) */
	uint64_t wrong, fe, be; /* slots of closed cycles */
};

/* The cycle instruction g (u micro-ops, `fe_stall`) is allocated in; closes the cycles before. */
static int64_t allocate(struct alloc *a, const int64_t *ring, uint64_t g, size_t slot, unsigned u,
			unsigned fe_stall)
{
	const unsigned W = a->width;
	int64_t earliest;

	if (fe_stall)
		a->fe_ready = max64(a->fe_ready, a->cur + fe_stall + (a->cur_used ? 1 : 0));
	earliest = max64(a->cur, a->fe_ready);
	if (a->rob && g >= a->rob)
		earliest = max64(earliest, ring[slot] + 1);
	if (earliest == a->cur && a->cur_used + u > W)
		earliest = a->cur + 1;
	if (earliest > a->cur) {
		int64_t full = earliest - a->cur - 1;
		int64_t fe_full = a->fe_ready - (a->cur + 1);
		uint64_t rest = W - a->cur_used;

		fe_full = fe_full < 0 ? 0 : fe_full > full ? full : fe_full;
		/* The rest of this cycle is the front end's when it had nothing (that fits). */
		if (a->fe_ready > a->cur || a->cur_used + u > W)
			a->fe += rest;
		else
			a->be += rest;
		a->fe += (uint64_t)fe_full * W;
		a->be += (uint64_t)(full - fe_full) * W;
		a->cur = earliest;
		a->cur_used = 0;
		a->cur_insns = 0;
	}
	a->cur_used += u;
	a->cur_insns++;
	a->uops += u;
	a->insns++;
	return a->cur;
}

/*
 * The execution ports: per cycle, the micro-ops of each class issued in it, in a ring of
 * cycles tagged with their number. Every instruction still to issue issues at or after the
 * allocation cursor, so a slot whose tag is older than that is free; when two live cycles
 * would share a slot the ring doubles. A full cycle points at a later cycle that may have a
 * free port of the class (a union-find "next free", compressed as it is followed), so
 * finding a port never walks a long run of full cycles twice.
 */
struct ports {
	unsigned limit[PORT_CLASSES]; /* 0: unlimited */
	uint32_t want;		      /* classes with a limit */
	size_t size;		      /* a power of two */
	int64_t *tag;
	uint8_t (*used)[PORT_CLASSES];
	int64_t (*next)[PORT_CLASSES]; /* of a full cycle: no free port before this cycle */
	uint8_t *bound;		       /* the ALU ports bound micro-ops took (port_binding) */
	uint32_t *banks;   /* the L1 banks its loads read: one (low 16 bits), two (high 16) */
	unsigned per_bank; /* the profile's loads_per_bank (0: no limit) */
	unsigned dep_gap;  /* the profile's dep_load_gap (0: none) */
};

static int ports_grow(struct ports *pt, int64_t floor)
{
	size_t size = pt->size ? pt->size * 2 : 256;
	int64_t *tag = malloc(size * sizeof(*tag));
	uint8_t(*used)[PORT_CLASSES] = calloc(size, sizeof(*used));
	int64_t(*next)[PORT_CLASSES] = calloc(size, sizeof(*next));
	uint8_t *bound = calloc(size, sizeof(*bound));
	uint32_t *banks = calloc(size, sizeof(*banks));

	if (!tag || !used || !next || !bound || !banks) {
		free(tag);
		free(used);
		free(next);
		free(bound);
		free(banks);
		return IPCC_ENOMEM;
	}
	for (size_t i = 0; i < size; i++)
		tag[i] = INT64_MIN;
	for (size_t i = 0; i < pt->size; i++)
		if (pt->tag[i] >= floor) {
			size_t j = (size_t)pt->tag[i] & (size - 1);

			tag[j] = pt->tag[i];
			memcpy(used[j], pt->used[i], sizeof(used[j]));
			memcpy(next[j], pt->next[i], sizeof(next[j]));
			bound[j] = pt->bound[i];
			banks[j] = pt->banks[i];
		}
	free(pt->tag);
	free(pt->used);
	free(pt->next);
	free(pt->bound);
	free(pt->banks);
	pt->tag = tag;
	pt->used = used;
	pt->next = next;
	pt->bound = bound;
	pt->banks = banks;
	pt->size = size;
	return 0;
}

static void ports_free(struct ports *pt)
{
	free(pt->tag);
	free(pt->used);
	free(pt->next);
	free(pt->bound);
	free(pt->banks);
}

/* The slot of cycle t, claimed for it; -1 when out of memory. */
static ptrdiff_t ports_at(struct ports *pt, int64_t t, int64_t floor)
{
	size_t j = (size_t)t & (pt->size - 1);

	while (pt->tag[j] != t && pt->tag[j] >= floor) {
		if (ports_grow(pt, floor))
			return -1;
		j = (size_t)t & (pt->size - 1);
	}
	if (pt->tag[j] != t) {
		pt->tag[j] = t;
		memset(pt->used[j], 0, sizeof(pt->used[j]));
		pt->bound[j] = 0;
		pt->banks[j] = 0;
	}
	return (ptrdiff_t)j;
}

/* Whether cycle t has every port of class k taken. */
/* The ports of class k in cycle t: one fewer for loaded addresses one cycle in dep_gap. */
static unsigned ports_limit(const struct ports *pt, int k, int64_t t)
{
	if (k == PORT_DEPLOAD && pt->dep_gap && pt->limit[k] > 1 && t % pt->dep_gap == 0)
		return pt->limit[k] - 1;
	return pt->limit[k];
}

static bool ports_full(const struct ports *pt, int k, int64_t t)
{
	size_t j = (size_t)t & (pt->size - 1);

	return pt->tag[j] == t && pt->used[j][k] >= ports_limit(pt, k, t);
}

/* The first cycle >= t with a free port of class k. */
static int64_t ports_next_free(struct ports *pt, int k, int64_t t)
{
	int64_t u = t, found = t;

	while (ports_full(pt, k, found))
		found = pt->next[(size_t)found & (pt->size - 1)][k];
	while (u != found) { /* compress the path */
		int64_t *nx = &pt->next[(size_t)u & (pt->size - 1)][k];

		u = *nx;
		*nx = found;
	}
	return found;
}

/* The port classes `in` issues to: a store not paired also reaches the cache alone. */
static uint32_t store_ports(const struct ipcc_model_profile *p, const struct minsn *in,
			    bool *paired)
{
	if (!p->pair_stores || !(in->mem & MEM_STORE) ||
	    model_store_pairs(in, paired, p->pair_store_runs))
		return in->ports;
	return in->ports | 1u << PORT_COMMIT;
}

/*
 * The first cycle >= t with a free port of every class in `need` (and ALU port `port` free,
 * where >= 0: bound to it), taken; with `twice`, a second micro-op of those classes in the
 * first cycle from then with one free (and ALU port `port2` free, where >= 0), whose cycle it
 * returns; -1: no memory.
 */
static int64_t ports_issue(struct ports *pt, uint32_t need, int64_t t, int64_t floor, int port,
			   uint32_t twice, int port2, int bank)
{
	ptrdiff_t j;
	bool moved = true;

	need &= pt->want;
	if (!need)
		return t;
	for (;;) {
		while (moved) {
			moved = false;
			for (unsigned m = need; m; m &= m - 1) {
				int64_t f = ports_next_free(pt, __builtin_ctz(m), t);

				moved |= f != t;
				t = f;
			}
		}
		j = ports_at(pt, t, floor);
		if (j < 0)
			return -1;
		if ((port < 0 || !(pt->bound[j] >> port & 1)) &&
		    (bank < 0 || !(pt->banks[j] >> (pt->per_bank == 1 ? bank : 16 + bank) & 1)))
			break;
		t++; /* its own port, or its bank, is taken then */
		moved = true;
	}
	if (bank >= 0) /* one load more in its bank */
		pt->banks[j] |= pt->banks[j] >> bank & 1 ? 1u << (16 + bank) : 1u << bank;
	for (unsigned m = need; m; m &= m - 1) {
		int k = __builtin_ctz(m);

		if (++pt->used[j][k] >= ports_limit(pt, k, t))
			pt->next[j][k] = t + 1;
	}
	if (port >= 0)
		pt->bound[j] |= (uint8_t)(1u << port);
	if (twice) { /* the second micro-op: the first cycle from t with room for it */
		int64_t t2 = ports_issue(pt, need & twice, t, floor, port2, 0, -1, -1);

		return t2 < 0 ? -1 : t2;
	}
	return t;
}

/*
 * Binding to ALU ports at allocation (the profile's port_binding), as Intel's allocator
 * does and uiCA models it (Abel and Reineke): each ALU micro-op is given one port of those
 * it may use when it is allocated, from how many micro-ops bound to each wait to issue at
 * the start of the cycle before its group's first (the least busy first, a higher port
 * first on a tie, ports within BIND_SPREAD of the least), the k-th of the group with the
 * same choice of ports taking the k-th of that order; it then issues on that port alone. The
 * groups are the front end's W micro-ops in a row, as for a logical operation's flags
 * (df_ready), not the cycles the model allocates in. Ports are 0 ..
 * alu_ports - 1; shifts and branches may use 0 and alu_ports - 2 (Intel's 0 and 6), the
 * 3-cycle unit 1.
 */
#define BIND_PORTS  8
#define BIND_SPREAD 5
#define BIND_LIVE   1024

struct bind {
	unsigned nports;
	uint8_t all, shift, mul;	  /* the port sets */
	bool vec;			  /* vector micro-ops bound too, to ALU ports 0-2 */
	int64_t x[BIND_PORTS][BIND_LIVE]; /* each port's bound micro-ops' issue cycles */
	unsigned nx[BIND_PORTS];
	int64_t least[BIND_PORTS]; /* the least of each port's x[] (INT64_MAX: none) */
	unsigned prev[BIND_PORTS], cur[BIND_PORTS]; /* waiting at the start of cycle - 1, cycle */
	int64_t cycle;				    /* the allocation cycle of the group */
	int64_t group;				    /* and its number (W micro-ops in a row) */
	uint8_t gset[16];			    /* of the cycle's group, each set chosen */
	unsigned gcount[16], ng;		    /* and by how many */
};

static void bind_init(struct bind *b, const struct ipcc_model_profile *p)
{
	/* (x[] is written before it is read: only the counts start at 0) */
	memset(b->nx, 0, sizeof(b->nx));
	memset(b->prev, 0, sizeof(b->prev));
	memset(b->cur, 0, sizeof(b->cur));
	for (unsigned j = 0; j < BIND_PORTS; j++)
		b->least[j] = INT64_MAX;
	b->ng = 0;
	b->nports = p->alu_ports < BIND_PORTS ? p->alu_ports : BIND_PORTS;
	b->all = (uint8_t)((1u << b->nports) - 1);
	b->shift = b->nports >= 3 ? (uint8_t)(1u | 1u << (b->nports - 2)) : b->all;
	b->mul = b->nports >= 2 ? 2u : b->all;
	b->vec = p->vector_ports == 3 && b->nports >= 3;
	b->cycle = INT64_MIN;
	b->group = -1;
}

/* How many of port j's bound micro-ops issue at or after cycle t (those before dropped). */
static unsigned bind_waiting(struct bind *b, unsigned j, int64_t t)
{
	unsigned n = 0;
	int64_t least = INT64_MAX;

	if (b->least[j] >= t) /* none to drop */
		return b->nx[j];
	for (unsigned i = 0; i < b->nx[j]; i++)
		if (b->x[j][i] >= t) {
			b->x[j][n++] = b->x[j][i];
			if (b->x[j][i] < least)
				least = b->x[j][i];
		}
	b->nx[j] = n;
	b->least[j] = least;
	return n;
}

/*
 * The port that an instruction of port classes `ports` (of ALU ports `subset`, an ALU_* or
 * 0), allocated in cycle s in allocation group grp, is bound to.
 */
static int bind_port(struct bind *b, uint32_t ports, unsigned subset, int64_t s, uint64_t grp)
{
	uint8_t set = ports >> PORT_MUL & 1 ? b->mul : ports >> PORT_SHIFT & 1 ? b->shift : b->all;

	if (subset && b->nports == 5) /* Intel's 0, 1, 5, 6 and 10 (alu_port_subsets) */
		set = subset == ALU_SEXT	 ? 0x16u  /* 1, 5, 10 */
		      : subset == ALU_LEA_SCALED ? 0x19u  /* 0, 6, 10 */
						 : 0x02u; /* 1 (ALU_PORT1) */

	if (b->vec && ports >> PORT_VEC & 1) /* Intel's vector ports 0, 1 and 5: ALU ports 0-2 */
		set = ports >> PORT_VOUT & 1	? 1u
		      : ports >> PORT_VSHUF & 1 ? 4u
		      : ports >> PORT_VMUL & 1	? 3u
		      : ports >> PORT_VADD & 1	? 6u
						: 7u;
	unsigned order[BIND_PORTS], n = 0, least = UINT_MAX, k;

	if ((int64_t)grp != b->group) {
		for (unsigned j = 0; j < b->nports; j++) {
			unsigned before = bind_waiting(b, j, s - 1);

			b->prev[j] = s == b->cycle + 1 ? b->cur[j] : before;
			b->cur[j] = bind_waiting(b, j, s);
		}
		b->cycle = s;
		b->group = (int64_t)grp;
		b->ng = 0;
	}
	for (unsigned j = 0; j < b->nports; j++)
		if (set >> j & 1 && b->prev[j] < least)
			least = b->prev[j];
	if (least == UINT_MAX) /* none of its ports is one of the profile's */
		return -1;
	/*
	 * The ports within the spread, least busy first, a higher one first on a tie: taken
	 * from the highest down, each placed after those no busier (an insertion sort).
	 */
	for (unsigned j = b->nports; j-- > 0;) {
		unsigned i = n;

		if (!(set >> j & 1) || b->prev[j] >= least + BIND_SPREAD)
			continue;
		for (; i > 0 && b->prev[order[i - 1]] > b->prev[j]; i--)
			order[i] = order[i - 1];
		order[i] = j;
		n++;
	}
	for (k = 0; k < b->ng && b->gset[k] != set; k++)
		;
	if (k == b->ng && b->ng < 16) {
		b->gset[b->ng] = set;
		b->gcount[b->ng++] = 0;
	}
	k = k < b->ng ? b->gcount[k]++ : 0;
	return n ? (int)order[k % n] : -1;
}

/* Bound micro-op on port j issues at x. */
static void bind_issued(struct bind *b, int j, int64_t x)
{
	if (j >= 0 && b->nx[j] < BIND_LIVE) {
		b->x[j][b->nx[j]++] = x;
		if (x < b->least[j])
			b->least[j] = x;
	}
}

/*
 * A divider, not pipelined: the cycles it is held, so that a younger division whose input is
 * ready fills a gap that an older one waiting for its input leaves, as the scheduler issues
 * whichever is ready (four vdivsd an iteration, two of them after the others' results
 * through a multiply and an add: 16.28 cycles a loop on Emerald Rapids, four divisions'
 * 4 each; 28.9 modelled when each division waited for the one before it in program order).
 */
struct divider {
	int64_t *from, *to; /* the spans held, in order (at most cap: the ROB's and more) */
	unsigned n, cap;
};

/*
 * The first cycle >= t that the divider is free for `occ` cycles; spans ended by `floor`
 * dropped (no instruction allocated from then can issue before it).
 */
static int64_t div_gap(struct divider *d, int64_t t, unsigned occ, int64_t floor)
{
	unsigned k = 0, lo, hi;

	while (k < d->n && d->to[k] <= floor)
		k++;
	if (k) {
		memmove(d->from, d->from + k, (d->n - k) * sizeof(*d->from));
		memmove(d->to, d->to + k, (d->n - k) * sizeof(*d->to));
		d->n -= k;
	}
	for (lo = 0, hi = d->n; lo < hi;) { /* the first span that ends after t */
		const unsigned mid = lo + (hi - lo) / 2;

		if (d->to[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->n && t + (int64_t)occ > d->from[lo]; lo++)
		if (d->to[lo] > t)
			t = d->to[lo];
	return t;
}

/* The divider held from t for occ cycles (past cap spans, the earliest forgotten). */
static void div_hold(struct divider *d, int64_t t, unsigned occ)
{
	unsigned i = d->n;

	if (d->n == d->cap) {
		memmove(d->from, d->from + 1, (d->n - 1) * sizeof(*d->from));
		memmove(d->to, d->to + 1, (d->n - 1) * sizeof(*d->to));
		i = --d->n;
	}
	while (i > 0 && d->from[i - 1] > t)
		i--;
	memmove(d->from + i + 1, d->from + i, (d->n - i) * sizeof(*d->from));
	memmove(d->to + i + 1, d->to + i, (d->n - i) * sizeof(*d->to));
	d->from[i] = t;
	d->to[i] = t + occ;
	d->n++;
}

/*
 * AMD's virtual-tag aliasing (minsn.utag_cost): what of each cycle's one resource its loads
 * have taken, in hundredths. A load takes what is left of the first cycle from its ready one
 * that has any, and its cost runs on into the cycles after, so loads of a fraction of a cycle
 * share one and a younger load fills what an older one left, as the scheduler issues
 * whichever is ready. The cycles from `base` on; those before the allocation's are dropped.
 */
#define TAG_CYCLES 4096u

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

struct tags {
	int64_t base;
	uint8_t used[TAG_CYCLES]; /* cycle base + i at (base + i) % TAG_CYCLES */
};

/* The cycle a load ready at q that holds `cost` hundredths takes its first share in. */
static int64_t tags_take(struct tags *t, int64_t q, unsigned cost, int64_t floor)
{
	if (floor - t->base >= (int64_t)TAG_CYCLES) { /* cycles no instruction from now can use */
		memset(t->used, 0, sizeof(t->used));
		t->base = floor;
	}
	while (t->base < floor)
		t->used[t->base++ % TAG_CYCLES] = 0;
	if (q < t->base || q - t->base >= TAG_CYCLES)
		return q; /* too far ahead to follow: free */
	int64_t c = q;

	while (c - t->base < TAG_CYCLES && t->used[c % TAG_CYCLES] >= 100)
		c++;
	const int64_t first = c;

	while (cost && c - t->base < TAG_CYCLES) {
		const unsigned take = min_u(cost, 100u - t->used[c % TAG_CYCLES]);

		t->used[c % TAG_CYCLES] = (uint8_t)(t->used[c % TAG_CYCLES] + take);
		cost -= take;
		c++;
	}
	return first;
}

static void div_free(struct divider *dv)
{
	for (unsigned i = 0; dv && i <= DIV_FP; i++) {
		free(dv[i].from);
		free(dv[i].to);
	}
	free(dv);
}

/* Totals of the cycles before the current one. */
struct snapshot {
	int64_t cycle;
	uint64_t uops, insns, wrong, fe, be;
};

static struct snapshot snap(const struct alloc *a)
{
	return (struct snapshot){
		a->cur, a->uops - a->cur_used, a->insns - a->cur_insns, a->wrong, a->fe, a->be
	};
}

/*
 * Where a sample lands when instruction k of iteration `it` is selected, in a program with a
 * branch that is taken (model_taken): as land[] says, but along the path the iteration takes.
 * An instruction that a taken jump skipped (`skipped`) stands for the jump's target `to`: the
 * core waits for that one instead (after a mispredict, for the front end to deliver it). With
 * placement next, the instruction after a taken jump is its target.
 */
static unsigned land_on_path(const struct ipcc_model_program *prog,
			     const struct ipcc_model_profile *p, const unsigned *land, unsigned k,
			     uint64_t it, bool skipped, unsigned to)
{
	const unsigned n = prog->n;
	unsigned t = skipped ? to : k, steps = 0;

	if (p->placement == IPCC_MODEL_PLACE_OLDEST)
		return land[t];
	do { /* the next instruction on the path, past the jcc of a fused pair */
		const struct minsn *in = &prog->insn[t];

		t = (t + 1 + (model_taken(in, it) ? in->skip : 0)) % n;
		if (t == 0)
			it++;
	} while (prog->insn[t].uops == 0 && ++steps < n);
	return t;
}

/* Each general register's writer, for bypass_slot_every. */
struct bypass {
	bool alu1[16];	  /* a one-cycle ALU operation */
	uint64_t grp[16]; /* its allocation group */
	unsigned n;	  /* the operations issued on the bypass so far */
};

/*
 * Whether `in`, issued at x in allocation group grp, is an ALU operation that takes a
 * general register's value on the bypass: the cycle a one-cycle ALU operation of its own
 * group completes it.
 */
static bool on_bypass(const struct dataflow *df, const struct minsn *in, const struct bypass *b,
		      int64_t x, uint64_t grp)
{
	if (!(in->ports >> PORT_ALU & 1) || in->mem & MEM_LOAD)
		return false;
	for (uint64_t m = in->reads & 0xffffull; m; m &= m - 1) {
		const int r = __builtin_ctzll(m);

		if (b->alu1[r] && b->grp[r] == grp && df->done[r] == x)
			return true;
	}
	return false;
}

/*
 * The one instruction of a loop of loop_uops micro-ops that shift_chain_cycles slows: one
 * micro-op on the shift ports, of one cycle, whose register only it writes in the loop and
 * reads back the next iteration (shl rbx, 1; setb bl; adc rbx, 0); its index, with *floor
 * the cycles an iteration the chain takes at the fewest. -1: none, or more than one.
 */
static int shift_chain(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		       unsigned loop_uops, double *floor)
{
	const unsigned n = prog->n;
	int found = -1;
	unsigned place = 0, before = 0;

	if (loop_uops < 2 || loop_uops > IPCC_MODEL_CHAIN_LOOP ||
	    !p->shift_chain_cycles[loop_uops - 2][0])
		return -1;
	for (unsigned k = 0; k < n; k++) {
		const struct minsn *in = &prog->insn[k];
		const uint64_t self = in->reads & in->writes & 0xffffull;
		bool alone = self != 0;

		for (unsigned j = 0; alone && j < n; j++)
			alone = j == k || !(prog->insn[j].writes & self);
		if (alone && in->uops == 1 && in->latency == 1 && !in->mem && !in->fe_fused &&
		    (in->ports >> PORT_SHIFT & 1 || in->ports >> PORT_BRANCH & 1) &&
		    !(k + 1 < n && prog->insn[k + 1].uops == 0)) {
			if (found >= 0)
				return -1;
			found = (int)k;
			place = before;
		}
		before += in->slot_free ? 0 : in->uops;
	}
	if (found < 0 || place + 1 >= loop_uops)
		return -1;
	*floor = p->shift_chain_cycles[loop_uops - 2][place] / 100.0;
	return found;
}

static int run(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
	       const struct ipcc_model_opts *opts, struct ipcc_model_result *out)
{
	const unsigned n = prog->n, W = p->width, R = p->retire, B = p->rob;
	const uint64_t iters = opts->iterations ? opts->iterations : 1000;
	const uint64_t warm = opts->iterations ? opts->warmup : iters / 2;
	struct alloc al = { .width = W, .rob = B };
	struct snapshot from = { 0 }, to;
	struct dataflow *df; /* registers, recent stores */
	struct ports pt = { .limit = { p->alu_ports, p->load_ports, p->store_ports, p->vector_ports,
				       p->pair_stores, p->agu_ports, p->shift_ports, p->mul_ports,
				       p->vec_mul_ports, p->vec_add_ports, p->vec_out_ports,
				       p->vec_shuffle_ports, p->dep_load_ports, p->vec_load_ports,
				       p->vec_in_ports, model_mix_limit(p, p->vec_mul_ports),
				       model_mix_limit(p, p->vec_add_ports), p->branch_ports },
			    .per_bank = p->loads_per_bank <= 2 ? p->loads_per_bank : 0,
			    .dep_gap = p->dep_load_gap };
	bool paired = false;	  /* the last store reached the cache with the one before it */
	struct bind *bind = NULL; /* the profile's port_binding */
	int64_t *ring = NULL;
	int64_t *aring = NULL;	    /* with forward_fail_late: each store's address, as ring */
	unsigned *piece_ops = NULL; /* with opcache_entries: each instruction's line piece's ops */
	double *landed = NULL;	    /* weight of samples landing on each static instruction */
	unsigned *land = NULL;	    /* where a sample lands when instruction k is selected */
	int64_t ret_cycle = 0, r_prev = 0, r_base = 0, row_base = 0;
	struct divider *dv = NULL;	 /* each divider's spans (minsn.divides) */
	struct tags *tags = NULL;	 /* the virtual-tag resource, where a load holds it */
	int64_t store_r = INT64_MIN / 2; /* the latest store's retirement */
	int64_t split_free[SPLIT_STORE_PAGE + 1] = { 0 }; /* each split resource (minsn.split) */
	unsigned ret_used = 0;
	struct bypass byp = { 0 };
	/* the loop's closing pair (a flag-writer and the jcc fused with it): not on_bypass */
	const unsigned closing = n >= 2 && prog->insn[n - 1].fe_fused ? 2 : 0;
	uint64_t g = 0;
	size_t slot = 0;       /* g % B: instruction g's place in ring[] */
	uint64_t grp = 0;      /* its allocation group: W micro-ops in a row */
	unsigned grp_used = 0; /* the micro-ops before it in that group */
	bool paths = false;    /* a branch is taken (model_taken): samples follow the path */
	struct ipcc_interval iv = { 0 };
	struct ipcc_breakdown bd;

	memset(out, 0, sizeof(*out));
	if (W == 0 || R == 0)
		return err_set(IPCC_EINVAL, "model: width and retire width must be at least 1");
	if (warm >= iters)
		return err_set(IPCC_EINVAL, "model: %llu warm-up iterations leave none of %llu",
			       (unsigned long long)warm, (unsigned long long)iters);
	for (unsigned k = 0; k < n; k++)
		if (prog->insn[k].uops > W || prog->insn[k].uops > R)
			return err_set(IPCC_EINVAL,
				       "model: line %u has %u micro-ops, more than the "
				       "width",
				       prog->insn[k].line, prog->insn[k].uops);
	if (opts->trace && iters * n > 100000000ull)
		return err_set(IPCC_EINVAL, "model: a trace of %llu instructions is too long",
			       (unsigned long long)(iters * n));
	for (int k = 0; k < PORT_CLASSES; k++)
		if (pt.limit[k])
			pt.want |= 1u << k;
	df = calloc(1, sizeof(*df));
	if (df)
		df_init(df, p);
	if (p->port_binding && p->alu_ports) {
		bind = malloc(sizeof(*bind));
		if (bind)
			bind_init(bind, p);
	}
	if (!df || (p->port_binding && p->alu_ports && !bind) || (pt.want && ports_grow(&pt, 0))) {
		free(df);
		free(bind);
		return err_set(IPCC_ENOMEM, "model: out of memory");
	}
	out->rows = calloc(n, sizeof(*out->rows));
	landed = calloc(n, sizeof(*landed));
	land = calloc(n, sizeof(*land));
	aring = B && p->forward_fail_late ? calloc(B, sizeof(*aring)) : NULL;
	ring = B ? calloc(B, sizeof(*ring)) : NULL;
	dv = calloc(DIV_FP + 1, sizeof(*dv));
	for (unsigned i = 0; dv && i <= DIV_FP; i++) {
		dv[i].cap = B + 64;
		dv[i].from = malloc(dv[i].cap * sizeof(*dv[i].from));
		dv[i].to = malloc(dv[i].cap * sizeof(*dv[i].to));
		if (!dv[i].from || !dv[i].to)
			goto oom;
	}
	for (unsigned k = 0; k < n && !tags; k++)
		if (prog->insn[k].utag_cost && !(tags = calloc(1, sizeof(*tags))))
			goto oom;
	if (opts->trace)
		out->trace = malloc(iters * n * sizeof(*out->trace));
	if (!out->rows || !landed || !land || (B && !ring) ||
	    (B && p->forward_fail_late && !aring) || !dv || (opts->trace && !out->trace))
		goto oom;
	out->nrows = n;
	/*
	 * Where a sample lands when instruction k is selected: on k + 1 (placement next) or on
	 * k (oldest), and never on the jcc of a macro-fused pair (no micro-ops of its own): the
	 * pair is one instruction, so a sample goes to its first, or past it.
	 */
	for (unsigned k = 0; k < n; k++) {
		unsigned t = p->placement == IPCC_MODEL_PLACE_OLDEST ? k : (k + 1) % n, steps = 0;

		if (p->placement == IPCC_MODEL_PLACE_OLDEST)
			while (prog->insn[t].uops == 0 && t > 0 && steps++ < n)
				t--;
		else
			while (prog->insn[t].uops == 0 && steps++ < n)
				t = (t + 1) % n;
		land[k] = t;
		paths |= prog->insn[k].skip && prog->insn[k].taken;
	}

	/*
	 * a loop the loop stream detector does not unroll: each iteration from a new cycle. Its
	 * micro-ops as the front end counts them, and --fit-profile's nop loops: a jcc that
	 * takes no slot of its own (alu_jcc_one_slot) none (Zen 5: eleven nops and the loop's
	 * dec, jnz 1.50 cycles a loop, twelve micro-ops at the width; 2.00 when the jcc was
	 * counted, stop 78)
	 */
	unsigned loop_uops = 0;
	for (unsigned k = 0; k < n; k++)
		loop_uops += prog->insn[k].slot_free ? 0 : prog->insn[k].uops;
	const bool lsd_break = !paths && loop_uops < 64 && (p->lsd_no_unroll >> loop_uops & 1);
	/* a one-cycle chain through the shift ports in a short loop (shift_chain_cycles) */
	double chain_floor = 0, chain_at = 0;
	const int chain_k = paths ? -1 : shift_chain(prog, p, loop_uops, &chain_floor);

	/*
	 * The op cache (opcache_line_ops), where every instruction's length is known: a loop
	 * of more than loop_stream_ops ops (a jcc paired with the flag-writer before it one,
	 * in the jcc's line) gets each 64-byte line from a new cycle, at most opcache_line_ops
	 * of its ops a cycle; a shorter one over more than a line each line from a new cycle.
	 * The loop starts a line (the harness aligns it) unless its first line says where it
	 * starts (at=N), as a line after a taken jump may. Its own clock runs ahead of the
	 * allocation by FE_AHEAD cycles at most (the op queue's depth, assumed). With
	 * opcache_entries, in entries instead: see the profile's key (ipcc/model.h).
	 */
	unsigned fe_cap = UINT_MAX, loop_bytes = 0, loop_ops = 0;
	bool fe_lines = false;

	for (unsigned k = 0; k < n && p->opcache_line_ops && !paths; k++) {
		if (!prog->insn[k].bytes) {
			loop_bytes = 0;
			break;
		}
		loop_bytes += prog->insn[k].bytes;
		loop_ops += !(k + 1 < n && prog->insn[k + 1].fe_fused);
	}
	if (loop_bytes && loop_ops > p->loop_stream_ops) {
		fe_lines = true;
		fe_cap = p->opcache_line_ops;
	} else if (loop_bytes + (n && prog->insn[0].line_at ? prog->insn[0].line_at - 1u : 0) >
		   64) {
		fe_lines = true;
	}
	int64_t fe_t = INT64_MIN / 2; /* the cycle the op cache delivers in */
	unsigned fe_used = 0, fe_off = 0, fe_line = 0;
	bool fe_fresh = true; /* the next op opens a cycle: the loop's branch went back */
	/*
	 * opcache_entries: each instruction's line piece (a fetch block's part of one line)
	 * and its ops; the entries the cycle has taken; whether its piece outgrows a cycle's
	 */
	const unsigned E = p->opcache_entries, L = p->opcache_line_ops;
	unsigned fe_entries = 0;
	bool fe_big = false;

	if (fe_lines && E) {
		/* piece_ops[n + k]: whether k is an op of its own to the front end, 0 or 1 */
		piece_ops = calloc(2 * (size_t)n, sizeof *piece_ops);
		if (!piece_ops)
			goto oom;
		unsigned *own = piece_ops + n, first = 0, ops = 0, off = 0, line = 0;

		/*
		 * An instruction's line is where it ends; a jcc fused with the flag-writer before
		 * it is one op with it, in the jcc's line, unless the two end in different lines:
		 * then each is an op in its own (ipcc bench --block on Zen 5: twelve instructions
		 * and the loop's dec in one line, its jnz in the next, 4.00 cycles a loop, as 13
		 * ops in the first line and one in the next)
		 */
		for (unsigned k = 0; k < n; k++) {
			const struct minsn *in = &prog->insn[k], *next = k + 1 < n ? in + 1 : NULL;
			const unsigned start = in->line_at ? in->line_at - 1u : k ? off : 0;

			off = start + in->bytes;
			own[k] = !(next && next->fe_fused && !next->line_at &&
				   (off - 1) / 64 == (off + next->bytes - 1) / 64);
		}
		off = 0;
		for (unsigned k = 0; k <= n; k++) {
			const struct minsn *in = k < n ? &prog->insn[k] : NULL;
			unsigned start = 0, end_line = 0;

			if (in) {
				start = in->line_at ? in->line_at - 1u : k ? off : 0;
				end_line = (start + in->bytes - 1) / 64;
				off = start + in->bytes;
			}
			if (k == n || k == 0 || in->line_at || end_line != line) {
				for (unsigned j = first; j < k; j++)
					piece_ops[j] = ops;
				first = k, ops = 0, line = end_line;
			}
			ops += in && own[k];
		}
	}

	for (uint64_t it = 0; it < iters; it++) {
		const bool counted = it >= warm, reported = it == iters - 1;
		unsigned shadow = 0, target = 0; /* a taken jump skips to `target`, < shadow */

		if (lsd_break && al.cur_used)
			al.fe_ready = max64(al.fe_ready, al.cur + 1);

		if (it == warm)
			r_base = r_prev;
		if (reported)
			row_base = r_prev;
		for (unsigned k = 0; k < n; k++, g++, slot = slot + 1 == B ? 0 : slot + 1) {
			const struct minsn *in = &prog->insn[k];
			const unsigned u = in->uops;
			const unsigned slots = in->slot_free ? 0 : u; /* of width and retire */
			int64_t s, q, x, c, r;
			unsigned lat;

			/* the op cache's cycle for it: a new one at the loop's start, a new line,
			 * or the line's ops for a cycle delivered */
			if (fe_lines) {
				/* where it starts: after the one before, or at its `at=` (fetched
				 * from elsewhere), the loop's first at a line's start */
				const unsigned start = in->line_at ? in->line_at - 1u
						       : k	   ? fe_off
								   : 0;
				/* its line: where it starts; a paired jcc's, where it ends */
				const unsigned at = start + (in->fe_fused ? in->bytes - 1 : 0);

				fe_off = start + in->bytes;
				fe_fresh |= k == 0 || in->line_at;
				if (E && piece_ops[n + k]) {
					/* in entries: a new one at a new piece, or a full one */
					const unsigned end = (start + in->bytes - 1) / 64;
					const bool piece = fe_fresh || end != fe_line;

					if (piece || fe_used >= L) {
						const bool big =
						    piece ? piece_ops[k] > E * L : fe_big;

						if (fe_fresh || big || fe_big || fe_entries >= E) {
							fe_t = max64(fe_t + 1, al.cur - FE_AHEAD);
							fe_entries = 0;
						}
						fe_entries++;
						fe_used = 0;
						fe_big = big;
						fe_line = end;
						fe_fresh = false;
					}
					fe_used++;
				} else if (!E && !(k + 1 < n && prog->insn[k + 1].fe_fused)) {
					if (fe_fresh || at / 64 != fe_line || fe_used >= fe_cap) {
						fe_t = max64(fe_t + 1, al.cur - FE_AHEAD);
						fe_used = 0;
						fe_line = at / 64;
						fe_fresh = false;
					}
					fe_used++;
				}
				al.fe_ready = max64(al.fe_ready, fe_t);
			}
			/* scheduled: in order, W micro-ops a cycle, when the front end offers it,
			 * one cycle after instruction g - B retired */
			s = allocate(&al, ring, g, slot, slots, in->fe_stall);
			if (it == warm && warm > 0 && k == 0)
				from = snap(&al);

			/* ready: registers and flags, and a store to the address it loads */
			int64_t trip;

			q = df_ready(df, in, grp, s, NULL, &trip);
			/*
			 * a load its store cannot forward to: once that store retired (loads
			 * that fail on different stores overlap); anything else at retirement.
			 * An instance that reads bytes a store wrote through another virtual
			 * address (alias_rate) fails only while that store is in flight: one
			 * that retired before the load is ready has reached the cache (a store
			 * sweeping the page rewrites the byte a table lookup reads a few times
			 * in 4096 iterations: 1.00 cycle a loop on Emerald Rapids).
			 */
			const bool fails =
			    in->forward_fails ||
			    (in->alias_rate && model_mispredicted(in->alias_rate, it) && B &&
			     in->fail_back < B && g >= in->fail_back &&
			     ring[(slot + B - in->fail_back) % B] > q);

			/* a forward's round trip: after the question above, which the load's
			 * early issue asks (forward_trip) */
			q = max64(q, trip);
			/*
			 * a failing load that was ready before its store's address was known
			 * went ahead and is caught late (forward_fail_late): mov rax, [rdx]; mov
			 * byte ptr [rax], 0 18.3 cycles a loop on Zen 5, where mov byte ptr
			 * [rsi], al; mov rbx, [rsi] takes 14.0
			 */
			const bool late = fails && aring && in->fail_back < B &&
					  g >= in->fail_back &&
					  aring[(slot + B - in->fail_back) % B] > q;

			if (fails && B && in->fail_back < B && g >= in->fail_back)
				q = max64(q, ring[(slot + B - in->fail_back) % B]);
			else if (in->at_retire || (in->assist && p->fp_assist_cycles))
				q = max64(q, r_prev);
			/* a lock or a fence: the stores before it drain to the cache first */
			if (in->drains && p->store_drain_cycles)
				q = max64(q, store_r + p->store_drain_cycles);
			/* a division waits for the divider, which it then holds */
			if (in->div_cycles)
				q = div_gap(&dv[in->divides], q, in->div_cycles, s);
			/* an access that splits a line or a page waits for the one before it */
			if (in->split)
				q = max64(q, split_free[in->split]);
			/*
			 * a load of a line tagged with another virtual page: one at a time, its
			 * share of a cycle each (tags_take)
			 */
			if (in->utag_cost && tags)
				q = tags_take(tags, q, in->utag_cost, s);
			/* immediate folding: of F add/sub reg, imm in a row, one has latency */
			const bool materialize = df_materializes(df, in);

			lat = df_latency(df, in, p->fold_imm);
			/* an instance that fails as forward_fails ones always do (alias_rate) */
			if (fails && !in->forward_fails &&
			    p->forward_fail_latency > in->load_latency)
				lat += p->forward_fail_latency - in->load_latency;
			if (late)
				lat += p->forward_fail_late;
			/* a store's address: when its registers are (forward_fail_late) */
			if (aring && in->mem & MEM_STORE) {
				int64_t t = s;

				for (uint64_t m = in->addr_regs & 0xffff; m; m &= m - 1)
					t = max64(t, df->done[__builtin_ctzll(m)]);
				aring[slot] = t;
			}
			/* a subnormal's assist: microcode, once all before it retired (above) */
			if (in->assist)
				lat += p->fp_assist_cycles;
			/* issued: the first cycle from q with a free port of each class (a
			 * folded add none, where the profile folds at rename) */
			if (in->fold && lat == 0 && p->fold_no_port) {
				x = q;
			} else {
				const int bp =
				    bind && (in->ports >> PORT_ALU & 1 ||
					     (bind->vec && in->ports >> PORT_VEC & 1))
					? bind_port(bind, in->ports, in->alu_subset, s, grp)
					: -1;

				/*
				 * a second micro-op where its class has two ports (else one):
				 * shift_twice's, or the add of an offset folded into an input
				 * (lea rax, [r12 + 2]; shl rax, 5 1.50 cycles a loop on Emerald
				 * Rapids, the shift, the add and the loop's branch on the two
				 * shift ports; two such pairs 2.50)
				 */
				uint32_t twice = 0;
				const bool second = in->shift_twice || materialize;

				for (int cl = 0; second && cl < PORT_CLASSES; cl++)
					if ((cl == PORT_SHIFT || cl == PORT_ALU) &&
					    pt.limit[cl] >= 2)
						twice |= 1u << cl;
				if (in->vec_twice) /* a conversion's two: one vector port more */
					twice |= 1u << PORT_VEC;
				/*
				 * a shift's second micro-op is bound too, so that it does not take
				 * a port a bound vector micro-op holds (shr edx, cl; shr r9d, cl;
				 * pmovmskb eax, xmm2 3.01 cycles a loop on Emerald Rapids, 2.50
				 * while the second took any shift port; without the pmovmskb 2.60)
				 */
				const int bp2 =
				    bp >= 0 && in->shift_twice
					? bind_port(bind, in->ports, in->alu_subset, s, grp)
					: -1;
				/* the chain's pace in a short loop (shift_chain_cycles) */
				if ((int)k == chain_k)
					q = max64(q, (int64_t)ceil(chain_at - 1e-9));
				x = ports_issue(&pt, store_ports(p, in, &paired), q, al.cur, bp,
						twice, bp2,
						pt.per_bank && in->bank ? in->bank - 1 : -1);
				if ((int)k == chain_k && x >= 0)
					chain_at = fmax(chain_at + chain_floor, (double)x);
				if (bind) {
					bind_issued(bind, bp, x);
					if (bp2 >= 0)
						bind_issued(bind, bp2, x);
				}
				/*
				 * the ALU issue slots it holds beside its own (lea3_alu_slots):
				 * the first free from its cycle on, no later result for it
				 */
				for (unsigned h = 0; x >= 0 && h < in->alu_held; h++)
					if (ports_issue(&pt, 1u << PORT_ALU, x, al.cur, -1, 0, -1,
							-1) < 0)
						x = -1;
				/* every Nth on the bypass: a slot more (bypass_slot_every) */
				if (x >= 0 && p->bypass_slot_every && k + closing < n &&
				    on_bypass(df, in, &byp, x, grp) &&
				    ++byp.n % p->bypass_slot_every == 0 &&
				    ports_issue(&pt, 1u << PORT_ALU, x, al.cur, -1, 0, -1, -1) < 0)
					x = -1;
			}
			if (x < 0)
				goto oom;
			for (uint64_t m = in->writes & 0xffffull; m; m &= m - 1) {
				const int w = __builtin_ctzll(m);

				byp.alu1[w] =
				    lat == 1 && in->ports >> PORT_ALU & 1 && !(in->mem & MEM_LOAD);
				byp.grp[w] = grp;
			}
			if (in->div_cycles)
				div_hold(&dv[in->divides], x, in->div_cycles);
			if (in->split)
				split_free[in->split] = x + in->split_cycles;
			c = x + lat;
			df_complete(df, in, s, grp, c, g + 1);
			grp_used += slots; /* slots <= W: the group moves on by one at most */
			if (grp_used >= W) {
				grp_used -= W;
				grp++;
			}

			/* retired: in order, R micro-ops a cycle */
			r = max64(c, r_prev);
			if (r == ret_cycle && ret_used + slots > R)
				r = ret_cycle + 1;
			if (r > ret_cycle) {
				ret_cycle = r;
				ret_used = 0;
			}
			ret_used += slots;
			if (B)
				ring[slot] = r;
			if (in->mem & MEM_STORE && !in->drains) /* a lock's own store is done */
				store_r = r;

			if (counted && r > r_prev)
				landed[paths
					   ? land_on_path(prog, p, land, k, it, k < shadow, target)
					   : land[k]] += (double)(r - r_prev);
			if (paths && k >= shadow && model_taken(in, it)) {
				shadow = k + in->skip + 1;
				target = shadow % n;
			}
			if (reported || opts->trace) {
				int64_t base = reported ? row_base : 0;
				struct ipcc_model_row row = {
					.index = k,
					.iteration = it,
					.scheduled = s - base,
					.ready = q - base,
					.issued = x - base,
					.complete = c - base,
					.retired = r - base,
					.selected = r > r_prev,
					.weight = (uint64_t)(r - r_prev),
				};

				if (reported)
					out->rows[k] = row;
				if (opts->trace) {
					row.scheduled = s, row.ready = q, row.complete = c;
					row.issued = x;
					row.retired = r;
					out->trace[out->ntrace++] = row;
				}
			}
			r_prev = r;

			/* A mispredicted branch (instance `it` of a rate's share): the front
			 * end fills every slot with the wrong path until the branch completes,
			 * then needs `recovery` cycles. */
			if (model_mispredicted(in->mispredict, it)) {
				int64_t until = max64(c, al.cur);

				al.wrong += (W - al.cur_used) + (uint64_t)(until - al.cur) * W;
				al.cur = until + 1;
				al.cur_used = 0;
				al.cur_insns = 0;
				al.fe_ready = max64(al.fe_ready, al.cur + p->recovery);
			}
		}
	}

	/* Where the window ends. */
	if (warm > 0) {
		/* where the next iteration's first instruction would be allocated */
		struct alloc next = al;

		allocate(&next, ring, g, slot, prog->insn[0].uops, prog->insn[0].fe_stall);
		to = snap(&next);
	} else {
		/* the whole run: until the last retirement, the drain as back-end stall */
		int64_t end = max64(al.cur + (al.cur_used ? 1 : 0), r_prev);

		if (al.cur_used)
			al.be += W - al.cur_used;
		al.be += (uint64_t)(end - (al.cur + (al.cur_used ? 1 : 0))) * W;
		to = (struct snapshot){ end, al.uops, al.insns, al.wrong, al.fe, al.be };
	}
	free(df);
	free(ring);
	free(aring);
	free(piece_ops);
	div_free(dv);
	free(tags);
	ports_free(&pt);
	free(bind);

	{
		struct ipcc_model_summary *sm = &out->summary;
		double total_w = 0;

		sm->iterations = iters - warm;
		sm->cycles = (uint64_t)(r_prev - r_base);
		sm->instructions = to.insns - from.insns;
		sm->cycles_per_iteration = (double)sm->cycles / (double)sm->iterations;
		sm->ipc = sm->cycles ? (double)sm->instructions / (double)sm->cycles : 0;
		sm->slot_cycles = (uint64_t)(to.cycle - from.cycle);
		sm->total = (uint64_t)W * sm->slot_cycles;
		sm->retired = to.uops - from.uops;
		sm->issued = sm->retired + (to.wrong - from.wrong);
		sm->filled = sm->total - (to.fe - from.fe);
		iv.value[IPCC_SLOTS_TOTAL] = (int64_t)sm->total;
		iv.value[IPCC_SLOTS_FILLED] = (int64_t)sm->filled;
		iv.value[IPCC_SLOTS_ISSUED] = (int64_t)sm->issued;
		iv.value[IPCC_SLOTS_RETIRED] = (int64_t)sm->retired;
		iv.valid = 0xfu << IPCC_SLOTS_TOTAL;
		if (ipcc_breakdown(&iv, &bd) == 0) {
			sm->frontend = bd.frontend;
			sm->backend = bd.backend;
			sm->speculation = bd.speculation;
			sm->retiring = bd.retiring;
		}
		for (unsigned k = 0; k < n; k++)
			total_w += landed[k];
		for (unsigned k = 0; k < n; k++)
			out->rows[k].share = total_w > 0 ? landed[k] / total_w : 0;
	}
	free(landed);
	free(land);
	return 0;
oom:
	free(df);
	free(piece_ops);
	free(landed);
	free(land);
	free(ring);
	free(aring);
	div_free(dv);
	free(tags);
	ports_free(&pt);
	free(bind);
	ipcc_model_result_release(out);
	return err_set(IPCC_ENOMEM, "model: out of memory");
}

int ipcc_model_run(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		   const struct ipcc_model_opts *opts, struct ipcc_model_result *out)
{
	struct ipcc_model_profile q = *p;
	struct ipcc_model_opts o = *opts;
	struct ipcc_model_result placed;
	int ret = run(prog, p, opts, out);

	if (ret || !p->sample_retire || p->sample_retire == p->retire)
		return ret;
	/* Samples placed as if the core retired sample_retire micro-ops a cycle. */
	q.retire = p->sample_retire;
	q.sample_retire = 0;
	o.trace = false;
	ret = run(prog, &q, &o, &placed);
	if (ret) {
		ipcc_model_result_release(out);
		return ret;
	}
	for (unsigned k = 0; k < out->nrows; k++)
		out->rows[k].share = placed.rows[k].share;
	ipcc_model_result_release(&placed);
	return 0;
}

void ipcc_model_result_release(struct ipcc_model_result *r)
{
	free(r->rows);
	free(r->trace);
	memset(r, 0, sizeof(*r));
}
