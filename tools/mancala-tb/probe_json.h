// One answer of `probe` as JSON, shared by `probe --json`, `probe -` and `serve` (one
// writer: the server's answers are probe's, plus what only the server adds).
#pragma once

#include <expected>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mancala/notation.h"
#include "mancala/probe.h"

namespace mancala::cli {

// One answer of probe: the value and every move's value, or an error. `input` is the
// position as the user wrote it.
struct ProbeAnswer {
  std::optional<ParsedPosition> pp;
  std::expected<ProbeResult, TableError> result = std::unexpected(TableError{TableError::Internal, ""});
};

// A value in JSON: the margin (score games), or "win"/"draw"/"loss" and "depth", the
// plies to the end (win/loss games).
void put_value(nlohmann::ordered_json& o, GameKind kind, Value value);
// Parses and probes `input`; never throws (errors are answers).
ProbeAnswer probe_one(const Tablebase& tb, const std::string& input);
// --load MIB (probe, serve): every variant's tables in `tb` loaded into memory
// (Tablebase::load), the smallest classes first, within `budget` bytes in all; 0 does
// nothing.
// A table that fails to load is named on stderr after `cmd` and read in place (its
// answers then say what is wrong with it). Returns the bytes loaded.
std::size_t load_tables(const Tablebase& tb, std::size_t budget, const char* cmd);
// {"position", "value"[, "depth"], "moves": [{"move", "value"[, "depth"], "gains"}]}, or
// {"input", "error", "code"} (docs/notation.md, "probe --json").
nlohmann::ordered_json answer_json(const std::string& input, const ProbeAnswer& a);

}  // namespace mancala::cli
