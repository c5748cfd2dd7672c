/* A pure C program using the probe library's C API (tests/capi/run_capi_test.cmake
   generates small tables first: Oware up to 8 seeds, Kalah(4) up to 11, and Imbelece
   from one position). Exit status 0 = all checks passed.

   Beside the probe itself, it plays whole games through the C API alone, as an engine
   in C would: the rules (mtb_moves, mtb_play) without tables from the start of every
   game, and best play (mtb_probe's first move) against the tables, where the margin or
   the win collected must be the value the tables gave at the start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mancala/mancala_probe.h"
#include "mancala/version.h"

static int failures = 0;
static long plies_played = 0; /* by the rules alone and by best play, for the summary */
#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                       \
    }                                                                   \
  } while (0)

static unsigned long rng_state = 12345;
static int rng_below(int n) { /* a fixed sequence: the same games every run */
  rng_state = rng_state * 6364136223846793005ul + 1442695040888963407ul;
  return (int)((rng_state >> 33) % (unsigned long)n);
}

/* Every legal move of `position` in a buffer of the right size (count first). */
static mtb_turn* all_turns(const char* position, int* count) {
  mtb_turn* turns;
  if (mtb_moves(position, NULL, 0, count) != MTB_OK) {
    fprintf(stderr, "mtb_moves(%s): %s\n", position, mtb_last_error(NULL));
    return NULL;
  }
  turns = (mtb_turn*)malloc(sizeof(mtb_turn) * (size_t)(*count ? *count : 1));
  if (turns && mtb_moves(position, turns, *count, count) != MTB_OK) {
    fprintf(stderr, "mtb_moves(%s): %s\n", position, mtb_last_error(NULL));
    free(turns);
    return NULL;
  }
  return turns;
}

/* Random games from a start, with the rules alone: every turn of mtb_moves is what
   mtb_play gives for its name, every position it leads to is one the library reads
   again, and game_over says exactly when the next side has no move. Returns the
   number of games that reached their end within max_plies. */
static int random_games(const char* start, int games, int max_plies) {
  char position[MTB_POSITION_TEXT];
  mtb_turn played;
  int g, ply, finished = 0;
  for (g = 0; g < games; ++g) {
    strcpy(position, start);
    for (ply = 0; ply < max_plies; ++ply) {
      int count = 0, i, pick;
      mtb_turn* turns = all_turns(position, &count);
      CHECK(turns != NULL);
      if (!turns) return finished;
      CHECK(count > 0); /* the turn that led here said the game goes on */
      if (count == 0) {
        free(turns);
        break;
      }
      for (i = 0; i < count; ++i) {
        CHECK(strlen(turns[i].move) > 0);
        CHECK(turns[i].game_over == 0 || turns[i].game_over == 1);
        CHECK(turns[i].game_over || turns[i].end_value == 0);
        CHECK(turns[i].gain_mover >= 0 && turns[i].gain_opponent >= 0);
        CHECK((turns[i].position[0] != '\0') || turns[i].game_over);
      }
      pick = rng_below(count);
      CHECK(mtb_play(position, turns[pick].move, &played) == MTB_OK);
      CHECK(memcmp(&played, &turns[pick], sizeof played) == 0);
      free(turns);
      if (played.game_over) {
        int after = -1;
        if (played.position[0]) CHECK(mtb_moves(played.position, NULL, 0, &after) == MTB_OK && after == 0);
        ++finished;
        break;
      }
      strcpy(position, played.position);
      ++plies_played;
    }
  }
  return finished;
}

/* One side of a game played by the tables: the value for the side to move (margin,
   or +1/0/-1 with plies), and the best move. */
static int best_of(mtb_tables* tb, const char* position, mtb_result* r) {
  if (mtb_probe(tb, position, r) != MTB_OK) {
    fprintf(stderr, "mtb_probe(%s): %s\n", position, mtb_last_error(tb));
    return 0;
  }
  return 1;
}

/* Both sides play mtb_probe's best move from `start` until the game ends (or
   max_plies). Score games: at every ply the margin collected by the side that started
   plus its share of the value left is the value of the start, and at the end the
   margin collected is that value. Win/loss games: the winner wins in exactly the
   plies the tables gave. Returns 1 if the game ended. */
