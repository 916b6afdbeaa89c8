#!/usr/bin/env python3
"""code_footprint.py - flat code past L2, natively and under the model backend.

    python3 bench/code_footprint.py [--sizes N,N,...] [--rounds R] [--profile P] BUILD

For each N it writes a C program of N small functions (loads from a node, an add loop of a
fixed trip count, a branch on a field that never changes: nothing a predictor misses) and
one function that calls all of them directly, in a fixed random order, then follows a
pointer; it compiles it with cc -O2. That is a compiler's shape: code spread flat over
megabytes, each function run a line or two at a time. Natively the program times itself
(rdtsc around its passes; the fewest of R rounds, turned into core cycles with the time
counter's and the core's frequencies from `ipcc calibrate`); under `ipcc stat --backend
model`, two pass counts apart give a call's cycles. It prints, per N, the code's size,
cycles a call each way, the error, and the model's code lines from past L2 a call.
"""
import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile


def program(n):
    """C source: n functions called in a fixed random order by pass()."""
    rnd = random.Random(7)
    out = ['#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n',
           'struct node { struct node *next; long a, b; int kind, flags; };\n',
           'struct node pool[4096];\n',
           '__attribute__((noinline)) long helper(struct node *p, long x)'
           ' { return p->a + (x & 7) + (p->flags ? p->b : 0); }\n']
    for i in range(n):
        out.append(f'__attribute__((noinline)) long f{i}(struct node *p, long x) {{\n'
                   '  long s = x;\n')
        for _ in range(rnd.randrange(2, 6)):
            c, m = rnd.randrange(4), rnd.randrange(1, 100)
            out.append([
                f'  if (p->kind == {m % 3 + 1}) s += p->a * {m}; else s ^= p->b + {m};\n',
                f'  for (int i = 0; i < {m % 4}; i++) s += (s >> {m % 13}) + p->a;\n',
                f'  p = p->next; if (p->kind) s = helper(p, s + {m});\n',
                f'  switch ({m} & 3) {{ case 0: s += p->b; break; case 1: s -= p->a; break;'
                f' case 2: s *= 3; break; default: s ^= {m * 31}; }}\n'][c])
        out.append('  return s;\n}\n')
    order = list(range(n))
    rnd.shuffle(order)
    out.append('__attribute__((noinline)) long pass(struct node *p, long s) {\n')
    out.extend(f'  s = f{i}(p, s); p = p->next;\n' for i in order)
    out.append('  return s;\n}\n')
    out.append('''
static inline uint64_t ticks(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 1, s = 0;
	uint64_t r = 12345;
	for (unsigned i = 0; i < 4096; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		pool[i].next = &pool[(r >> 33) % 4096];
		pool[i].a = (long)(r >> 20) & 1023;
		pool[i].b = (long)(r >> 40) & 255;
	}
	uint64_t t0 = ticks();
	for (long i = 0; i < passes; i++)
		s = pass(&pool[i % 4096], s);
	uint64_t t1 = ticks();
	if (argc > 2)
		fprintf(stderr, "%.3f\\n", (double)(t1 - t0) / (double)passes / @N@);
	printf("%ld\\n", s & 1);
	return 0;
}
'''.replace('@N@', str(n)))
    return ''.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--sizes', default='2048,4096,6144,8192,12288')
    ap.add_argument('--rounds', type=int, default=4)
    ap.add_argument('--profile', default='auto')
    ap.add_argument('--calls', type=int, default=8192000, help='native calls a run')
    ap.add_argument('--model-calls', type=int, default=409600,
                    help='calls the model runs the fewer of its two runs')
    ap.add_argument('build')
    a = ap.parse_args()
    if platform.machine() not in ('x86_64', 'AMD64'):
        print('code_footprint.py: x86-64 only (the programs time themselves with rdtsc)')
        return 0
    ipcc = os.path.join(a.build, 'ipcc')
    sizes = [int(x) for x in a.sizes.split(',')]
    cal = json.loads(subprocess.run([ipcc, 'calibrate', '--format', 'json'], check=True,
                                    capture_output=True, text=True).stdout)
    ratio = cal['core_khz'] / cal['tcfreq_khz']
    with tempfile.TemporaryDirectory() as d:
        progs = {}
        for n in sizes:
            src, exe = os.path.join(d, f'c{n}.c'), os.path.join(d, f'c{n}')
            with open(src, 'w') as f:
                f.write(program(n))
            subprocess.run(['cc', '-O2', '-o', exe, src], check=True)
            progs[n] = exe
        native = {n: [] for n in sizes}
        for _ in range(a.rounds):
            for n in sizes:
                r = subprocess.run([progs[n], str(a.calls // n), 't'], check=True,
                                   capture_output=True, text=True)
                native[n].append(float(r.stderr) * ratio)
        print(f'{"functions":>9} {"code KiB":>8} {"native":>8} {"spread":>7} {"model":>8}'
              f' {"error":>7} {"L2 code misses":>14}')
        for n in sizes:
            counts = []
            for k in (a.model_calls // n, 2 * (a.model_calls // n)):
                out = os.path.join(d, f'm{n}.{k}.json')
                subprocess.run([ipcc, 'stat', '--backend', 'model', '--profile', a.profile,
                                '--format', 'json', '-o', out, '--', progs[n], str(k)],
                               check=True, capture_output=True)
                with open(out) as f:
                    counts.append(json.load(f)['model']['counts'])
            calls = (a.model_calls // n) * n
            model = (counts[1]['cycles']['total'] - counts[0]['cycles']['total']) / calls
            l2i = (counts[1]['l2i_misses'] - counts[0]['l2i_misses']) / calls
            size = int(subprocess.run(['size', progs[n]], check=True, capture_output=True,
                                      text=True).stdout.split('\n')[1].split()[0])
            best = min(native[n])
            print(f'{n:9d} {size // 1024:8d} {best:8.1f} {max(native[n]) / best - 1:6.1%}'
                  f' {model:8.1f} {model / best - 1:+6.1%} {l2i:14.3f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
