#include "mancala/variant.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "mancala/rules.h"

namespace mancala {

std::string to_string(Move m) {
  switch (m.kind()) {
    case Move::Pass: return "pass";
    case Move::Claim: return "claim";
    case Move::Forced: return "reply";
    case Move::Sow: break;
  }
  std::string s = std::to_string(m.pit());
  if (m.clockwise_start()) s += ":cw";
  for (int i = 0; i < m.choices(); ++i) {
    s += (i == 0 && !m.clockwise_start()) ? ':' : ',';
    s += m.choice_clockwise(i) ? "cw" : "ccw";
  }
  return s;
}

std::size_t PositionHash::operator()(const Position& p) const noexcept {
  std::uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < kMaxPits; ++i) {
    h = (h ^ p.pits[static_cast<std::size_t>(i)]) * 1099511628211ull;
    h = (h ^ static_cast<std::uint8_t>(p.marks[static_cast<std::size_t>(i)])) * 1099511628211ull;
  }
  h = (h ^ p.flags) * 1099511628211ull;
  h = (h ^ static_cast<std::uint8_t>(p.jeppe)) * 1099511628211ull;
  return static_cast<std::size_t>(h);
}

Position skeleton_of(const ClassKey& k, int pits) {
  Position p;
  for (int i = 0; i < pits; ++i) p.marks[static_cast<std::size_t>(i)] = static_cast<Mark>((k.state >> (2 * i)) & 3u);
  p.flags = static_cast<std::uint8_t>((k.state >> 48) & 0xFFu);
  p.jeppe = static_cast<std::int8_t>(static_cast<int>((k.state >> 56) & 31u) - 1);
  return p;
}

std::string to_string(const ClassKey& k, int pits) {
  std::string s = std::to_string(k.seeds);
  if (k.state == 0) return s;
  const Position p = skeleton_of(k, pits);
  std::string extra;
  for (int i = 0; i < pits; ++i) {
    const Mark m = p.marks[static_cast<std::size_t>(i)];
    if (m == Mark::None) continue;
    if (!extra.empty()) extra += ' ';
    extra += std::to_string(i) + (m == Mark::South ? "S" : m == Mark::North ? "N" : "x");
  }
  if (p.flags & kAtappe) extra += extra.empty() ? "atappe" : " atappe";
  if (p.flags & kFlipped) extra += extra.empty() ? "flipped" : " flipped";
  if (p.flags & kFirstMove) extra += extra.empty() ? "first" : " first";
  if (p.jeppe >= 0) extra += (extra.empty() ? "jeppe=" : " jeppe=") + std::to_string(p.jeppe);
  return s + " [" + extra + "]";
}

Position Variant::rotate(const Position& p) const {
  const int n = pits();
  const int k = n / 2;
  Position r;
  for (int i = 0; i < n; ++i) {
    const auto from = static_cast<std::size_t>((i + k) % n);
    r.pits[static_cast<std::size_t>(i)] = p.pits[from];
    Mark m = p.marks[from];
    if (m == Mark::South) m = Mark::North;
    else if (m == Mark::North) m = Mark::South;
    r.marks[static_cast<std::size_t>(i)] = m;
  }
  r.flags = p.flags;
  r.jeppe = p.jeppe < 0 ? -1 : static_cast<std::int8_t>((p.jeppe + k) % n);
  return r;
}

std::string Variant::check(const Position& p) const {
  int total = 0;
  for (int i = 0, n = pits(); i < n; ++i) {  // n: one virtual call, not one a pit
    const auto u = static_cast<std::size_t>(i);
    if (p.marks[u] != Mark::None && p.pits[u] != 0)
      return "pit " + std::to_string(i) + " is marked and must be written with 0 seeds";
    if (p.marks[u] != Mark::None) return "pit " + std::to_string(i) + ": " + name() + " has no tied, bull or closed pits";
    total += p.pits[u];
  }
  if (total > total_seeds())
    return std::to_string(total) + " seeds on the board, but " + name() + " is played with at most " +
           std::to_string(total_seeds());
  if (p.flags != 0) return name() + " has no position flags";
  if (p.jeppe >= 0) return name() + " has no jeppe pit";
  return {};
}

ClassKey Variant::class_of(const Position& p) const {
  const std::uint64_t s = pack_state(p, pits());
  if (s == 0) return ClassKey{0, p.seeds_in(0, pits())};
  return ClassKey{std::min(s, turned_state(p)), p.seeds_in(0, pits())};
}

