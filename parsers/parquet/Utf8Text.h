#pragma once
// Parquet's STRING columns must hold UTF-8 (readers such as DuckDB refuse a file otherwise), but
// snapshots carry file and frame names that are not: each byte that does not begin a valid
// sequence becomes U+FFFD, as memlens's JSON output does.
#include <string>
#include <string_view>

namespace memlens::parquet {

// The length of the valid UTF-8 sequence at the start of `text`; 0 when there is none.
size_t utf8SequenceLength(std::string_view text);
// `text` with every invalid byte replaced by U+FFFD, appended to `out`.
void appendValidUtf8(std::string &out, std::string_view text);

} // namespace memlens::parquet
