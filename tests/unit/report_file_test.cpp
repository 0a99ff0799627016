#include <catch2/catch.hpp>

#include "temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "report/report_file.hpp"

using namespace harmonize::report;
namespace fs = std::filesystem;
using harmonize::testing::read;
using harmonize::testing::TempDir;

namespace {

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

}  // namespace

TEST_CASE("report path templates expand %j, %h and %%", "[report][file]") {
  CHECK(expand_report_path("harmonize-%j.json", "1234", "n1") == "harmonize-1234.json");
  CHECK(expand_report_path("/tmp/%h/%j-%h.json", "7", "node01") == "/tmp/node01/7-node01.json");
  CHECK(expand_report_path("100%%-%j", "7", "h") == "100%-7");
  CHECK(expand_report_path("a%xb", "7", "h") == "a%xb");
  CHECK(expand_report_path("end%", "7", "h") == "end%");
  CHECK(expand_report_path("%%j", "7", "h") == "%j");
  CHECK(expand_report_path("", "7", "h").empty());
}

TEST_CASE("numbered names put the number before the extension", "[report][file]") {
  CHECK(numbered_path("harmonize-42.json", 0) == "harmonize-42.json");
  CHECK(numbered_path("harmonize-42.json", 1) == "harmonize-42-1.json");
  CHECK(numbered_path("dir.d/report", 2) == "dir.d/report-2");
  CHECK(numbered_path("dir/.hidden", 3) == "dir/.hidden-3");
  CHECK(numbered_path("a.tar.gz", 1) == "a.tar-1.gz");
}

TEST_CASE("a report is written under the requested name", "[report][file]") {
  TempDir dir;
  const std::string path = (dir.path / "harmonize-42.json").string();
  const auto written = write_report_file(path, "{}\n");
  CHECK(written.error.empty());
  CHECK(written.final_path == path);
  CHECK_FALSE(written.renamed_because_exists);
  CHECK(read(path) == "{}\n");
  CHECK(entries(dir.path) == 1);  // no temporary left behind
}

TEST_CASE("an existing report is never overwritten", "[report][file]") {
  TempDir dir;
  const std::string path = (dir.path / "harmonize-42.json").string();
  REQUIRE(write_report_file(path, "first").final_path == path);
  const auto second = write_report_file(path, "second");
  CHECK(second.error.empty());
  CHECK(second.renamed_because_exists);
  CHECK(second.final_path == (dir.path / "harmonize-42-1.json").string());
  const auto third = write_report_file(path, "third");
  CHECK(third.final_path == (dir.path / "harmonize-42-2.json").string());
  CHECK(read(path) == "first");
  CHECK(read(second.final_path) == "second");
  CHECK(read(third.final_path) == "third");
  CHECK(entries(dir.path) == 3);
}

TEST_CASE("a relative report path is written in the working directory", "[report][file]") {
  TempDir dir;
  const auto previous = fs::current_path();
  fs::current_path(dir.path);
  const auto written = write_report_file("plain.json", "x");
  fs::current_path(previous);
  CHECK(written.error.empty());
  CHECK(written.final_path == "plain.json");
  CHECK(read(dir.path / "plain.json") == "x");
}

TEST_CASE("write errors are reported, not thrown", "[report][file]") {
  TempDir dir;
  const auto missing = write_report_file((dir.path / "no/such/dir/r.json").string(), "x");
  CHECK(missing.final_path.empty());
  CHECK(missing.error.find("No such file or directory") != std::string::npos);
  const auto directory = write_report_file(dir.path.string() + "/", "x");
  CHECK(directory.final_path.empty());
  CHECK_FALSE(directory.error.empty());
}

TEST_CASE("a device is written as it is, never numbered", "[report][file]") {
  std::error_code ignored;
  fs::remove("/dev/null-1", ignored);
  const auto written = write_report_file("/dev/null", "{}\n");
  CHECK(written.error.empty());
  CHECK(written.final_path == "/dev/null");
  CHECK_FALSE(written.renamed_because_exists);
  CHECK_FALSE(fs::exists("/dev/null-1"));
  fs::remove("/dev/null-1", ignored);  // left by a failing run
}

TEST_CASE("a FIFO with a reader receives the report as it is", "[report][file]") {
  TempDir dir;
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  const auto written = write_report_file(fifo.string(), "{\"a\": 1}\n");
  CHECK(written.error.empty());
  CHECK(written.final_path == fifo.string());
  char buffer[64] = {0};
  const ssize_t got = ::read(reader, buffer, sizeof buffer - 1);
  ::close(reader);
  CHECK(std::string(buffer, got > 0 ? static_cast<std::size_t>(got) : 0) == "{\"a\": 1}\n");
  CHECK(entries(dir.path) == 1);  // no temporary, no numbered name
}

TEST_CASE("a directory or a FIFO without reader is an error, not a numbered name",
          "[report][file]") {
  TempDir dir;
  const auto directory = write_report_file(dir.path.string(), "x");
  CHECK(directory.final_path.empty());
  CHECK_FALSE(directory.error.empty());
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto no_reader = write_report_file(fifo.string(), "x");
  CHECK(no_reader.final_path.empty());
  CHECK_FALSE(no_reader.error.empty());
  CHECK(entries(dir.path) == 1);
}
