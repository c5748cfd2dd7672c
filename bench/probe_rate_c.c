/* Random probe rates of the C API on one handle from T threads (issue 31), beside
 * random one-byte reads from an in-memory array, in the same run:
 *
 *   probe_rate_c DIR FILE THREADS ARRAY_BYTES
 *
 * FILE holds positions in the notation, one a line (probe_bench positions draws them
 * uniformly from the tables). Each of the THREADS threads goes once through all of them
 * (from its own starting point), for each call in turn:
 *   array  a one-byte read at a random index of an array of ARRAY_BYTES random bytes
 *          (0: skipped); 20 million reads a thread (or one a position if more), summed
 *          in a local, so that starting the threads does not count
 *   pits   mtb_value_pits (the position as numbers, parsed before the clock starts)
 *   text   mtb_value (the position as text)
 *   probe  mtb_probe (the value and every move's value)
 *   batch  mtb_values_pits on 64 positions a call (their memory reads overlap)
 *   pprobe mtb_probe_pits (a full probe of the position as numbers)
 *   chain  one-byte reads of the array where each index depends on the byte read before
 *          (2 million a thread): the latency of one random read from memory, the floor
 *          of any call that must wait for one (the array reads overlap theirs)
 *   hot    mtb_value_pits of one position (the thread's first) again and again: what a
 *          call costs with everything it reads in the cache (its instructions alone)
 *   hottext  mtb_value of that position again and again: the same with its text parsed
 *   hotprobe  mtb_probe_pits of that position again and again: a full probe's cost with
 *          everything it reads in the cache
 * and prints "threads T array A pits P text X probe Q batch Y chain Z pprobe R cpu array A'
 * pits P' text X' probe Q' batch Y' chain Z' pprobe R' hot H H' hottext T T' hotprobe F F'":
 * calls per second of wall time (all threads), then per second of the process's CPU
 * time (the figure that holds on a machine shared with other jobs). With PROBE_LOAD=1, the
 * tables are then loaded into memory (mtb_load) and pits, batch, pprobe and hot measured
 * again, and mtb_value: "loaded BYTES SECONDS pits P P' batch Y Y' pprobe R R' hot H H' text X X'". */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mancala/mancala_probe.h"

#define MAX_PITS 32

typedef struct {
  char* text;
  int variant, side, pits[MAX_PITS];
} position;

