#include "mancala/probe.h"

#include <algorithm>
#include <cstdio>

namespace mancala {

namespace fs = std::filesystem;

std::string value_text(GameKind kind, Value v) {
  if (kind == GameKind::WinLoss) {
    if (v == 0) return "draw";
    return std::string(v > 0 ? "win in " : "loss in ") + std::to_string(plies_of(v));
  }
  std::string s = std::to_string(v);
  if (v > 0) s.insert(s.begin(), '+');
  return s;
}

std::expected<std::shared_ptr<Tablebase>, TableError> Tablebase::open(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return std::unexpected(TableError{TableError::NotFound, dir.string() + ": no such table folder"});
  auto tb = std::make_shared<Tablebase>();
  tb->dir_ = dir;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".mtb" && it->path().extension() != ".mtz") continue;
    // Only names that can be a table of a known variant: anything else is listed
    // in ignored() (the file is never opened).
    auto name = parse_table_file_name(it->path().filename().string());
    if (!name) {
      tb->ignored_.push_back(name.error().message);
      continue;
    }
    auto& files = name->content == TableContent::Distances ? tb->distance_files_ : tb->files_;
    files[name->variant->name()][name->key] = it->path();
  }
  if (ec) return std::unexpected(TableError{TableError::Io, dir.string() + ": cannot list: " + ec.message()});
  std::sort(tb->ignored_.begin(), tb->ignored_.end());
  return tb;
}

std::vector<std::string> Tablebase::variants() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : files_) out.push_back(k);
  return out;
}

std::vector<ClassKey> Tablebase::classes(const std::string& variant) const {
  std::vector<ClassKey> out;
  if (auto it = files_.find(variant); it != files_.end())
    for (const auto& [k, p] : it->second) out.push_back(k);
  return out;
}

bool Tablebase::covers(const Variant& v, const ClassKey& key) const {
  const auto it = files_.find(v.name());
  return it != files_.end() && it->second.count(key) > 0;
}

bool Tablebase::covers_distances(const Variant& v, const ClassKey& key) const {
  const auto it = distance_files_.find(v.name());
  return it != distance_files_.end() && it->second.count(key) > 0;
}

std::expected<std::shared_ptr<TableFile>, TableError> Tablebase::table(const Variant& v, const ClassKey& key) const {
  return open_file(v, key, TableContent::Values);
}

std::expected<std::shared_ptr<TableFile>, TableError> Tablebase::distance_table(const Variant& v, const ClassKey& key) const {
  return open_file(v, key, TableContent::Distances);
}

std::expected<std::shared_ptr<TableFile>, TableError> Tablebase::open_file(const Variant& v, const ClassKey& key,
                                                                           TableContent content) const {
  const bool distances = content == TableContent::Distances;
  const auto& files = distances ? distance_files_ : files_;
  const std::string what = distances ? "distance table" : "table";
  const auto it = files.find(v.name());
  if (it == files.end())
    return std::unexpected(TableError{TableError::NotFound, dir_.string() + ": no " + what + "s for " + v.name()});
  const auto jt = it->second.find(key);
  if (jt == it->second.end())
    return std::unexpected(TableError{TableError::NotFound, dir_.string() + ": no " + what + " for " + v.name() + " class " +
                                                                to_string(key, v.pits()) + " (generate with --max-seeds " +
                                                                std::to_string(key.seeds) + " or more" +
                                                                (distances ? " and --distances)" : ")")});
  std::lock_guard lock(mu_);
  auto& slot = open_[jt->second];
  if (!slot) {
    auto t = TableFile::open(jt->second, v, key, content);
    if (!t) return std::unexpected(t.error());
    slot = *t;
  }
  return slot;
}

namespace {
// The entry of `p` in `t`, a value or distance file of p's class.
std::expected<Value, TableError> entry_of(const TableFile& t, const Variant& v, const Position& p) {
  auto idx = t.index(v);
  if (!idx) return std::unexpected(idx.error());
  if (!(*idx)->allowed(p)) return std::unexpected(TableError{TableError::BadPosition, "position is not indexed by its class"});
  return t.value((*idx)->rank(p));
}
}  // namespace

std::expected<int, TableError> Tablebase::distance(const Variant& v, const Position& p) const {
  const ClassKey key = v.class_of(p);
  auto t = distance_table(v, key);
  if (!t) return std::unexpected(t.error());
  auto d = entry_of(**t, v, p);
  if (!d) return std::unexpected(d.error());
  return static_cast<int>(static_cast<std::uint16_t>(*d));
}

std::expected<Value, TableError> Tablebase::value(const Variant& v, const Position& p) const {
  const ClassKey key = v.class_of(p);
  auto t = table(v, key);
  if (!t) return std::unexpected(t.error());
  return entry_of(**t, v, p);
}

std::expected<ProbeResult, TableError> Tablebase::probe(const Variant& v, const Position& p) const {
  ProbeResult r;
  std::vector<Child> kids;
  v.children(p, kids);
  // Distances (docs/values.md): read where the variant has them and the class of
  // every in-class child has its file; else the moves go by value alone.
  r.distances = has_distance_tables(v);
  const ClassKey key = v.class_of(p);
  for (const Child& c : kids) {
    Value cv = 0;
    if (!c.game_over) {
      auto x = value(v, c.next);
      if (!x) return std::unexpected(x.error());
      cv = *x;
    }
    MoveValue m{c.move, move_value(v.kind(), c, cv), c, 0};
    if (r.distances) {
      if (c.game_over || c.same_side || v.class_of(c.next) != key) {
        m.distance = 1;
      } else if (auto d = distance(v, c.next); d) {
        m.distance = *d || cv != 0 ? 1 + *d : 0;  // (0 and a value: a game over, reached in 1)
      } else if (d.error().code == TableError::NotFound) {
        r.distances = false;
        r.distances_missing = true;
      } else {
        return std::unexpected(d.error());
      }
    }
    r.moves.push_back(m);
  }
  if (!r.distances)
    for (MoveValue& m : r.moves) m.distance = 0;
  std::stable_sort(r.moves.begin(), r.moves.end(), [&](const MoveValue& a, const MoveValue& b) {
    if (a.value != b.value) return a.value > b.value;
    if (!r.distances || a.value == 0) return false;
    return a.value > 0 ? a.distance < b.distance : a.distance > b.distance;
  });
  bool indexed = v.tabled(p);
  if (indexed) {
    auto t = table(v, v.class_of(p));
    if (!t) return std::unexpected(t.error());
    auto idx = (*t)->index(v);
    if (!idx) return std::unexpected(idx.error());
    indexed = (*idx)->allowed(p);
  }
  if (indexed) {
    auto x = value(v, p);
    if (!x) return std::unexpected(x.error());
    r.value = *x;
    if (r.distances) {
      auto d = distance(v, p);
      if (d) {
        r.distance = *d;
      } else if (d.error().code == TableError::NotFound) {
        r.distances = false;
        r.distances_missing = true;
        for (MoveValue& m : r.moves) m.distance = 0;
      } else {
        return std::unexpected(d.error());
      }
    }
  } else {
    r.from_children = true;
    r.value = kids.empty() ? v.terminal_value(p) : r.moves.front().value;
    if (r.distances && r.value != 0 && !kids.empty()) r.distance = r.moves.front().distance;
  }
  return r;
}

}  // namespace mancala
