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
 * Thread-safety: mtb_probe and mtb_value may be called concurrently on one handle;
 * mtb_open/mtb_close must not race with other calls on the same handle.
 */
#ifndef MANCALA_PROBE_H
#define MANCALA_PROBE_H

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
#define MTB_VERSION_MAJOR 1
#define MTB_VERSION_MINOR 1
#define MTB_MAX_MOVES 64
#define MTB_MOVE_NAME 32

typedef struct mtb_tables mtb_tables; /* opaque handle */

typedef enum {
  MTB_OK = 0,
  MTB_ERR_ARGUMENT = 1,  /* a NULL pointer or a bad argument */
  MTB_ERR_POSITION = 2,  /* the position text is malformed or impossible */
  MTB_ERR_NOT_FOUND = 3, /* the folder or the table a position needs is missing */
  MTB_ERR_CORRUPT = 4,   /* a table failed its checksums or does not match */
  MTB_ERR_IO = 5,        /* reading failed */
  MTB_ERR_INTERNAL = 6   /* anything else (out of memory, ...) */
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
} mtb_move;

typedef struct {
  mtb_kind kind;
  /* MTB_SCORE: the margin the side to move can force with the seeds still in play.
     MTB_WIN_LOSS: +1 win, 0 draw, -1 loss for the side to move; `plies` to the end. */
  int value;
  int plies;
  int move_count; /* moves[0..move_count) best first, at most MTB_MAX_MOVES */
  mtb_move moves[MTB_MAX_MOVES];
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
   ("VARIANT PITS SIDE [FLAGS]"). */
MTB_API mtb_error mtb_probe(mtb_tables* tb, const char* position, mtb_result* out);
/* Only the value (cheaper: no move list). */
MTB_API mtb_error mtb_value(mtb_tables* tb, const char* position, int* value, int* plies);

/* ---- Positions as numbers (an engine's board; since 1.1) ---------------------------
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

#ifdef __cplusplus
}
#endif
#endif
