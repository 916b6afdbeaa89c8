/*
 * predictor.h - the model backend's branch predictors, per thread: TAGE for conditional
 * branches (Seznec and Michaud, "A case for (partially) TAgged GEometric history length
 * branch prediction", JILP 2006) and its indirect sibling (ITTAGE, Seznec 2011) for
 * indirect jumps and calls. Returns stay with the tool's return-address stack.
 *
 * Header only and free of libc: the Valgrind tool (vg_tool.c, which runs without libc) and
 * the unit tests (tests/test_predictor.c) include the same code.
 *
 * Why TAGE: the Granite Rapids-class guest predicts one branch that repeats a random pattern
 * of period 4096 all but perfectly, and misses about a quarter of its iterations at 8192
 * and half at 32768; an indirect call that repeats a random sequence of eight targets, up
 * to a period of 512 (bench/branch_patterns.py prints both, natively and modelled). The
 * tournament predictor the backend had (gshare over 16 branches of history, a last-target
 * BTB) lost both at a period of 64. Interpreters and parsers live on such histories.
 *
 * Both share one global history of 256 bits: each conditional branch's outcome, and three
 * bits of a hash of each indirect branch's target (a core's history holds taken branches'
 * targets: a dispatch's targets are what predicts its next one). Each tagged table is
 * indexed by the branch's address hashed with the history's newest L bits (L geometric from
 * table to table) and the last branches' address bits; the longest history whose table holds
 * a matching tag provides the prediction. The sizes (6 tables of 1024 entries; 4 of 512 for
 * targets) put the capacities near those measured; what Intel builds is not published.
 * Where the hardware folds a history into a few bits, this code XORs its 64-bit words and
 * hashes them by multiplication (see tage_key()). A branch that has gone one way only is
 * predicted by the bimodal base alone, as the tagged tables would be: it saves the lookups.
 * The Valgrind tool runs this on every conditional branch: a quarter of its time on bzip2
 * (a tenth with the tournament predictor). Two-byte entries and the base's "seen" bits
 * kept in its counters' bytes took a little of that back (bzip2 under the tool 1.22x stop
 * 31's time, then 1.17x).
 */
#ifndef IPCC_BACKEND_MODEL_PREDICTOR_H
#define IPCC_BACKEND_MODEL_PREDICTOR_H

#include <stdint.h>

#define TAGE_TABLES	  6
#define TAGE_LOG	  10 /* entries per tagged table by default: 1024 */
#define TAGE_BASE_LOG	  14 /* the bimodal base by default: 16384 two-bit counters */
#define TAGE_LOG_MAX	  14 /* the most a profile may give (tage_entries) */
#define TAGE_BASE_LOG_MAX 16
#define TAGE_TAG_BITS	  11
#define TAGE_HIST	  256 /* history bits kept (a multiple of 64, at least the longest) */
#define TAGE_RESET	  (1u << 18) /* branches between halvings of the useful counters */

#define ITTAGE_TABLES	4
#define ITTAGE_LOG	9 /* entries per tagged table: 512 */
#define ITTAGE_BASE_LOG 12
#define ITTAGE_TAG_BITS 12

/* The tables' history lengths, newest bits first: geometric from 6 to 200. */
static const uint16_t tage_len[TAGE_TABLES] = { 6, 12, 24, 50, 100, 200 };
/* The indirect tables use the history of these conditional tables' lengths. */
static const uint8_t ittage_uses[ITTAGE_TABLES] = { 1, 2, 4, 5 };

/* Two bytes, as the hardware's: the tables stay in few cache lines of the tool's. */
typedef struct {
	uint16_t tag : 11;
	int16_t ctr : 3; /* -4..3: taken when >= 0 */
	uint16_t u : 2;	 /* 0..3: how useful the entry has been */
} TageEntry;

typedef struct {
	uint64_t target;
	uint16_t tag;
	uint8_t ctr; /* 0..3: confidence in target */
	uint8_t u;
} IttageEntry;

