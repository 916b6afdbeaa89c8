/*
 * formula_int.h - shared by the formula module's files (private to src/formula/).
 */
#ifndef IPCC_FORMULA_INT_H
#define IPCC_FORMULA_INT_H

#include <stdbool.h>

#include "ipcc/formula.h"

/* Whether two event names are the same: case aside, and `.` matching `:`. */
bool formula_names_match(const char *a, const char *b);

#endif
