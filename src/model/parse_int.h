/*
 * model/parse_int.h - what the parser's parts share (private to src/model/): the parser's
 * state, operands, the lexer (operands.c), one instruction (parse_insn.c), and the program
 * being built (parse.c, which reads the text line by line and runs the directives).
 */
#ifndef IPCC_MODEL_PARSE_INT_H
#define IPCC_MODEL_PARSE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "model_int.h"

/* A jump with taken=F to a label not yet defined: its instruction, the label. */
struct pending_jump {
	unsigned at;
	char label[64];
};

struct parser {
	const struct ipcc_model_profile *p;
	struct ipcc_model_program *prog;
	struct ipcc_model_error *err;
	const char *line_start;
	unsigned line;
	bool label_before;	    /* a label since the last instruction: no fusion across it */
	bool lenient;		    /* approximate what the table does not know */
	struct pending_jump *jumps; /* taken=F jumps whose label comes later (skip unset) */
	unsigned njumps, jumps_cap;
};

/* A failure at `at` (NULL: the line's start) of the current line: IPCC_EINVAL, in ps->err. */
int model_parse_fail(struct parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

enum opkind { O_REG, O_IMM, O_MEM, O_LABEL };

struct operand {
	enum opkind kind;
	int reg;	    /* O_REG */
	bool partial;	    /* O_REG: an 8- or 16-bit part of a general register (al, ah, r8w) */
	bool wide;	    /* O_REG: a whole 64-bit general register (rax, r8) */
	int64_t imm;	    /* O_IMM: its value (two's complement; 0 for a symbol's) */
	uint64_t addr_regs; /* O_MEM: base and index */
	struct mkey key;    /* O_MEM: the address, normalised */
	int base;	    /* O_MEM: the base as written (the first register without a scale) */
	const char *at;
};

/* ---- the lexer (operands.c) ---- */
const char *model_lex_space(const char *s);
/* The next word (letters, digits, _ . $ @) into buf; returns what follows it. */
const char *model_lex_word(const char *s, char *buf, size_t len);
/* Whether word w is one of `list` (NULL-terminated). */
bool model_word_in(const char *w, const char *const *list);
/* One operand at s into *o; what follows it, or NULL (the failure is in ps->err). */
const char *model_lex_operand(struct parser *ps, const char *s, struct operand *o);

/* ---- the program (parse.c) ---- */
/* Add a source text to the pool: its offset, or UINT32_MAX when out of memory. */
uint32_t model_pool_add(struct ipcc_model_program *prog, const char *s, size_t len);
/* Append `in` `times` times. */
int model_emit(struct parser *ps, const struct minsn *in, unsigned times);

/* ---- one instruction (parse_insn.c) ---- */
/* The instruction at s (its comment c), `times` times: 0 or IPCC_EINVAL/ENOMEM. */
int model_parse_insn(struct parser *ps, const char *s, const char *c, unsigned times);

#endif
