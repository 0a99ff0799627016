// The error bound a global clock carries (clock/error_bound.hpp) and how the
// model stack keeps and ships it.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>

#include "clock/error_bound.hpp"
#include "clock/global_clock.hpp"
#include "clock/model_stack.hpp"
#include "clock/time_source.hpp"
#include "fixed_source.hpp"

using namespace harmonize::clock;

using harmonize::clock::testing::FixedSource;

TEST_CASE("an error bound grows linearly on both sides of its anchor", "[clock][bound]") {
  const ErrorBound bound{10.0, 2.0, 0.25};
  CHECK(bound.at_time(10.0) == 2.0);
  CHECK(bound.at_time(14.0) == 3.0);
  CHECK(bound.at_time(6.0) == 3.0);
  CHECK(ErrorBound{}.at_time(1e6) == 0.0);
}

TEST_CASE("the likely bound is never above the proven one, and is it when unknown",
          "[clock][bound]") {
  const ErrorBound proven_only{10.0, 2.0, 0.5};
  CHECK(proven_only.likely_at(14.0) == proven_only.at_time(14.0));
  const ErrorBound both{10.0, 2.0, 0.5, 0.25, 0.125};
  CHECK(both.likely_at(10.0) == 0.25);
  CHECK(both.likely_at(6.0) == 0.25 + 0.5);
  CHECK(both.at_time(6.0) == 4.0);  // the proven one is untouched
  // A likely bound that grows faster meets the proven one and stays under it.
  const ErrorBound steep{10.0, 2.0, 0.5, 0.25, 4.0};
  CHECK(steep.likely_at(10.5) == 2.25);
  CHECK(steep.likely_at(12.0) == steep.at_time(12.0));
  CHECK(ErrorBound{}.likely_at(1e6) == 0.0);  // world rank 0
}

TEST_CASE("the model stack carries its bound through copies and serialization", "[clock][bound]") {
  ModelStack stack;
  stack.push({-3.5e-5, 12.345678901234567});
  CHECK(stack.error_bound() == ErrorBound{});
  const ErrorBound bound{1234.5, 3e-7, 1.5e-8, 4e-8, 2.5e-9};
  const ModelStack synced = stack.with({1e-9, -2e-6}, bound);
  CHECK(synced.depth() == 2);
  CHECK(synced.error_bound() == bound);
  CHECK(synced.with({0.0, 1.0}).error_bound() == bound);  // kept until a sync sets another
  CHECK_FALSE(synced == stack.with({1e-9, -2e-6}));       // equality sees the bound

  const auto bytes = synced.serialize();
  CHECK(bytes.size() == 12 + 40 + 2 * 16);
  const auto back = ModelStack::deserialize(bytes);
  REQUIRE(back.has_value());
  CHECK(*back == synced);
  CHECK(back->error_bound() == bound);
}

TEST_CASE("model bytes of another version are refused", "[clock][bound]") {
  ModelStack stack;
  stack.push({1.0, 2.0});
  auto bytes = stack.serialize();
  std::uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 4, sizeof version);
  CHECK(version == 3);
  const std::uint32_t older = 2;
  std::memcpy(bytes.data() + 4, &older, sizeof older);
  CHECK_FALSE(ModelStack::deserialize(bytes));
  // A version-2 stack (no likely bound) of the same depth is 16 bytes shorter.
  auto v2 = stack.serialize();
  v2.erase(v2.begin() + 36, v2.begin() + 52);
  std::memcpy(v2.data() + 4, &older, sizeof older);
  CHECK_FALSE(ModelStack::deserialize(v2));
  const std::uint32_t old = 1;
  // A version-1 stack of the same depth is 40 bytes shorter: refused too.
  auto v1 = stack.serialize();
  v1.erase(v1.begin() + 12, v1.begin() + 52);
  std::memcpy(v1.data() + 4, &old, sizeof old);
  CHECK_FALSE(ModelStack::deserialize(v1));
}

TEST_CASE("a global clock tells its bound at a global time", "[clock][bound]") {
  const FixedSource source(100.0);
  const GlobalClock unsynced(source, {});
  CHECK(unsynced.error_bound_at(5.0) == 0.0);
  const GlobalClock clock(source, ModelStack({{0.0, 30.0}}).with({0.0, 0.0}, {70.0, 1e-6, 1e-7}));
  CHECK(clock.error_bound_at(70.0) == 1e-6);
  CHECK(clock.error_bound_at(clock.now() + 10.0) == 1e-6 + 1e-7 * 10.0);
  CHECK(clock.error_bound() == ErrorBound{70.0, 1e-6, 1e-7});
}
