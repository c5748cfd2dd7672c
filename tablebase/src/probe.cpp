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
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    // variant.seeds.statehex.mtb
    if (e.path().extension() != ".mtb") continue;
    const std::string stem = name.substr(0, name.size() - 4);
    const auto d2 = stem.rfind('.');
    if (d2 == std::string::npos) continue;
    const auto d1 = stem.rfind('.', d2 - 1);
    if (d1 == std::string::npos) continue;
    std::string variant = stem.substr(0, d1);
    for (char& c : variant)
      if (c == '_') c = ':';
    try {
      const int seeds = std::stoi(stem.substr(d1 + 1, d2 - d1 - 1));
      const std::uint64_t state = std::stoull(stem.substr(d2 + 1), nullptr, 16);
      tb->files_[variant][ClassKey{state, seeds}] = e.path();
    } catch (...) {
      continue;
    }
  }
  if (ec) return std::unexpected(TableError{TableError::Io, dir.string() + ": " + ec.message()});
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

std::expected<std::shared_ptr<TableFile>, TableError> Tablebase::table(const Variant& v, const ClassKey& key) const {
  const auto it = files_.find(v.name());
  if (it == files_.end())
    return std::unexpected(TableError{TableError::NotFound, dir_.string() + ": no tables for " + v.name()});
  const auto jt = it->second.find(key);
  if (jt == it->second.end())
    return std::unexpected(TableError{TableError::NotFound, dir_.string() + ": no table for " + v.name() + " class " +
                                                                to_string(key, v.pits()) + " (generate with --max-seeds " +
                                                                std::to_string(key.seeds) + " or more)"});
  std::lock_guard lock(mu_);
  auto& slot = open_[jt->second];
  if (!slot) {
    auto t = TableFile::open(jt->second);
    if (!t) return std::unexpected(t.error());
    if (auto ok = (*t)->check_against(v); !ok) return std::unexpected(ok.error());
    if (!((*t)->header().key() == key))
      return std::unexpected(TableError{TableError::Mismatch, jt->second.string() + ": holds another class than its name says"});
    slot = *t;
  }
  return slot;
}

std::expected<Value, TableError> Tablebase::value(const Variant& v, const Position& p) const {
  const ClassKey key = v.class_of(p);
  auto t = table(v, key);
  if (!t) return std::unexpected(t.error());
  auto idx = (*t)->index(v);
  if (!idx) return std::unexpected(idx.error());
  if (!(*idx)->allowed(p)) return std::unexpected(TableError{TableError::BadPosition, "position is not indexed by its class"});
  return (*t)->value((*idx)->rank(p));
}

std::expected<ProbeResult, TableError> Tablebase::probe(const Variant& v, const Position& p) const {
  ProbeResult r;
  std::vector<Child> kids;
  v.children(p, kids);
  for (const Child& c : kids) {
    Value cv = 0;
    if (!c.game_over) {
      auto x = value(v, c.next);
      if (!x) return std::unexpected(x.error());
      cv = *x;
    }
    r.moves.push_back(MoveValue{c.move, move_value(v.kind(), c, cv), c});
  }
  std::stable_sort(r.moves.begin(), r.moves.end(), [](const MoveValue& a, const MoveValue& b) { return a.value > b.value; });
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
  } else {
    r.from_children = true;
    r.value = kids.empty() ? v.terminal_value(p) : r.moves.front().value;
  }
  return r;
}

}  // namespace mancala
