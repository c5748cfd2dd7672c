/* Probe speed of the C API (libmancala_probe, linked as `cc x.c -lmancala_probe`):
 *   probe_bench_c DIR FILE PASSES
 * mtb_value over the positions of FILE with a freshly opened handle, the first pass
 * and the later ones, then one pass of mtb_probe (value and every move). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mancala/mancala_probe.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  mtb_tables* tb = NULL;
  static mtb_result r;
  char** lines = NULL;
  size_t n = 0, cap = 0, i;
  char buf[512];
  int pass, passes, value, plies;
  long long sum = 0;
  double first = 0, later = 0, probes, t0;
  FILE* f;
  if (argc != 4) return 2;
  passes = atoi(argv[3]);
  f = fopen(argv[2], "r");
  if (!f) return 1;
  while (fgets(buf, sizeof buf, f)) {
    buf[strcspn(buf, "\n")] = 0;
    if (n == cap) lines = realloc(lines, (cap = cap ? 2 * cap : 1024) * sizeof *lines);
    lines[n] = malloc(strlen(buf) + 1);
    strcpy(lines[n++], buf);
  }
  fclose(f);
  if (mtb_open(argv[1], &tb) != MTB_OK) return fprintf(stderr, "%s\n", mtb_last_error(NULL)), 1;
  for (pass = 0; pass < passes; ++pass) {
    t0 = now();
    for (i = 0; i < n; ++i) {
      if (mtb_value(tb, lines[i], &value, &plies) != MTB_OK) return fprintf(stderr, "%s\n", mtb_last_error(tb)), 1;
      sum += value;
    }
    if (pass == 0) first = now() - t0;
    else later += now() - t0;
  }
  t0 = now();
  for (i = 0; i < n; ++i) {
    mtb_probe(tb, lines[i], &r);
    sum += r.value;
  }
  probes = now() - t0;
  printf("first %.0f later %.0f probes %.0f checksum %lld\n", (double)n / first, (double)n * (passes - 1) / later,
         (double)n / probes, sum);
  mtb_close(tb);
  return 0;
}
