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

// A moment as the reports write it: the index of its last entry; null at the start.
inline nlohmann::json pointJson(TracePoint t)
{
    return t.isStart() ? nlohmann::json(nullptr) : nlohmann::json(t.lastEntry().index());
}

template <typename T>
nlohmann::json optionalJson(const std::optional<T> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

} // namespace memlens
