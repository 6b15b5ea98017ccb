#include "questions/StacksQuestion.h"

#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "report/OptionalJson.h"

#include <algorithm>

namespace memlens {

namespace {

std::vector<CallTree::FoldedPath> largestFirst(std::vector<CallTree::FoldedPath> paths)
{
    std::stable_sort(paths.begin(), paths.end(), [](const auto &x, const auto &y) { return x.bytes > y.bytes; });
    return paths;
}

} // namespace

StacksAnswer answerStacks(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const StacksRequest &request)
{
    const int device = admitDevice(*snapshot, file, request.device);
    auto index = std::make_shared<const DeviceIndex>(*snapshot, device);
    return answerStacks(IndexedDevice{file, std::move(snapshot), device, std::move(index), nullptr}, request); // a call tree needs no figures
}

StacksAnswer answerStacks(const IndexedDevice &device, const StacksRequest &request)
{
    StacksAnswer answer{device.file, device.device, request.at, {}, request.bottomUp, 0, {}, request.top};
    answer.point = admitMoment(*device.index, request.at);
    CallTreeOptions options;
    options.bottomUp = request.bottomUp;
    const CallTree tree(*device.snapshot, *device.index, device.index->liveAt(answer.point), options);
    answer.liveBytes = tree.root().bytes;
    answer.paths = tree.foldedPaths();
    return answer;
}

std::string stacksFoldedText(const StacksAnswer &answer)
{
    return foldedText(answer.paths);
}

nlohmann::json stacksJson(const StacksAnswer &answer)
{
    const std::vector<CallTree::FoldedPath> paths = largestFirst(answer.paths);
    nlohmann::json list = nlohmann::json::array();
    for (size_t i = 0; i < paths.size() && i < answer.top; ++i)
        list.push_back({{"bytes", paths[i].bytes}, {"frames", paths[i].frames}});
    return {{"file", answer.file}, {"device", answer.device}, {"at", answer.at.text()}, {"event", pointJson(answer.point)},
            {"live_bytes", answer.liveBytes}, {"paths", list}, {"paths_count", paths.size()}, {"bottom_up", answer.bottomUp}};
}

std::string stacksBrief(const StacksAnswer &answer)
{
    const std::vector<CallTree::FoldedPath> paths = largestFirst(answer.paths);
    std::string text = formatBytes(answer.liveBytes) + " live at " + answer.at.text() + " (" + pointText(answer.point) + ") in " +
                       std::to_string(paths.size()) + " call paths";
    for (size_t i = 0; i < paths.size() && i < answer.top && i < 3; ++i)
        text += "; " + formatBytes(paths[i].bytes) + " at " + (paths[i].frames.empty() ? std::string("?") : paths[i].frames.back());
    return text;
}

} // namespace memlens
