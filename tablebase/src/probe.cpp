#include "mancala/probe.h"

#include "mancala/distance_tables.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

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

// ---- The process-wide cache ----------------------------------------------------

TableCache& TableCache::instance() {
  static TableCache cache;
  return cache;
}

std::size_t TableCache::capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}
void TableCache::set_capacity(std::size_t bytes) {
  std::lock_guard lock(mu_);
  capacity_ = bytes;
  trim();
}
std::size_t TableCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

void TableCache::trim() {
  while (bytes_ > capacity_ && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    by_path_.erase(lru_.back().path);
    lru_.pop_back();
  }
}

void TableCache::recount(const TableFile& t) {
  std::lock_guard lock(mu_);
  const auto it = by_path_.find(t.path().string());
  if (it == by_path_.end() || it->second->table.get() != &t) return;
  bytes_ -= it->second->bytes;
  it->second->bytes = t.heap_bytes();
  bytes_ += it->second->bytes;
  trim();
}

std::expected<std::shared_ptr<TableFile>, TableError> TableCache::open(const fs::path& path, const Variant& v,
                                                                       const ClassKey& key, TableContent content) {
  const std::string name = path.string();
  auto id = file_identity(path);  // no open: a FIFO or a folder is refused here
  if (!id) return std::unexpected(id.error());
  const Variant* own = &v;
  {
    std::lock_guard lock(mu_);
    VariantPtr& kept = variants_[v.name()];
    if (!kept)
      if (auto made = make_variant(v.name())) kept = *made;
    if (kept) own = kept.get();
    if (auto it = by_path_.find(name); it != by_path_.end()) {
      const auto& t = it->second->table;
      if (t->identity() == *id && t->header().content == content && t->ready_index() && t->header().variant == v.name() &&
          t->header().key() == key) {
        lru_.splice(lru_.begin(), lru_, it->second);
        return t;
      }
      bytes_ -= it->second->bytes;  // replaced on disk: open afresh
      lru_.erase(it->second);
      by_path_.erase(it);
    }
  }
  auto t = TableFile::open(path, *own, key, content);  // outside the lock: other tables go on
  if (!t) return t;
  std::lock_guard lock(mu_);
  if (by_path_.count(name)) return t;  // opened by another thread meanwhile: keep ours too
  lru_.push_front(Entry{name, *t, (*t)->heap_bytes()});
  by_path_[name] = lru_.begin();
  bytes_ += lru_.front().bytes;
  trim();
  return t;
}

// ---- A folder of tables ------------------------------------------------------------

std::expected<std::shared_ptr<Tablebase>, TableError> Tablebase::open(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return std::unexpected(TableError{TableError::NotFound, dir.string() + ": no such table folder"});
  auto tb = std::make_shared<Tablebase>();
  tb->dir_ = dir;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const auto ext = it->path().extension();
    if (ext != ".mtb" && ext != ".mtz") continue;
    // Only names that can be a table of a known variant: anything else is listed
    // in ignored() (the file is never opened).
    auto name = parse_table_file_name(it->path().filename().string());
    if (!name) {
      tb->ignored_.push_back(name.error().message);
      continue;
    }
    VariantTables& vt = tb->files_[name->variant->name()];
    const int c = static_cast<int>(name->content);
    vt.slots[c][name->key].path = it->path();
  }
  if (ec) return std::unexpected(TableError{TableError::Io, dir.string() + ": cannot list: " + ec.message()});
  std::sort(tb->ignored_.begin(), tb->ignored_.end());
  for (auto& [name, vt] : tb->files_)
    for (int c = 0; c < 2; ++c)
      for (auto& [key, s] : vt.slots[c]) {
        if (key.state != 0) continue;
        auto& plain = vt.plain[c];
        if (plain.size() <= static_cast<std::size_t>(key.seeds)) plain.resize(static_cast<std::size_t>(key.seeds) + 1, nullptr);
        plain[static_cast<std::size_t>(key.seeds)] = &s;
      }
  return tb;
}

