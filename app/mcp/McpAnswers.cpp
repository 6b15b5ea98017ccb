#include "mcp/McpAnswers.h"

#include "model/ByteFormat.h"

namespace memlens {

namespace {

bool isByteKey(const std::string &key)
{
    return key.ends_with("_bytes") || key == "size";
}

void shape(nlohmann::json &j, size_t limit)
{
    if (j.is_array()) {
        for (nlohmann::json &item : j)
            shape(item, limit);
        return;
    }
    if (!j.is_object())
        return;
    nlohmann::json added = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
        // A stack is one citation, not a list to cut.
        if (it.value().is_array() && it.value().size() > limit && it.key() != "frames") {
            added[it.key() + "_count"] = it.value().size();
            it.value().erase(it.value().begin() + static_cast<std::ptrdiff_t>(limit), it.value().end());
        }
        if (isByteKey(it.key()) && it.value().is_number_integer() && it.value().get<int64_t>() >= 0)
            added[it.key() + "_text"] = formatBytes(it.value().get<uint64_t>());
        shape(it.value(), limit);
    }
    for (auto it = added.begin(); it != added.end(); ++it) {
        if (!j.contains(it.key()))
            j[it.key()] = it.value();
    }
}

} // namespace

nlohmann::json answer(nlohmann::json j, size_t limit)
{
    shape(j, limit);
    return j;
}

} // namespace memlens
