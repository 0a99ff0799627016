#pragma once
// A fresh directory per test case, removed at the end, and what a file in
// it holds (unit tests only).
#include <stdlib.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace harmonize::testing {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const char* prefix = "harmonize-test") {
    std::string name =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    path = name;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// The whole content of `file` ("" if it cannot be read).
inline std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace harmonize::testing
