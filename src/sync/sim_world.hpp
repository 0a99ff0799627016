#pragma once
// In-process simulation of a cluster for testing the sync algorithms against
// known truth. Every simulated process is a thread with its own virtual true
// time; a message carries its true arrival time and a receive moves the
// receiver's true time forward to it. Results therefore depend only on the
// seeds, never on how the host schedules the threads.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "clock/time_source.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync::simulator {

struct NodeClock {
  double offset = 0;  // seconds
  double drift = 0;   // fraction
  // Random-walk wander of the offset: standard deviation after one second.
  double wander = 0;
};

struct Latency {
  double base = 0.4e-6;    // one-way minimum
  double jitter = 0.1e-6;  // mean of the exponential excess
  double outlier_probability = 0.01;
  double outlier = 20e-6;  // added to an outlier message
  double clock_read = 20e-9;
  double send_overhead = 50e-9;
};

struct SimSpec {
  std::vector<int> node_of_rank;       // size = number of processes
  std::vector<NodeClock> node_clocks;  // indexed by node
  // When not empty (one per rank): every process reads a clock of its own,
  // whatever its node, as in different time namespaces of one machine; the
  // nodes then only say where the processes sit.
  std::vector<NodeClock> rank_clocks;
  Latency latency;
  std::uint64_t seed = 1;
  double start_time = 1000.0;  // true time at which every process starts
};

class SimProcess : public clock::TimeSource {
 public:
  virtual int world_rank() const = 0;
  virtual double true_now() const = 0;
  // Let `seconds` of true time pass (a wait in the simulated program).
  virtual void advance(double seconds) = 0;
};

class SimWorld {
 public:
  explicit SimWorld(SimSpec spec);
  ~SimWorld();
  SimWorld(const SimWorld&) = delete;
  SimWorld& operator=(const SimWorld&) = delete;

  int size() const;
  // Runs `body` once per process, each in its own thread; returns when all are done.
  void run(const std::function<void(SimProcess& self, Transport& world)>& body);
  // What `rank`'s clock reads at true time `truth` (pure; for checking).
  double local_time(int rank, double truth) const;
  // Point-to-point messages `rank` has sent so far (broadcasts not counted).
  long point_to_point_sends(int rank) const;

  struct Shared;

 private:
  SimSpec spec_;
  std::unique_ptr<Shared> shared_;
};

}  // namespace harmonize::sync::simulator