bool Tablebase::refresh() {
  auto fresh = open(dir_);
  if (!fresh) return false;  // the folder is gone: keep what is open
  std::lock_guard lock(mu_);
  bool changed = false;
  auto paths = [](const std::map<std::string, VariantTables>& files) {
    std::set<fs::path> out;
    for (const auto& [name, vt] : files)
      for (int c = 0; c < 2; ++c)
        for (const auto& [key, s] : vt.slots[c]) out.insert(s.path);
    return out;
  };
  if (paths(files_) != paths((*fresh)->files_)) changed = true;
  // Keep every open table whose file is unchanged; the others are retired (a reader
  // on another thread may still hold their pointer) and opened again when needed.
  for (auto& [name, vt] : (*fresh)->files_)
    for (int c = 0; c < 2; ++c)
      for (auto& [key, s] : vt.slots[c]) {
        const auto old = files_.find(name);
        if (old == files_.end()) continue;
        const auto o = old->second.slots[c].find(key);
        if (o == old->second.slots[c].end() || !o->second.owner) continue;
        auto id = file_identity(s.path);
        if (id && *id == o->second.owner->identity()) {
          s.owner = o->second.owner;
          s.ready.store(s.owner.get(), std::memory_order_release);
        }
      }
  // Only the tables not carried over are retired (a long-running protocol refreshes
  // every second: retiring the kept ones too grew retired_ without bound).
  std::set<const TableFile*> kept;
  for (auto& [name, vt] : (*fresh)->files_)
    for (int c = 0; c < 2; ++c)
      for (auto& [key, s] : vt.slots[c])
        if (s.owner) kept.insert(s.owner.get());
  for (auto& [name, vt] : files_)
    for (int c = 0; c < 2; ++c)
      for (auto& [key, s] : vt.slots[c])
        if (s.owner && !kept.count(s.owner.get())) {
          retired_.push_back(s.owner);
          changed = true;
        }
  // Nothing changed: the loaded classes' record stays (load() makes it again otherwise).
  if (!changed)
    for (auto& [name, vt] : (*fresh)->files_)
      if (const auto old = files_.find(name); old != files_.end())
        vt.loaded_plain.store(old->second.loaded_plain.load(std::memory_order_acquire), std::memory_order_release);
  files_ = std::move((*fresh)->files_);
  ignored_ = std::move((*fresh)->ignored_);
  return changed;
}

std::vector<std::string> Tablebase::variants() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : files_)
    if (!v.slots[0].empty()) out.push_back(k);
  return out;
}

std::vector<ClassKey> Tablebase::classes(const std::string& variant) const {
  std::vector<ClassKey> out;
  if (auto it = files_.find(variant); it != files_.end())
    for (const auto& [k, p] : it->second.slots[0]) out.push_back(k);
  return out;
}

const Tablebase::VariantTables* Tablebase::tables_of(const Variant& v) const {
  const auto it = files_.find(v.name());
  return it == files_.end() ? nullptr : &it->second;
}

const Tablebase::Slot* Tablebase::slot_in(const VariantTables* vt, const ClassKey& key, TableContent content) {
  if (!vt) return nullptr;
  const int c = static_cast<int>(content);
  if (key.state == 0) {
    const auto& plain = vt->plain[c];
    return key.seeds >= 0 && static_cast<std::size_t>(key.seeds) < plain.size() ? plain[static_cast<std::size_t>(key.seeds)]
                                                                                 : nullptr;
  }
  const auto jt = vt->slots[c].find(key);
  return jt == vt->slots[c].end() ? nullptr : &jt->second;
}

const Tablebase::Slot* Tablebase::slot(const Variant& v, const ClassKey& key, TableContent content) const {
  return slot_in(tables_of(v), key, content);
}

bool Tablebase::covers(const Variant& v, const ClassKey& key, TableContent content) const {
  return slot(v, key, content) != nullptr;
}

