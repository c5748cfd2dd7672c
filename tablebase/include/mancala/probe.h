// The probe library: exact values and ranked moves of positions from a folder of
// tables. Depends on the rules, the index and zstd only (no TBB, no MPI).
//
//   auto tb = mancala::Tablebase::open("tb/");
//   auto r = tb->probe(*variant, position);   // r->value, r->moves (best first)
//
// Thread-safety: every const member may be called from many threads at once.
#pragma once

#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mancala/format.h"
#include "mancala/variant.h"

namespace mancala {

struct MoveValue {
  Move move;
  Value value = 0;  // value of the move for the mover (variant.h move_value)
  Child child;
  // ProbeResult::distances only: the plies to the next move that leaves the class
  // when this move is played and then every side plays by the distances
  // (docs/values.md, "Distance to an exit"): 1 for a move that leaves the class (or
  // ends the game), 1 + the child's distance for one that stays, 0 for one that
  // stays in a position whose distance is 0 (worth 0: no exit is owed).
  int distance = 0;
};

struct ProbeResult {
  Value value = 0;
  bool from_children = false;  // the position itself is not tabled; its value is the best move's
  // The distance tables were read (has_distance_tables(v) and the class's .mtz file
  // present): `distance` and every move's are set, and the moves are ordered by value,
  // then (among equal values) by distance, shortest first when that value is
  // positive, longest first when it is negative: moves[0] realises the value. False:
  // ordered by value alone, as for games without distances (Kalah, Imbelece: any
  // value-optimal play realises theirs).
  bool distances = false;
  // has_distance_tables(v) but a distance file needed was missing: moves[0] keeps the
  // value but may not realise it (endless play is possible).
  bool distances_missing = false;
  int distance = 0;              // the position's (0 for a value of 0 or no move)
  std::vector<MoveValue> moves;  // best first; ties keep move order
};

class Tablebase {
 public:
  // Scans a folder for table files (opened lazily). Fails if the folder is missing
  // or cannot be listed. A *.mtb file whose name cannot be a table (parse_table_file_name)
  // is not used: it is listed in ignored() with the reason.
  static std::expected<std::shared_ptr<Tablebase>, TableError> open(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  // Variant names present, and the classes of one variant.
  std::vector<std::string> variants() const;
  std::vector<ClassKey> classes(const std::string& variant) const;
  std::expected<std::shared_ptr<TableFile>, TableError> table(const Variant& v, const ClassKey& key) const;
  // The distance file of a class (.mtz; NotFound when the folder has none).
  std::expected<std::shared_ptr<TableFile>, TableError> distance_table(const Variant& v, const ClassKey& key) const;
  bool covers(const Variant& v, const ClassKey& key) const;
  bool covers_distances(const Variant& v, const ClassKey& key) const;
  // "FILE: why" for each *.mtb file of the folder whose name is impossible.
  const std::vector<std::string>& ignored() const { return ignored_; }

  // Value of a tabled position (its side to move is South).
  std::expected<Value, TableError> value(const Variant& v, const Position& p) const;
  // Distance of a tabled position (docs/values.md; NotFound without its .mtz file).
  std::expected<int, TableError> distance(const Variant& v, const Position& p) const;
  // Value and every move's value. A position the tables do not index (a first move,
  // Oware's start) is valued from its children.
  std::expected<ProbeResult, TableError> probe(const Variant& v, const Position& p) const;

 private:
  std::filesystem::path dir_;
  std::expected<std::shared_ptr<TableFile>, TableError> open_file(const Variant& v, const ClassKey& key,
                                                                  TableContent content) const;
  std::map<std::string, std::map<ClassKey, std::filesystem::path>> files_, distance_files_;
  std::vector<std::string> ignored_;
  mutable std::mutex mu_;
  mutable std::map<std::filesystem::path, std::shared_ptr<TableFile>> open_;
};

// Text of a value: "+3", "-2", "0" (score); "win in 7", "loss in 4", "draw" (win/loss).
std::string value_text(GameKind kind, Value v);

}  // namespace mancala
