#include "sync/sim_world.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>

#include "sync/sim_wander.hpp"

namespace harmonize::sync::simulator {
namespace {

struct Message {
  std::vector<std::byte> payload;
  double arrival = 0;  // true time
};

using QueueKey = std::tuple<std::uint64_t, int, int>;  // context, source, destination (world ranks)
using SplitKey = std::pair<std::uint64_t, int>;        // context, split sequence number

struct SplitEntry {
  int color = 0;
  int key = 0;
  int world_rank = 0;
  double true_time = 0;
};

}  // namespace

struct SimWorld::Shared {
  explicit Shared(int processes)
      : arrived(static_cast<std::size_t>(processes)), sends(static_cast<std::size_t>(processes)) {}
  std::mutex mutex;
  std::vector<std::condition_variable> arrived;  // one per destination world rank
  std::condition_variable split_done;
  std::map<QueueKey, std::deque<Message>> queues;
  std::map<SplitKey, std::map<int, SplitEntry>> splits;  // by rank in the parent group
  std::vector<std::atomic<long>> sends;
};

namespace {

// The clock `rank` reads, and the key of its wander path: a node's
// processes share both unless every process has a clock of its own.
const NodeClock& clock_of(const SimSpec& spec, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  if (!spec.rank_clocks.empty()) return spec.rank_clocks.at(r);
  return spec.node_clocks.at(static_cast<std::size_t>(spec.node_of_rank.at(r)));
}

int wander_key(const SimSpec& spec, int rank) {
  // Negative keys for per-rank clocks: no path equals a node's.
  if (!spec.rank_clocks.empty()) return -1 - rank;
  return spec.node_of_rank.at(static_cast<std::size_t>(rank));
}

class Process final : public SimProcess {
 public:
  Process(int rank, const SimSpec& spec)
      : rank_(rank),
        clock_(clock_of(spec, rank)),
        wander_(spec.seed, wander_key(spec, rank), clock_.wander, spec.start_time),
        latency_(spec.latency),
        rng_(mix64(spec.seed * 1000003ULL + static_cast<std::uint64_t>(rank))),
        true_now_(spec.start_time) {}

  double now() const noexcept override {
    const double local = true_now_ * (1.0 + clock_.drift) + clock_.offset + wander_.at(true_now_);
    true_now_ += latency_.clock_read;
    return local;
  }
  const char* name() const noexcept override { return "simulated"; }
  int world_rank() const override { return rank_; }
  double true_now() const override { return true_now_; }
  void advance(double seconds) override { true_now_ += seconds; }

  // When a message sent now arrives, with this process's random draws.
  double departure_arrival() {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double delay = latency_.base - latency_.jitter * std::log1p(-unit(rng_));
    if (unit(rng_) < latency_.outlier_probability) delay += latency_.outlier;
    const double arrival = true_now_ + delay;
    true_now_ += latency_.send_overhead;
    return arrival;
  }
  void receive_at(double arrival) { true_now_ = std::max(true_now_, arrival); }

 private:
  int rank_;
  NodeClock clock_;
  WanderPath wander_;
  Latency latency_;
  std::mt19937_64 rng_;
  mutable double true_now_;
};

class SimTransport final : public Transport {
 public:
  SimTransport(SimWorld::Shared& shared, Process& self, std::uint64_t context,
               std::vector<int> members)
      : shared_(shared), self_(self), context_(context), members_(std::move(members)) {
    rank_ = static_cast<int>(std::find(members_.begin(), members_.end(), self.world_rank()) -
                             members_.begin());
  }

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }

  void send(int peer, std::span<const double> values) override {
    shared_.sends[static_cast<std::size_t>(self_.world_rank())]++;
    std::vector<std::byte> bytes(values.size_bytes());
    std::memcpy(bytes.data(), values.data(), bytes.size());
    post(peer, std::move(bytes));
  }

  void recv(int peer, std::span<double> values) override {
    const Message message = take(peer);
    std::memcpy(values.data(), message.payload.data(),
                std::min(values.size_bytes(), message.payload.size()));
  }