static mtb_tables* tb;
static position* positions;
static size_t count;
static unsigned char* array;
static uint64_t array_bytes;
static size_t array_reads; /* a thread's reads: enough to last well beyond the threads' start */
static size_t chain_reads = 2000000; /* a thread's dependent reads */
static double cpu_rate; /* calls per second of CPU time (all threads) of the last rate() */
static int threads;
static int* boards; /* count positions' pits, P a position (the batch; one variant) */
static int* sides;
static int board_pits;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One thread's job, alone on its cache line: the calls' sums go to a local and are
 * stored once at the end (a store to a line another thread's job shared made every
 * call of two threads wait for the line: the 2-thread figures of 2026-12-05 and before
 * lost a fifth to a half of their rate to it, the array's none). */
typedef struct {
  _Alignas(64) int id;
  int mode;
  long long sum;
  int failed;
} job;

static void* work(void* arg) {
  job* j = (job*)arg;
  size_t k, at = (size_t)j->id * count / (size_t)threads;
  uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(j->id + 1);
  static __thread mtb_result r;
  int value, plies, failed = 0;
  long long total = 0;
  for (k = 0; k < count; ++k, ++at) {
    const position* p = &positions[at % count];
    switch (j->mode) {
      case 0: { /* its own loop: a local sum (a store to *j a read would serialise the reads) */
        long long sum = 0;
        size_t r;
        for (r = 0; r < array_reads; ++r) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
          sum += array[(uint64_t)(((unsigned __int128)x * array_bytes) >> 64)];
        }
        j->sum += sum;
        return NULL;
      }
      case 5: { /* dependent reads: the next index mixes in the byte just read */
        uint64_t i = 0;
        size_t r;
        for (r = 0; r < chain_reads; ++r) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          i = (uint64_t)(((unsigned __int128)(x ^ array[i]) * array_bytes) >> 64);
        }
        j->sum += (long long)i;
        return NULL;
      }
      case 9: /* the same call as 6, on the thread's first position */
        p = &positions[(size_t)j->id * count / (size_t)threads];
        /* fall through */
      case 6: {
        static __thread mtb_ranked_move moves[MTB_MAX_MOVES];
        int n = 0;
        if (mtb_probe_pits(tb, p->variant, p->pits, NULL, p->side, &r, moves, MTB_MAX_MOVES, &n) != MTB_OK) failed = 1;
        total += r.value + n;
        break;
      }
      case 7: /* the same call as 1, on the thread's first position */
        p = &positions[(size_t)j->id * count / (size_t)threads];
        /* fall through */
      case 1:
        if (mtb_value_pits(tb, p->variant, p->pits, NULL, p->side, &value, &plies) != MTB_OK) failed = 1;
        total += value;
        break;
      case 8: /* the same call as 2, on the thread's first position */
        p = &positions[(size_t)j->id * count / (size_t)threads];
        /* fall through */
      case 2:
        if (mtb_value(tb, p->text, &value, &plies) != MTB_OK) failed = 1;
        total += value;
        break;
      case 3:
        if (mtb_probe(tb, p->text, &r) != MTB_OK) failed = 1;
        total += r.value;
        break;
      default: { /* 64 positions a call, from here (no wrap inside a call) */
        int values[64], n = 64, m;
        size_t from = at % count;
        if ((size_t)n > count - from) n = (int)(count - from);
        if ((size_t)n > count - k) n = (int)(count - k);
        if (mtb_values_pits(tb, p->variant, n, boards + from * (size_t)board_pits, NULL, sides + from, values, NULL) != MTB_OK)
          failed = 1;
        for (m = 0; m < n; ++m) total += values[m];
        k += (size_t)n - 1, at += (size_t)n - 1;
      }
    }
  }
  j->sum = total, j->failed = failed;
  return NULL;
}

