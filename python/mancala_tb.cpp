// mancala_tb: the probe library from Python (pybind11).
//
//   import mancala_tb
//   tb = mancala_tb.open("tb/")
//   r = tb.probe("oware 1,0,0,2,0,0/0,1,0,0,1,0 S")
//   r.value, r.plies, r.best.move, [(m.move, m.value) for m in r.moves]
//   mancala_tb.play("oware 1,0,0,2,0,0/0,1,0,0,1,0 S", "3").position
//
// Values are those of `mancala-tb probe` and the C API: the margin the side to move can
// force (score games) or +1 / 0 / -1 with `plies` to the end (win/loss games). Errors are
// Python exceptions: PositionError (a ValueError), NotFoundError (a LookupError: no table
// for the position's class), CorruptError, all subclasses of mancala_tb.Error.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

class PyTablebase {
 public:
  explicit PyTablebase(const std::string& dir) {
    auto tb = Tablebase::open(dir);
    if (!tb) fail(tb.error());
    tb_ = *tb;
  }

  PyResult probe(const std::string& text) const {
    const ParsedPosition pp = parse(text);
    const Variant& v = *pp.variant;
    std::expected<ProbeResult, TableError> r = std::unexpected(TableError{TableError::Internal, ""});
    {
      py::gil_scoped_release unlocked;  // the tables are thread-safe; other Python threads run meanwhile
      r = tb_->probe(v, pp.position);
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
    const Variant& v = *pp.variant;
    std::expected<Value, TableError> r = std::unexpected(TableError{TableError::Internal, ""});
    {
      py::gil_scoped_release unlocked;
      r = tb_->value(v, pp.position);
      if (!r && r.error().code == TableError::BadPosition) {  // not indexed itself: from its moves
        auto pr = tb_->probe(v, pp.position);
        if (pr) r = pr->value;
        else r = std::unexpected(pr.error());
      }
    }
    if (!r) fail(r.error());
    return py_value(v.kind(), *r);
  }

  std::string dir() const { return tb_->dir().string(); }
  std::vector<std::string> variants() const { return tb_->variants(); }

 private:
  std::shared_ptr<Tablebase> tb_;
};

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

PYBIND11_MODULE(mancala_tb, m) {
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

  py::class_<PyTablebase>(m, "Tablebase", "A folder of tables; thread-safe.")
      .def_property_readonly("dir", &PyTablebase::dir)
      .def("variants", &PyTablebase::variants, "the variants with tables in the folder")
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