std::expected<const TableFile*, TableError> Tablebase::open_slot(const Variant& v, const ClassKey& key,
                                                                 TableContent content, const Slot& s) const {
  std::lock_guard lock(mu_);
  if (const TableFile* t = s.ready.load(std::memory_order_acquire)) return t;
  auto t = TableCache::instance().open(s.path, v, key, content);
  if (!t) return std::unexpected(t.error());
  s.owner = *t;
  s.ready.store(s.owner.get(), std::memory_order_release);
  return s.owner.get();
}

std::expected<const TableFile*, TableError> Tablebase::table(const Variant& v, const ClassKey& key,
                                                             TableContent content) const {
  return table_in(v, tables_of(v), key, content);
}

std::expected<const TableFile*, TableError> Tablebase::table_in(const Variant& v, const VariantTables* vt,
                                                                const ClassKey& key, TableContent content) const {
  const Slot* s = slot_in(vt, key, content);
  if (!s) {
    const char* what = content == TableContent::Values ? "table" : "distance table";
    if (!vt)
      return std::unexpected(TableError{TableError::NotFound, dir_.string() + ": no tables for " + v.name()});
    return std::unexpected(TableError{TableError::NotFound, dir_.string() + ": no " + what + " for " + v.name() + " class " +
                                                                to_string(key, v.pits()) + " (generate with --max-seeds " +
                                                                std::to_string(key.seeds) + " or more" +
                                                                (content == TableContent::Distances ? " and --distances)" : ")")});
  }
  if (const TableFile* t = s->ready.load(std::memory_order_acquire)) return t;
  return open_slot(v, key, content, *s);
}

namespace {
// The entry of `p` in `t`, a value or distance file of p's class.
std::expected<Value, TableError> entry_of(const TableFile& t, const Position& p) {
  const ClassIndex& idx = *t.ready_index();
  if (!idx.allowed(p)) return std::unexpected(TableError{TableError::BadPosition, "position is not indexed by its class"});
  return t.value(idx.rank(p));
}
}  // namespace

std::expected<Value, TableError> Tablebase::value(const Variant& v, const Position& p, const ClassKey& key) const {
  auto t = table(v, key);
  if (!t) return std::unexpected(t.error());
  return entry_of(**t, p);
}

std::expected<Value, TableError> Tablebase::value(const Variant& v, const Position& p) const {
  return value(v, p, v.class_of(p));
}

std::expected<Value, TableError> Tablebase::value(const Variant& v, const VariantTables* files, const Position& p) const {
  auto t = table_in(v, files, v.class_of(p), TableContent::Values);
  if (!t) return std::unexpected(t.error());
  return entry_of(**t, p);
}

std::expected<Tablebase::Loaded, TableError> Tablebase::load(const Variant& v, std::size_t max_bytes) const {
  Loaded r;
  const VariantTables* vt = tables_of(v);
  if (!vt) return r;
  // Every table of the variant, opened, smallest first (a class's values before its distances).
  struct Item {
    std::uint64_t bytes;
    int content;
    const TableFile* t;
  };
  std::vector<Item> items;
  for (int c = 0; c < 2; ++c)
    for (const auto& [key, s] : vt->slots[c]) {
      auto t = table_in(v, vt, key, static_cast<TableContent>(c));
      if (!t) return std::unexpected(t.error());
      items.push_back({(*t)->bytes_to_load(), c, *t});
    }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.bytes != b.bytes ? a.bytes < b.bytes : a.content < b.content;
  });
  for (const Item& it : items) r.bytes += it.t->loaded_bytes();
  for (const Item& it : items) {
    if (it.t->loaded_bytes()) {
      ++r.classes;
      continue;
    }
    if (it.t->load_failed()) {  // reported by the call that tried it
      ++r.left;
      continue;
    }
    if (r.bytes + it.bytes > max_bytes) {
      ++r.left;
      continue;
    }
    auto n = it.t->load();
    if (!n) return std::unexpected(n.error());
    r.bytes += *n;
    ++r.classes;
    TableCache::instance().recount(*it.t);
  }
  publish_loaded_plain(*vt);
  return r;
}

