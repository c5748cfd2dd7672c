/*
 * mancala_probe.h - C API of the mancala tablebase probe library (stable ABI).
 *
 *   mtb_tables* tb = NULL;
 *   if (mtb_open("tb/", &tb) != MTB_OK) { ... mtb_last_error(NULL) ... }
 *   mtb_result r;
 *   mtb_probe(tb, "oware 1,0,0,2,0,0/0,1,0,0,1,0 S", &r);  (tables: generate oware --max-seeds 8)
 *   printf("%d\n", r.value);            // margin (score games) or win/draw/loss
 *   mtb_close(tb);
 *
 * Every function catches all exceptions, never prints and never exits. Errors are
 * returned as mtb_error codes; mtb_error_string() names them and
 * mtb_last_error(tb) gives the message of the last failed call on this thread.
 *
 * Lifetime of the returned strings: mtb_version() and mtb_error_string() return
 * static strings, valid until the program ends. mtb_last_error() returns a pointer
 * into storage of the calling thread: it stays valid, unchanged, until the next
 * mtb_* call that FAILS on the same thread (calls that succeed leave it alone) or
 * until the thread ends; copy the text to keep it longer. Closing a handle does not
 * invalidate it.
 *
 * Linking: cc -std=c99 engine.c -lmancala_probe (the shared library carries its C++
 * and zstd dependencies), or pkg-config --cflags --libs mancala_probe, or
 * find_package(mancala) and the target mancala::probe_c in CMake.
 *
 * Thread-safety (also written at each function): mtb_probe and mtb_value may be called
 * concurrently on one handle; mtb_open/mtb_close must not race with other calls on the
 * same handle. The rules functions (mtb_moves, mtb_play) take no handle and share no
 * state: any thread, any time.
 *
 * Playing a game through the library (no rules of one's own; docs/probe.md):
 *   mtb_probe(tb, pos, &r)                  the best move: r.moves[0].name
 *   mtb_play(pos, r.moves[0].name, &t)      t.position is the next position,
 *                                           t.gain_mover/t.gain_opponent what the move won,
 *                                           t.game_over (then t.end_value) the end
 */
#ifndef MANCALA_PROBE_H
#define MANCALA_PROBE_H

#include <stddef.h> /* size_t (mtb_load) */

