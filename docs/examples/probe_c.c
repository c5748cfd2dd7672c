/* Prints the value and the ranked moves of one position with the C API.
   usage: probe_c DIR "VARIANT PITS SIDE [FLAGS]" */
#include <stdio.h>

#include "mancala/mancala_probe.h"

int main(int argc, char** argv) {
  mtb_tables* tb = NULL;
  mtb_result r;
  mtb_error e;
  int i;
  if (argc != 3) return 2;
  e = mtb_open(argv[1], &tb);
  if (e != MTB_OK) {
    fprintf(stderr, "%s: %s\n", mtb_error_string(e), mtb_last_error(NULL));
    return 1;
  }
  e = mtb_probe(tb, argv[2], &r);
  if (e != MTB_OK) {
    fprintf(stderr, "%s: %s\n", mtb_error_string(e), mtb_last_error(tb));
    mtb_close(tb);
    return 1;
  }
  printf("value %d", r.value);
  if (r.kind == MTB_WIN_LOSS) printf(" in %d plies", r.plies);
  printf("\n");
  for (i = 0; i < r.move_count; ++i)
    printf("move %s: value %d, gains %d/%d\n", r.moves[i].name, r.moves[i].value, r.moves[i].gain_mover,
           r.moves[i].gain_opponent);
  mtb_close(tb);
  return 0;
}