std::vector<ClassKey> Variant::solving_order(int max_seeds) const {
  std::vector<ClassKey> out;
  for (ClassKey k : classes(max_seeds)) {
    if (k.state != 0) k.state = std::min(k.state, turned_state(skeleton_of(k, pits())));
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

std::vector<ClassKey> Variant::classes(int max_seeds) const {
  std::vector<ClassKey> out;
  for (int n = 0; n <= max_seeds; ++n) out.push_back(ClassKey{0, n});
  return out;
}

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Result<VariantPtr> make_variant(std::string_view spec) {
  const auto parts = split(spec, ':');
  const std::string_view base = parts[0];
  auto no_params = [&](VariantPtr v) -> Result<VariantPtr> {
    if (parts.size() > 1) return fail_with(Error::InvalidArgument, "variant '" + std::string(base) + "' takes no parameters");
    return v;
  };
  if (base == "djenon-aboure") return no_params(std::make_shared<DjenonAboure>());
  if (base == "oware" || base == "awari") return no_params(std::make_shared<Oware>());
  if (base == "kalah") {
    int m = 6;
    Kalah::Capture cap = Kalah::Capture::Empty;
    if (parts.size() > 3) return fail_with(Error::InvalidArgument, "kalah takes at most two parameters: kalah:M:empty|standard");
    if (parts.size() >= 2) {
      const auto v = parse_int(parts[1]);
      if (!v || *v < 1 || *v > 6) return fail_with(Error::InvalidArgument, "kalah: pits per side must be a number from 1 to 6, got '" + std::string(parts[1]) + "'");
      m = *v;
    }
    if (parts.size() == 3) {
      if (parts[2] == "empty") cap = Kalah::Capture::Empty;
      else if (parts[2] == "standard") cap = Kalah::Capture::Standard;
      else return fail_with(Error::InvalidArgument, "kalah: capture option must be 'empty' or 'standard', got '" + std::string(parts[2]) + "'");
    }
    return std::make_shared<Kalah>(m, cap);
  }
  if (base == "kotu-baendum") return no_params(std::make_shared<KotuBaendum>());
  if (base == "imbelece") return no_params(std::make_shared<Imbelece>());
  if (base == "cenne") {
    int a = 7, b = 7;
    if (parts.size() == 2 || parts.size() > 3) return fail_with(Error::InvalidArgument, "cenne takes two parameters or none: cenne:A:B, pits in play for South and North (4..7)");
    if (parts.size() == 3) {
      const auto va = parse_int(parts[1]);
      const auto vb = parse_int(parts[2]);
      if (!va || !vb || *va < 4 || *va > 7 || *vb < 4 || *vb > 7)
        return fail_with(Error::InvalidArgument, "cenne: pits in play per side must be numbers from 4 to 7, got '" + std::string(spec) + "'");
      a = *va;
      b = *vb;
    }
    return std::make_shared<Cenne>(a, b);
  }
  if (base == "enkeshui") {
    if (parts.size() < 2 || parts.size() > 3) return fail_with(Error::InvalidArgument, "enkeshui takes the row length: enkeshui:8, enkeshui:8:b, enkeshui:10 or enkeshui:12");
    const auto k = parse_int(parts[1]);
    if (!k || (*k != 8 && *k != 10 && *k != 12)) return fail_with(Error::InvalidArgument, "enkeshui: row length must be 8, 10 or 12, got '" + std::string(parts[1]) + "'");
    bool alt = false;
    if (parts.size() == 3) {
      if (*k != 8 || (parts[2] != "a" && parts[2] != "b")) return fail_with(Error::InvalidArgument, "enkeshui: only the 2 x 8 board has start layouts a and b");
      alt = parts[2] == "b";
    }
    return std::make_shared<Enkeshui>(*k, alt);
  }
  std::string known;
  for (const auto& d : variant_docs()) known += (known.empty() ? "" : ", ") + d.name;
  return fail_with(Error::InvalidArgument, "unknown variant '" + std::string(spec) + "' (known: " + known + ")");
}

std::vector<VariantDoc> variant_docs() {
  std::vector<VariantDoc> docs = {
      {"djenon-aboure", "", "djenon-aboure", "2 x 6, no stores; first seed back into the emptied pit, relay, capture of 2s and 4s"},
      {"oware", "", "oware", "Oware/Awari, Romein & Bal's rules (alias: awari)"},
      {"kalah", ":M:empty|standard", "kalah:6:empty", "Kalah(M,n), M = 1..6 pits per side; capture option empty (Irving et al.) or standard"},
  };
  docs.push_back({"kotu-baendum", "", "kotu-baendum", "2 x 7, two stores; skipping 3s, capture of 4, ties of the end holes"});
  docs.push_back({"cenne", ":A:B", "cenne:7:7", "2 x 7 in rounds; A, B = pits in play per side (4..7); murte, wanasu, atappe, claim"});
  docs.push_back({"enkeshui", ":K[:a|b]", "enkeshui:8", "2 x K (8, 10, 12), 48 seeds; bulls, direction privilege"});
  docs.push_back({"imbelece", "", "imbelece", "three rows, 16-pit circuit, closed pits; win/loss with plies"});
  return docs;
}

}  // namespace mancala
