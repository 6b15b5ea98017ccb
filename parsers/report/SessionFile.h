#pragma once
// A saved session (.memlens): which snapshot (path, size and a checksum), and what was on
// screen — device, page, visible range, selection, the segment map's scale, the stacks view,
// the user's notes. JSON, optionally zstd compressed; keys this version does not know are kept and written back.
#include "model/Ids.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace memlens {

// The Stacks page's tree and flame graph, which flame-graph notes are pinned in.
struct StacksViewState {
    bool bottomUp = false;
    bool hideNoise = true;
    bool pythonOnly = false;
    bool foldRecursion = false;
    std::string groupBy = "stack"; // kStackGroupingNames
    bool allocatedInRange = false; // else: live at the cursor
    std::string flameZoom;         // frame path of the zoomed flame-graph frame ("": the root)
    bool operator==(const StacksViewState &) const = default;
};

struct Session {
    std::string snapshotPath;
    uint64_t snapshotSize = 0;
    std::string snapshotChecksum;
    int device = 0;
    std::string page = "summary";
    std::optional<double> visibleFirst, visibleLast; // x-axis units of the timeline
    bool timeAxis = false;
    std::string color = "allocation"; // how allocations are coloured: allocation, site or category
    std::optional<EventId> selectedEvent;
    std::optional<AllocationId> selectedAllocation;
    std::optional<uint64_t> segmentBytesPerRow; // the segment map's scale
    std::optional<StacksViewState> stacks;
    std::optional<std::string> search; // the timeline's search text
    std::optional<std::string> whatIf; // the What-if replay's PYTORCH_CUDA_ALLOC_CONF ("": the file's own)
    nlohmann::json notes = nlohmann::json::array(); // the user's notes, as NoteSet writes them
    nlohmann::json unknown = nlohmann::json::object(); // other keys, kept as they were
};

// Writes to a temporary file beside `path` and renames it over `path`, so a failure leaves the
// previous file as it was. `beforeCommit` runs just before the rename (tests use it to fail).
// Throws std::runtime_error with a one-line message.
void saveSession(const std::string &path, const Session &session, bool compress,
                 const std::function<void()> &beforeCommit = {});
// Throws LoadError naming the file.
Session loadSession(const std::string &path);
// The decoded text of a session; `path` names it in errors.
Session parseSession(std::string_view text, const std::string &path);

} // namespace memlens