static double rate(int mode) {
  pthread_t th[64];
  job jobs[64];
  int t;
  double calls = (double)(mode == 0 ? array_reads : mode == 5 ? chain_reads : count) * threads, wall;
  struct timespec c0, c1;
  double t0 = now();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  for (t = 0; t < threads; ++t) {
    jobs[t].id = t, jobs[t].mode = mode, jobs[t].sum = 0, jobs[t].failed = 0;
    pthread_create(&th[t], NULL, work, &jobs[t]);
  }
  for (t = 0; t < threads; ++t) {
    pthread_join(th[t], NULL);
    if (jobs[t].failed) {
      fprintf(stderr, "a probe failed: %s\n", mtb_last_error(tb));
      exit(1);
    }
  }
  wall = now() - t0;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  cpu_rate = calls / ((double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9);
  return calls / wall;
}

int main(int argc, char** argv) {
  char line[512];
  size_t cap = 0;
  uint64_t i;
  FILE* f;
  if (argc != 5) {
    fprintf(stderr, "usage: probe_rate_c DIR FILE THREADS ARRAY_BYTES\n");
    return 2;
  }
  threads = atoi(argv[3]);
  array_bytes = strtoull(argv[4], NULL, 10);
  if (threads < 1 || threads > 64) return 2;
  if (mtb_open(argv[1], &tb) != MTB_OK) return fprintf(stderr, "%s\n", mtb_last_error(NULL)), 1;
  f = fopen(argv[2], "r");
  if (!f) return 1;
  while (fgets(line, sizeof line, f)) {
    position p;
    char name[64], *s, *end;
    int n = 0, pits = 0;
    line[strcspn(line, "\n")] = 0;
    if (sscanf(line, "%63s", name) != 1) continue;
    if (mtb_variant(tb, name, &p.variant, &pits) != MTB_OK || pits > MAX_PITS) return fprintf(stderr, "%s\n", mtb_last_error(tb)), 1;
    s = line + strlen(name) + 1;
    while (n < pits) {
      p.pits[n++] = (int)strtol(s, &end, 10);
      s = end + 1; /* ',' or '/' */
    }
    p.side = *s == 'N';
    p.text = strdup(line);
    if (count == cap) positions = realloc(positions, (cap = cap ? 2 * cap : 1024) * sizeof *positions);
    positions[count++] = p;
  }
  fclose(f);
  if (!count) return 1;
  {
    int pits = 0, v = 0, n;
    for (i = 0; i < count; ++i)
      if (positions[i].variant != positions[0].variant) return fprintf(stderr, "positions of one variant only\n"), 1;
    {
      char name[64];
      sscanf(positions[0].text, "%63s", name);
      if (mtb_variant(tb, name, &v, &pits) != MTB_OK) return 1;
    }
    board_pits = pits;
    boards = malloc(count * (size_t)pits * sizeof *boards);
    sides = malloc(count * sizeof *sides);
    if (!boards || !sides) return 1;
    for (i = 0; i < count; ++i) {
      for (n = 0; n < pits; ++n) boards[i * (size_t)pits + (size_t)n] = positions[i].pits[n];
      sides[i] = positions[i].side;
    }
  }
  if (array_bytes) {
    uint64_t x = 88172645463325252ull;
    array = malloc(array_bytes);
    if (!array) return 1;
    for (i = 0; i < array_bytes; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      array[i] = (unsigned char)x;
    }
  }
  array_reads = count < 20000000 ? 20000000 : count;
  rate(1); /* first touch of the tables: maps, indexes, block checks */
  {
    double w[10], c[10];
    int m;
    /* PROBE_MODES=digits: only those figures (0 array, 1 values from numbers, 2 from text,
       3 full probes from text, 4 batches, 5 dependent reads, 6 full probes from numbers,
       7 one position again, 8 one position again as text, 9 one full probe again),
       e.g. to profile one call; the others print 0 */
    const char* only = getenv("PROBE_MODES");
    for (m = 0; m < 10; ++m) {
      if (only && !strchr(only, '0' + m)) {
        w[m] = c[m] = 0.0;
        continue;
      }
      w[m] = (m == 0 || m == 5) && !array_bytes ? 0.0 : rate(m);
      c[m] = (m == 0 || m == 5) && !array_bytes ? 0.0 : cpu_rate;
    }
    printf("threads %d array %.0f pits %.0f text %.0f probe %.0f batch %.0f chain %.0f pprobe %.0f cpu array %.0f pits %.0f "
           "text %.0f probe %.0f batch %.0f chain %.0f pprobe %.0f hot %.0f %.0f hottext %.0f %.0f hotprobe %.0f %.0f\n",
           threads, w[0], w[1], w[2], w[3], w[4], w[5], w[6], c[0], c[1], c[2], c[3], c[4], c[5], c[6], w[7], c[7], w[8], c[8],
           w[9], c[9]);
    /* PROBE_LOAD=1: then the variant's tables loaded (mtb_load, no budget) and values from
       numbers, batches, full probes from numbers and values from text again, printed after
       the figures above as "loaded BYTES SECONDS pits P P' batch Y Y' pprobe R R' hot H H'
       text X X'" (wall, CPU) */
    if (getenv("PROBE_LOAD") && atoi(getenv("PROBE_LOAD"))) {
      size_t bytes = 0;
      double t0 = now();
      if (mtb_load(tb, positions[0].variant, (size_t)-1, &bytes, NULL) != MTB_OK)
        return fprintf(stderr, "mtb_load: %s\n", mtb_last_error(tb)), 1;
      t0 = now() - t0;
      printf("loaded %zu %.3f", bytes, t0);
      {
        static const int again[5] = {1, 4, 6, 7, 2};
        static const char* names[5] = {"pits", "batch", "pprobe", "hot", "text"};
        for (m = 0; m < 5; ++m) {
          double wr = only && !strchr(only, '0' + again[m]) ? 0.0 : rate(again[m]);
          printf(" %s %.0f %.0f", names[m], wr, wr > 0.0 ? cpu_rate : 0.0);
        }
      }
      printf("\n");
    }
  }
  mtb_close(tb);
  return 0;
}
