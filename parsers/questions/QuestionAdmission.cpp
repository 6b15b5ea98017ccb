#include "questions/QuestionAdmission.h"

#include "questions/QuestionError.h"

#include <algorithm>

namespace memlens {

namespace {

void requireDevice(const std::vector<int> &devices, const std::string &file, int64_t device)
{
    if (std::find(devices.begin(), devices.end(), device) == devices.end())
        throw QuestionError("device", file + " has no segments or trace entries on that device", QuestionError::Kind::Usage, std::to_string(device));
}

} // namespace

int admitDevice(const Snapshot &snapshot, const std::string &file, std::optional<int64_t> device)
{
    const std::vector<int> devices = snapshot.devices();
    if (device) {
        requireDevice(devices, file, *device);
        return static_cast<int>(*device);
    }
    if (devices.empty())
        throw QuestionError("path", file + ": no device has segments or trace entries");
    return devices.front();
}

IndexedDevice admitIndexedDevice(const std::string &file, std::shared_ptr<const Snapshot> snapshot, std::optional<int64_t> device, size_t top)
{
    const int admitted = admitDevice(*snapshot, file, device);
    return indexDevice(file, std::move(snapshot), admitted, top);
}

std::vector<int> admitDevices(const Snapshot &snapshot, const std::string &file, std::optional<int64_t> device)
{
    std::vector<int> devices = snapshot.devices();
    if (!device)
        return devices;
    requireDevice(devices, file, *device);
    return {static_cast<int>(*device)};
}

TracePoint admitMoment(const DeviceIndex &index, const Moment &moment)
{
    try {
        return pointOf(index, moment);
    } catch (const std::invalid_argument &e) {
        throw QuestionError("at", e.what(), QuestionError::Kind::Usage, moment.text());
    }
}

} // namespace memlens
