// Vocabulary of the project: the small strong types every module speaks.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace mancala {

using Seeds = std::uint8_t;  // seeds in one pit (at most 56 on any board here)
using Pit = int;             // pit number along the sowing circuit, 0-based

constexpr int kMaxPits = 24;  // Enkeshui 2 x 12 is the largest board

enum class Side : std::uint8_t { South = 0, North = 1 };
constexpr Side opposite(Side s) { return s == Side::South ? Side::North : Side::South; }
constexpr char side_char(Side s) { return s == Side::South ? 'S' : 'N'; }

// What a pit is besides its seeds: the irreversible state of docs/rules/.
//   None   a plain pit in play
//   South  tied (Kotu-baendum) or a bull (Enkeshui) owned by South; holds no live seeds
//   North  the same, owned by North
//   Closed an Imbelece pit closed ("married"); holds no seeds, never sown into
enum class Mark : std::uint8_t { None = 0, South = 1, North = 2, Closed = 3 };

// Position flags (rare, see docs/notation.md "Flags").
enum PositionFlag : std::uint8_t {
  kFirstMove = 1u << 0,  // first move of the game (Kotu-baendum, Imbelece)
  kAtappe = 1u << 1,     // Cenne: the forced atappe reply is due
  kFlipped = 1u << 2,    // Cenne A:B seen from the other side (the board is B:A)
};

// Value of a position for the side to move.
//  * Score games: the margin of the seeds still in play (docs/values.md).
//  * Win/loss games: kWinValue - plies for a win in `plies`, -(kWinValue - plies)
//    for a loss, 0 for a draw, so that larger is always better for the mover.
using Value = std::int16_t;
constexpr Value kWinValue = 30000;
constexpr Value kNoValue = INT16_MIN;  // "not in the tables / unknown"

enum class GameKind : std::uint8_t { Score, WinLoss };

constexpr bool is_win(Value v) { return v > 0; }
constexpr int plies_of(Value v) { return v > 0 ? kWinValue - v : v < 0 ? kWinValue + v : 0; }

// The value, from the mover's view, of a child whose value is `v` from the child's
// side to move, for a win/loss game: a win in d plies becomes a loss in d+1 plies.
constexpr Value negate_step(Value v) {
  return static_cast<Value>(v > 0 ? -v + 1 : v < 0 ? -v - 1 : 0);
}

// A move, packed into 32 bits:
//   bits 0-4   start pit, counted from the mover's left (0..23)
//   bits 5-6   kind: 0 sow, 1 pass, 2 claim (Cenne), 3 forced reply (Cenne atappe)
//   bit  7     the first lap is sown clockwise (Kotu-baendum's first move)
//   bits 8-12  number of lap-direction choices that follow (Enkeshui), 0..19
//   bits 13-31 choice i (0-based) is bit 13+i: 1 = clockwise, 0 = counterclockwise
// Example: Enkeshui "2:cw,ccw" = pit 2 | 2 << 8 | 1 << 13 = 0x2202.
class Move {
 public:
  enum Kind : std::uint32_t { Sow = 0, Pass = 1, Claim = 2, Forced = 3 };
  static constexpr int kMaxChoices = 19;

  constexpr Move() = default;
  static constexpr Move sow(int pit) { return Move(static_cast<std::uint32_t>(pit) & 31u); }
  static constexpr Move pass() { return Move(Pass << 5); }
  static constexpr Move claim() { return Move(Claim << 5); }
  static constexpr Move forced(int pit) { return Move((Forced << 5) | (static_cast<std::uint32_t>(pit) & 31u)); }
  static constexpr Move from_bits(std::uint32_t b) { return Move(b); }

  constexpr int pit() const { return static_cast<int>(bits_ & 31u); }
  constexpr Kind kind() const { return static_cast<Kind>((bits_ >> 5) & 3u); }
  constexpr bool clockwise_start() const { return (bits_ >> 7) & 1u; }
  constexpr int choices() const { return static_cast<int>((bits_ >> 8) & 31u); }
  constexpr bool choice_clockwise(int i) const { return (bits_ >> (13 + i)) & 1u; }
  constexpr std::uint32_t bits() const { return bits_; }

  constexpr Move with_clockwise_start() const { return Move(bits_ | (1u << 7)); }
  // Appends one lap-direction choice; the caller keeps choices() < kMaxChoices.
  constexpr Move with_choice(bool clockwise) const {
    const std::uint32_t n = static_cast<std::uint32_t>(choices());
    std::uint32_t b = (bits_ & ~(31u << 8)) | ((n + 1) << 8);
    if (clockwise) b |= 1u << (13 + n);
    return Move(b);
  }

  friend constexpr bool operator==(Move a, Move b) { return a.bits_ == b.bits_; }

 private:
  constexpr explicit Move(std::uint32_t b) : bits_(b) {}
  std::uint32_t bits_ = 0;
};
static_assert(sizeof(Move) == 4);

// "3", "pass", "claim", "6:cw" (clockwise first lap), "2:cw,ccw" (Enkeshui choices).
std::string to_string(Move m);

}  // namespace mancala
