/*
 * recipe_cases.c - reading tests/data/recipes.txt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe_cases.h"

static int parse_row(char *line, struct recipe_case *c)
{
	char *events = strchr(line, '|'), *want, *tok, *save;

	if (!events || !(want = strchr(events + 1, '|')))
		return -1;
	*events++ = '\0';
	*want++ = '\0';
	if (sscanf(line, "%31s %31s %u", c->recipe, c->pmu, &c->width) != 3)
		return -1;
	if (strcmp(c->pmu, "-") == 0)
		c->pmu[0] = '\0';
	c->nev = 0;
	for (tok = strtok_r(events, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strrchr(tok, '=');

		if (!eq || c->nev == CASE_MAX_EVENTS)
			return -1;
		*eq = '\0';
		snprintf(c->event[c->nev], sizeof(c->event[0]), "%s", tok);
		c->delta[c->nev++] = strtoull(eq + 1, NULL, 10);
	}
	char smt[32];

	if (sscanf(want, "%lld %lld %lld %lld %31s", (long long *)&c->slots[0],
		   (long long *)&c->slots[1], (long long *)&c->slots[2], (long long *)&c->slots[3],
		   smt) != 5)
		return -1;
	c->has_smt = strcmp(smt, "-") != 0;
	c->slots[4] = c->has_smt ? strtoll(smt, NULL, 10) : 0;
	return 0;
}

int recipe_cases_load(const char *path, struct recipe_case *cases, int max)
{
	char line[2048];
	int n = 0, lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		if (n == max || parse_row(line, &cases[n]) != 0) {
			fprintf(stderr, "%s:%d: bad row\n", path, lineno);
			fclose(f);
			return -1;
		}
		cases[n++].line = lineno;
	}
	fclose(f);
	return n;
}