  // Linear from the root: enough for tests, and it charges latency like a
  // real broadcast would.
  void broadcast(std::vector<std::byte>& bytes, int root) override {
    if (rank_ == root) {
      for (int peer = 0; peer < size(); ++peer)
        if (peer != root) post(peer, bytes);
    } else {
      bytes = take(root).payload;
    }
  }

  std::unique_ptr<Transport> split(int color, int key) override {
    const SplitKey id{context_, split_sequence_++};
    std::vector<SplitEntry> entries;
    {
      std::unique_lock lock(shared_.mutex);
      auto& table = shared_.splits[id];
      table[rank_] = SplitEntry{color, key, self_.world_rank(), self_.true_now()};
      if (static_cast<int>(table.size()) == size()) shared_.split_done.notify_all();
      shared_.split_done.wait(lock, [&] { return static_cast<int>(table.size()) == size(); });
      for (const auto& [parent_rank, entry] : table) entries.push_back(entry);
    }
    if (color < 0) return nullptr;
    std::vector<std::pair<std::pair<int, int>, int>> order;  // ((key, parent rank), world rank)
    double latest = self_.true_now();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      latest = std::max(latest, entries[i].true_time);
      if (entries[i].color == color)
        order.push_back({{entries[i].key, static_cast<int>(i)}, entries[i].world_rank});
    }
    std::sort(order.begin(), order.end());
    std::vector<int> members;
    for (const auto& item : order) members.push_back(item.second);
    // Like MPI_Comm_split, nobody leaves before the last one arrived.
    self_.receive_at(latest);
    const std::uint64_t child =
        mix64(context_ * 31 + static_cast<std::uint64_t>(id.second) * 0x10001ULL +
              static_cast<std::uint64_t>(color) + 1);
    return std::make_unique<SimTransport>(shared_, self_, child, std::move(members));
  }

 private:
  void post(int peer, std::vector<std::byte> bytes) {
    const int destination = members_.at(static_cast<std::size_t>(peer));
    Message message{std::move(bytes), self_.departure_arrival()};
    std::lock_guard lock(shared_.mutex);
    shared_.queues[{context_, self_.world_rank(), destination}].push_back(std::move(message));
    shared_.arrived[static_cast<std::size_t>(destination)].notify_one();
  }

  Message take(int peer) {
    const int source = members_.at(static_cast<std::size_t>(peer));
    std::unique_lock lock(shared_.mutex);
    auto& queue = shared_.queues[{context_, source, self_.world_rank()}];
    shared_.arrived[static_cast<std::size_t>(self_.world_rank())].wait(
        lock, [&] { return !queue.empty(); });
    Message message = std::move(queue.front());
    queue.pop_front();
    lock.unlock();
    self_.receive_at(message.arrival);
    return message;
  }

  SimWorld::Shared& shared_;
  Process& self_;
  std::uint64_t context_;
  std::vector<int> members_;
  int rank_ = 0;
  int split_sequence_ = 0;
};

}  // namespace

SimWorld::SimWorld(SimSpec spec)
    : spec_(std::move(spec)), shared_(std::make_unique<Shared>(size())) {}

SimWorld::~SimWorld() = default;

int SimWorld::size() const {
  return static_cast<int>(spec_.node_of_rank.size());
}

void SimWorld::run(const std::function<void(SimProcess&, Transport&)>& body) {
  std::vector<int> everybody(static_cast<std::size_t>(size()));
  for (int i = 0; i < size(); ++i) everybody[static_cast<std::size_t>(i)] = i;
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size(); ++rank) {
    threads.emplace_back([&, rank] {
      Process self(rank, spec_);
      SimTransport world(*shared_, self, 0, everybody);
      body(self, world);
    });
  }
  for (auto& thread : threads) thread.join();
}

double SimWorld::local_time(int rank, double truth) const {
  const NodeClock& clock = clock_of(spec_, rank);
  const WanderPath wander(spec_.seed, wander_key(spec_, rank), clock.wander, spec_.start_time);
  return truth * (1.0 + clock.drift) + clock.offset + wander.at(truth);
}

long SimWorld::point_to_point_sends(int rank) const {
  return shared_->sends[static_cast<std::size_t>(rank)].load();
}

}  // namespace harmonize::sync::simulator
