/*
 * cmd_sim.c - ipcc sim: run a block of assembly through the pipeline model and show where
 * each instruction is scheduled, ready, complete and retired, which instructions a timer
 * interrupt would blame, and where the issue slots go.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ipcc/error.h"
#include "ipcc/block.h"
#include "ipcc/lift.h"
#include "ipcc/model.h"

const char cmd_sim_help[] =
    "usage: ipcc sim [options] FILE|-\n"
    "       ipcc sim [options] --elf PROGRAM --symbol NAME|--address A-B\n"
    "\n"
    "Run a loop body of x86-64 Intel-syntax assembly through the pipeline model: per\n"
    "instruction the cycle it is scheduled, ready, complete and retired, whether an interrupt\n"
    "would find it the oldest unretired instruction (selected, for how many cycles), and the\n"
    "predicted share of samples on each instruction; then cycles per iteration, IPC, the four\n"
    "slot counters and their split. With --elf, the block is a loop of a compiled program,\n"
    "disassembled with Capstone.\n"
    "\n"
    "options:\n"
    "  --profile P         skylake (default), icelake, zen3, zen4, zen5, goldencove,\n"
    "                      raptorcove, neoverse-n2, test,\n"
    "                      auto (the one closest to this CPU), or a profile FILE\n"
    "                      (key = value lines; see ipcc-sim(1))\n"
    "  --iterations N      run the block N times (default 1000)\n"
    "  --warmup N          leave the first N out of the summary (default: half)\n"
    "  --width N           override the profile: micro-ops allocated per cycle\n"
    "  --retire N          ... retired per cycle\n"
    "  --rob N             ... reorder-buffer entries (0: unlimited)\n"
    "  --load-latency N    ... cycles of an L1-hitting load\n"
    "  --recovery N        ... cycles to refill after a mispredicted branch\n"
    "  --trace             a row for every dynamic instruction, not just the last iteration\n"
    "  --format FMT        text (default), json or csv\n"
    "  --lenient           approximate instructions the model does not know (and say\n"
    "                      which) rather than refuse them\n"
    "  --elf PROGRAM       model code of this ELF file (always lenient):\n"
    "  --symbol NAME       the innermost loop of function NAME (the first by address\n"
    "                      whose body holds no other loop)\n"
    "  --address A-B       the instructions in [A, B), in the ELF's own addresses\n"
    "                      (0x... for hexadecimal), rather than a loop\n"
    "  --block HEX         model a basic block (x86-64 machine code in hex, lifted with\n"
    "                      Capstone; always lenient) as ipcc bench --block runs it: a\n"
    "                      loop closed by dec/jnz on a register the block leaves free\n"
    "  --blocks FILE       the same for one block a line (HEX[,PROGRAM]): a line each\n"
    "                      with the predicted cycles per iteration\n"
    "  -h, --help          show this help\n"
    "\n"
    "Per line, in a comment: lat=N, uops=N, fe_stall=N, mispredict[=F], taken=F,\n"
    "at_retire.\n"
    "Exit status: 0 success, 1 the model could not run, 2 bad usage or bad input\n"
    "(reported as FILE:LINE:COLUMN: message).\n";

struct sim_opts {
	struct ipcc_model_profile prof;
	char profile_note[320]; /* which profile --profile auto chose (cli_parse_profile) */
	struct ipcc_model_opts run;
	bool warmup_set;
	enum cli_format format;
	const char *file;
	bool lenient;
	const char *elf;
	const char *block, *blocks; /* --block HEX, --blocks FILE */
	struct ipcc_lift_opts lift;
	struct ipcc_lifted lifted; /* with --elf */
};

