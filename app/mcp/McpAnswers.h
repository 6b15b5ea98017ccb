#pragma once
// Keeping an agent's answers small and citable: every list cut to the limit (its full length
// beside it as `<key>_count`; a stack's frames are kept whole), and every byte figure also as text (`<key>_text`, "1.32 GiB").
#include <nlohmann/json.hpp>

namespace memlens {

nlohmann::json answer(nlohmann::json j, size_t limit);

} // namespace memlens