static int best_game(mtb_tables* tb, const char* start, int max_plies) {
  char position[MTB_POSITION_TEXT];
  mtb_result r;
  mtb_turn t;
  int value, kind, plies, collected = 0, starter = 1, ply;
  if (!best_of(tb, start, &r)) return ++failures, 0;
  value = r.value;
  kind = r.kind;
  plies = r.plies;
  CHECK(kind == MTB_WIN_LOSS || plies == 0); /* a margin has no length */
  strcpy(position, start);
  for (ply = 0; ply < max_plies; ++ply) {
    int sign = starter ? 1 : -1;
    if (kind == MTB_SCORE) CHECK(collected + sign * r.value == value);
    else CHECK(sign * r.value == value && r.plies == plies - ply);
    CHECK(r.move_count > 0);
    if (r.move_count == 0) return 0;
    CHECK(mtb_play(position, r.moves[0].name, &t) == MTB_OK);
    if (kind == MTB_SCORE) collected += sign * (t.gain_mover - t.gain_opponent);
    if (t.game_over) {
      if (kind == MTB_SCORE) CHECK(collected + sign * t.end_value == value);
      else CHECK(sign * t.end_value == value && ply + 1 == plies);
      return 1;
    }
    if (!t.same_side) starter = !starter;
    strcpy(position, t.position);
    ++plies_played;
    if (!best_of(tb, position, &r)) return ++failures, 0;
  }
  return 0;
}

static void test_probe(mtb_tables* tb) {
  mtb_result r;
  int value = 0, plies = -1, i;
  /* oware 1,0,0,0,0,2/2,2,0,3,1,2 has 14 seeds: tables up to 14 needed; use a
     smaller position: South captures 3+3 with move 5. */
  CHECK(mtb_probe(tb, "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", &r) == MTB_OK);
  CHECK(r.kind == MTB_SCORE);
  CHECK(r.plies == 0);
  CHECK(r.move_count == 1);
  CHECK(strcmp(r.moves[0].name, "5") == 0);
  CHECK(r.moves[0].gain_mover == 6);
  CHECK(r.value == r.moves[0].value);
  for (i = 1; i < r.move_count; ++i) CHECK(r.moves[i - 1].value >= r.moves[i].value);
  CHECK(mtb_value(tb, "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", &value, &plies) == MTB_OK);
  CHECK(value == r.value);
  CHECK(plies == 0); /* score games: 0, not a number made from the margin */
  /* The same position seen from North. */
  CHECK(mtb_value(tb, "oware 2,2,0,0,0,0/0,0,0,0,0,2 N", &value, NULL) == MTB_OK);
  CHECK(value == r.value);
  /* A result used again (its bytes not zeroed by the caller): the fields and the moves
     listed are all written, each name ends within its field; an error leaves no move. */
  memset(&r, 0xAB, sizeof r);
  CHECK(mtb_probe(tb, "oware 1,1,1,1,1,2/0,1,0,0,0,0 S", &r) == MTB_OK);
  CHECK(r.kind == MTB_SCORE && r.plies == 0 && r.move_count == 6);
  CHECK(r.distances == 0 || r.distances == 1);
  for (i = 0; i < r.move_count; ++i) {
    CHECK(memchr(r.moves[i].name, '\0', MTB_MOVE_NAME) != NULL && strlen(r.moves[i].name) == 1);
    CHECK(r.moves[i].gain_mover >= 0 && r.moves[i].gain_opponent >= 0);
    CHECK(r.moves[i].value <= r.value && (i > 0 || r.moves[i].value == r.value));
    CHECK(r.distances || r.moves[i].distance == 0);
  }
  memset(&r, 0xAB, sizeof r);
  CHECK(mtb_probe(tb, "oware 1,2,3 S", &r) == MTB_ERR_POSITION);
  CHECK(r.move_count == 0 && r.value == 0 && r.distances == 0 && r.distance == 0);
  /* Errors: malformed, unknown variant, missing tables, NULLs. */
  CHECK(mtb_probe(tb, "oware 1,2,3 S", &r) == MTB_ERR_POSITION);
  CHECK(strstr(mtb_last_error(tb), "pits") != NULL);
  CHECK(mtb_probe(tb, "chess 1/1 S", &r) == MTB_ERR_POSITION);
  CHECK(mtb_probe(tb, "oware 4,4,4,4,4,4/4,4,4,4,4,3 S", &r) == MTB_ERR_NOT_FOUND);
  CHECK(mtb_probe(tb, "kalah:6:empty 1,0,0,0,0,0/1,0,0,0,0,0 S", &r) == MTB_ERR_NOT_FOUND);
  CHECK(mtb_probe(tb, NULL, &r) == MTB_ERR_ARGUMENT);
  CHECK(mtb_value(NULL, "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", &value, NULL) == MTB_ERR_ARGUMENT);
}