/* A-B: two addresses (0x... hexadecimal, else decimal), A < B. */
static int parse_range(const char *arg, struct ipcc_lift_opts *l)
{
	char *end;
	const char *dash = strchr(arg, '-');

	errno = 0;
	if (dash && dash != arg) {
		l->start = strtoull(arg, &end, 0);
		if (end == dash && dash[1]) {
			l->end = strtoull(dash + 1, &end, 0);
			if (!*end && !errno && l->end > l->start)
				return 0;
		}
	}
	return cli_usage_error("sim",
			       "--address wants START-END, START < END (0x401120-0x401140), "
			       "not '%s'",
			       arg);
}

static int parse(int argc, char **argv, struct sim_opts *o)
{
	enum {
		O_PROFILE = 256,
		O_ITER,
		O_WARM,
		O_WIDTH,
		O_RETIRE,
		O_ROB,
		O_LOAD,
		O_REC,
		O_TRACE,
		O_FORMAT,
		O_LENIENT,
		O_ELF,
		O_SYMBOL,
		O_ADDRESS,
		O_BLOCK,
		O_BLOCKS
	};
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "iterations", required_argument, NULL, O_ITER },
		{ "warmup", required_argument, NULL, O_WARM },
		{ "width", required_argument, NULL, O_WIDTH },
		{ "retire", required_argument, NULL, O_RETIRE },
		{ "rob", required_argument, NULL, O_ROB },
		{ "load-latency", required_argument, NULL, O_LOAD },
		{ "recovery", required_argument, NULL, O_REC },
		{ "trace", no_argument, NULL, O_TRACE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "lenient", no_argument, NULL, O_LENIENT },
		{ "elf", required_argument, NULL, O_ELF },
		{ "symbol", required_argument, NULL, O_SYMBOL },
		{ "address", required_argument, NULL, O_ADDRESS },
		{ "block", required_argument, NULL, O_BLOCK },
		{ "blocks", required_argument, NULL, O_BLOCKS },
		{ NULL, 0, NULL, 0 },
	};
	struct {
		unsigned *field;
		uint64_t v;
		bool set;
	} ov[5];
	const char *profile = "skylake";
	uint64_t v;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	memset(ov, 0, sizeof(ov));
	o->run.iterations = 1000;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_PROFILE:
			profile = optarg;
			break;
		case O_ITER:
			ret = cli_parse_u64("sim", "--iterations", optarg, 1, 1000000000,
					    &o->run.iterations);
			break;
		case O_WARM:
			ret =
			    cli_parse_u64("sim", "--warmup", optarg, 0, 1000000000, &o->run.warmup);
			o->warmup_set = true;
			break;
		case O_WIDTH:
		case O_RETIRE:
		case O_ROB:
		case O_LOAD:
		case O_REC:
			ret = cli_parse_u64("sim", longopts[c - O_PROFILE].name, optarg,
					    c == O_WIDTH || c == O_RETIRE ? 1 : 0, 100000, &v);
			ov[c - O_WIDTH].v = v;
			ov[c - O_WIDTH].set = true;
			break;
		case O_TRACE:
			o->run.trace = true;
			break;
		case O_FORMAT:
			ret = cli_parse_format(
			    "sim", optarg, 1u << FORMAT_TEXT | 1u << FORMAT_JSON | 1u << FORMAT_CSV,
			    &o->format);
			break;
		case O_LENIENT:
			o->lenient = true;
			break;
		case O_ELF:
			o->elf = optarg;
			o->lenient = true;
			break;
		case O_SYMBOL:
			o->lift.symbol = optarg;
			break;
		case O_ADDRESS:
			ret = parse_range(optarg, &o->lift);
			break;
		case O_BLOCK:
			o->block = optarg;
			break;
		case O_BLOCKS:
			o->blocks = optarg;
			break;
		default:
			return cli_bad_option("sim", c, argv);
		}
		if (ret)
			return ret;
	}
	if ((o->block || o->blocks) && (o->elf || optind != argc || (o->block && o->blocks)))
		return cli_usage_error("sim",
				       "--block or --blocks is the input: no file, no --elf");
	if (o->block || o->blocks) {
		o->file = o->block ? "--block" : o->blocks;
		o->lenient = true;
	} else if (o->elf) {
		if (!o->lift.symbol && o->lift.end == 0)
			return cli_usage_error("sim", "--elf needs --symbol NAME or --address A-B");
		if (optind != argc)
			return cli_usage_error("sim", "--elf takes no input file");
		o->file = o->elf;
	} else if (o->lift.symbol || o->lift.end) {
		return cli_usage_error("sim", "--symbol and --address need --elf PROGRAM");
	} else if (optind != argc - 1) {
		return cli_usage_error("sim",
				       optind == argc ? "no input file (use - for standard "
							"input)"
						      : "one input file, not %d",
				       argc - optind);
	} else {
		o->file = argv[optind];
	}
	ret = cli_parse_profile("sim", profile, &o->prof, o->profile_note, sizeof(o->profile_note));
	if (ret)
		return ret;
	ov[0].field = &o->prof.width;
	ov[1].field = &o->prof.retire;
	ov[2].field = &o->prof.rob;
	ov[3].field = &o->prof.load_latency;
	ov[4].field = &o->prof.recovery;
	for (int k = 0; k < 5; k++)
		if (ov[k].set)
			*ov[k].field = (unsigned)ov[k].v;
	if (!o->warmup_set)
		o->run.warmup = o->run.iterations / 2;
	if (o->run.warmup >= o->run.iterations)
		return cli_usage_error("sim", "--warmup must be less than --iterations");
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 4096;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			char *b = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;

			if (!b) {
				free(buf);
				buf = NULL;
				errno = EFBIG;
				break;
			}
			buf = b;
			cap *= 2;
		}
	}
	if (buf)
		buf[len] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

