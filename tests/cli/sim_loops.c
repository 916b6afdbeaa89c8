/*
 * sim_loops.c - loops for ipcc sim --elf (sim_elf.sh compiles this at -O2): a dependent
 * floating-point chain, a pointer chase, and a function without a loop.
 */
double chain(double a, double b, long n)
{
	double s = 1.0;

	for (long i = 0; i < n; i++)
		s = s * a + b;
	return s;
}

void *chase(void **p, long n)
{
	for (long i = 0; i < n; i++)
		p = (void **)*p;
	return p;
}

long noloop(long a, long b)
{
	return a / b + (a > b ? a : b);
}

int main(int argc, char **argv)
{
	void *self = &self;

	(void)argv;
	return (int)chain(argc, 1.0, argc) + (chase(&self, argc) != 0) + (int)noloop(argc, 1);
}