// The short way's record of vt's loaded plain classes (LoadedPlain): those that rank
// by their pits with the filter of the first of them, all ranked by the table of the
// most seeds among them.
void Tablebase::publish_loaded_plain(const VariantTables& vt) const {
  auto lp = std::make_unique<LoadedPlain>();
  const DistributionIndex* first = nullptr;
  int most = -1;
  for (std::size_t s = 0; s < vt.plain[0].size(); ++s) {
    const Slot* slot = vt.plain[0][s];
    const TableFile* t = slot ? slot->ready.load(std::memory_order_acquire) : nullptr;
    if (!t || !t->loaded_values() || !t->ready_index()->ranks_pits()) continue;
    const DistributionIndex& d = t->ready_index()->distribution();
    if (!first) first = &d;
    if (d.pits() != first->pits() || !(d.filter() == first->filter())) continue;
    lp->classes.resize(s + 1);
    lp->classes[s] = {t->loaded_values(), t->header().positions, t->header().value_width};
    most = static_cast<int>(s);
  }
  if (most < 0) return;
  lp->count = static_cast<unsigned>(lp->classes.size());
  lp->rank = distribution_index(first->pits(), first->filter(), std::max(most, 1));
  std::lock_guard lock(mu_);
  if (const LoadedPlain* old = vt.loaded_plain.load(std::memory_order_acquire);
      old && old->classes.size() == lp->classes.size() &&
      std::equal(old->classes.begin(), old->classes.end(), lp->classes.begin(), [](const auto& a, const auto& b) {
        return a.values == b.values && a.positions == b.positions && a.width == b.width;
      }))
    return;  // the same classes: keep the one readers have
  vt.loaded_plain.store(lp.get(), std::memory_order_release);
  loaded_plains_.push_back(std::move(lp));
}

std::expected<int, TableError> Tablebase::distance(const Variant& v, const Position& p) const {
  auto t = table(v, v.class_of(p), TableContent::Distances);
  if (!t) return std::unexpected(t.error());
  auto d = entry_of(**t, p);
  if (!d) return std::unexpected(d.error());
  return static_cast<int>(static_cast<std::uint16_t>(*d));
}

std::expected<void, TableError> Tablebase::values(const Variant& v, std::span<const Position> ps, std::span<Value> out,
                                                  std::size_t* failed) const {
  return entries(v, tables_of(v), ps.size(), [ps](std::size_t k) -> const Position& { return ps[k]; }, out, ps.size(),
                 failed, [] {});
}