static void test_rules(void) {
  const char* start = "oware 4,4,4,4,4,4/4,4,4,4,4,4 S";
  mtb_turn turns[MTB_MAX_MOVES], t;
  int count = -1, i;
  char name[2] = "0";
  /* Oware's start: six sowings, no gains, North to move after each. */
  CHECK(mtb_moves(start, NULL, 0, &count) == MTB_OK && count == 6);
  CHECK(mtb_moves(start, turns, MTB_MAX_MOVES, &count) == MTB_OK && count == 6);
  for (i = 0; i < count; ++i) {
    name[0] = (char)('0' + i);
    CHECK(strcmp(turns[i].move, name) == 0);
    CHECK(turns[i].gain_mover == 0 && turns[i].gain_opponent == 0);
    CHECK(!turns[i].same_side && !turns[i].game_over && turns[i].end_value == 0);
  }
  CHECK(strcmp(turns[0].position, "oware 0,5,5,5,5,4/4,4,4,4,4,4 N") == 0);
  CHECK(mtb_play(start, "0", &t) == MTB_OK);
  CHECK(strcmp(t.position, turns[0].position) == 0);
  /* Too little room: the count, nothing written, an error. */
  turns[0].move[0] = '\0';
  CHECK(mtb_moves(start, turns, 5, &count) == MTB_ERR_ARGUMENT && count == 6);
  CHECK(turns[0].move[0] == '\0');
  CHECK(strstr(mtb_last_error(NULL), "room for 5") != NULL);
  /* South captures 2+2+2 with its last seeds in play: North has none left to move,
     so the game is over; the 6 seeds were the gains, nothing is left to share. */
  CHECK(mtb_play("oware 0,0,0,0,0,2/2,2,0,0,0,0 S", "5", &t) == MTB_OK);
  CHECK(t.gain_mover == 6 && t.gain_opponent == 0 && t.game_over && t.end_value == 0);
  /* Kalah: the last seed in the store moves again; then South's last seed captures
     1 + 1 and leaves its side empty: the game is over, North keeps its own 2 seeds. */
  CHECK(mtb_play("kalah:4:empty 0,0,1,1/1,1,1,0 S", "3", &t) == MTB_OK);
  CHECK(t.same_side && !t.game_over && t.gain_mover == 1);
  CHECK(strcmp(t.position, "kalah:4:empty 0,0,1,0/1,1,1,0 S") == 0);
  CHECK(mtb_play(t.position, "2", &t) == MTB_OK);
  CHECK(t.game_over && t.gain_mover == 2 && t.end_value == -2);
  /* A position with no move: count 0; mtb_play refuses every move. */
  CHECK(mtb_moves("kalah:4:empty 0,0,0,0/1,1,1,0 S", turns, MTB_MAX_MOVES, &count) == MTB_OK && count == 0);
  CHECK(mtb_play("kalah:4:empty 0,0,0,0/1,1,1,0 S", "0", &t) == MTB_ERR_MOVE);
  CHECK(strstr(mtb_last_error(NULL), "game is over") != NULL);
  /* Enkeshui's direction privilege: 723 moves, names longer than mtb_move.name holds;
     every one is listed whole and plays by its name. */
  {
    const char* privileged = "enkeshui:8 1,1,2,2,1,10,2,1/1,1,3,1,1,0,0,1 S";
    mtb_turn* many = all_turns(privileged, &count);
    size_t longest = 0;
    CHECK(many != NULL && count == 723);
    for (i = 0; many && i < count; ++i) {
      if (strlen(many[i].move) > longest) longest = strlen(many[i].move);
      if (strlen(many[i].move) >= MTB_MOVE_NAME) {
        CHECK(mtb_play(privileged, many[i].move, &t) == MTB_OK);
        CHECK(memcmp(&t, &many[i], sizeof t) == 0);
      }
    }
    CHECK(longest >= MTB_MOVE_NAME);
    free(many);
  }
  /* Errors. */
  CHECK(mtb_play(start, "6", &t) == MTB_ERR_MOVE);
  CHECK(strstr(mtb_last_error(NULL), "not a legal move") != NULL);
  CHECK(strcmp(mtb_error_string(MTB_ERR_MOVE), "illegal move") == 0);
  CHECK(mtb_play("oware 0,0,0,0,0,2/2,2,0,0,0,0 S", "0", &t) == MTB_ERR_MOVE); /* an empty pit */
  CHECK(mtb_play("oware 4,4,4 S", "0", &t) == MTB_ERR_POSITION);
  CHECK(mtb_moves("not a position", turns, MTB_MAX_MOVES, &count) == MTB_ERR_POSITION);
  CHECK(mtb_play(NULL, "0", &t) == MTB_ERR_ARGUMENT);
  CHECK(mtb_play(start, NULL, &t) == MTB_ERR_ARGUMENT);
  CHECK(mtb_play(start, "0", NULL) == MTB_ERR_ARGUMENT);
  CHECK(mtb_moves(start, turns, -1, &count) == MTB_ERR_ARGUMENT);
  CHECK(mtb_moves(start, NULL, 6, &count) == MTB_ERR_ARGUMENT);
  CHECK(mtb_moves(start, turns, MTB_MAX_MOVES, NULL) == MTB_ERR_ARGUMENT);
}

