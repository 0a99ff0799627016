#include "sync/settings.hpp"

namespace harmonize::sync {

std::optional<Scheme> parse_scheme(std::string_view text) {
  if (text == "hca3") return Scheme::hca3;
  if (text == "h2hca") return Scheme::h2hca;
  if (text == "h3hca") return Scheme::h3hca;
  return std::nullopt;
}

std::optional<OffsetAlgorithm> parse_offset_algorithm(std::string_view text) {
  if (text == "skampi") return OffsetAlgorithm::skampi;
  if (text == "meanrtt" || text == "mean_rtt") return OffsetAlgorithm::mean_rtt;
  return std::nullopt;
}

std::optional<ModelKind> parse_model_kind(std::string_view text) {
  if (text == "auto" || text == "automatic") return ModelKind::automatic;
  if (text == "offset") return ModelKind::offset_only;
  if (text == "linear") return ModelKind::linear;
  return std::nullopt;
}

const char* to_string(Scheme scheme) {
  switch (scheme) {
    case Scheme::hca3:
      return "hca3";
    case Scheme::h2hca:
      return "h2hca";
    case Scheme::h3hca:
      return "h3hca";
  }
  return "?";
}

const char* to_string(OffsetAlgorithm offset) {
  return offset == OffsetAlgorithm::skampi ? "skampi" : "meanrtt";
}

const char* to_string(ModelKind model) {
  switch (model) {
    case ModelKind::automatic:
      return "auto";
    case ModelKind::offset_only:
      return "offset";
    case ModelKind::linear:
      return "linear";
  }
  return "?";
}

}  // namespace harmonize::sync