/* A port count, or "any" for no limit. */
static const char *ports(unsigned n, char *buf)
{
	snprintf(buf, 16, n ? "%u" : "any", n);
	return buf;
}

static void print_text(const struct sim_opts *o, const struct ipcc_model_program *prog,
		       const struct ipcc_model_result *res)
{
	const struct ipcc_model_profile *p = &o->prof;
	const struct ipcc_model_summary *s = &res->summary;
	const struct ipcc_model_row *rows = o->run.trace ? res->trace : res->rows;
	uint64_t nrows = o->run.trace ? res->ntrace : res->nrows;
	char rob[16], b[4][16], fold[32], placed[48] = "", alu_units[64] = "", vec_units[128] = "";

	snprintf(rob, sizeof(rob), p->rob ? "%u" : "none", p->rob);
	snprintf(fold, sizeof(fold), "%u a cycle", p->fold_imm);
	if (p->sample_retire && p->sample_retire != p->retire)
		snprintf(placed, sizeof(placed), ", placed as if retiring %u a cycle",
			 p->sample_retire);
	printf("ipcc sim: %s, profile %s (width %u, retire %u, ROB %s, load %u, recovery %u)\n",
	       o->file, p->name, p->width, p->retire, rob, p->load_latency, p->recovery);
	/* the subsets of the ALU and vector ports, where the profile names them */
	if (p->shift_ports || p->mul_ports)
		snprintf(alu_units, sizeof(alu_units), " (shift %u, multiply %u%s)", p->shift_ports,
			 p->mul_ports, p->port_binding ? "; bound at allocation" : "");
	else if (p->port_binding)
		snprintf(alu_units, sizeof(alu_units), " (bound at allocation)");
	if (p->vec_mul_ports || p->vec_add_ports || p->vec_out_ports || p->vec_shuffle_ports)
		snprintf(vec_units, sizeof(vec_units),
			 " (multiply %u, add %u, out %u, shuffle %u%s)", p->vec_mul_ports,
			 p->vec_add_ports, p->vec_out_ports, p->vec_shuffle_ports,
			 p->vec_zen_pipes ? " on one multiplying and one adding pipe" : "");
	printf("ports: ALU %s%s, load %s, store %s, vector %s%s; immediate folding %s; samples "
	       "land on %s%s\n",
	       ports(p->alu_ports, b[0]), alu_units, ports(p->load_ports, b[1]),
	       ports(p->store_ports, b[2]), ports(p->vector_ports, b[3]), vec_units,
	       p->fold_imm > 1 ? fold : "off",
	       p->placement == IPCC_MODEL_PLACE_OLDEST ? "the selected instruction"
						       : "the instruction after a selected one",
	       placed);
	if (o->elf) {
		const struct ipcc_lifted *l = &o->lifted;

		if (o->lift.end > o->lift.start)
			printf("lifted: [%#" PRIx64 ", %#" PRIx64 ")%s%s, %u instructions\n",
			       l->start, l->end, l->function[0] ? " in " : "", l->function,
			       l->ninsns);
		else
			printf("lifted: the innermost loop of %s (of %u), [%#" PRIx64 ", %#" PRIx64
			       "), %u instructions\n",
			       l->function, l->nloops, l->start, l->end, l->ninsns);
	}
	{
		char names[256];
		unsigned n = ipcc_model_program_approximated(prog, names, sizeof(names));

		if (n)
			printf("approximated: %u instruction%s not in the model's table (%s): 1 "
			       "micro-op, latency 3, reads its operands and the flags, writes its "
			       "first (x87: the stack as one register, the profile's latency)\n",
			       n, n == 1 ? "" : "s", names);
	}
	if (o->run.trace)
		printf("every dynamic instruction, cycles from the start\n\n");
	else
		printf("iteration %" PRIu64 " of %" PRIu64
		       ", cycles from the retirement before it\n\n",
		       o->run.iterations, o->run.iterations);
	printf("  %5s %s%-32s %7s %7s %7s %7s %4s %7s %7s\n", "#", o->run.trace ? "iter  " : "",
	       "instruction", "sched", "ready", "done", "retire", "sel", "weight", "share");
	for (uint64_t i = 0; i < nrows; i++) {
		const struct ipcc_model_row *r = &rows[i];
		char iter[24] = "";

		if (o->run.trace)
			snprintf(iter, sizeof(iter), "%5" PRIu64 " ", r->iteration);
		printf("  %5u %s%-32.32s %7" PRId64 " %7" PRId64 " %7" PRId64 " %7" PRId64
		       " %4s %7" PRIu64,
		       r->index, iter, ipcc_model_program_text(prog, r->index), r->scheduled,
		       r->ready, r->complete, r->retired, r->selected ? "*" : "", r->weight);
		if (o->run.trace)
			printf("\n");
		else
			printf(" %7.3f\n", r->share);
	}
	printf("\nsteady state: the last %" PRIu64 " of %" PRIu64 " iterations\n", s->iterations,
	       o->run.iterations);
	printf("  %-24s %12.3f\n", "cycles per iteration", s->cycles_per_iteration);
	printf("  %-24s %12.3f\n", "IPC", s->ipc);
	printf("  %-24s total %" PRIu64 ", filled %" PRIu64 ", issued %" PRIu64 ", retired %" PRIu64
	       " (%" PRIu64 " cycles)\n",
	       "slots", s->total, s->filled, s->issued, s->retired, s->slot_cycles);
	{
		const char *names[4] = { "front-end stall", "back-end stall", "wasted speculation",
					 "retiring" };
		double f[4] = { s->frontend, s->backend, s->speculation, s->retiring };

		for (int k = 0; k < 4; k++) {
			char bar[41];
			int nb = (int)(f[k] * 40 + 0.5);

			memset(bar, '#', (size_t)nb);
			bar[nb] = '\0';
			printf("    %-22s %12.3f%s%s\n", names[k], f[k], nb ? "  " : "", bar);
		}
	}
}

