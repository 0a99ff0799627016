#include "config/display.hpp"

#include <cstdint>
#include <cstdio>

namespace harmonize::config {
namespace {

constexpr std::string_view kEllipsis = "\xe2\x80\xa6";  // U+2026

// Length of the valid UTF-8 sequence at the start of `text` and its code
// point, or 0 when the first byte does not start one (stray continuation
// byte, overlong form, surrogate, beyond U+10FFFF, truncated).
std::size_t decode_utf8(std::string_view text, std::uint32_t& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t minimum = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, code = lead & 0x1fu, minimum = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, code = lead & 0x0fu, minimum = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, code = lead & 0x07u, minimum = 0x10000;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i) & 0x3fu);
  }
  if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

// Characters a terminal shows as nothing, or acts upon.
bool invisible(std::uint32_t code) {
  return (code >= 0x80 && code <= 0x9f) || code == 0xad || (code >= 0x200b && code <= 0x200f) ||
         (code >= 0x2028 && code <= 0x202e) || (code >= 0x2060 && code <= 0x2069) ||
         code == 0xfeff || (code >= 0xfff9 && code <= 0xfffb);
}

std::string hex_escape(const char* format, unsigned value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

std::string quoted_value(std::string_view text) {
  return "'" + display_value(text) + "'";
}

std::string display_value(std::string_view text, std::size_t max_chars) {
  std::string out;
  std::size_t shown = 0;  // characters on screen so far
  while (!text.empty()) {
    const unsigned char c = static_cast<unsigned char>(text.front());
    std::string piece;
    std::size_t consumed = 1;
    std::size_t width = 0;  // 0: the piece's size
    if (c == '\n') {
      piece = "\\n";
    } else if (c == '\r') {
      piece = "\\r";
    } else if (c == '\t') {
      piece = "\\t";
    } else if (c == '\\') {
      piece = "\\\\";
    } else if (c < 0x20 || c == 0x7f) {
      piece = hex_escape("\\x%02x", c);
    } else if (c < 0x80) {
      piece = std::string(1, static_cast<char>(c));
    } else {
      std::uint32_t code = 0;
      const std::size_t length = decode_utf8(text, code);
      if (length == 0) {
        piece = hex_escape("\\x%02x", c);
      } else if (invisible(code)) {
        piece = hex_escape("\\u%04X", code);
        consumed = length;
      } else {
        piece = std::string(text.substr(0, length));
        consumed = length;
        width = 1;
      }
    }
    if (width == 0) width = piece.size();
    // Never cut inside an escape or a character: the whole piece or "…".
    if (shown + width > max_chars) {
      out += kEllipsis;
      return out;
    }
    out += piece;
    shown += width;
    text.remove_prefix(consumed);
  }
  return out;
}

}  // namespace harmonize::config
