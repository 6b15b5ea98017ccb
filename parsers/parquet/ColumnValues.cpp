#include "parquet/ColumnValues.h"

#include "parquet/Utf8Text.h"

#include <algorithm>

namespace memlens::parquet {

size_t ColumnValues::nullCount() const
{
    return present.empty() ? 0 : static_cast<size_t>(std::count(present.begin(), present.end(), uint8_t{0}));
}

uint32_t ColumnValues::intern(std::string_view value)
{
    if (lastIndex != UINT32_MAX && lastValue_ == value)
        return lastIndex;
    auto [it, added] = lookup.try_emplace(std::string(value), static_cast<uint32_t>(dictionary.size()));
    if (added) {
        dictionary.emplace_back();
        appendValidUtf8(dictionary.back(), value);
    }
    lastIndex = it->second;
    lastValue_ = it->first;
    return lastIndex;
}

void ColumnValues::clear()
{
    integers.clear();
    reals.clear();
    text.clear();
    textEnd.clear();
    present.clear();
    rows = 0;
    dictionary.clear();
    indices.clear();
    lookup.clear();
    lastIndex = UINT32_MAX;
    lastValue_ = {};
}

} // namespace memlens::parquet
