#pragma once
// One column's values for the row group being built: integers (INT64, INT32, BOOLEAN), reals
// or strings, and which rows are null. Nulls take no slot among the values. Dictionary columns
// keep each distinct string once, with an index per value.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
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
    // Dictionary columns: the distinct strings (UTF-8) in first-seen order, and one index per value.
    std::vector<std::string> dictionary;
    std::vector<uint32_t> indices;
    std::unordered_map<std::string, uint32_t> lookup; // by the string as given
    uint32_t lastIndex = UINT32_MAX;                   // the previous value's: rows often repeat it

    // The index of `value` in the dictionary, added when new.
    uint32_t intern(std::string_view value);

    std::string_view string(size_t i) const
    {
        const uint32_t begin = i == 0 ? 0 : textEnd[i - 1];
        return std::string_view(text).substr(begin, textEnd[i] - begin);
    }
    size_t valueCount() const { return rows - nullCount(); }
    size_t nullCount() const;
    void clear();

private:
    std::string_view lastValue_; // a key of `lookup`, whose nodes do not move
};

} // namespace memlens::parquet