typedef struct {
	uint64_t hist[TAGE_HIST / 64]; /* the newest bit in hist[0]'s bit 0 */
	uint32_t path;		       /* the last branch addresses' low bits, newest in bit 0 */
	/* bits 0-1: a two-bit counter; bit 2: seen taken, bit 3: seen not taken, ever */
	uint8_t log, base_log; /* the tables' sizes in use: 1 << log entries, 1 << base_log */
	uint8_t base[1u << TAGE_BASE_LOG_MAX];
	TageEntry tab[TAGE_TABLES][1u << TAGE_LOG_MAX];
	int8_t use_alt; /* -8..7: trust a newly allocated entry's alternative */
	uint32_t rng, ticks;
	uint64_t ibase[1u << ITTAGE_BASE_LOG];
	IttageEntry itab[ITTAGE_TABLES][1u << ITTAGE_LOG];
} Predictor;

/*
 * Everything zero but the counters' weak starting points, with tagged tables of 1 << log
 * entries and a base of 1 << base_log (0: TAGE_LOG, TAGE_BASE_LOG; at most the _MAX).
 */
static inline void predictor_init(Predictor *p, unsigned log, unsigned base_log)
{
	uint8_t *b = (uint8_t *)p;

	for (uint64_t i = 0; i < sizeof *p; i++)
		b[i] = 0;
	p->log = (uint8_t)(!log ? TAGE_LOG : log > TAGE_LOG_MAX ? TAGE_LOG_MAX : log);
	p->base_log = (uint8_t)(!base_log		       ? TAGE_BASE_LOG
				: base_log > TAGE_BASE_LOG_MAX ? TAGE_BASE_LOG_MAX
							       : base_log);
	for (unsigned i = 0; i < (1u << p->base_log); i++)
		p->base[i] = 2;
	p->rng = 0x2545f491u;
}

static inline uint32_t predictor_rand(Predictor *p)
{
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 17;
	p->rng ^= p->rng << 5;
	return p->rng;
}

/*
 * Where a wrong prediction allocates: the first free entry from the table after the
 * provider's (prov, -1 for none), or, half the time, from the one after that (so that two
 * branches that collide in one table do not evict each other for ever).
 */
static inline unsigned alloc_start(Predictor *p, int prov, unsigned tables)
{
	unsigned start = (unsigned)(prov + 1);

	if (start + 1 < tables && (predictor_rand(p) & 1))
		start++;
	return start;
}

/* One bit into the global history. */
static inline void history_push(Predictor *p, unsigned bit)
{
	for (unsigned k = TAGE_HIST / 64 - 1; k > 0; k--)
		p->hist[k] = p->hist[k] << 1 | p->hist[k - 1] >> 63;
	p->hist[0] = p->hist[0] << 1 | bit;
}

static inline uint32_t pc_hash(uint64_t pc)
{
	return (uint32_t)(pc ^ (pc >> 2) ^ (pc >> 17) ^ (pc >> 31));
}

/*
 * Table i's key for the branch whose address hashes to h: the newest tage_len[i] bits of
 * the history folded to 64 (their 64-bit words XORed), with the address and the path. The
 * index and the tag are two hashes of it. (A fold to a few bits, as TAGE's hardware keeps,
 * is linear in the history: a loop's fixed branches between a data branch's outcomes
 * leave a fold of an even width half its bits, and the table a fraction of its entries.)
 */
static inline uint64_t tage_key(const Predictor *p, unsigned i, uint32_t h)
{
	unsigned len = tage_len[i], k = 0, plen = len < 8 ? len : 8;
	uint64_t x = 0;

	for (; len >= 64; len -= 64)
		x ^= p->hist[k++];
	if (len)
		x ^= p->hist[k] & ((1ull << len) - 1);
	x ^= (uint64_t)(p->path & ((1u << plen) - 1)) << 56 ^ (uint64_t)h << 24 ^ i;
	return x ^ x >> 31;
}

static inline uint32_t tage_index(uint64_t key, unsigned log)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - log));
}

static inline uint16_t tage_tag(uint64_t key, unsigned bits)
{
	return (uint16_t)((key * 0xc2b2ae3d27d4eb4full) >> (64 - bits));
}

