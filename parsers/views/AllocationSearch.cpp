#include "views/AllocationSearch.h"

#include "views/CallTree.h"
#include "model/ByteFormat.h"

#include <algorithm>

namespace memlens {

namespace {
char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
} // namespace

AllocationSearch::AllocationSearch(const Snapshot &snapshot, const DeviceIndex &index, std::string_view text)
    : snapshot_(snapshot), index_(index)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    needle_.resize(text.size());
    std::transform(text.begin(), text.end(), needle_.begin(), lower);
}

bool AllocationSearch::contains(std::string_view haystack) const
{
    return std::search(haystack.begin(), haystack.end(), needle_.begin(), needle_.end(),
                       [](char a, char b) { return lower(a) == b; }) != haystack.end();
}

bool AllocationSearch::stackMatches(StackId stack) const
{
    auto [it, inserted] = stacks_.emplace(stack, false);
    if (!inserted)
        return it->second;
    for (FrameId id : snapshot_.stacks.at(stack)) {
        const Frame &f = snapshot_.frames.at(id);
        bool hit = contains(snapshot_.strings.at(f.file)) || contains(snapshot_.strings.at(f.name));
        if (const FxFrame *fx = snapshot_.fxFrame(id); !hit && fx)
            hit = contains(snapshot_.strings.at(fx->node)) || contains(snapshot_.strings.at(fx->target)) ||
                  contains(fxOriginalLine(snapshot_.strings.at(fx->originalTrace)));
        if (hit) {
            it->second = true;
            break;
        }
    }
    return it->second;
}

bool AllocationSearch::matches(AllocationId allocation) const
{
    if (needle_.empty())
        return true;
    const AllocationDetail d = index_.detail(allocation);
    if (contains(formatAddress(d.addr)))
        return true;
    const EventTable &ev = index_.events();
    for (const auto &[id, event] : index_.annotationsOf(allocation))
        if (contains(snapshot_.strings.at(EventTable::sparseValueAt(ev.userMetadata, event))))
            return true;
    for (const StringId text : {index_.userMetadataOf(allocation), index_.compileContextOf(allocation)})
        if (text != StringTable::kEmpty && contains(snapshot_.strings.at(text)))
            return true;
    return stackMatches(d.stack);
}

AllocationId AllocationSearch::next(AllocationId after) const
{
    const auto n = static_cast<uint32_t>(index_.allocationCount());
    if (n == 0)
        return AllocationId::none();
    const uint32_t start = after.index() >= n ? 0 : after.index() + 1; // none is beyond every id
    for (uint32_t k = 0; k < n; ++k) {
        const AllocationId id((start + k) % n);
        if (matches(id))
            return id;
    }
    return AllocationId::none();
}

} // namespace memlens
