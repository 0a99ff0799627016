#include "sync/clock_prop.hpp"

namespace harmonize::sync {

clock::GlobalClock run_clock_prop(Transport& group, const clock::GlobalClock& mine) {
  if (group.size() <= 1) return mine;
  std::vector<std::byte> bytes;
  if (group.rank() == 0) bytes = mine.models().serialize();
  group.broadcast(bytes, 0);
  if (group.rank() == 0) return mine;
  auto models = clock::ModelStack::deserialize(bytes);
  // A stack that does not parse can only come from a broken transport; the
  // unsynchronized clock is then the honest answer.
  return models ? mine.with_models(std::move(*models)) : mine;
}

}  // namespace harmonize::sync
