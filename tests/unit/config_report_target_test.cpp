// HARMONIZE_REPORT is checked at MPI_Init against the real file system, so a
// report that could not be written stops the job before it runs instead of
// being lost at MPI_Finalize.
#include <catch2/catch.hpp>

#include "temp_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/policy.hpp"
#include "config/report_target.hpp"

using namespace harmonize::config;
namespace fs = std::filesystem;
using harmonize::testing::TempDir;

namespace {

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

// load_policy_from_environment() in mode observe (which writes a report).
PolicyResult load_with_report(const std::string& report, const char* mode = "observe") {
  ::setenv("HARMONIZE_MODE", mode, 1);
  ::setenv("HARMONIZE_REPORT", report.c_str(), 1);
  PolicyResult result = load_policy_from_environment(true);
  ::unsetenv("HARMONIZE_MODE");
  ::unsetenv("HARMONIZE_REPORT");
  return result;
}

}  // namespace

TEST_CASE("a new file in a writable directory is a good report target", "[config][report]") {
  TempDir dir;
  CHECK(report_target_problem((dir.path / "r.json").string(), "probe") == "");
  CHECK(entries(dir.path) == 0);  // the probe file is gone
  std::ofstream(dir.path / "r.json") << "{}";
  CHECK(report_target_problem((dir.path / "r.json").string(), "probe") == "");  // gets "-1"
}

TEST_CASE("report targets that cannot be written are named with the reason", "[config][report]") {
  TempDir dir;
  CHECK(report_target_problem("", "p") == "it names no file");
  CHECK(report_target_problem(dir.path.string() + "/", "p") ==
        "it ends with '/'; expected a file name");
  CHECK(report_target_problem(dir.path.string(), "p") == "it is a directory; expected a file name");
  CHECK(report_target_problem((dir.path / "no/r.json").string(), "p") ==
        "directory " + (dir.path / "no").string() + " does not exist");
  std::ofstream(dir.path / "file") << "x";
  CHECK(report_target_problem((dir.path / "file/r.json").string(), "p") ==
        (dir.path / "file").string() + " is not a directory");
  // Root ignores directory permissions, not the kernel's pseudo file systems.
  CHECK(report_target_problem("/sys/r.json", "p") ==
        "cannot create a file in /sys: Permission denied");
  CHECK(report_target_problem("/proc/r.json", "p").rfind("cannot create a file in /proc: ", 0) ==
        0);
}

TEST_CASE("devices and pipes are report targets written as they are", "[config][report]") {
  CHECK(report_target_problem("/dev/null", "p") == "");
  TempDir dir;
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A FIFO is never opened by the check: a reader would take the check's
  // close for the end of the report (found in review). Its reader may come
  // by MPI_Finalize.
  CHECK(report_target_problem(fifo.string(), "p") == "");
}

TEST_CASE("the report is checked at MPI_Init when one will be written", "[config][report]") {
  TempDir dir;
  const std::string missing = (dir.path / "no/such/dir/harmonize-%j.json").string();
  const PolicyResult result = load_with_report(missing);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].rfind("HARMONIZE_REPORT='" + missing + "' is not valid: directory " +
                                   (dir.path / "no/such/dir").string() + " does not exist",
                               0) == 0);
  CHECK_FALSE(load_with_report("/sys/r.json").ok());
  CHECK_FALSE(load_with_report(dir.path.string() + "/").ok());
  CHECK(load_with_report((dir.path / "r-%j-%h.json").string()).ok());
  CHECK(load_with_report("/dev/null").ok());
  CHECK(load_with_report("none").ok());
  CHECK(entries(dir.path) == 0);
  // Mode off writes no report: the file system is left alone.
  CHECK(load_with_report(missing, "off").ok());
}
