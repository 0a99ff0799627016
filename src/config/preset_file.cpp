#include "config/preset_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace harmonize::config {
namespace {

constexpr const char* kExpected = "; expected a regular file of at most 1 MiB";

// "" for a regular file of acceptable size, else why not.
std::string refusal(const struct stat& status) {
  const char* kind = nullptr;
  if (S_ISDIR(status.st_mode)) kind = "a directory";
  if (S_ISFIFO(status.st_mode)) kind = "a FIFO";
  if (S_ISCHR(status.st_mode)) kind = "a character device";
  if (S_ISBLK(status.st_mode)) kind = "a block device";
  if (S_ISSOCK(status.st_mode)) kind = "a socket";
  if (kind != nullptr) return std::string("it is ") + kind + kExpected;
  if (!S_ISREG(status.st_mode)) return std::string("it is not a regular file") + kExpected;
  if (static_cast<unsigned long long>(status.st_size) > kMaxPresetBytes)
    return "it has " + std::to_string(status.st_size) + " bytes" + kExpected;
  return {};
}

}  // namespace

std::optional<std::string> read_preset_file(const std::string& path, std::string& why) {
  // stat() first: opening a device can have effects of its own (a tape
  // rewinds, a serial line hangs up), and opening a FIFO blocks.
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  if (why = refusal(status); !why.empty()) return std::nullopt;
  // O_NONBLOCK: should the path have become a FIFO since, open() still
  // returns at once, and fstat() below refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  std::optional<std::string> text;
  if (::fstat(fd, &status) != 0) {
    why = std::strerror(errno);
  } else if (why = refusal(status); why.empty()) {
    try {
      std::string buffer(kMaxPresetBytes + 1, '\0');
      std::size_t size = 0;
      // One byte more than allowed tells a file that grew since fstat().
      while (size < buffer.size()) {
        const ssize_t got = ::read(fd, buffer.data() + size, buffer.size() - size);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
          why = std::strerror(errno);
          break;
        }
        if (got == 0) break;
        size += static_cast<std::size_t>(got);
      }
      if (why.empty() && size > kMaxPresetBytes) {
        why = std::string("it has more than 1 MiB") + kExpected;
      } else if (why.empty()) {
        buffer.resize(size);
        text = std::move(buffer);
      }
    } catch (const std::bad_alloc&) {
      why = "out of memory";
    }
  }
  ::close(fd);
  return text;
}

}  // namespace harmonize::config
