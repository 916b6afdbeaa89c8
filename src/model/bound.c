/*
 * bound.c - what limits a loop: each limit on its own, in cycles per iteration, and the
 * loop-carried chain that sets the dependency limit (see ipcc_model_bound in model.h).
 *
 * The chain comes from the run's own dataflow rules (model_int.h) with every other limit
 * lifted: every instruction is allocated at cycle 0 and issues as soon as it is ready, so a
 * dynamic instruction completes at the end of its longest dependency path. Each remembers
 * the input that was ready last (its critical producer); walking those back from the last
 * iteration follows the recurrence that outgrows the others, until the walk passes a static
 * instruction a second time.
 */
#include <stdlib.h>
#include <string.h>

#include "error_int.h"
#include "model_int.h"

/* Dynamic instructions the chain's dataflow keeps, at most (whole iterations, 4 or more). */
#define BOUND_BUDGET (1u << 20)
#define BOUND_ITERS  64

/* Each port class's limit, in the classes' order */
_Static_assert(IPCC_LIMIT_ALU + PORT_BRANCH == IPCC_LIMIT_BRANCH &&
		   IPCC_LIMIT_ALU + PORT_CLASSES == IPCC_LIMIT_MISPREDICT,
	       "IPCC_LIMIT_ALU + a port class is its limit");

static const char *const limit_names[IPCC_LIMITS] = {
	[IPCC_LIMIT_CHAIN] = "dependency chain",
	[IPCC_LIMIT_FRONTEND] = "front end",
	[IPCC_LIMIT_RETIRE] = "retire",
	[IPCC_LIMIT_ALU] = "ALU ports",
	[IPCC_LIMIT_LOAD] = "load ports",
	[IPCC_LIMIT_STORE] = "store ports",
	[IPCC_LIMIT_VECTOR] = "vector ports",
	[IPCC_LIMIT_COMMIT] = "store commits",
	[IPCC_LIMIT_AGU] = "address generation",
	[IPCC_LIMIT_SHIFT] = "shift and branch ports",
	[IPCC_LIMIT_MUL] = "multiply ports",
	[IPCC_LIMIT_VMUL] = "vector multiply ports",
	[IPCC_LIMIT_VADD] = "vector add ports",
	[IPCC_LIMIT_VOUT] = "vector-to-register port",
	[IPCC_LIMIT_VSHUF] = "shuffle port",
	[IPCC_LIMIT_DEPLOAD] = "ports for loaded addresses",
	[IPCC_LIMIT_VLOAD] = "vector load ports",
	[IPCC_LIMIT_VIN] = "moves into vector registers",
	[IPCC_LIMIT_VMULMIX] = "vector multiply and shuffle pipes",
	[IPCC_LIMIT_VADDMIX] = "vector add and shuffle pipes",
	[IPCC_LIMIT_BRANCH] = "branch ports",
	[IPCC_LIMIT_MISPREDICT] = "mispredicts",
	[IPCC_LIMIT_TAGS] = "virtual tags",
};