#ifdef __cplusplus
extern "C" {
#endif

/* The entry points of libmancala_probe; everything else in the library is hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define MTB_API __attribute__((visibility("default")))
#else
#define MTB_API
#endif

/* Version of this C interface (its ABI); the library's own version is mtb_version(). */
/* 2.4: mtb_load; 2.3: mtb_probe_pits; 2.2: mtb_values_pits, mtb_probe_moves; 2.1: mtb_variant, mtb_value_pits; 2.0: distances in mtb_move and mtb_result (their layout
   changed); 1.1: mtb_moves, mtb_play. */
#define MTB_VERSION_MAJOR 2
#define MTB_VERSION_MINOR 4
#define MTB_MAX_MOVES 64
#define MTB_MOVE_NAME 32 /* mtb_move.name: an Enkeshui name of 7 or more lap choices may be cut */
/* Room for any move name with its NUL ("23:cw" and 19 choices ",ccw": 82 bytes). */
#define MTB_MOVE_TEXT 96
/* Room for a position in the notation with its NUL: the longest is about 130 bytes. */
#define MTB_POSITION_TEXT 256

typedef struct mtb_tables mtb_tables; /* opaque handle */

typedef enum {
  MTB_OK = 0,
  MTB_ERR_ARGUMENT = 1,  /* a NULL pointer or a bad argument */
  MTB_ERR_POSITION = 2,  /* the position text is malformed or impossible */
  MTB_ERR_NOT_FOUND = 3, /* the folder or the table a position needs is missing */
  MTB_ERR_CORRUPT = 4,   /* a table failed its checksums or does not match */
  MTB_ERR_IO = 5,        /* reading failed */
  MTB_ERR_INTERNAL = 6,  /* anything else (out of memory, ...) */
  MTB_ERR_MOVE = 7       /* mtb_play: the move is not legal in the position (since 1.1) */
} mtb_error;
/* The library's mancala::Error codes (mancala/error.h, docs/errors.md) map to these:
     invalid_argument -> MTB_ERR_ARGUMENT      bad_position  -> MTB_ERR_POSITION
     not_found, missing_table -> MTB_ERR_NOT_FOUND
     corrupt, mismatch -> MTB_ERR_CORRUPT      io            -> MTB_ERR_IO
     table_too_small, limit, cancelled, out_of_memory, internal -> MTB_ERR_INTERNAL
   (a probe has no budget: limit and cancelled do not occur). */

typedef enum { MTB_SCORE = 0, MTB_WIN_LOSS = 1 } mtb_kind;

typedef struct {
  char name[MTB_MOVE_NAME]; /* "3", "pass", "2:cw,ccw" */
  int value;                /* value of the move for the mover (same encoding as mtb_result.value) */
  int gain_mover, gain_opponent;
  /* mtb_result.distances only: plies to the next move that leaves the class after this
     move (1: it leaves; docs/values.md, "Distance to an exit"), else 0. */
  int distance;
} mtb_move;

typedef struct {
  mtb_kind kind;
  /* MTB_SCORE: the margin the side to move can force with the seeds still in play.
     MTB_WIN_LOSS: +1 win, 0 draw, -1 loss for the side to move; `plies` to the end. */
  int value;
  int plies; /* MTB_WIN_LOSS: plies to the end under best play (0: a draw, or no move left);
                MTB_SCORE: always 0 (a margin has no length) */
  int move_count; /* moves[0..move_count) best first, at most MTB_MAX_MOVES (the rest is not written) */
  mtb_move moves[MTB_MAX_MOVES];
  /* 1: the distance tables were read (score games with cycles, `generate --distances`):
     `distance` is the position's and the moves are ordered by value, then by distance
     (shortest first when the value is positive, longest when negative), so moves[0]
     realises the value. 0: by value alone (Kalah and Imbelece have no distances: any
     value-optimal play realises theirs; or the files are missing, then moves[0] keeps
     the value but may let the game go on for ever). */
  int distances;
  int distance;
} mtb_result;

/* Version of the library, the project's (MANCALA_VERSION_STRING of mancala/version.h,
   e.g. "0.1.0"); a static string, never NULL. */
MTB_API const char* mtb_version(void);
/* Name of an error code; never NULL. */
MTB_API const char* mtb_error_string(mtb_error e);
/* Message of the last failed call on this thread (tb may be NULL); never NULL, ""
   before any failure. Valid until the next failing call on this thread (see above). */
MTB_API const char* mtb_last_error(const mtb_tables* tb);

/* Opens a table folder. On success *out is a handle to close with mtb_close. */
MTB_API mtb_error mtb_open(const char* dir, mtb_tables** out);
/* Closes a handle (NULL is fine). */
MTB_API void mtb_close(mtb_tables* tb);

/* Value and ranked moves of a position given in the project notation
   ("VARIANT PITS SIDE [FLAGS]"). Returns MTB_OK and fills *out (value, plies, the moves
   best first), or an error code (MTB_ERR_POSITION: malformed; MTB_ERR_NOT_FOUND: the
   position or one of its moves needs a table the folder lacks; MTB_ERR_ARGUMENT: NULL).
   Thread-safe: may be called concurrently on one handle. */
MTB_API mtb_error mtb_probe(mtb_tables* tb, const char* position, mtb_result* out);
/* One move of a full probe, whole (mtb_probe_moves): its name is never cut. */
typedef struct {
  char move[MTB_MOVE_TEXT]; /* "3", "pass", "2:cw,ccw,cw" */
  int value;                /* as mtb_move's */
  int gain_mover, gain_opponent;
  int distance;             /* as mtb_move's */
} mtb_ranked_move;
/* mtb_probe without its limits (since 2.2): *out as mtb_probe fills it, and every
   move, best first, in moves[0..*count) with its whole name, however many there are
   (an Enkeshui position can have hundreds; mtb_probe keeps the first MTB_MAX_MOVES,
   their names cut at MTB_MOVE_NAME - 1 bytes). moves may be NULL with capacity 0 to
   ask the count only; if *count > capacity, nothing is written to moves and
   MTB_ERR_ARGUMENT is returned with *count set (as mtb_moves). Other errors as
   mtb_probe. Thread-safe like mtb_probe. */
MTB_API mtb_error mtb_probe_moves(mtb_tables* tb, const char* position, mtb_result* out, mtb_ranked_move* moves,
                                  int capacity, int* count);
/* Only the value (cheaper: no move list); plies may be NULL, and is 0 for MTB_SCORE
   games. Same errors and thread-safety as mtb_probe. A plain text (VARIANT, numbers,
   one space, S or N) is read in one pass and valued as mtb_value_pits values its
   numbers: the handle keeps the first words of up to 16 variants for it, beside the
   MTB_MAX_VARIANTS of mtb_variant. */
MTB_API mtb_error mtb_value(mtb_tables* tb, const char* position, int* value, int* plies);

/* ---- The rules, without tables (since 1.1) ---------------------------------------- */

/* One legal move of a position and what it leads to.
   The game is over after the move (game_over = 1) either because the move ends it
   (Cenne's last seeds; then position is "") or because the side to move in `position`
   has no legal move; end_value is then what the end adds for the mover beyond the
   gains: MTB_SCORE, the margin of the seeds the rules share out at the end (0 when the
   gains already hold them); MTB_WIN_LOSS, +1 the mover has won, -1 lost, 0 a draw.
   So over a whole game the sum, from one side's view, of gain_mover - gain_opponent
   (+ end_value at the end) is the margin of the game: what mtb_probe's value promises. */
typedef struct {
  char move[MTB_MOVE_TEXT];         /* the move's name: "3", "pass", "2:cw,ccw" (whole, never cut) */
  char position[MTB_POSITION_TEXT]; /* the position after the move, in the notation (its side to
                                       move as written there); "" when the move ends the game */
  int gain_mover, gain_opponent;    /* seeds the move wins for the mover and the opponent */
  int same_side;                    /* 1: the mover moves again (Kalah's store); 0: the opponent moves */
  int game_over;                    /* 1: the game is over after this move (see above) */
  int end_value;                    /* game_over: what the end adds for the mover (see above); else 0 */
} mtb_turn;

/* Every legal move of a position, in the rules engine's order (that of `mancala-tb
   moves`), each with the turn it makes. *count receives the number of legal moves, 0
   when the game is over (a position's final value is then mtb_value's, or the end_value
   of the turn that led to it). turns may be NULL with capacity 0 to ask the count only;
   otherwise turns[0..*count) are written if *count <= capacity, and MTB_ERR_ARGUMENT is
   returned (with *count set, nothing written) if capacity is too small: MTB_MAX_MOVES
   is enough for every game but Enkeshui, whose direction privilege can give more.
   Returns MTB_OK, MTB_ERR_POSITION (malformed or impossible position), MTB_ERR_ARGUMENT
   (NULL position or count, capacity < 0 or too small) or MTB_ERR_INTERNAL (out of
   memory, or a limit of the rules engine: Enkeshui's turns from one pit beyond 65,536).
   No tables, no handle: thread-safe, may be called from any thread at any time. */
MTB_API mtb_error mtb_moves(const char* position, mtb_turn* turns, int capacity, int* count);
/* Plays one legal move, given by its name (as mtb_moves and mtb_probe name it), and
   writes the turn to *out. Returns MTB_OK, MTB_ERR_MOVE (not a legal move of the
   position, or none: the game is over), MTB_ERR_POSITION, MTB_ERR_ARGUMENT (NULL) or
   MTB_ERR_INTERNAL. Thread-safe like mtb_moves. */
MTB_API mtb_error mtb_play(const char* position, const char* move, mtb_turn* out);
/* ---- Positions as numbers (an engine's board; since 2.1) ---------------------------
 *
 *   int oware, pits;
 *   mtb_variant(tb, "oware", &oware, &pits);            once
 *   int board[12] = {1,0,0,2,0,0, 0,1,0,0,1,0};          as the notation writes it
 *   mtb_value_pits(tb, oware, board, NULL, 0, &value, NULL);   in the search
 *
 * No text is parsed or made, nothing is allocated: the call ranks the position and
 * decodes its value in place from the mapped table (docs/format.md). */

/* Up to this many variants a handle (mtb_variant). */
#define MTB_MAX_VARIANTS 64
/* Mark of a pit (mtb_value_pits' marks): none, tied by South, by North, closed. */
enum { MTB_MARK_NONE = 0, MTB_MARK_SOUTH = 1, MTB_MARK_NORTH = 2, MTB_MARK_CLOSED = 3 };

/* A variant (name or spec as in the notation, e.g. "oware", "kalah:6:empty") as a
   number for mtb_value_pits on this handle; *pits receives its pits on the circuit
   (may be NULL). Calling it again with the same name gives the same number. Errors:
   MTB_ERR_ARGUMENT (NULL, an unknown variant, more than MTB_MAX_VARIANTS).
   Thread-safe. */
MTB_API mtb_error mtb_variant(mtb_tables* tb, const char* name, int* variant, int* pits);
/* The value of a position given as numbers: pits[0..P) the seeds of each pit in
   circuit order from pit 0, South's half first (the order of the notation's PITS);
   marks NULL (no pit marked) or marks[0..P) MTB_MARK_*; side 0 South to move, 1 North.
   Positions with flags (Cenne's first move, jeppe) need mtb_value. Same value, plies
   and errors as mtb_value (MTB_ERR_POSITION: impossible seeds or marks). Thread-safe:
   may be called concurrently on one handle; takes no lock once the table is open. */
MTB_API mtb_error mtb_value_pits(mtb_tables* tb, int variant, const int* pits, const int* marks, int side, int* value,
                                 int* plies);
/* The values of `count` positions in one call (since 2.2): position k is
   pits[k*P .. k*P+P), its marks NULL (none marked) or marks[k*P .. k*P+P), its side
   NULL (all South to move) or sides[k]; values[k], and plies[k] when plies is not
   NULL, receive what mtb_value_pits gives for it. The memory reads of up to 16
   positions are started before any is decoded, so their cache misses overlap: on
   tables larger than the processor's cache, about twice the rate of one call a
   position (results/probe.md; an engine valuing the children of a node; a scan). Stops at the first
   position that fails, with its error; mtb_last_error names it ("position K: ...");
   values[0..K) are set. Thread-safe like mtb_value_pits. */
MTB_API mtb_error mtb_values_pits(mtb_tables* tb, int variant, int count, const int* pits, const int* marks,
                                  const int* sides, int* values, int* plies);
/* A full probe of a position given as numbers (since 2.3): *out as mtb_probe fills it,
   and every move, best first, whole, in moves[0..*count) as mtb_probe_moves writes them
   (capacity >= 0; moves may be NULL with capacity 0 to ask the count only, then
   MTB_ERR_ARGUMENT with *count set). The position as mtb_value_pits takes it; errors
   as mtb_value_pits and mtb_probe_moves. An engine that holds its board as numbers
   needs no text to get every move's value. Thread-safe like mtb_probe. */
MTB_API mtb_error mtb_probe_pits(mtb_tables* tb, int variant, const int* pits, const int* marks, int side,
                                 mtb_result* out, mtb_ranked_move* moves, int capacity, int* count);
/* Loads a variant's tables into memory (since 2.4), for an engine that probes them
   often and has the memory: each table's values decoded once (its checksums checked)
   into one byte a position (two for a distance table), the smallest classes first,
   while the bytes loaded for the variant stay within max_bytes (SIZE_MAX: all of them;
   Oware up to 20 seeds: 215 MiB). A value of a loaded class then costs one random
   memory read: on tables larger than the processor's cache, mtb_value_pits about
   2.5-3 times as fast and mtb_values_pits about 4 times (results/probe.md). Without it (the
   default) values are decoded in place from the mapped files, with no memory beyond
   the cache's bound. *bytes (may be NULL) receives the bytes loaded for the variant,
   *left (may be NULL) the tables left out for the budget. The memory is given back
   when every handle on those files is closed. Errors: MTB_ERR_ARGUMENT (NULL tb, not a
   variant of mtb_variant), MTB_ERR_NOT_FOUND, MTB_ERR_CORRUPT (a damaged table: those
   loaded before it stay loaded), MTB_ERR_INTERNAL (out of memory). Thread-safe: other
   calls go on meanwhile with the same answers. */
MTB_API mtb_error mtb_load(mtb_tables* tb, int variant, size_t max_bytes, size_t* bytes, int* left);

#ifdef __cplusplus
}
#endif
#endif
