#pragma once
// One table of names for an enum's values, read both ways: the spelling files, sessions and
// command lines use. Every enum that is written down by name declares one of these.
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace memlens {

template <typename Enum, size_t N>
struct EnumNames {
    std::array<std::pair<Enum, std::string_view>, N> entries;

    constexpr std::string_view name(Enum value) const
    {
        for (const auto &[e, n] : entries) {
            if (e == value)
                return n;
        }
        return {};
    }
    constexpr std::optional<Enum> find(std::string_view name) const
    {
        for (const auto &[e, n] : entries) {
            if (n == name)
                return e;
        }
        return std::nullopt;
    }
    constexpr std::array<Enum, N> values() const
    {
        std::array<Enum, N> out{};
        for (size_t i = 0; i < N; ++i)
            out[i] = entries[i].first;
        return out;
    }
};

} // namespace memlens
