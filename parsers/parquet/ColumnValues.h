#pragma once
// One column's values for the row group being built: integers (INT64, INT32, BOOLEAN), reals
// or strings, and which rows are null. Nulls take no slot among the values.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memlens::parquet {

enum class ColumnKind : uint8_t { Int64, Int32, Boolean, Double, String };

struct ColumnSpec {
    std::string name;
    ColumnKind kind = ColumnKind::Int64;
    bool nullable = false;
    bool dictionary = false; // strings only: dictionary-encoded (frames, categories, actions)
};

struct ColumnValues {
    std::vector<int64_t> integers;
    std::vector<double> reals;
    std::string text;             // the strings, back to back
    std::vector<uint32_t> textEnd; // where each string ends in `text`
    std::vector<uint8_t> present;  // per row, nullable columns only
    size_t rows = 0;

    std::string_view string(size_t i) const
    {
        const uint32_t begin = i == 0 ? 0 : textEnd[i - 1];
        return std::string_view(text).substr(begin, textEnd[i] - begin);
    }
    size_t valueCount() const { return rows - nullCount(); }
    size_t nullCount() const;
    void clear();
};

} // namespace memlens::parquet
