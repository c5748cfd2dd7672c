// mancala_tb: the probe library from Python (pybind11).
//
// Built as mancala_tb._core; the package mancala_tb (python/mancala_tb/) re-exports it
// with type stubs.
//
//   import mancala_tb
//   with mancala_tb.open("tb/") as tb:
//     tb.values("kalah:4:empty", 12)        # numpy array, every position of the class
//     list(tb.positions("kalah:4:empty", 3)) # the positions, code order
//     r = tb.probe("kalah:4:empty 1,0,3,0/2,1,0,4 S")
//     r.value, r.plies, r.best.move, [(m.move, m.value) for m in r.moves]
//   mancala_tb.play("oware 1,0,0,2,0,0/0,1,0,0,1,0 S", "3").position
//
// Values are those of `mancala-tb probe` and the C API: the margin the side to move can
// force (score games) or +1 / 0 / -1 with `plies` to the end (win/loss games). Errors are
// Python exceptions: PositionError (a ValueError), NotFoundError (a LookupError: no table
// for the position's class), CorruptError, all subclasses of mancala_tb.Error.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mancala/index.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "mancala/turn.h"
#include "mancala/version.h"

namespace py = pybind11;
using namespace mancala;

namespace {

// A library error on its way to Python.
struct Failure {
  TableError::Code code;
  std::string message;
};

[[noreturn]] void fail(const TableError& e) { throw Failure{e.code, e.message}; }

int py_value(GameKind kind, Value v) {
  if (kind == GameKind::Score) return v;
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

// A position from a string, or from a variant, pits and side: pits as a flat list (split
// into two equal halves) or as a list of halves, each pit a number or a string ("0x",
// "0S": closed pits, bulls); flags appended as written ("first", "jeppe=4").
std::string position_text(const py::object& position, const py::object& pits, const std::string& side,
                          const std::string& flags) {
  const std::string head = py::str(position);
  if (pits.is_none()) return head;
  auto pit_text = [](const py::handle& p) { return std::string(py::str(p)); };
  std::vector<std::vector<std::string>> halves;
  py::list all = py::list(pits);
  const bool nested = py::len(all) > 0 && (py::isinstance<py::list>(all[0]) || py::isinstance<py::tuple>(all[0]));
  if (nested) {
    for (const auto& half : all) {
      halves.emplace_back();
      for (const auto& p : py::list(py::reinterpret_borrow<py::object>(half))) halves.back().push_back(pit_text(p));
    }
  } else {
    const std::size_t n = py::len(all);
    if (n % 2) throw Failure{TableError::BadPosition, "a flat list of pits must have an even length (or give the two halves)"};
    halves.resize(2);
    for (std::size_t i = 0; i < n; ++i) halves[i < n / 2 ? 0 : 1].push_back(pit_text(all[i]));
  }
  std::string text = head + " ";
  for (std::size_t h = 0; h < halves.size(); ++h) {
    if (h) text += "/";
    for (std::size_t i = 0; i < halves[h].size(); ++i) text += (i ? "," : "") + halves[h][i];
  }
  text += " " + side;
  if (!flags.empty()) text += " " + flags;
  return text;
}

ParsedPosition parse(const std::string& text) {
  auto pp = parse_position(text);
  if (!pp) throw Failure{pp.error().code, pp.error().message};
  return *pp;
}

// Plies to the end of a win/loss game; None for a score game (a margin has no length).
std::optional<int> py_plies(GameKind kind, Value v) {
  if (kind == GameKind::Score) return std::nullopt;
  return plies_of(v);
}

struct PyMove {
  std::string move;
  int value = 0;
  std::optional<int> plies;
  std::pair<int, int> gains;
  std::optional<int> distance;  // Result.distances only
  std::string repr() const {
    return "Move(move='" + move + "', value=" + std::to_string(value) + (plies ? ", plies=" + std::to_string(*plies) : "") + ")";
  }
};

struct PyResult {
  std::string position;
  std::string kind;  // "score" or "win_loss"
  int value = 0;
  std::optional<int> plies;
  bool from_children = false;
  std::optional<int> distance;  // None without distance tables
  std::vector<PyMove> moves;
  std::optional<PyMove> best() const { return moves.empty() ? std::nullopt : std::optional<PyMove>(moves.front()); }
  std::string outcome() const { return value > 0 ? "win" : value < 0 ? "loss" : "draw"; }
  std::string repr() const {
    return "Result(position='" + position + "', value=" + std::to_string(value) +
           (plies ? ", plies=" + std::to_string(*plies) : "") + ", moves=" + std::to_string(moves.size()) + ")";
  }
};

// One turn played by the rules engine (the C API's mtb_turn, mancala_probe.h).
struct PyTurn {
  std::string move;
  std::optional<std::string> position;  // the position after it; None when the move itself ends the game
  std::pair<int, int> gains;             // seeds won by the mover and the opponent
  bool game_over = false, same_side = false;
  int end_value = 0;  // game over: what the end adds for the mover beyond the gains
};

// A class's position written out: South to move, except a Cenne A:B position seen from
// the other side (kFlipped), which only North to move can write.
std::string class_position_text(const Variant& v, const Position& p) {
  return format_position(v, p, (p.flags & kFlipped) ? Side::North : Side::South);
}

// One class of a variant's tables: the table file and the index of its positions.
struct ClassRef {
  VariantPtr variant;
  ClassKey key;
  const TableFile* table = nullptr;  // kept by the Tablebase handle; used only during a call on it
  std::shared_ptr<const ClassIndex> index;
};

// A class as Python sees it (Tablebase.classes).
struct PyClass {
  std::string variant, label;
  int seeds = 0;
  std::uint64_t state = 0;
  std::uint64_t size = 0;  // positions of the class (South to move); 0 until opened
  std::string repr() const {
    return "TableClass(variant='" + variant + "', seeds=" + std::to_string(seeds) + ", label='" + label +
           "', size=" + std::to_string(size) + ")";
  }
};

class PyTablebase {
 public:
  explicit PyTablebase(const std::string& dir) {
    auto tb = Tablebase::open(dir);
    if (!tb) fail(tb.error());
    tb_ = *tb;
  }

  void close() { tb_.reset(); }
  bool closed() const { return !tb_; }

  PyResult probe(const std::string& text) const {
    const ParsedPosition pp = parse(text);
    const Variant& v = *pp.variant;
    const auto tb = get();
    std::expected<ProbeResult, TableError> r = std::unexpected(TableError{TableError::Internal, ""});
    {
      py::gil_scoped_release unlocked;  // the tables are thread-safe; other Python threads run meanwhile
      r = tb->probe(v, pp.position);
    }
    if (!r) fail(r.error());
    PyResult out;
    out.position = format_position(v, pp.position, pp.side);
    out.kind = v.kind() == GameKind::Score ? "score" : "win_loss";
    out.value = py_value(v.kind(), r->value);
    out.plies = py_plies(v.kind(), r->value);
    out.from_children = r->from_children;
    if (r->distances) out.distance = r->distance;
    for (const auto& m : r->moves)
      out.moves.push_back({v.move_name(m.move), py_value(v.kind(), m.value), py_plies(v.kind(), m.value),
                           {m.child.gain_mover, m.child.gain_opponent},
                           r->distances ? std::optional<int>(m.distance) : std::nullopt});
    return out;
  }

  // The value alone (no move list): cheaper.
  int value(const std::string& text) const {
    const ParsedPosition pp = parse(text);
    const auto tb = get();
    std::expected<Value, TableError> r = std::unexpected(TableError{TableError::Internal, ""});
    {
      py::gil_scoped_release unlocked;
      r = value_of(*tb, *pp.variant, pp.position);
    }
    if (!r) fail(r.error());
    return py_value(pp.variant->kind(), *r);
  }

  // Values of many positions written out: one array, the GIL released for the whole loop.
  py::array_t<std::int32_t> values_of(const std::vector<std::string>& texts) const {
    const auto tb = get();
    py::array_t<std::int32_t> out(static_cast<py::ssize_t>(texts.size()));
    std::int32_t* dst = out.mutable_data();
    std::optional<Failure> failure;
    {
      py::gil_scoped_release unlocked;
      for (std::size_t i = 0; i < texts.size() && !failure; ++i) {
        auto pp = parse_position(texts[i]);
        if (!pp) {
          failure = Failure{pp.error().code, texts[i] + ": " + pp.error().message};
          break;
        }
        auto r = value_of(*tb, *pp->variant, pp->position);
        if (!r) failure = Failure{r.error().code, texts[i] + ": " + r.error().message};
        else dst[i] = py_value(pp->variant->kind(), *r);
      }
    }
    if (failure) throw *failure;
    return out;
  }

  // Tablebase::load: (bytes loaded, tables loaded, tables left out).
  std::tuple<std::size_t, int, int> load(const std::string& spec, std::optional<std::size_t> max_bytes) const {
    const auto tb = get();
    const VariantPtr v = variant_of(spec);
    std::optional<Failure> failure;
    Tablebase::Loaded r;
    {
      py::gil_scoped_release unlocked;
      auto x = tb->load(*v, max_bytes.value_or(std::numeric_limits<std::size_t>::max()));
      if (x) r = *x;
      else failure = Failure{x.error().code, x.error().message};
    }
    if (failure) throw *failure;
    return {r.bytes, r.classes, r.left};
  }

  std::vector<PyClass> classes(const std::string& spec) const {
    const auto tb = get();
    const VariantPtr v = variant_of(spec);
    std::vector<PyClass> out;
    for (const ClassKey& k : tb->classes(v->name())) {
      auto ref = open_class(*tb, v, k);
      out.push_back({v->name(), to_string(k, v->pits()), k.seeds, k.state, ref.index->size()});
    }
    return out;
  }

  // The class of `seeds` seeds of a variant; `state` picks one where several classes
  // have that many seeds (marks, flags: see classes()).
  ClassRef find_class(const std::string& spec, int seeds, std::optional<std::uint64_t> state) const {
    const auto tb = get();
    const VariantPtr v = variant_of(spec);
    std::vector<ClassKey> found;
    for (const ClassKey& k : tb->classes(v->name()))
      if (k.seeds == seeds && (!state || k.state == *state)) found.push_back(k);
    if (found.empty())
      throw Failure{TableError::NotFound, tb->dir().string() + ": no table for " + v->name() + " with " +
                                              std::to_string(seeds) + " seeds" + (state ? " and that state" : "")};
    if (found.size() > 1) {
      std::string labels;
      for (const auto& k : found) {
        if (!labels.empty()) labels += ", ";
        labels += to_string(k, v->pits()) + " (state " + std::to_string(k.state) + ")";
      }
      throw Failure{TableError::InvalidArgument, v->name() + " has " + std::to_string(found.size()) + " classes of " +
                                                     std::to_string(seeds) + " seeds; pass state= one of: " + labels};
    }
    return open_class(*tb, v, found[0]);
  }

  // The class and rank (code) of a tabled position.
  std::pair<PyClass, std::uint64_t> code(const std::string& text) const {
    const ParsedPosition pp = parse(text);
    const auto tb = get();
    const ClassKey k = pp.variant->class_of(pp.position);
    ClassRef ref = open_class(*tb, pp.variant, k);
    if (!pp.variant->tabled(pp.position) || !ref.index->allowed(pp.position))
      throw Failure{TableError::BadPosition, text + ": not indexed by its class (a position no table holds)"};
    return {PyClass{pp.variant->name(), to_string(k, pp.variant->pits()), k.seeds, k.state, ref.index->size()},
            ref.index->rank(pp.position)};
  }

  std::string dir() const { return get()->dir().string(); }
  std::vector<std::string> variants() const { return get()->variants(); }

 private:
  std::shared_ptr<Tablebase> get() const {
    if (!tb_) throw Failure{TableError::InvalidArgument, "the tablebase is closed"};
    return tb_;
  }
  static VariantPtr variant_of(const std::string& spec) {
    auto v = make_variant(spec);
    if (!v) throw Failure{v.error().code, v.error().message};
    return *v;
  }
  static ClassRef open_class(const Tablebase& tb, const VariantPtr& v, const ClassKey& k) {
    auto t = tb.table(*v, k);
    if (!t) fail(t.error());
    auto idx = (*t)->index(*v);
    if (!idx) fail(idx.error());
    return {v, k, *t, *idx};
  }
  static std::expected<Value, TableError> value_of(const Tablebase& tb, const Variant& v, const Position& p) {
    auto r = tb.value(v, p);
    if (!r && r.error().code == TableError::BadPosition) {  // not indexed itself: from its moves
      auto pr = tb.probe(v, p);
      if (pr) r = pr->value;
      else r = std::unexpected(pr.error());
    }
    return r;
  }

  std::shared_ptr<Tablebase> tb_;
};

// The positions of one class in code order, South to move (Tablebase.positions).
class PyPositions {
 public:
  explicit PyPositions(ClassRef ref) : ref_(std::move(ref)) {}
  std::uint64_t size() const { return ref_.index->size(); }
  std::string next() {
    if (rank_ >= ref_.index->size()) throw py::stop_iteration();
    if (rank_ == 0) position_ = ref_.index->unrank(0);
    else ref_.index->next(position_);
    ++rank_;
    return class_position_text(*ref_.variant, position_);
  }

 private:
  ClassRef ref_;
  Index rank_ = 0;
  Position position_{};
};

// Values of the positions of codes `codes` of a class (all of them when codes is None).
py::array_t<std::int32_t> class_values(const ClassRef& ref, const std::optional<py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>>& codes) {
  const Index size = ref.index->size();
  const std::int64_t* in = codes ? codes->data() : nullptr;
  const std::size_t n = codes ? static_cast<std::size_t>(codes->size()) : static_cast<std::size_t>(size);
  for (std::size_t i = 0; in && i < n; ++i)
    if (in[i] < 0 || static_cast<Index>(in[i]) >= size)
      throw py::index_error("code " + std::to_string(in[i]) + " is out of range: the class has codes 0.." +
                            std::to_string(size ? size - 1 : 0));
  py::array_t<std::int32_t> out(static_cast<py::ssize_t>(n));
  std::int32_t* dst = out.mutable_data();
  std::optional<TableError> error;
  {
    py::gil_scoped_release unlocked;
    const GameKind kind = ref.variant->kind();
    const TableFile& t = *ref.table;
    if (!in) {  // the whole class: block by block, each decoded once
      const std::size_t w = t.header().value_width;
      for (std::size_t b = 0, i = 0; b < t.header().blocks() && !error; ++b) {
        auto block = t.read_block(b);
        if (!block) {
          error = block.error();
          break;
        }
        for (std::size_t k = 0; k < block->size(); k += w, ++i)
          dst[i] = py_value(kind, w == 1 ? static_cast<Value>(static_cast<std::int8_t>((*block)[k]))
                                         : static_cast<Value>(static_cast<std::int16_t>((*block)[k] | (*block)[k + 1] << 8)));
      }
    }
    // Codes in any order: a group at a time, the reads of each stage of the group
    // (format.h: the blocks' offsets, the units' lengths, their codes) before any
    // decode, so that the cache misses of a stage overlap.
    constexpr std::size_t kGroup = Tablebase::kBatch;
    for (std::size_t g = 0; in && g < n && !error; g += kGroup) {
      const std::size_t m = std::min(kGroup, n - g);
      mancala::prefetch_stages(m, [&](std::size_t) -> const TableFile& { return t; },
                               [&](std::size_t k) { return static_cast<Index>(in[g + k]); });
      for (std::size_t k = 0; k < m; ++k) {
        auto r = t.value(static_cast<Index>(in[g + k]));
        if (!r) {
          error = r.error();
          break;
        }
        dst[g + k] = py_value(kind, *r);
      }
    }
  }
  if (error) fail(*error);
  return out;
}

std::vector<PyTurn> turns_of(const std::string& text) {
  const ParsedPosition pp = parse(text);
  const Variant& v = *pp.variant;
  std::vector<Child> kids;
  v.children(pp.position, kids);
  std::vector<PyTurn> out;
  for (const Child& c : kids) {
    PyTurn t;
    t.move = v.move_name(c.move);
    t.gains = {c.gain_mover, c.gain_opponent};
    t.same_side = c.same_side;
    if (!c.game_over) t.position = format_position(v, c.next, c.same_side ? pp.side : opposite(pp.side));
    if (const std::optional<Value> worth = value_if_over(v, c)) {
      t.game_over = true;
      t.end_value = py_value(v.kind(), *worth) - (v.kind() == GameKind::Score ? c.gain_mover - c.gain_opponent : 0);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "Endgame tablebases of mancala games: exact values and ranked moves from tables made by\n"
      "`mancala-tb generate`, and the rules engine.\n\n"
      "    tb = mancala_tb.open('tb/')\n"
      "    r = tb.probe('oware 1,0,0,2,0,0/0,1,0,0,1,0 S')\n"
      "    r.value, r.plies, r.best.move, [(m.move, m.value) for m in r.moves]\n";
  m.attr("__version__") = MANCALA_VERSION_STRING;

  static py::exception<Failure> error(m, "Error");
  static py::object position_error = py::module_::import("builtins").attr("type")(
      "PositionError", py::make_tuple(error, py::module_::import("builtins").attr("ValueError")), py::dict());
  static py::object not_found_error = py::module_::import("builtins").attr("type")(
      "NotFoundError", py::make_tuple(error, py::module_::import("builtins").attr("LookupError")), py::dict());
  static py::object corrupt_error =
      py::module_::import("builtins").attr("type")("CorruptError", py::make_tuple(error), py::dict());
  position_error.attr("__module__") = "mancala_tb";
  not_found_error.attr("__module__") = "mancala_tb";
  corrupt_error.attr("__module__") = "mancala_tb";
  m.attr("PositionError") = position_error;
  m.attr("NotFoundError") = not_found_error;
  m.attr("CorruptError") = corrupt_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Failure& f) {
      PyObject* type = error.ptr();
      switch (f.code) {
        case TableError::BadPosition: type = position_error.ptr(); break;
        case TableError::NotFound: type = not_found_error.ptr(); break;
        case TableError::Corrupt:
        case TableError::Mismatch: type = corrupt_error.ptr(); break;
        default: break;
      }
      PyErr_SetString(type, f.message.c_str());
    }
  });

  py::class_<PyMove>(m, "Move", "A legal move and its value for the mover.")
      .def_readonly("move", &PyMove::move, "the move's name, as `mancala-tb moves` writes it")
      .def_readonly("value", &PyMove::value, "value of the move for the mover (margin, or +1/0/-1)")
      .def_readonly("plies", &PyMove::plies, "win/loss games: plies to the end after this move; None in score games")
      .def_readonly("gains", &PyMove::gains, "seeds won by (mover, opponent) on this move")
      .def_readonly("distance", &PyMove::distance,
                    "plies to the next exit from the class after this move, by the distance tables (None without)")
      .def("__repr__", &PyMove::repr);

  py::class_<PyResult>(m, "Result", "The value of a position and of each of its moves, best first.")
      .def_readonly("position", &PyResult::position, "the position, normalised notation")
      .def_readonly("kind", &PyResult::kind, "'score' (value: margin of seeds) or 'win_loss' (value: +1/0/-1)")
      .def_readonly("value", &PyResult::value, "the margin the side to move can force, or +1/0/-1")
      .def_readonly("plies", &PyResult::plies, "win/loss games: plies to the end under best play (0: draw); None in score games")
      .def_readonly("from_children", &PyResult::from_children, "the position itself is not tabled: valued from its moves")
      .def_readonly("distance", &PyResult::distance,
                    "score games with cycles: plies to the next exit from the class along value-optimal play "
                    "(docs/values.md); None without distance tables (generate --distances)")
      .def_readonly("moves", &PyResult::moves,
                    "every legal move, best first: by value, then by distance (shortest when ahead, longest when behind)")
      .def_property_readonly("best", &PyResult::best, "the best move (None when the game is over)")
      .def_property_readonly("outcome", &PyResult::outcome, "'win', 'draw' or 'loss' for the side to move")
      .def("__repr__", &PyResult::repr);

  py::class_<PyTurn>(m, "Turn", "One move played by the rules engine.")
      .def_readonly("move", &PyTurn::move)
      .def_readonly("position", &PyTurn::position, "the position after the move (None when the move itself ends the game)")
      .def_readonly("gains", &PyTurn::gains, "seeds won by (mover, opponent)")
      .def_readonly("game_over", &PyTurn::game_over,
                    "the game is over after the move: the move ends it, or the side to move next has no move")
      .def_readonly("end_value", &PyTurn::end_value,
                    "game over: what the end adds for the mover beyond the gains (score: the margin of the\n"
                    "seeds the rules share out; win/loss: +1/0/-1); 0 while the game goes on")
      .def_readonly("same_side", &PyTurn::same_side, "the mover moves again")
      .def("__repr__", [](const PyTurn& t) {
        return "Turn(move='" + t.move + "', position=" + (t.position ? "'" + *t.position + "'" : "None") + ")";
      });

  py::class_<PyClass>(m, "TableClass", "One class of a variant's tables: the positions of `seeds` seeds in play (and marks).")
      .def_readonly("variant", &PyClass::variant)
      .def_readonly("seeds", &PyClass::seeds)
      .def_readonly("state", &PyClass::state, "marks, flags and jeppe packed (pass as state= where several classes share seeds)")
      .def_readonly("label", &PyClass::label, "the class as `mancala-tb info` writes it: '12' or '12 [7S]'")
      .def_readonly("size", &PyClass::size, "number of positions (codes 0..size-1), South to move")
      .def("__repr__", &PyClass::repr);

  py::class_<PyPositions>(m, "Positions", "The positions of one class in code order (South to move).")
      .def("__iter__", [](PyPositions& p) -> PyPositions& { return p; })
      .def("__next__", &PyPositions::next)
      .def("__len__", &PyPositions::size);

  py::class_<PyTablebase>(m, "Tablebase", "A folder of tables; thread-safe. A context manager: closed at the end of `with`.")
      .def_property_readonly("dir", &PyTablebase::dir)
      .def_property_readonly("closed", &PyTablebase::closed)
      .def("close", &PyTablebase::close, "Drops the tables (open files, caches); later calls raise mancala_tb.Error.")
      .def("__enter__", [](PyTablebase& tb) -> PyTablebase& { return tb; })
      .def("__exit__", [](PyTablebase& tb, const py::object&, const py::object&, const py::object&) { tb.close(); })
      .def("variants", &PyTablebase::variants, "the variants with tables in the folder")
      .def("classes", &PyTablebase::classes, py::arg("variant"), "the classes of a variant with a table in the folder, by seeds")
      .def(
          "positions",
          [](const PyTablebase& tb, const std::string& variant, int seeds, std::optional<std::uint64_t> state) {
            return PyPositions(tb.find_class(variant, seeds, state));
          },
          py::arg("variant"), py::arg("seeds"), py::arg("state") = py::none(),
          "Iterator over the positions of a class in code order (South to move; North for a\n"
          "flipped Cenne A:B class): the i-th is the\n"
          "position of code i (values(variant, seeds)[i] is its value).")
      .def(
          "position",
          [](const PyTablebase& tb, const std::string& variant, int seeds, std::int64_t code, std::optional<std::uint64_t> state) {
            const ClassRef ref = tb.find_class(variant, seeds, state);
            if (code < 0 || static_cast<Index>(code) >= ref.index->size())
              throw py::index_error("code " + std::to_string(code) + " is out of range: the class has " +
                                    std::to_string(ref.index->size()) + " positions");
            return class_position_text(*ref.variant, ref.index->unrank(static_cast<Index>(code)));
          },
          py::arg("variant"), py::arg("seeds"), py::arg("code"), py::arg("state") = py::none(),
          "The position of a code of a class, written as positions() writes it.")
      .def(
          "code",
          [](const PyTablebase& tb, const std::string& position) { return tb.code(position); },
          py::arg("position"), "(TableClass, code) of a tabled position; PositionError if no table indexes it.")
      .def(
          "values",
          [](const PyTablebase& tb, const std::string& variant, int seeds,
             const std::optional<py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>>& codes,
             std::optional<std::uint64_t> state) { return class_values(tb.find_class(variant, seeds, state), codes); },
          py::arg("variant"), py::arg("seeds"), py::arg("codes") = py::none(), py::arg("state") = py::none(),
          "Values of a class as a numpy int32 array: of every position in code order (codes=None),\n"
          "or of the given codes (a list or numpy array of ints). Margins, or +1/0/-1.")
      .def("load", &PyTablebase::load, py::arg("variant"), py::arg("max_bytes") = py::none(),
           "Loads a variant's tables into memory (one byte a value, two a distance), the\n"
           "smallest classes first, up to max_bytes (None: all): a value then costs one memory\n"
           "read instead of a decode in place. Returns (bytes loaded, tables loaded, tables left\n"
           "out). The memory is given back when the tables are closed.")
      .def("values_of", &PyTablebase::values_of, py::arg("positions"),
           "Values of many positions (a list of position strings) as a numpy int32 array: tb.value\n"
           "of each, in one call.")
      .def(
          "probe",
          [](const PyTablebase& tb, const py::object& position, const py::object& pits, const std::string& side,
             const std::string& flags) { return tb.probe(position_text(position, pits, side, flags)); },
          py::arg("position"), py::arg("pits") = py::none(), py::arg("side") = "S", py::arg("flags") = "",
          "Value and every move's value: probe('oware 1,0,0,2,0,0/0,1,0,0,1,0 S') or\n"
          "probe('oware', [1,0,0,2,0,0, 0,1,0,0,1,0], 'S').")
      .def(
          "value",
          [](const PyTablebase& tb, const py::object& position, const py::object& pits, const std::string& side,
             const std::string& flags) { return tb.value(position_text(position, pits, side, flags)); },
          py::arg("position"), py::arg("pits") = py::none(), py::arg("side") = "S", py::arg("flags") = "",
          "The value only (no move list; cheaper).")
      .def(
          "best_move",
          [](const PyTablebase& tb, const py::object& position, const py::object& pits, const std::string& side,
             const std::string& flags) { return tb.probe(position_text(position, pits, side, flags)).best(); },
          py::arg("position"), py::arg("pits") = py::none(), py::arg("side") = "S", py::arg("flags") = "",
          "The best Move (None when the game is over): with distance tables, one that realises the value.");

  m.def(
      "open", [](const std::string& dir) { return PyTablebase(dir); }, py::arg("dir"),
      "Opens a table folder made by `mancala-tb generate`; NotFoundError if it is missing.");
  m.def(
      "parse",
      [](const py::object& position, const py::object& pits, const std::string& side, const std::string& flags) {
        const ParsedPosition pp = parse(position_text(position, pits, side, flags));
        return format_position(*pp.variant, pp.position, pp.side);
      },
      py::arg("position"), py::arg("pits") = py::none(), py::arg("side") = "S", py::arg("flags") = "",
      "The position in normalised notation; PositionError if it is malformed or impossible.");
  m.def(
      "legal_moves",
      [](const py::object& position, const py::object& pits, const std::string& side, const std::string& flags) {
        std::vector<std::string> names;
        for (const auto& t : turns_of(position_text(position, pits, side, flags))) names.push_back(t.move);
        return names;
      },
      py::arg("position"), py::arg("pits") = py::none(), py::arg("side") = "S", py::arg("flags") = "",
      "The names of the legal moves, in the rules engine's order (no tables needed).");
  m.def(
      "turns",
      [](const py::object& position, const py::object& pits, const std::string& side, const std::string& flags) {
        return turns_of(position_text(position, pits, side, flags));
      },
      py::arg("position"), py::arg("pits") = py::none(), py::arg("side") = "S", py::arg("flags") = "",
      "Every legal move as a Turn: the position after it and the gains.");
  m.def(
      "play",
      [](const std::string& position, const std::string& move) {
        for (auto& t : turns_of(position))
          if (t.move == move) return t;
        throw Failure{TableError::BadPosition, "'" + move + "' is not a legal move of " + position};
      },
      py::arg("position"), py::arg("move"),
      "Plays a move with the rules engine: the Turn (position after it, gains); PositionError\n"
      "if the move is not legal.");
}
