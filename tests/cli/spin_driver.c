/*
 * spin_driver.c - loads the shared library argv[1] (the stripped copy of spin_lib that
 * annotate_debug.sh makes) and runs its spin_entry() for about 0.3 s of CPU time (argv[2]
 * scales it).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000000;
	void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	uint64_t (*entry)(uint64_t);

	if (!lib) {
		fprintf(stderr, "spin_driver: %s\n", argc > 1 ? dlerror() : "usage: LIBRARY [N]");
		return 2;
	}
	*(void **)&entry = dlsym(lib, "spin_entry");
	if (!entry) {
		fprintf(stderr, "spin_driver: %s\n", dlerror());
		return 2;
	}
	return (int)(entry(n) & 1);
}
