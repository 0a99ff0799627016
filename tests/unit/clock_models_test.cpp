#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "clock/global_clock.hpp"
#include "clock/model_stack.hpp"
#include "clock/test_clock.hpp"
#include "clock/time_source.hpp"
#include "fixed_source.hpp"

using namespace harmonize::clock;

using harmonize::clock::testing::FixedSource;

TEST_CASE("a linear model subtracts the offset it predicts", "[clock]") {
  const LinearModel model{0.5, 2.0};  // offset(t) = 0.5 t + 2
  CHECK(model.offset_at(4.0) == 4.0);
  CHECK(model.apply(4.0) == 0.0);
  CHECK(LinearModel{}.apply(123.25) == 123.25);
}

TEST_CASE("a model stack applies its levels bottom first", "[clock]") {
  ModelStack stack;
  stack.push({0.0, 1.0});          // t - 1
  stack.push({0.5, 0.0});          // u - 0.5 u = u / 2
  CHECK(stack.apply(9.0) == 4.0);  // (9 - 1) / 2; the other order would give 3.5
  CHECK(stack.depth() == 2);
  const ModelStack longer = stack.with({0.0, -4.0});
  CHECK(longer.apply(9.0) == 8.0);
  CHECK(stack.depth() == 2);
}

TEST_CASE("a model stack survives serialization bit for bit", "[clock]") {
  ModelStack stack;
  stack.push({-3.5e-5, 12.345678901234567});
  stack.push({1e-300, -0.0});
  stack.push({0.0, 1e9});
  const auto bytes = stack.serialize();
  CHECK(bytes.size() == 12 + 40 + 3 * 16);  // header, bound, levels
  const auto back = ModelStack::deserialize(bytes);
  REQUIRE(back.has_value());
  CHECK(*back == stack);
  CHECK(std::signbit(back->levels()[1].intercept));

  const auto empty = ModelStack::deserialize(ModelStack{}.serialize());
  REQUIRE(empty.has_value());
  CHECK(empty->depth() == 0);
}

TEST_CASE("corrupted model bytes are refused", "[clock]") {
  ModelStack stack;
  stack.push({1.0, 2.0});
  auto bytes = stack.serialize();
  CHECK_FALSE(ModelStack::deserialize(std::span(bytes).first(bytes.size() - 1)));
  auto bad_magic = bytes;
  bad_magic[0] = std::byte{0};
  CHECK_FALSE(ModelStack::deserialize(bad_magic));
  auto bad_depth = bytes;
  const std::uint32_t huge = 1u << 30;
  std::memcpy(bad_depth.data() + 8, &huge, sizeof huge);
  CHECK_FALSE(ModelStack::deserialize(bad_depth));
  CHECK_FALSE(ModelStack::deserialize({}));
}

TEST_CASE("a global clock reads its source through its models", "[clock]") {
  const FixedSource source(100.0);
  const GlobalClock clock(source, ModelStack({{0.0, 30.0}}));
  CHECK(clock.now() == 70.0);
  CHECK(clock.to_global(50.0) == 20.0);
  CHECK(&clock.source() == &source);
  const GlobalClock copy = clock.with_models(ModelStack{});
  CHECK(copy.now() == 100.0);
}

TEST_CASE("a skewed source is truth times (1 + drift) plus offset", "[clock]") {
  const FixedSource thousand(1000.0);
  auto skewed = make_skewed_view(thousand, 0.25, 50e-6);
  CHECK(skewed->now() == Approx(1000.0 * (1 + 50e-6) + 0.25).epsilon(1e-15));
  const FixedSource truth(8.0);
  auto view = make_skewed_view(truth, -1.0, 0.5);
  CHECK(view->now() == 11.0);
  CHECK(std::string(view->name()) == "fixed");
}