/* The base's two-bit counter b toward the outcome (its seen bits kept). */
static inline void base_learn(Predictor *p, uint32_t b, int taken)
{
	unsigned c = p->base[b] & 3u;

	if (taken ? c < 3 : c > 0)
		p->base[b] = (uint8_t)((p->base[b] & ~3u) | (taken ? c + 1 : c - 1));
}

/* An entry's counter a step toward the outcome, within -4..3. */
static inline void ctr_step(TageEntry *e, int taken)
{
	if (taken ? e->ctr < 3 : e->ctr > -4)
		e->ctr = (int16_t)(e->ctr + (taken ? 1 : -1));
}

static inline void sat_add8(int8_t *c, int up, int lo, int hi)
{
	if (up ? *c < hi : *c > lo)
		*c = (int8_t)(*c + (up ? 1 : -1));
}

/* Every TAGE_RESET branches, the useful counters halve: old entries give way to new. */
static inline void predictor_tick(Predictor *p)
{
	if (++p->ticks % TAGE_RESET)
		return;
	for (unsigned i = 0; i < TAGE_TABLES; i++)
		for (unsigned j = 0; j < (1u << p->log); j++)
			p->tab[i][j].u >>= 1;
	for (unsigned k = 0; k < ITTAGE_TABLES; k++)
		for (unsigned j = 0; j < (1u << ITTAGE_LOG); j++)
			p->itab[k][j].u >>= 1;
}

/*
 * Predict the conditional branch at pc, learn that it went `taken`, and push its outcome
 * into the history. Returns 1 if the prediction was wrong.
 */
static inline int predict_cond(Predictor *p, uint64_t pc, int taken)
{
	uint32_t h = pc_hash(pc), idx[TAGE_TABLES], b = h & ((1u << p->base_log) - 1);
	uint16_t tag[TAGE_TABLES];
	int prov = -1, alt = -1;

	/* A branch that has gone one way only is the base's alone (the tagged tables would
	 * hold nothing for it); most of a program's branches are, and this is the speed. */
	p->base[b] |= taken ? 4 : 8;
	if ((p->base[b] & 12) != 12) {
		int pred = (p->base[b] & 3) >= 2;

		base_learn(p, b, taken);
		predictor_tick(p);
		p->path = (p->path << 1) ^ (uint32_t)(pc >> 2 & 1);
		history_push(p, taken != 0);
		return pred != taken;
	}
#pragma GCC unroll 6
	for (unsigned i = 0; i < TAGE_TABLES; i++) {
		uint64_t key = tage_key(p, i, h);

		idx[i] = tage_index(key, p->log);
		tag[i] = tage_tag(key, TAGE_TAG_BITS);
	}
	/* Every table's match at once (the loads overlap), then the two longest. */
	unsigned hits = 0;

#pragma GCC unroll 6
	for (unsigned i = 0; i < TAGE_TABLES; i++)
		hits |= (unsigned)(p->tab[i][idx[i]].tag == tag[i]) << i;
	if (hits) {
		prov = 31 - __builtin_clz(hits);
		hits &= ~(1u << prov);
		if (hits)
			alt = 31 - __builtin_clz(hits);
	}
	int base_pred = (p->base[b] & 3) >= 2;
	int alt_pred = alt >= 0 ? p->tab[alt][idx[alt]].ctr >= 0 : base_pred;
	int pred = base_pred, prov_pred = base_pred, fresh = 0;

	if (prov >= 0) {
		TageEntry *e = &p->tab[prov][idx[prov]];

		prov_pred = e->ctr >= 0;
		fresh = (e->ctr == 0 || e->ctr == -1) && e->u == 0;
		pred = fresh && p->use_alt >= 0 ? alt_pred : prov_pred;
		if (fresh && prov_pred != alt_pred)
			sat_add8(&p->use_alt, alt_pred == taken, -8, 7);
	}
	/* A wrong prediction allocates an entry in a longer table (one of the first two free). */
	if (pred != taken && prov < TAGE_TABLES - 1) {
		unsigned start = alloc_start(p, prov, TAGE_TABLES), done = 0;

		for (unsigned i = start; i < TAGE_TABLES && !done; i++)
			if (p->tab[i][idx[i]].u == 0) {
				TageEntry *n = &p->tab[i][idx[i]];

				n->tag = (uint16_t)(tag[i] & 0x7ffu);
				n->ctr = taken ? 0 : -1;
				done = 1;
			}
		if (!done)
			for (unsigned i = (unsigned)(prov + 1); i < TAGE_TABLES; i++)
				if (p->tab[i][idx[i]].u > 0)
					p->tab[i][idx[i]].u--;
	}
	if (prov >= 0) {
		TageEntry *e = &p->tab[prov][idx[prov]];

		ctr_step(e, taken);
		if (prov_pred != alt_pred) {
			if (prov_pred == taken && e->u < 3)
				e->u++;
			else if (prov_pred != taken && e->u > 0)
				e->u--;
		}
		if (fresh) { /* the alternative learns too while the entry is new */
			if (alt >= 0)
				ctr_step(&p->tab[alt][idx[alt]], taken);
			else
				base_learn(p, b, taken);
		}
	} else
		base_learn(p, b, taken);
	predictor_tick(p);
	p->path = (p->path << 1) ^ (uint32_t)(pc >> 2 & 1);
	history_push(p, taken != 0);
	return pred != taken;
}

