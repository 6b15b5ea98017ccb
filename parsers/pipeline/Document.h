#pragma once
// How a file becomes a model, as two immutable values published in stages (like heaptrack's
// staged parser): first a Document (the snapshot, each device's indices, categories and
// summary), then its TimelineLayouts (the timeline's level-of-detail index). Neither is
// written after it is published.
#include "advice/FixRanking.h"
#include "figures/DeviceFigures.h"
#include "index/DeviceIndex.h"
#include "views/TimelineLayout.h"
#include "model/Snapshot.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace memlens {

// A device's figures (its categories shared by the document the advice completes), with the
// index they were made from and the advice.
struct DeviceData : DeviceFigures {
    std::shared_ptr<const DeviceIndex> index; // shared with the timeline's index while it is built
    Advice advice; // the inferred setup and ranked fixes, at the OOM when there is one, else the peak
    bool advised = true; // false in the window's first document: its advice follows the first frame
};

// Stage 1: everything the summary, segments, stacks, live and estimator pages need.
struct Document {
    std::string path;
    std::shared_ptr<const Snapshot> snapshot; // shared with a cache write in progress
    std::map<int, DeviceData> devices; // only devices with segments or trace entries
    // What making the snapshot said beside its figures: a stitched run's warnings (dumps of
    // another run left out, steps against times), one sentence each.
    std::vector<std::string> notes;

    const DeviceData *device(int d) const
    {
        auto it = devices.find(d);
        return it == devices.end() ? nullptr : &it->second;
    }
    // The device to compare with another run's device `d`: the same number when this document
    // has it, else its first device (d when it has none).
    int deviceMatching(int d) const { return device(d) || devices.empty() ? d : devices.begin()->first; }
    std::string fileName() const; // the path without directories
    // The device a view opens on: the first that ran out of memory, else the one with the
    // highest peak (the lowest number of equal ones); 0 when there is none.
    int openingDevice() const;
};

// Device `d` of `document` as the questions take it (sharing the document's ownership); its
// figures are null when the document has no such device.
IndexedDevice indexedDevice(const std::shared_ptr<const Document> &document, int d);

// Stage 2: the timeline's index per device. Keeps its document alive, since each layout
// refers to that document's DeviceIndex.
struct TimelineLayouts {
    std::shared_ptr<const Document> document;
    std::map<int, std::shared_ptr<const TimelineLayout>> layouts; // shared when the advice's document follows

    const TimelineLayout *layout(int d) const
    {
        auto it = layouts.find(d);
        return it == layouts.end() ? nullptr : it->second.get();
    }
};

} // namespace memlens
