#pragma once
// The units a sharded run executes its model in, and which unit made each allocation: memory by
// unit (an FSDP2 `layers.N`, a Megatron `decoder.layers.N.mlp`) instead of by file line. Units
// come from the marks the frameworks write themselves, never from a script's own words:
//   - FSDP2 / FSDP1 hooks: `FSDP::pre_forward (NAME)` … `FSDP::post_forward (NAME)` is one forward
//     of unit NAME, `FSDP::pre_backward (NAME)` … the last `FSDP::post_backward… (NAME)` one
//     backward (`FullyShardedDataParallel::` likewise); the root's marks carry no name;
//   - otherwise any record_function range whose name is a module path with an index
//     (`decoder.layers.3.self_attention`).
// An allocation belongs to the innermost unit open when it was made; one made outside every unit
// (sharded parameters made by fully_shard, the loss) belongs to none.
#include "index/DeviceIndex.h"
#include "index/Phases.h"
#include "model/EnumNames.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

enum class UnitSource : uint8_t { None, FsdpMarks, ModulePathMarks };
constexpr EnumNames<UnitSource, 3> kUnitSourceNames{
    {{{UnitSource::None, "none"}, {UnitSource::FsdpMarks, "fsdp_marks"}, {UnitSource::ModulePathMarks, "module_path_marks"}}}};
// The evidence in words, as the texts name it: "FSDP's marks", "module-path marks".
constexpr std::string_view unitSourceText(UnitSource source)
{
    return source == UnitSource::FsdpMarks ? "FSDP's marks" : "module-path marks";
}

// One pass of a unit: from its first mark's start to its last mark's end (INT64_MAX: still
// running when the trace ends).
struct UnitSpan {
    int64_t startUs = 0;
    int64_t endUs = 0;
    uint32_t unit = 0;
    bool backward = false;
};

// Bytes and blocks one unit made that are live at a moment; `unit` empty for what no unit made:
// in the trace outside every unit (the loss, the optimizer), or before the trace began
// (`beforeTrace`: sharded parameters, a KV cache; which unit made them is not recorded).
struct UnitBytes {
    std::string unit;
    uint64_t bytes = 0;
    uint64_t blocks = 0;
    bool beforeTrace = false;
};

// The FSDP unit a hook mark names ("layers.0"; "(root)" for the root's unnamed marks), with the
// hook ("pre_forward"); nothing for other names.
struct FsdpHookMark {
    std::string_view hook;
    std::string unit;
};
std::optional<FsdpHookMark> fsdpHookMark(std::string_view phaseName);
// Whether a phase name is a module path with an index (`decoder.layers.3.mlp`).
bool isModulePath(std::string_view phaseName);

// f(alloc entry i, the innermost of `spans` open at its time) for each allocation made inside one,
// in one sweep over the events: spans are sorted by start and nest, so the innermost is the latest
// to start, and one that has ended is dropped when it reaches the top.
template <typename Span, typename F>
void forEachAllocInSpans(const EventTable &events, const std::vector<Span> &spans, F &&f)
{
    std::vector<uint32_t> open;
    size_t next = 0;
    for (uint32_t i = 0; i < events.count(); ++i) {
        if (events.action[i] != Action::Alloc)
            continue;
        const int64_t t = events.timeUs[i];
        while (next < spans.size() && spans[next].startUs <= t)
            open.push_back(static_cast<uint32_t>(next++));
        while (!open.empty() && spans[open.back()].endUs < t)
            open.pop_back();
        if (!open.empty())
            f(i, open.back());
    }
}

// The units of `bytes` (not what no unit made), largest first: the order the summary's text and
// the window's Summary name them in.
std::vector<UnitBytes> unitsByBytes(const std::vector<UnitBytes> &bytes);

class ModuleUnits {
public:
    static constexpr int32_t kOutside = -1;    // made in the trace, in no unit
    static constexpr int32_t kBeforeTrace = -2; // made before the trace began

    ModuleUnits(const DeviceIndex &index, const std::vector<PhaseRange> &phases);

    UnitSource source() const { return source_; }
    bool empty() const { return names_.empty(); }
    // Unit names in the order their first pass began.
    const std::vector<std::string> &names() const { return names_; }
    const std::vector<UnitSpan> &spans() const { return spans_; } // by start
    int32_t unitOf(AllocationId id) const
    {
        return id.index() < unitOf_.size() ? unitOf_[id.index()] : kOutside;
    }
    // What is live at t by the unit that made it: units in order, then what no unit made in the
    // trace, then what was made before it; only those holding something.
    std::vector<UnitBytes> bytesAt(const DeviceIndex &index, TracePoint t) const;

private:
    void spansFromFsdpMarks(const std::vector<PhaseRange> &phases);
    void spansFromModulePaths(const std::vector<PhaseRange> &phases);
    uint32_t unitNamed(const std::string &name);
    void assign(const DeviceIndex &index);

    UnitSource source_ = UnitSource::None;
    std::vector<std::string> names_;
    std::vector<UnitSpan> spans_;
    std::vector<int32_t> unitOf_; // per allocation; empty without units
};

} // namespace memlens
