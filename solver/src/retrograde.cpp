// Retrograde analysis of one class on this process's threads: the one core of
// class_solver.h over the local transport (see retrograde.h for the contract).
#include "mancala/retrograde.h"

#include "mancala/class_solver.h"
#include "mancala/rules.h"

namespace mancala {

Result<std::shared_ptr<ClassValues>> solve_class(const Variant& v, const ClassIndex& index, const SolvedClasses& solved,
                                                 const SolveOptions& options, SolveStats* stats) {
  core::LocalTransport local;
  auto bytes = core::solve_slice(v, index, solved, options, local, stats);
  if (!bytes) return std::unexpected(bytes.error());
  return std::make_shared<ClassValues>(index, v.kind(), std::move(*bytes));  // no zeroed copy first
}

Result<std::shared_ptr<ClassValues>> solve_class(const Variant& v, const ClassKey& key, const SolvedClasses& solved,
                                                 const SolveOptions& options, SolveStats* stats) {
  return solve_class(v, ClassIndex(v, key), solved, options, stats);
}

std::optional<Value> lookup(const Variant& v, const SolvedClasses& solved, const Position& p) {
  if (!v.tabled(p)) return std::nullopt;
  const ClassValues* cls = solved.find(v.class_of(p));
  if (!cls || !cls->index().contains(p)) return std::nullopt;
  return cls->get(cls->index().rank(p));
}

}  // namespace mancala
