#pragma once
// The pages of a document, with the one table of their names (sessions, `render --view`).
#include <array>
#include <optional>
#include <string_view>

namespace memlens {

enum class Page { Summary, Timeline, Segments, Stacks, Live, Categories };
constexpr std::array kPages{Page::Summary, Page::Timeline, Page::Segments, Page::Stacks, Page::Live, Page::Categories};

constexpr std::string_view pageName(Page page)
{
    constexpr std::string_view names[] = {"summary", "timeline", "segments", "stacks", "live", "categories"};
    return names[static_cast<int>(page)];
}

constexpr std::optional<Page> pageFromName(std::string_view name)
{
    for (Page page : kPages) {
        if (pageName(page) == name)
            return page;
    }
    return std::nullopt;
}

} // namespace memlens