const char *ipcc_model_limit_name(enum ipcc_model_limit l)
{
	return (unsigned)l < IPCC_LIMITS ? limit_names[l] : NULL;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* A dynamic instruction by completion: the latest, and on a tie the later, first. */
struct done {
	int64_t c;
	uint64_t g;
};

static int cmp_done(const void *a, const void *b)
{
	const struct done *x = a, *y = b;

	if (x->c != y->c)
		return x->c < y->c ? 1 : -1;
	return x->g < y->g ? 1 : x->g > y->g ? -1 : 0;
}

/*
 * The dataflow of `iters` iterations with unlimited width, ports and ROB: each dynamic
 * instruction's completion c[] and critical producer who[] (dynamic index + 1; 0: none).
 */
static int dataflow(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		    uint64_t iters, int64_t *c, uint64_t *who)
{
	struct dataflow *df = calloc(1, sizeof(*df));
	int64_t r_prev = 0; /* the latest completion so far: retirement, retiring at once */
	uint64_t r_who = 0;
	uint64_t g = 0;

	if (!df)
		return err_set(IPCC_ENOMEM, "model: out of memory");
	df_init(df, p);
	for (uint64_t it = 0; it < iters; it++)
		for (unsigned k = 0; k < prog->n; k++, g++) {
			const struct minsn *in = &prog->insn[k];
			int64_t q = df_ready(df, in, 0, 0, &who[g], NULL);

			if (in->at_retire && r_prev > q)
				q = r_prev, who[g] = r_who;
			c[g] = q + df_latency(df, in, p->fold_imm);
			df_complete(df, in, 0, 0, c[g], g + 1);
			if (c[g] >= r_prev)
				r_prev = c[g], r_who = g + 1;
		}
	free(df);
	return 0;
}

/*
 * From dynamic instruction `start`, the walk back over critical producers: whether it passes
 * a static instruction twice; if so the chain (into out) and its latency per iteration.
 * dead[] marks instructions whose walk is known to end without one.
 */
static int walk(const struct ipcc_model_program *prog, const int64_t *c, const uint64_t *who,
		uint64_t start, uint64_t iters, unsigned fold, uint64_t *seen, uint64_t *path,
		uint8_t *dead, struct ipcc_model_bound *out)
{
	const unsigned n = prog->n;
	uint64_t g = start, len = 0, a, b;
	unsigned k, from, *chain = NULL;
	int found = 0;

	for (;;) {
		k = (unsigned)(g % n);
		if (seen[k] != UINT64_MAX) {
			found = 1;
			break;
		}
		if (dead[g])
			break;
		seen[k] = len;
		path[len++] = g;
		if (!who[g])
			break;
		g = who[g] - 1;
	}
	if (!found) {
		for (uint64_t i = 0; i < len; i++) {
			dead[path[i]] = 1;
			seen[path[i] % n] = UINT64_MAX;
		}
		return 0;
	}
	/* path[seen[k]] and g: static k, an iteration or more apart; the chain is between */
	from = (unsigned)seen[k];
	a = path[from];
	b = g;
	chain = malloc((len - from) * sizeof(*chain));
	if (!chain)
		return err_set(IPCC_ENOMEM, "model: out of memory");
	for (uint64_t i = from; i < len; i++)
		chain[i - from] = (unsigned)(path[i] % n);
	qsort(chain, len - from, sizeof(*chain), cmp_unsigned);
	out->nchain = 0;
	for (uint64_t i = 0; i < len - from && out->nchain < 64; i++)
		out->chain[out->nchain++] = chain[i];
	free(chain);
	/*
	 * The average over the walk's further returns to k, past the first quarter's start-up,
	 * over a whole number of immediate folding's periods (F iterations divide one).
	 */
	for (uint64_t h = b; who[h] && h / n >= iters / 4;) {
		h = who[h] - 1;
		if (h % n == k && h / n >= iters / 4 && (a / n - h / n) % fold == 0)
			b = h;
	}
	out->chain_latency = (double)(c[a] - c[b]) / (double)(a / n - b / n);
	for (uint64_t i = 0; i < len; i++)
		seen[path[i] % n] = UINT64_MAX;
	return 1;
}

/* The loop-carried chain: limit[IPCC_LIMIT_CHAIN], chain[], nchain, chain_latency. */
static int find_chain(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		      struct ipcc_model_bound *out)
{
	const unsigned n = prog->n;
	uint64_t iters = BOUND_BUDGET / n, total, *who, *seen, *path;
	struct done *order;
	int64_t *c;
	uint8_t *dead;
	int ret;

	if (iters > BOUND_ITERS)
		iters = BOUND_ITERS;
	if (iters < 4)
		iters = 4;
	total = iters * n;
	c = malloc(total * sizeof(*c));
	who = malloc(total * sizeof(*who));
	dead = calloc(total, 1);
	seen = malloc(n * sizeof(*seen));
	path = malloc(((uint64_t)n + 1) * sizeof(*path));
	order = malloc(n * sizeof(*order));
	ret = c && who && dead && seen && path && order
		  ? 0
		  : err_set(IPCC_ENOMEM, "model: out of memory");
	if (!ret)
		ret = dataflow(prog, p, iters, c, who);
	if (!ret) {
		const uint64_t last = total - n;

		for (unsigned k = 0; k < n; k++)
			seen[k] = UINT64_MAX;
		/* from the last iteration's latest completion; where that walk finds no
		 * recurrence (a long latency nothing carries), from the next latest */
		for (unsigned k = 0; k < n; k++)
			order[k] = (struct done){ c[last + k], last + k };
		qsort(order, n, sizeof(*order), cmp_done);
		for (unsigned k = 0; k < n && ret == 0; k++)
			ret = walk(prog, c, who, order[k].g, iters,
				   p->fold_imm > 1 ? p->fold_imm : 1, seen, path, dead, out);
		ret = ret < 0 ? ret : 0;
	}
	free(c);
	free(who);
	free(dead);
	free(seen);
	free(path);
	free(order);
	out->limit[IPCC_LIMIT_CHAIN] = out->chain_latency;
	return ret;
}

int ipcc_model_bound(const struct ipcc_model_program *prog, const struct ipcc_model_profile *p,
		     struct ipcc_model_bound *out)
{
	const unsigned ports[] = { p->alu_ports,
				   p->load_ports,
				   p->store_ports,
				   p->vector_ports,
				   p->pair_stores,
				   p->agu_ports,
				   p->shift_ports,
				   p->mul_ports,
				   p->vec_mul_ports,
				   p->vec_add_ports,
				   p->vec_out_ports,
				   p->vec_shuffle_ports,
				   p->dep_load_ports,
				   p->vec_load_ports,
				   p->vec_in_ports,
				   model_mix_limit(p, p->vec_mul_ports),
				   model_mix_limit(p, p->vec_add_ports),
				   p->branch_ports };
	double uops = 0, fe = 0, mispredict = 0, tags = 0, use[PORT_CLASSES] = { 0 };
	bool paired = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (p->width == 0 || p->retire == 0)
		return err_set(IPCC_EINVAL, "model: width and retire width must be at least 1");
	for (unsigned k = 0; k < prog->n; k++) {
		const struct minsn *in = &prog->insn[k];

		uops += in->slot_free ? 0 : in->uops; /* a width slot, a retire slot */
		fe += in->fe_stall;
		/*
		 * of F folded adds in a row, one takes a port; where lea folds too, a chain
		 * can start again each iteration, and none need take one
		 */
		const double each = in->fold && p->fold_no_port && p->fold_imm > 1
					? (p->fold_lea ? 0.0 : 1.0 / p->fold_imm)
					: 1.0;

		for (int j = 0; j < PORT_CLASSES; j++) /* two micro-ops on two shift ports */
			use[j] +=
			    (in->ports >> j & 1) * each *
			    (in->shift_twice && (j == PORT_SHIFT || j == PORT_ALU) && ports[j] >= 2
				 ? 2
				 : 1);
		use[PORT_ALU] += in->alu_held * each; /* the ALU slots it holds (lea3_alu_slots) */
		mispredict += (double)in->mispredict / MISPREDICT_ALL * p->recovery;
		tags += in->utag_cost / 100.0;
	}
	/* stores reaching the cache: the pairs of two iterations, after one to settle */
	for (unsigned it = 0; p->pair_stores && it < 3; it++)
		for (unsigned k = 0; k < prog->n; k++)
			if ((prog->insn[k].mem & MEM_STORE) &&
			    !model_store_pairs(&prog->insn[k], &paired, p->pair_store_runs) &&
			    it > 0)
				use[PORT_COMMIT] += 0.5;
	out->limit[IPCC_LIMIT_FRONTEND] = uops / p->width + fe;
	out->limit[IPCC_LIMIT_RETIRE] = uops / p->retire;
	for (int j = 0; j < PORT_CLASSES; j++)
		out->limit[IPCC_LIMIT_ALU + j] = ports[j] ? use[j] / ports[j] : 0;
	if (p->dep_load_ports > 1 && p->dep_load_gap) /* a port fewer one cycle in the gap */
		out->limit[IPCC_LIMIT_DEPLOAD] =
		    use[PORT_DEPLOAD] / (p->dep_load_ports - 1.0 / p->dep_load_gap);
	out->limit[IPCC_LIMIT_MISPREDICT] = mispredict;
	out->limit[IPCC_LIMIT_TAGS] = tags;
	if (prog->n) {
		ret = find_chain(prog, p, out);
		if (ret)
			return ret;
	}
	out->bound = IPCC_LIMIT_CHAIN;
	for (int j = 1; j < IPCC_LIMITS; j++)
		if (out->limit[j] > out->limit[out->bound])
			out->bound = (enum ipcc_model_limit)j;
	out->name = limit_names[out->bound];
	return 0;
}
