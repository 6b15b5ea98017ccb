#pragma once
// `memlens advise` output: the inferred setup and the ranked fixes, as JSON and as text.
#include "advice/FixRanking.h"

#include <nlohmann/json.hpp>
#include <string>

namespace memlens {

nlohmann::json inferredJson(const InferredSetup &setup);
nlohmann::json adviceJson(const std::string &file, int device, const Advice &advice);
std::string adviceText(const std::string &file, int device, const Advice &advice);

} // namespace memlens
