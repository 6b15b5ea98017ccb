#pragma once
// The pages of a document, with the one table of their names (sessions, `render --view`).
#include "model/EnumNames.h"

namespace memlens {

enum class Page { Summary, Timeline, Steps, Segments, SegmentTimeline, Stacks, Live, Modules, Layers, Categories };

constexpr EnumNames<Page, 10> kPageNames{{{{Page::Summary, "summary"},
                                          {Page::Timeline, "timeline"},
                                          {Page::Steps, "steps"},
                                          {Page::Segments, "segments"},
                                          {Page::SegmentTimeline, "segment-timeline"},
                                          {Page::Stacks, "stacks"},
                                          {Page::Live, "live"},
                                          {Page::Modules, "modules"},
                                          {Page::Layers, "layers"},
                                          {Page::Categories, "categories"}}}};
constexpr std::array kPages = kPageNames.values();

constexpr std::string_view pageName(Page page)
{
    return kPageNames.name(page);
}

constexpr std::optional<Page> pageFromName(std::string_view name)
{
    return kPageNames.find(name);
}

} // namespace memlens
