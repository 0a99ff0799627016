#pragma once
// A fresh directory per test case, removed at the end (unit tests only).
#include <stdlib.h>
#include <catch2/catch.hpp>

#include <filesystem>
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

}  // namespace harmonize::testing
