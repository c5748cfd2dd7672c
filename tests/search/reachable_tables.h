// Reachable-set retrograde tables of a root, built into a temporary folder for one
// test and removed with it: the exact values the search-side solvers are checked
// against (test_proof.cpp, test_strategy.cpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "mancala/generate.h"
#include "mancala/notation.h"
#include "mancala/probe.h"

namespace mancala::testing_support {

class ReachableTables {
 public:
  // Fails the test (ASSERT) when the root does not parse or the tables cannot be built.
  void build(const VariantPtr& v, const std::string& root_text, int max_seeds, const std::string& tag) {
    const auto root = parse_position(v, root_text);
    ASSERT_TRUE(root) << root.error().message;
    root_ = root->position;
    dir_ = std::filesystem::temp_directory_path() / ("mancala_test_" + tag + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    GenerateOptions opt;
    opt.max_seeds = max_seeds;
    opt.out = dir_;
    opt.threads = 2;
    ASSERT_TRUE(generate_reachable(*v, root_, opt));
    auto tb = Tablebase::open(dir_);
    ASSERT_TRUE(tb);
    tb_ = *tb;
  }
  ~ReachableTables() {
    tb_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  const Position& root() const { return root_; }
  const Tablebase& tables() const { return *tb_; }

 private:
  std::filesystem::path dir_;
  Position root_;
  std::shared_ptr<Tablebase> tb_;
};

}  // namespace mancala::testing_support