TEST_CASE("time sources by kind", "[clock]") {
  using harmonize::choices::TimeSourceKind;
  std::string why;
  auto monotonic = make_source(TimeSourceKind::monotonic, nullptr, why);
  REQUIRE(monotonic);
  const double a = monotonic->now();
  CHECK(monotonic->now() >= a);
  CHECK_FALSE(make_source(TimeSourceKind::wtime, nullptr, why));
  CHECK_FALSE(why.empty());
  auto wtime = make_source(
      TimeSourceKind::wtime, [] { return 42.0; }, why);
  REQUIRE(wtime);
  CHECK(wtime->now() == 42.0);
  CHECK(std::string(wtime->name()) == "wtime");
  CHECK(make_source(static_cast<TimeSourceKind>(99), nullptr, why) == nullptr);
  CHECK(why == "unknown time source");
}

TEST_CASE("the TSC source is either refused with a reason or agrees with monotonic", "[clock]") {
  std::string why;
  auto tsc = make_tsc_source(why);
  if (!tsc) {
    CHECK_FALSE(why.empty());
    return;
  }
  auto monotonic = make_monotonic_source();
  const double t0 = tsc->now() - monotonic->now();
  const double t1 = tsc->now() - monotonic->now();
  CHECK(std::abs(t0) < 1e-4);  // calibrated to the monotonic clock at construction
  CHECK(std::abs(t1 - t0) < 1e-5);
}

TEST_CASE("test clock skews are deterministic, bounded and differ per node", "[clock]") {
  const TestClockSpec spec = test_clocks(1e-3, 50e-6, 7, 0);
  CHECK(test_clock_active(spec));
  CHECK_FALSE(test_clock_active(TestClockSpec{}));
  for (int node = 0; node < 200; ++node) {
    const Skew skew = skew_for_node(spec, node);
    CHECK(std::abs(skew.offset) <= 1e-3);
    CHECK(std::abs(skew.drift) <= 50e-6);
    CHECK(skew.offset == skew_for_node(spec, node).offset);
  }
  CHECK(skew_for_node(spec, 0).offset != 0.0);  // the reference is skewed too
  CHECK(skew_for_node(spec, 0).offset != skew_for_node(spec, 1).offset);
  CHECK(skew_for_node(spec, 3).drift != skew_for_node(test_clocks(1e-3, 50e-6, 8, 0), 3).drift);
  CHECK(skewed_time(Skew{2.0, 0.5}, 4.0) == 8.0);
}

TEST_CASE("virtual nodes group consecutive ranks", "[clock]") {
  CHECK(virtual_node_of(test_clocks(1e-3, 0, 1, 0), 5) == 5);
  CHECK(virtual_node_of(test_clocks(1e-3, 0, 1, 2), 5) == 2);
  CHECK(virtual_node_of(test_clocks(1e-3, 0, 1, 3), 2) == 0);
  CHECK(virtual_node_of(test_clocks(1e-3, 0, 1, 3), 3) == 1);
}

TEST_CASE("linear models compose and invert to a tenth of a nanosecond", "[clock]") {
  using harmonize::clock::LinearModel;
  const LinearModel below{2e-5, 1e-3};
  const LinearModel above{-3e-5, -2e-4};
  const LinearModel both = harmonize::clock::then(below, above);
  for (double t : {0.0, 1.5, 1e5}) {
    CHECK(both.apply(t) == Approx(above.apply(below.apply(t))).epsilon(0).margin(1e-10));
    CHECK(harmonize::clock::inverse(below).apply(below.apply(t)) ==
          Approx(t).epsilon(0).margin(1e-10));
  }
  CHECK(harmonize::clock::then(LinearModel{}, below) == below);
  CHECK(harmonize::clock::inverse(LinearModel{}) == LinearModel{});
  // A stack is its levels applied in order: one model of the time source.
  const harmonize::clock::ModelStack stack({below, above, LinearModel{1e-6, 5e-7}});
  for (double t : {0.25, 3e4})
    CHECK(stack.composite().apply(t) == Approx(stack.apply(t)).epsilon(0).margin(1e-10));
  CHECK(harmonize::clock::ModelStack().composite() == LinearModel{});
}