// Five passes over each group of kBatch positions: rank each; read each block's
// offsets; read each unit's start and likely bytes; read the bytes its start gives;
// decode each. The reads of a pass follow one another with little work between them,
// so their cache misses are all under way at once: when the ranking sat between them,
// the processor's window held the work of two or three positions and as many misses.
// A position that fails stops the first pass; the positions before it are still
// decoded.
template <class At, class Between>
std::expected<void, TableError> Tablebase::entries(const Variant& v, const VariantTables* vt, std::size_t count, At ps,
                                                   std::span<Value> out, std::size_t values_to, std::size_t* failed,
                                                   Between&& between) const {
  const TableFile* t[kBatch];
  Index at[kBatch];
  for (std::size_t g = 0; g < count; g += kBatch) {
    const std::size_t n = std::min(kBatch, count - g);
    std::optional<TableError> err;
    std::size_t ready = 0;
    for (; ready < n; ++ready) {
      const Position& p = ps(g + ready);
      const ClassKey key = v.class_of(p);
      const TableContent content = g + ready < values_to ? TableContent::Values : TableContent::Distances;
      // An opened class straight from its slot (no std::expected to make and destroy);
      // table_in() else, which opens it or says why not.
      const Slot* s = slot_in(vt, key, content);
      const TableFile* x = s ? s->ready.load(std::memory_order_acquire) : nullptr;
      if (!x) {
        auto opened = table_in(v, vt, key, content);
        if (!opened) {
          err = opened.error();
          break;
        }
        x = *opened;
      }
      const Index i = x->ready_index()->rank_if_allowed(p);
      if (i == DistributionIndex::kLeftOut) {
        err = TableError{TableError::BadPosition, "position is not indexed by its class"};
        break;
      }
      t[ready] = x;
      at[ready] = i;
    }
    prefetch_stages(ready, [&](std::size_t k) -> const TableFile& { return *t[k]; }, [&](std::size_t k) { return at[k]; });
    if (g == 0) between();
    for (std::size_t k = 0; k < ready; ++k) {
      if (t[k]->loaded_value(at[k], out[g + k])) continue;  // loaded: nothing to destroy
      auto e = t[k]->value(at[k]);
      if (!e) {
        if (failed) *failed = g + k;
        return std::unexpected(e.error());
      }
      out[g + k] = *e;
    }
    if (err) {
      if (failed) *failed = g + ready;
      return std::unexpected(*err);
    }
  }
  return {};
}

std::expected<ProbeResult, TableError> Tablebase::probe(const Variant& v, const VariantTables* vt, const Position& p) const {
  ProbeResult r;
  if (auto ok = probe(v, vt, p, r); !ok) return std::unexpected(ok.error());
  return r;
}

std::expected<void, TableError> Tablebase::probe(const Variant& v, const VariantTables* vt, const Position& p,
                                                 ProbeResult& r) const {
  // Kept by the thread from one probe to the next (no allocation a probe: an engine's
  // full probes spent a tenth of their time in malloc).
  thread_local Scratch scratch;
  return probe(v, vt, p, r, scratch);
}

