/* Plays a game to its end with the C API alone, no rules of its own: both sides play
   the tables' best move (mtb_probe) and the library plays it (mtb_play).
   usage: play_c DIR "VARIANT PITS SIDE [FLAGS]" */
#include <stdio.h>
#include <string.h>

#include "mancala/mancala_probe.h"

int main(int argc, char** argv) {
  char position[MTB_POSITION_TEXT];
  mtb_tables* tb = NULL;
  mtb_result r;
  mtb_turn t;
  int first = 1, margin = 0, plies = 0, over = 0; /* first: the side that began is to move */
  if (argc != 3 || strlen(argv[2]) >= sizeof position) return 2;
  if (mtb_open(argv[1], &tb) != MTB_OK) return fprintf(stderr, "%s\n", mtb_last_error(NULL)), 1;
  strcpy(position, argv[2]);
  while (!over && plies < 500) {
    if (mtb_probe(tb, position, &r) != MTB_OK) break;
    if (plies == 0) printf("value %d\n", r.value);
    if (r.move_count == 0) { /* only a start: otherwise the last turn said game_over */
      margin = r.value;
      over = 1;
      break;
    }
    if (mtb_play(position, r.moves[0].name, &t) != MTB_OK) break;
    printf("%s: move %s, gains %d/%d\n", position, t.move, t.gain_mover, t.gain_opponent);
    if (t.game_over) printf("game over: the end gives the mover %+d\n", t.end_value);
    margin += (first ? 1 : -1) * (t.gain_mover - t.gain_opponent + t.end_value);
    ++plies;
    over = t.game_over;
    if (!t.same_side) first = !first;
    strcpy(position, t.position);
  }
  if (over) printf("%d plies, margin %+d for the side that began\n", plies, margin);
  else fprintf(stderr, "stopped after %d plies: %s\n", plies, plies == 500 ? "no end" : mtb_last_error(tb));
  mtb_close(tb);
  return over ? 0 : 1;
}
