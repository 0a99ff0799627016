#include "harmonize/record_codec.hpp"

namespace harmonize {
namespace {

void append_text(std::vector<double>& out, const std::string& text) {
  out.push_back(static_cast<double>(text.size()));
  for (unsigned char c : text) out.push_back(c);
}

bool read_text(std::span<const double> in, std::size_t& at, std::string& text) {
  if (at >= in.size()) return false;
  const auto n = static_cast<std::size_t>(in[at++]);
  if (at + n > in.size()) return false;
  text.clear();
  for (std::size_t i = 0; i < n; ++i) text.push_back(static_cast<char>(in[at++]));
  return true;
}

}  // namespace

void append_record(std::vector<double>& out, const CommRecord& r) {
  out.push_back(static_cast<double>(r.key.root_world_rank));
  out.push_back(static_cast<double>(r.key.serial));
  out.push_back(r.rank);
  append_text(out, r.stats.name);
  append_text(out, r.stats.kind);
  append_text(out, r.stats.not_harmonized_reason);
  out.push_back(static_cast<double>(r.missed_any));
  out.push_back(static_cast<double>(r.space_violations));
  out.push_back(static_cast<double>(r.pending.size()));
  for (const logic::CallTimes& call : r.pending) {
    out.push_back(call.exit_global);
    out.push_back(call.enter_truth);
    out.push_back(call.exit_truth);
    out.push_back(call.missed ? 1.0 : 0.0);
  }
  report::append_to(out, r.stats);
}

std::vector<double> encode_records(std::span<const CommRecord> records) {
  std::vector<double> out{static_cast<double>(records.size())};
  for (const CommRecord& record : records) append_record(out, record);
  return out;
}

std::optional<std::vector<CommRecord>> decode_records(std::span<const double> in) {
  std::size_t at = 0;
  if (in.empty()) return std::nullopt;
  const auto count = static_cast<std::size_t>(in[at++]);
  std::vector<CommRecord> records;
  for (std::size_t i = 0; i < count; ++i) {
    CommRecord r;
    if (at + 3 > in.size()) return std::nullopt;
    r.key.root_world_rank = static_cast<std::uint64_t>(in[at++]);
    r.key.serial = static_cast<std::uint64_t>(in[at++]);
    r.rank = static_cast<int>(in[at++]);
    std::string name, kind, reason;
    if (!read_text(in, at, name) || !read_text(in, at, kind) || !read_text(in, at, reason))
      return std::nullopt;
    if (at + 3 > in.size()) return std::nullopt;
    r.missed_any = static_cast<std::uint64_t>(in[at++]);
    r.space_violations = static_cast<std::uint64_t>(in[at++]);
    const auto pending = static_cast<std::size_t>(in[at++]);
    if (at + 4 * pending > in.size()) return std::nullopt;
    for (std::size_t c = 0; c < pending; ++c) {
      logic::CallTimes call;
      call.exit_global = in[at++];
      call.enter_truth = in[at++];
      call.exit_truth = in[at++];
      call.missed = in[at++] != 0;
      r.pending.push_back(call);
    }
    auto stats = report::read_comm_stats(in, at);
    if (!stats) return std::nullopt;
    r.stats = std::move(*stats);
    r.stats.name = name;
    r.stats.kind = kind;
    r.stats.not_harmonized_reason = reason;
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace harmonize
