#include "figures/ModuleUnits.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace memlens {

namespace {

constexpr int64_t kOpenEnd = INT64_MAX;

bool isIdentifier(std::string_view s)
{
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool isIndex(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A unit's passes from its hooks, in the order they ran.
struct UnitPasses {
    std::optional<int64_t> forwardStart, backwardStart, backwardEnd;
};

} // namespace

std::optional<FsdpHookMark> fsdpHookMark(std::string_view name)
{
    for (std::string_view prefix : {"FSDP::", "FullyShardedDataParallel::"}) {
        if (!name.starts_with(prefix))
            continue;
        name.remove_prefix(prefix.size());
        const size_t open = name.find(" (");
        if (open == std::string_view::npos)
            return FsdpHookMark{name, "(root)"};
        if (!name.ends_with(')'))
            return std::nullopt;
        return FsdpHookMark{name.substr(0, open), std::string(name.substr(open + 2, name.size() - open - 3))};
    }
    return std::nullopt;
}

bool isModulePath(std::string_view name)
{
    bool indexed = false;
    size_t parts = 0;
    while (true) {
        const size_t dot = name.find('.');
        const std::string_view part = name.substr(0, dot);
        if (isIndex(part))
            indexed = true;
        else if (!isIdentifier(part))
            return false;
        ++parts;
        if (dot == std::string_view::npos)
            break;
        name.remove_prefix(dot + 1);
    }
    return indexed && parts >= 2;
}

ModuleUnits::ModuleUnits(const DeviceIndex &index, const std::vector<PhaseRange> &phases)
{
    spansFromFsdpMarks(phases);
    if (spans_.empty())
        spansFromModulePaths(phases);
    if (spans_.empty()) {
        names_.clear();
        return;
    }
    std::stable_sort(spans_.begin(), spans_.end(), [](const UnitSpan &a, const UnitSpan &b) { return a.startUs < b.startUs; });
    assign(index);
}

uint32_t ModuleUnits::unitNamed(const std::string &name)
{
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it != names_.end())
        return static_cast<uint32_t>(it - names_.begin());
    names_.push_back(name);
    return static_cast<uint32_t>(names_.size() - 1);
}

void ModuleUnits::spansFromFsdpMarks(const std::vector<PhaseRange> &phases)
{
    std::map<uint32_t, UnitPasses> passes;
    auto closeBackward = [&](uint32_t unit, UnitPasses &p, int64_t at) {
        spans_.push_back({*p.backwardStart, p.backwardEnd.value_or(at), unit, true});
        p.backwardStart.reset();
        p.backwardEnd.reset();
    };
    for (const PhaseRange &range : phases) {
        const std::optional<FsdpHookMark> mark = fsdpHookMark(range.name);
        if (!mark)
            continue;
        const int64_t start = range.startUs.value_or(INT64_MIN), end = range.endUs.value_or(kOpenEnd);
        const bool opens = mark->hook == "pre_forward" || mark->hook == "pre_backward";
        const bool closes = mark->hook == "post_forward" || mark->hook.starts_with("post_backward");
        if (!opens && !closes)
            continue; // root_pre_forward, all_gather, copy-out: inside a unit's hooks or before them
        const uint32_t unit = unitNamed(mark->unit);
        UnitPasses &p = passes[unit];
        // A backward pass ends with its last post_backward hook: at the next pass of the unit.
        if (opens && p.backwardStart && (mark->hook == "pre_backward" || (p.backwardEnd && *p.backwardEnd <= start)))
            closeBackward(unit, p, start);
        if (mark->hook == "pre_forward" && !p.forwardStart)
            p.forwardStart = start;
        else if (mark->hook == "pre_backward")
            p.backwardStart = start;
        else if (mark->hook == "post_forward" && p.forwardStart) {
            spans_.push_back({*p.forwardStart, end, unit, false});
            p.forwardStart.reset();
        } else if (closes && p.backwardStart)
            p.backwardEnd = end;
    }
    for (auto &[unit, p] : passes) {
        if (p.forwardStart)
            spans_.push_back({*p.forwardStart, kOpenEnd, unit, false});
        if (p.backwardStart)
            closeBackward(unit, p, kOpenEnd);
    }
    if (!spans_.empty())
        source_ = UnitSource::FsdpMarks;
}

void ModuleUnits::spansFromModulePaths(const std::vector<PhaseRange> &phases)
{
    for (const PhaseRange &range : phases) {
        if (range.startUs && isModulePath(range.name))
            spans_.push_back({*range.startUs, range.endUs.value_or(kOpenEnd), unitNamed(range.name), false});
    }
    if (!spans_.empty())
        source_ = UnitSource::ModulePathMarks;
}

void ModuleUnits::assign(const DeviceIndex &index)
{
    unitOf_.assign(index.allocationCount(), kOutside);
    for (uint32_t a = 0; a < unitOf_.size(); ++a) {
        if (index.allocation(AllocationId(a)).fromBeforeTrace())
            unitOf_[a] = kBeforeTrace;
    }
    forEachAllocInSpans(index.events(), spans_, [&](uint32_t event, uint32_t span) {
        if (const AllocationId id = index.allocationOfEvent(EventId(event)); !id.isNone())
            unitOf_[id.index()] = static_cast<int32_t>(spans_[span].unit);
    });
}

std::vector<UnitBytes> unitsByBytes(const std::vector<UnitBytes> &bytes)
{
    std::vector<UnitBytes> units = bytes;
    std::erase_if(units, [](const UnitBytes &u) { return u.unit.empty(); });
    std::stable_sort(units.begin(), units.end(), [](const UnitBytes &a, const UnitBytes &b) { return a.bytes > b.bytes; });
    return units;
}

std::vector<UnitBytes> ModuleUnits::bytesAt(const DeviceIndex &index, TracePoint t) const
{
    std::vector<UnitBytes> byUnit(names_.size() + 2);
    for (size_t u = 0; u < names_.size(); ++u)
        byUnit[u].unit = names_[u];
    byUnit.back().beforeTrace = true;
    for (AllocationId id : index.liveAt(t)) {
        const int32_t unit = unitOf(id);
        UnitBytes &b = byUnit[unit == kOutside ? names_.size() : unit == kBeforeTrace ? names_.size() + 1 : static_cast<size_t>(unit)];
        b.bytes += index.requestedBytes(id);
        ++b.blocks;
    }
    std::erase_if(byUnit, [](const UnitBytes &b) { return b.blocks == 0; });
    return byUnit;
}

} // namespace memlens
