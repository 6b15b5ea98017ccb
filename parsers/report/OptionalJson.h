#pragma once
// The JSON the reports write for a value that may be missing: the value, or null; and for an
// id: its index.
#include "model/Ids.h"

#include <nlohmann/json.hpp>
#include <optional>

namespace memlens {

template <typename Tag>
void to_json(nlohmann::json &j, Id<Tag> id)
{
    j = id.index();
}

template <typename T>
nlohmann::json optionalJson(const std::optional<T> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

} // namespace memlens
