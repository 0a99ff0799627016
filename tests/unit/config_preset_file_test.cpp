// HARMONIZE_CONFIG names a file on the real file system: the reader must
// refuse, quickly and without throwing, anything that is not a small regular
// file (a FIFO would block, /dev/zero or a huge file would exhaust memory).
#include <catch2/catch.hpp>

#include "temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "config/policy.hpp"
#include "policy_readers.hpp"

using namespace harmonize::config;
namespace fs = std::filesystem;
using harmonize::config::testing::only_error;
using harmonize::testing::TempDir;

namespace {

// load_policy_from_environment() with HARMONIZE_CONFIG=path and nothing else.
PolicyResult load_with_preset(const std::string& path) {
  ::setenv("HARMONIZE_CONFIG", path.c_str(), 1);
  PolicyResult result = load_policy_from_environment(true);
  ::unsetenv("HARMONIZE_CONFIG");
  return result;
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("a regular preset file is read, a byte order mark at its start skipped",
          "[config][preset]") {
  const std::string start = GENERATE(std::string(), std::string("\xef\xbb\xbf"));
  TempDir dir;
  write(dir.path / "p.env", start + "HARMONIZE_MODE=observe\n");
  const PolicyResult result = load_with_preset((dir.path / "p.env").string());
  REQUIRE(result.ok());
  CHECK(result.policy.mode == Mode::observe);
}

TEST_CASE("a directory is not a preset", "[config][preset]") {
  TempDir dir;
  CHECK(only_error(load_with_preset(dir.path.string())) ==
        "HARMONIZE_CONFIG='" + dir.path.string() +
            "' cannot be read: it is a directory; expected a regular file of at most 1 MiB");
}

TEST_CASE("a FIFO as preset is refused at once instead of blocking", "[config][preset]") {
  TempDir dir;
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto loading = std::async(std::launch::async, [&] { return load_with_preset(fifo.string()); });
  const bool finished = loading.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!finished) {
    // Unblock the reader (a writer that closes at once means end of file)
    // so that a failing test does not hang the suite.
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  CHECK(finished);
  CHECK(only_error(loading.get()) ==
        "HARMONIZE_CONFIG='" + fifo.string() +
            "' cannot be read: it is a FIFO; expected a regular file of at most 1 MiB");
}

TEST_CASE("a device as preset is refused without reading it", "[config][preset]") {
  CHECK(only_error(load_with_preset("/dev/zero")) ==
        "HARMONIZE_CONFIG='/dev/zero' cannot be read: it is a character device; expected a "
        "regular file of at most 1 MiB");
}

TEST_CASE("a preset larger than 1 MiB is refused without reading it", "[config][preset]") {
  TempDir dir;
  const fs::path huge = dir.path / "huge.env";
  write(huge, "");
  fs::resize_file(huge, 3ull << 30);  // sparse: 3 GiB that take no disk space
  CHECK(only_error(load_with_preset(huge.string())) ==
        "HARMONIZE_CONFIG='" + huge.string() +
            "' cannot be read: it has 3221225472 bytes; expected a regular file of at most 1 MiB");

  const fs::path limit = dir.path / "limit.env";
  write(limit, "HARMONIZE_MODE=observe\n" + std::string((1u << 20) - 23 - 1, '#') + "\n");
  REQUIRE(fs::file_size(limit) == 1u << 20);
  CHECK(load_with_preset(limit.string()).ok());
  fs::resize_file(limit, (1u << 20) + 1);
  CHECK_FALSE(load_with_preset(limit.string()).ok());
}

TEST_CASE("a missing preset names the system's reason", "[config][preset]") {
  CHECK(only_error(load_with_preset("/nonexistent/p.env")) ==
        "HARMONIZE_CONFIG='/nonexistent/p.env' cannot be read: No such file or directory");
}

TEST_CASE("every shipped preset is valid", "[config][preset]") {
  // The presets sit in config/ of the source tree, two levels above this file.
  const fs::path presets = fs::path(__FILE__).parent_path().parent_path().parent_path() / "config";
  REQUIRE(fs::is_directory(presets));
  int count = 0;
  for (const auto& entry : fs::directory_iterator(presets)) {
    if (entry.path().extension() != ".env") continue;
    INFO(entry.path());
    const PolicyResult result = load_with_preset(entry.path().string());
    CHECK(result.errors == std::vector<std::string>{});
    ++count;
  }
  CHECK(count >= 3);
}
