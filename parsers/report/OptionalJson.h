#pragma once
// The JSON the reports write for a value that may be missing: the value, or null.
#include <nlohmann/json.hpp>
#include <optional>

namespace memlens {

template <typename T>
nlohmann::json optionalJson(const std::optional<T> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

} // namespace memlens