/* A row; trace rows also say their iteration. share is always the static instruction's. */
static json_t *row_json(const struct ipcc_model_program *prog, const struct ipcc_model_row *r,
			double share, bool trace)
{
	json_t *j = json_pack("{s:i,s:s,s:I,s:I,s:I,s:I,s:I,s:b,s:I}", "index", (int)r->index,
			      "text", ipcc_model_program_text(prog, r->index), "scheduled",
			      (json_int_t)r->scheduled, "ready", (json_int_t)r->ready, "issued",
			      (json_int_t)r->issued, "complete", (json_int_t)r->complete, "retired",
			      (json_int_t)r->retired, "selected", r->selected, "weight",
			      (json_int_t)r->weight);

	if (trace)
		json_object_set_new(j, "iteration", json_integer((json_int_t)r->iteration));
	json_object_set_new(j, "share", json_real(share));
	return j;
}

static void print_json(const struct sim_opts *o, const struct ipcc_model_program *prog,
		       const struct ipcc_model_result *res)
{
	const struct ipcc_model_profile *p = &o->prof;
	const struct ipcc_model_summary *s = &res->summary;
	json_t *root = json_object(), *rows = json_array();
	uint64_t n = o->run.trace ? res->ntrace : res->nrows;

	json_object_set_new(
	    root, "profile",
	    json_pack("{s:s,s:i,s:i,s:i,s:i,s:i,s:b,s:b,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:"
		      "b,s:i,s:i,s:s,s:s}",
		      "name", p->name, "width", (int)p->width, "retire", (int)p->retire, "rob",
		      (int)p->rob, "load_latency", (int)p->load_latency, "recovery",
		      (int)p->recovery, "fuse_alu_jcc", p->fuse_alu_jcc, "fuse_cmp_jcc",
		      p->fuse_cmp_jcc, "alu_ports", (int)p->alu_ports, "load_ports",
		      (int)p->load_ports, "store_ports", (int)p->store_ports, "vector_ports",
		      (int)p->vector_ports, "shift_ports", (int)p->shift_ports, "mul_ports",
		      (int)p->mul_ports, "vec_mul_ports", (int)p->vec_mul_ports, "vec_add_ports",
		      (int)p->vec_add_ports, "vec_out_ports", (int)p->vec_out_ports,
		      "vec_shuffle_ports", (int)p->vec_shuffle_ports, "port_binding",
		      p->port_binding, "fold_imm", (int)p->fold_imm, "sample_retire",
		      (int)p->sample_retire, "placement",
		      p->placement == IPCC_MODEL_PLACE_OLDEST ? "oldest" : "next", "latencies",
		      p->latencies));
	for (uint64_t i = 0; i < n; i++) {
		const struct ipcc_model_row *r = o->run.trace ? &res->trace[i] : &res->rows[i];

		json_array_append_new(rows,
				      row_json(prog, r, res->rows[r->index].share, o->run.trace));
	}
	json_object_set_new(root, "instructions", rows);
	{
		char names[1024];
		unsigned na = ipcc_model_program_approximated(prog, names, sizeof(names));

		json_object_set_new(root, "approximated",
				    json_pack("{s:i,s:s}", "count", (int)na, "mnemonics", names));
	}
	if (o->elf)
		json_object_set_new(
		    root, "lifted",
		    json_pack("{s:s,s:s,s:I,s:I,s:i}", "file", o->elf, "function",
			      o->lifted.function, "start", (json_int_t)o->lifted.start, "end",
			      (json_int_t)o->lifted.end, "instructions", (int)o->lifted.ninsns));
	json_object_set_new(
	    root, "summary",
	    json_pack("{s:I,s:I,s:I,s:I,s:f,s:f,s:{s:I,s:I,s:I,s:I},s:{s:f,s:f,s:f,s:f}}",
		      "iterations", (json_int_t)s->iterations, "cycles", (json_int_t)s->cycles,
		      "slot_cycles", (json_int_t)s->slot_cycles, "instructions",
		      (json_int_t)s->instructions, "cycles_per_iteration", s->cycles_per_iteration,
		      "ipc", s->ipc, "slots", "total", (json_int_t)s->total, "filled",
		      (json_int_t)s->filled, "issued", (json_int_t)s->issued, "retired",
		      (json_int_t)s->retired, "breakdown", "frontend", s->frontend, "backend",
		      s->backend, "speculation", s->speculation, "retiring", s->retiring));
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	fputc('\n', stdout);
	json_decref(root);
}