std::expected<void, TableError> Tablebase::probe(const Variant& v, const VariantTables* vt, const Position& p,
                                                 ProbeResult& r, Scratch& scratch) const {
  r.value = 0;
  r.from_children = r.distances_missing = false;
  r.distance = 0;
  r.moves.clear();
  // (References, not a structured binding: clang's lambdas cannot capture those.)
  std::vector<Child>& kids = scratch.kids;
  std::vector<const Position*>& next = scratch.next;
  std::vector<Value>& read = scratch.read;
  std::vector<unsigned char>& stay = scratch.stay;
  v.children(p, kids);
  // Distances (docs/values.md): read where the variant has them and the class of
  // every in-class child has its file; else the moves go by value alone.
  r.distances = has_distance_tables(v);
  const ClassKey key = v.class_of(p);
  if (r.distances && !slot_in(vt, key, TableContent::Distances)) {  // no .mtz: no error to make a move
    r.distances = false;
    r.distances_missing = true;
  }
  // The children's values (and the position's own where it has no move, below), then
  // the distances of the children that stay in the class and the position's, read as
  // one batch (their cache misses overlap).
  // Whether the tables index p itself: found before the reads where it decides what
  // they are (no move: p's own value; distances: p's), else under the reads' misses.
  // An error of p's class comes before a child's, as it always has.
  bool indexed = false, own_done = false;
  std::optional<TableError> own_error;
  const auto own = [&] {
    if (own_done) return;
    own_done = true;
    indexed = v.tabled(p);
    if (indexed) {
      auto t = table_in(v, vt, key, TableContent::Values);
      if (!t) {
        own_error = t.error();
        indexed = false;
        return;
      }
      indexed = (*t)->ready_index()->allowed(p);
    }
  };
  if (kids.empty() || r.distances) {
    own();
    if (own_error) return std::unexpected(*own_error);
  }
  const auto stays = [&](const Child& c) { return !c.game_over && !c.same_side && v.class_of(c.next) == key; };
  // The position's own value is its best move's: the tables are made from the same
  // moves (verify checks each value against them), so it is read only where there is
  // no move (a full probe of a position of four moves, all cached, 15 % cheaper). There
  // it is read, not taken from the end-of-game rule: a probe then still reads the
  // position's block and reports it if damaged (Cli.VerifyPassesThenFailsOnCorruption).
  const bool own_value = indexed && kids.empty();
  next.clear();
  for (const Child& c : kids)
    if (!c.game_over) next.push_back(&c.next);
  if (own_value) next.push_back(&p);
  const std::size_t nv = next.size();
  if (r.distances) {
    stay.resize(kids.size());
    for (std::size_t k = 0; k < kids.size(); ++k)
      if ((stay[k] = stays(kids[k]))) next.push_back(&kids[k].next);
    if (indexed) next.push_back(&p);
  }
  read.resize(next.size());
  std::size_t failed = 0;
  // Under the reads: p's class, and each move's fields but its value and distance.
  // (Made in place in the list: made on the stack, its distance stored after the
  // other fields, a move was then copied into the list by wider loads, which waited
  // for that store: a store is not forwarded to a load that covers more.)
  const auto under_reads = [&] {
    own();
    r.moves.resize(kids.size());
    for (std::size_t k = 0; k < kids.size(); ++k) {
      r.moves[k].move = kids[k].move;
      r.moves[k].child = kids[k];
    }
  };
  auto ok = entries(v, vt, next.size(), [&](std::size_t k) -> const Position& { return *next[k]; }, read, nv, &failed,
                    under_reads);
  own();
  if (own_error) return std::unexpected(*own_error);
  if (!ok) {
    // A value that fails is an error; a distance file missing makes moves go by value.
    if (failed < nv || ok.error().code != TableError::NotFound) return std::unexpected(ok.error());
    r.distances = false;
    r.distances_missing = true;
  }
  if (r.moves.size() != kids.size()) under_reads();  // no read was started (nothing to read)
  const Value* cvs = read.data();
  const Value* ds = read.data() + nv;
  if (own_value) r.value = cvs[nv - 1];
  if (r.distances && indexed) r.distance = static_cast<std::uint16_t>(read.back());
  std::size_t at = 0, dat = 0;
  for (std::size_t k = 0; k < kids.size(); ++k) {
    const Child& c = kids[k];
    const Value cv = c.game_over ? 0 : cvs[at++];
    int distance = 0;
    if (r.distances) {
      if (!stay[k]) {
        distance = 1;
      } else {
        const int d = static_cast<std::uint16_t>(ds[dat++]);
        distance = d || cv != 0 ? 1 + d : 0;  // (0 and a value: a game over, reached in 1)
      }
    }
    MoveValue& m = r.moves[k];
    m.value = move_value(v.kind(), c, cv);
    m.distance = distance;  // 0 without distances
  }
  // Best first, ties in move order: an insertion sort (stable, and no buffer to
  // allocate as std::stable_sort's; a position has a few moves).
  const auto before = [&](const MoveValue& a, const MoveValue& b) {
    if (a.value != b.value) return a.value > b.value;
    if (!r.distances || a.value == 0) return false;
    return a.value > 0 ? a.distance < b.distance : a.distance > b.distance;
  };
  for (std::size_t k = 1; k < r.moves.size(); ++k) {
    std::size_t j = k;
    if (!before(r.moves[k], r.moves[j - 1])) continue;
    MoveValue m = r.moves[k];
    for (; j > 0 && before(m, r.moves[j - 1]); --j) r.moves[j] = r.moves[j - 1];
    r.moves[j] = m;
  }
  if (!kids.empty()) r.value = r.moves.front().value;
  if (!indexed) {
    r.from_children = true;
    if (kids.empty()) r.value = v.terminal_value(p);
    if (r.distances && r.value != 0 && !kids.empty()) r.distance = r.moves.front().distance;
  }
  return {};
}

}  // namespace mancala
