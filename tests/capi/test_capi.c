/* A pure C program using the probe library's C API (tests/capi/run_capi_test.cmake
   generates small tables first). Exit status 0 = all checks passed. */
#include <stdio.h>
#include <string.h>

#include "mancala/mancala_probe.h"
#include "mancala/version.h"

static int failures = 0;
#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                   \
    }                                                               \
  } while (0)

int main(int argc, char** argv) {
  mtb_tables* tb = NULL;
  mtb_result r;
  int value = 0, plies = 0, i;
  if (argc < 2) return 2;
  CHECK(strcmp(mtb_version(), MANCALA_VERSION_STRING) == 0);
  CHECK(strcmp(mtb_error_string(MTB_ERR_CORRUPT), "corrupt table") == 0);
  CHECK(mtb_open("/nonexistent/folder", &tb) == MTB_ERR_NOT_FOUND);
  CHECK(tb == NULL);
  CHECK(strlen(mtb_last_error(NULL)) > 0);
  CHECK(mtb_open(NULL, &tb) == MTB_ERR_ARGUMENT);
  CHECK(mtb_open(argv[1], &tb) == MTB_OK);
  CHECK(tb != NULL);
  /* oware 1,0,0,0,0,2/2,2,0,3,1,2 has 14 seeds: tables up to 14 needed; use a
     smaller position: South captures 3+3 with move 5. */
  CHECK(mtb_probe(tb, "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", &r) == MTB_OK);
  CHECK(r.kind == MTB_SCORE);
  CHECK(r.move_count == 1);
  CHECK(strcmp(r.moves[0].name, "5") == 0);
  CHECK(r.moves[0].gain_mover == 6);
  CHECK(r.value == r.moves[0].value);
  for (i = 1; i < r.move_count; ++i) CHECK(r.moves[i - 1].value >= r.moves[i].value);
  CHECK(mtb_value(tb, "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", &value, &plies) == MTB_OK);
  CHECK(value == r.value);
  /* The same position seen from North. */
  CHECK(mtb_value(tb, "oware 2,2,0,0,0,0/0,0,0,0,0,2 N", &value, NULL) == MTB_OK);
  CHECK(value == r.value);
  /* Errors: malformed, unknown variant, missing tables, NULLs. */
  CHECK(mtb_probe(tb, "oware 1,2,3 S", &r) == MTB_ERR_POSITION);
  CHECK(strstr(mtb_last_error(tb), "pits") != NULL);
  CHECK(mtb_probe(tb, "chess 1/1 S", &r) == MTB_ERR_POSITION);
  CHECK(mtb_probe(tb, "oware 4,4,4,4,4,4/4,4,4,4,4,3 S", &r) == MTB_ERR_NOT_FOUND);
  CHECK(mtb_probe(tb, "kalah:6:empty 1,0,0,0,0,0/1,0,0,0,0,0 S", &r) == MTB_ERR_NOT_FOUND);
  CHECK(mtb_probe(tb, NULL, &r) == MTB_ERR_ARGUMENT);
  CHECK(mtb_value(NULL, "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", &value, NULL) == MTB_ERR_ARGUMENT);
  mtb_close(tb);
  mtb_close(NULL);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("capi: all checks passed\n");
  return 0;
}