static void print_csv(const struct sim_opts *o, const struct ipcc_model_program *prog,
		      const struct ipcc_model_result *res)
{
	uint64_t n = o->run.trace ? res->ntrace : res->nrows;

	printf("index,iteration,text,scheduled,ready,complete,retired,selected,weight,share\n");
	for (uint64_t i = 0; i < n; i++) {
		const struct ipcc_model_row *r = o->run.trace ? &res->trace[i] : &res->rows[i];
		const char *t = ipcc_model_program_text(prog, r->index);

		printf("%u,%" PRIu64 ",\"", r->index, r->iteration);
		for (; *t; t++)
			printf(*t == '"' ? "\"\"" : "%c", *t);
		printf("\",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%" PRIu64 ",",
		       r->scheduled, r->ready, r->complete, r->retired, r->selected, r->weight);
		printf("%.6f\n", res->rows[r->index].share);
	}
}

/* One block through the model: its cycles per iteration (NaN and why when it cannot run). */
static double model_block(const struct sim_opts *o, const struct ipcc_block *b, char *approx,
			  size_t alen, char *why, size_t wlen)
{
	struct ipcc_model_program *prog = NULL;
	struct ipcc_model_error err;
	struct ipcc_model_result res;
	char *text = NULL;
	double c = NAN;

	approx[0] = why[0] = '\0';
	if (ipcc_block_lift(b, &text)) {
		snprintf(why, wlen, "%s: %s", ipcc_block_status_name(b->status), b->why);
		return NAN;
	}
	if (ipcc_model_parse_mode(text, &o->prof, IPCC_MODEL_LENIENT, &prog, &err)) {
		snprintf(why, wlen, "%s", err.message);
	} else if (ipcc_model_run(prog, &o->prof, &o->run, &res)) {
		snprintf(why, wlen, "%s", ipcc_last_error());
	} else {
		c = res.summary.cycles_per_iteration;
		ipcc_model_result_release(&res);
	}
	if (prog)
		ipcc_model_program_approximated(prog, approx, alen);
	ipcc_model_program_free(prog);
	free(text);
	return c;
}