int main(int argc, char** argv) {
  /* The start of every game, and a small Enkeshui position (its start's turns can
     exceed the rules engine's limits under the direction privilege). */
  static const char* const starts[] = {
      "oware 4,4,4,4,4,4/4,4,4,4,4,4 S",
      "kalah:6:empty 4,4,4,4,4,4/4,4,4,4,4,4 S",
      "kalah:4:standard 3,3,3,3/3,3,3,3 N",
      "djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S",
      "kotu-baendum 4,4,4,4,4,4,4/4,4,4,4,4,4,4 S first",
      "cenne:7:7 3,3,3,3,3,3,3/3,3,3,3,3,3,3 S",
      "cenne:5:4 2,1,3,0,1/1,0,1,0 S",
      "enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S",
      "imbelece 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 S first",
  };
  /* Best play against the tables: Kalah's classes have no cycles, so best moves end
     every game; Oware's positions here end too; Imbelece wins in the plies given. */
  static const char* const played[] = {
      "kalah:4:empty 1,0,3,0/2,1,0,4 S", "kalah:4:empty 2,2,2,2/1,0,0,1 N", "kalah:4:empty 0,3,0,2/2,0,1,2 S",
      "oware 0,0,0,0,0,2/2,2,0,0,0,0 S", "oware 1,0,2,0,0,0/0,1,0,1,1,0 N",
      "imbelece 2,0,0,3,0x,0x,0x,0x/0,3,0,2,0x,0x,0x,0x N", /* a win in 11 */
  };
  mtb_tables* tb = NULL;
  size_t i;
  int ended = 0;
  if (argc < 2) return 2;
  CHECK(strcmp(mtb_version(), MANCALA_VERSION_STRING) == 0);
  CHECK(strcmp(mtb_error_string(MTB_ERR_CORRUPT), "corrupt table") == 0);
  CHECK(mtb_open("/nonexistent/folder", &tb) == MTB_ERR_NOT_FOUND);
  CHECK(tb == NULL);
  CHECK(strlen(mtb_last_error(NULL)) > 0);
  CHECK(mtb_open(NULL, &tb) == MTB_ERR_ARGUMENT);
  CHECK(mtb_open(argv[1], &tb) == MTB_OK);
  CHECK(tb != NULL);
  if (!tb) return 1;
  test_probe(tb);
  test_rules();
  for (i = 0; i < sizeof starts / sizeof *starts; ++i) {
    int finished = random_games(starts[i], 20, 400);
    ended += finished;
    if (finished == 0) fprintf(stderr, "FAILED: no random game from %s ended\n", starts[i]), ++failures;
  }
  for (i = 0; i < sizeof played / sizeof *played; ++i)
    if (!best_game(tb, played[i], 400)) fprintf(stderr, "FAILED: best play from %s\n", played[i]), ++failures;
  mtb_close(tb);
  mtb_close(NULL);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("capi: all checks passed (%d random games to their end and %d best games, %ld plies)\n", ended,
         (int)(sizeof played / sizeof *played), plies_played);
  return 0;
}