/*
 * Predict the indirect jump or call at pc, learn that it went to target, and push three
 * bits of the target into the history. Returns 1 if the predicted target was wrong.
 */
static inline int predict_indirect(Predictor *p, uint64_t pc, uint64_t target)
{
	uint32_t h = pc_hash(pc), idx[ITTAGE_TABLES];
	uint16_t tag[ITTAGE_TABLES];
	int prov = -1;

#pragma GCC unroll 4
	for (unsigned k = 0; k < ITTAGE_TABLES; k++) {
		unsigned i = ittage_uses[k];

		uint64_t key = tage_key(p, i, h ^ 0x5bd1e995u);

		idx[k] = tage_index(key, ITTAGE_LOG);
		tag[k] = tage_tag(key, ITTAGE_TAG_BITS);
	}
	for (int k = ITTAGE_TABLES - 1; k >= 0 && prov < 0; k--)
		if (p->itab[k][idx[k]].tag == tag[k] && p->itab[k][idx[k]].target)
			prov = k;
	uint64_t *base = &p->ibase[h & ((1u << ITTAGE_BASE_LOG) - 1)];
	uint64_t pred = prov >= 0 ? p->itab[prov][idx[prov]].target : *base;
	int wrong = pred != target;

	if (prov >= 0) {
		IttageEntry *e = &p->itab[prov][idx[prov]];

		if (!wrong) {
			if (e->ctr < 3)
				e->ctr++;
			if (*base != target && e->u < 3)
				e->u++;
		} else if (e->ctr > 0)
			e->ctr--;
		else
			e->target = target;
	}
	if (wrong && prov < ITTAGE_TABLES - 1) {
		unsigned start = alloc_start(p, prov, ITTAGE_TABLES), done = 0;

		for (unsigned k = start; k < ITTAGE_TABLES && !done; k++)
			if (p->itab[k][idx[k]].u == 0) {
				IttageEntry *n = &p->itab[k][idx[k]];

				n->tag = tag[k];
				n->target = target;
				n->ctr = 0;
				done = 1;
			}
		if (!done)
			for (unsigned k = (unsigned)(prov + 1); k < ITTAGE_TABLES; k++)
				if (p->itab[k][idx[k]].u > 0)
					p->itab[k][idx[k]].u--;
	}
	if (prov < 0 || wrong)
		*base = target;
	predictor_tick(p);
	p->path = (p->path << 1) ^ (uint32_t)(pc >> 2 & 1);
	uint32_t x = (uint32_t)((target >> 1) * 0x9e3779b97f4a7c15ull >> 40);

	for (unsigned s = 0; s < 3; s++)
		history_push(p, x >> s & 1);
	return wrong;
}

#endif