/* --blocks FILE: a line (or JSON object, or CSV row) per block. */
static int sim_blocks(const struct sim_opts *o)
{
	FILE *f = strcmp(o->blocks, "-") ? fopen(o->blocks, "r") : stdin;
	json_t *all = json_array();
	char *line = NULL, approx[256], why[256];
	size_t len = 0, lineno = 0, n = 0;
	int ret = EXIT_OK;

	if (!f) {
		json_decref(all);
		return cli_usage_error("sim", "cannot read %s: %s", o->blocks, strerror(errno));
	}
	if (o->format == FORMAT_CSV)
		printf("code,cycles,approximated,why\n");
	else if (o->format == FORMAT_TEXT)
		printf("%5s %9s  %s\n", "block", "predicted", "code (approximated; or why not)");
	while (getline(&line, &len, f) > 0) {
		struct ipcc_block b;
		size_t hl;
		double c;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0' || line[0] == '#')
			continue;
		hl = strcspn(line, ",\r\n");
		if (ipcc_block_parse_hex(line, &b)) {
			ret = cli_usage_error("sim", "%s:%zu: %s", o->blocks, lineno,
					      ipcc_last_error());
			break;
		}
		c = model_block(o, &b, approx, sizeof(approx), why, sizeof(why));
		n++;
		if (o->format == FORMAT_JSON) {
			json_t *j = json_pack("{s:s#,s:o}", "code", line, (int)hl, "cycles",
					      isfinite(c) ? json_real(c) : json_null());

			json_object_set_new(j, "approximated", json_string(approx));
			if (!isfinite(c))
				json_object_set_new(j, "why", json_string(why));
			json_array_append_new(all, j);
		} else if (o->format == FORMAT_CSV) {
			printf("%.*s,", (int)hl, line);
			if (isfinite(c))
				printf("%.4f", c);
			printf(",\"%s\",\"%s\"\n", approx, why);
		} else if (isfinite(c)) {
			printf("%5zu %9.3f  %.*s%s%s%s\n", n, c, (int)hl, line, *approx ? " (" : "",
			       approx, *approx ? ")" : "");
		} else {
			printf("%5zu %9s  %.*s: %s\n", n, "n/a", (int)hl, line, why);
		}
	}
	if (o->format == FORMAT_JSON && ret == EXIT_OK) {
		json_t *root = json_pack("{s:s,s:s,s:O}", "profile", o->prof.name, "unit",
					 "cycles per iteration", "blocks", all);

		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		putchar('\n');
		json_decref(root);
	}
	json_decref(all);
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o;
	struct ipcc_model_program *prog;
	struct ipcc_model_error err;
	struct ipcc_model_result res;
	char *text;
	int ret;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	if (o.blocks) {
		if (*o.profile_note)
			fprintf(stderr, "%s\n", o.profile_note);
		return sim_blocks(&o);
	}
	if (o.block) {
		struct ipcc_block b;

		if (ipcc_block_parse_hex(o.block, &b))
			return cli_usage_error("sim", "--block %s: %s", o.block, ipcc_last_error());
		if (ipcc_block_lift(&b, &text))
			return cli_error("sim", "--block %s: %s", o.block, ipcc_last_error());
	} else if (o.elf) {
		ret = ipcc_lift_elf(o.elf, &o.lift, &o.lifted);
		if (ret) {
			fprintf(stderr, "ipcc sim: %s\n", ipcc_last_error());
			return ret == IPCC_EINVAL || ret == IPCC_ESYS ? EXIT_USAGE : EXIT_FAIL;
		}
		text = strdup(o.lifted.text);
	} else {
		text = slurp(o.file);
	}
	if (!text) {
		fprintf(stderr, "ipcc sim: cannot read '%s': %s\n", o.file, strerror(errno));
		return EXIT_USAGE;
	}
	ret = ipcc_model_parse_mode(
	    text, &o.prof, o.lenient ? IPCC_MODEL_LENIENT : IPCC_MODEL_STRICT, &prog, &err);
	free(text);
	if (ret) {
		ipcc_lifted_release(&o.lifted);
		if (ret == IPCC_EINVAL)
			fprintf(stderr, "%s:%u:%u: %s\n", strcmp(o.file, "-") ? o.file : "<stdin>",
				err.line, err.column, err.message);
		else
			fprintf(stderr, "ipcc sim: %s\n", ipcc_last_error());
		return ret == IPCC_EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	ret = ipcc_model_run(prog, &o.prof, &o.run, &res);
	if (ret) {
		ipcc_lifted_release(&o.lifted);
		ipcc_model_program_free(prog);
		return cli_error("sim", "%s", ipcc_last_error());
	}
	if (*o.profile_note)
		fprintf(stderr, "%s\n", o.profile_note);
	if (o.format == FORMAT_JSON)
		print_json(&o, prog, &res);
	else if (o.format == FORMAT_CSV)
		print_csv(&o, prog, &res);
	else
		print_text(&o, prog, &res);
	ipcc_model_result_release(&res);
	ipcc_model_program_free(prog);
	ipcc_lifted_release(&o.lifted);
	return EXIT_OK;
}
