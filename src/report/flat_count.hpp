#pragma once
// Reading the flat encodings (distribution, communicator and collective
// records) that travel between ranks as doubles.
#include <cmath>

namespace harmonize::report {

// A non-negative whole number a double carries exactly (below 2^53).
inline bool is_count(double x) {
  return x >= 0.0 && x <= 9007199254740992.0 && std::floor(x) == x;
}

}  // namespace harmonize::report
