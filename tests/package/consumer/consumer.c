/* C consumer of the installed library (libmancala_probe): prints the value of a position.
 *   consumer_c DIR "oware 1,0,0,2,0,0/0,1,0,0,1,0 S"
 * Built three ways by tests/package/test_consumer.sh: CMake (mancala::probe_c),
 * plain `cc -std=c99 consumer.c -lmancala_probe`, and pkg-config. */
#include <stdio.h>

#include "mancala/mancala_probe.h"

int main(int argc, char** argv) {
  mtb_tables* tb = NULL;
  mtb_result r;
  if (argc != 3) return 2;
  if (mtb_open(argv[1], &tb) != MTB_OK) {
    fprintf(stderr, "%s\n", mtb_last_error(NULL));
    return 1;
  }
  if (mtb_probe(tb, argv[2], &r) != MTB_OK) {
    fprintf(stderr, "%s\n", mtb_last_error(tb));
    mtb_close(tb);
    return 1;
  }
  printf("%d %d %s\n", r.value, r.move_count, mtb_version());
  mtb_close(tb);
  return 0;
}
