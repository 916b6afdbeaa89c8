/*
 * spin_lib.c - a shared library for annotate_debug.sh: spin_entry() spends its time about
 * equally in a file-local function and in a hidden one with a C++ name (ns::spin(unsigned
 * long), written here in C as its mangled name). Neither is in .dynsym, so once the test
 * strips the library only its separate debug file names them.
 */
#include <stdint.h>

__attribute__((noinline)) static uint64_t local_spin(uint64_t n)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + i;
	return x;
}

__attribute__((visibility("hidden"))) uint64_t cxx_spin(uint64_t n) __asm__("_ZN2ns4spinEm");

__attribute__((noinline, visibility("hidden"))) uint64_t cxx_spin(uint64_t n)
{
	uint64_t x = 3;

	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757ull + i;
	return x;
}

uint64_t spin_entry(uint64_t n);

uint64_t spin_entry(uint64_t n)
{
	return local_spin(n) ^ cxx_spin(n);
}
