// Helpers of the tablebase suite: scratch folders, the CLI, file bytes.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mancala/generate.h"

namespace mancala::test {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("mtb_test_" + std::to_string(getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

inline VariantPtr variant(const std::string& s) { return *make_variant(s); }

struct Run {
  int status;
  std::string out, err;
};
inline Run run(const std::string& args) {
  const std::string err_file = fs::temp_directory_path() / ("mtb_err_" + std::to_string(getpid()));
  const std::string cmd = std::string(MANCALA_TB_EXE) + " " + args + " 2>" + err_file;
  Run r{};
  FILE* f = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), f)) r.out += buf.data();
  const int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  std::ifstream e(err_file);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  fs::remove(err_file);
  return r;
}

inline std::vector<char> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}
inline void spit(const fs::path& p, const std::vector<char>& d) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(d.data(), static_cast<std::streamsize>(d.size()));
}

// Expects every file of `a` ending in `ext` to hold the same bytes as its namesake in `b`;
// returns how many were compared (`label` prefixes each failure).
inline int expect_same_files(const fs::path& a, const fs::path& b, const std::string& ext, const std::string& label = "") {
  int files = 0;
  for (const auto& e : fs::directory_iterator(a)) {
    if (e.path().extension() != ext) continue;
    ++files;
    EXPECT_EQ(slurp(e.path()), slurp(b / e.path().filename())) << label << e.path().filename();
  }
  return files;
}

inline GenerateReport gen(const std::string& spec, int seeds, const fs::path& dir) {
  GenerateOptions opt;
  opt.max_seeds = seeds;
  opt.out = dir;
  opt.threads = 2;
  auto r = generate(*variant(spec), opt);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : GenerateReport{};
}


}  // namespace mancala::test
