// Issue 25, D6: a report whose directory vanished during the run, or whose
// disk is full, is written to a fallback place, or said to be lost.
#include <catch2/catch.hpp>

#include "temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "report/report_fallback.hpp"

using namespace harmonize::report;
namespace fs = std::filesystem;
using harmonize::testing::read;
using harmonize::testing::TempDir;

namespace {}  // namespace

TEST_CASE("a fallback copy keeps the report's name, a device's gets the job's",
          "[report][file][fallback]") {
  CHECK(fallback_name("out/r-42.json", "42") == "r-42.json");
  CHECK(fallback_name("r.json", "42") == "r.json");
  CHECK(fallback_name("/dev/full", "42") == "harmonize-42.json");
  CHECK(fallback_name("/dev/stdout", "7") == "harmonize-7.json");
  CHECK(fallback_directories("/home/u/run", nullptr) ==
        std::vector<std::string>{"/home/u/run", "/tmp"});
  CHECK(fallback_directories("/home/u/run", "") == std::vector<std::string>{"/home/u/run", "/tmp"});
  CHECK(fallback_directories("/w", "/scratch") == std::vector<std::string>{"/w", "/scratch"});
}

TEST_CASE("a report whose directory vanished goes to the first fallback that works",
          "[report][file][fallback]") {
  TempDir gone, work, tmp;
  const std::string path = (gone.path / "sub" / "r.json").string();  // never existed
  const SavedReport saved =
      save_report(path, "{}\n", "r.json",
                  {(work.path / "missing").string(), work.path.string(), tmp.path.string()});
  CHECK(saved.fell_back);
  CHECK(saved.written.final_path == (work.path / "r.json").string());
  CHECK(read(work.path / "r.json") == "{}\n");
  REQUIRE(saved.fallback_errors.size() == 1);
  CHECK(saved.fallback_errors[0].find("No such file or directory") != std::string::npos);
  const std::string line = save_problem(saved);
  CHECK(line.rfind("error: cannot write the report to " + path + ": ", 0) == 0);
  CHECK(line.find("No such file or directory") != std::string::npos);
  CHECK_THAT(line, Catch::EndsWith("; written to " + (work.path / "r.json").string() + " instead"));
}

TEST_CASE("a fallback never overwrites a report already there", "[report][file][fallback]") {
  TempDir work;
  { std::ofstream(work.path / "r.json") << "older"; }
  const SavedReport saved =
      save_report((work.path / "gone" / "r.json").string(), "new", "r.json", {work.path.string()});
  CHECK(saved.written.final_path == (work.path / "r-1.json").string());
  CHECK(read(work.path / "r.json") == "older");
  CHECK(read(work.path / "r-1.json") == "new");
}

TEST_CASE("a full disk sends the report elsewhere", "[report][file][fallback]") {
  if (::access("/dev/full", W_OK) != 0) {
    WARN("no /dev/full here: not tested");
    return;
  }
  TempDir work;
  const SavedReport saved =
      save_report("/dev/full", "{}\n", "harmonize-42.json", {work.path.string(), "/tmp"});
  CHECK(saved.error.find("No space left on device") != std::string::npos);
  CHECK(saved.fell_back);
  CHECK(saved.written.final_path == (work.path / "harmonize-42.json").string());
  CHECK(read(work.path / "harmonize-42.json") == "{}\n");
}

TEST_CASE("a report written nowhere is said to be lost, with every reason",
          "[report][file][fallback]") {
  if (::access("/dev/full", W_OK) != 0) {
    WARN("no /dev/full here: not tested");
    return;
  }
  TempDir base;
  const SavedReport saved = save_report("/dev/full", "{}\n", "harmonize-42.json",
                                        {(base.path / "a").string(), (base.path / "b").string()});
  CHECK_FALSE(saved.fell_back);
  CHECK(saved.written.final_path.empty());
  CHECK(saved.fallback_errors.size() == 2);
  const std::string line = save_problem(saved);
  CHECK(line.rfind("error: cannot write the report to /dev/full: cannot write /dev/full: No space "
                   "left on device; nor to " +
                       (base.path / "a" / "harmonize-42.json").string(),
                   0) == 0);
  CHECK(line.find("; nor to " + (base.path / "b" / "harmonize-42.json").string()) !=
        std::string::npos);
  CHECK_THAT(line, Catch::EndsWith(
                       "; the report /dev/full is lost (its content was not written anywhere)"));
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("a report written as asked needs no line", "[report][file][fallback]") {
  TempDir dir;
  const SavedReport saved =
      save_report((dir.path / "r.json").string(), "x", "r.json", {"/nonexistent"});
  CHECK(saved.error.empty());
  CHECK_FALSE(saved.fell_back);
  CHECK(save_problem(saved).empty());
}

TEST_CASE("the requested directory is not tried twice as a fallback", "[report][file][fallback]") {
  // A FIFO without reader in a directory that works: the fallback in that
  // same directory is still tried, the target being no regular file.
  TempDir dir;
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const SavedReport saved =
      save_report(fifo.string(), "x", "harmonize-1.json", {dir.path.string()});
  CHECK(saved.fell_back);
  CHECK(saved.written.final_path == (dir.path / "harmonize-1.json").string());
}
