#pragma once
// HARMONIZE_ARRIVAL as a feature of the session: the pattern's fit agreed at
// MPI_Init, each communicator's delays given to its barrier, the report's
// "arrival", and the delay the harmonization warning must not count as slack
// run away. What the pattern means is the pure JobArrival's.
#include <memory>

#include "harmonize/arrival/job_arrival.hpp"
#include "harmonize/feature/feature.hpp"

namespace harmonize::arrival {

class ArrivalFeature final : public feature::Feature {
 public:
  // In modes observe and harmonize; only harmonize imposes a pattern.
  static std::unique_ptr<feature::Feature> make(const feature::JobContext& job);
  explicit ArrivalFeature(JobArrival arrival) : arrival_(std::move(arrival)) {}

  // Agreed only when a pattern is set: no collective is added to every MPI_Init.
  std::optional<std::string> misfit() const override;
  void comm_made(feature::CommSetup& comm) override;
  void contribute(report::JobReport& job, const logic::JobRecords&) const override {
    job.arrival = arrival_.report_info();
  }
  void explain(report::RunConditions& conditions, const report::CommSummary& comm) const override {
    conditions.imposed_delay = arrival_.imposed_delay(comm.size);
  }

 private:
  JobArrival arrival_;
};

}  // namespace harmonize::arrival
