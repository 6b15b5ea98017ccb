#include "questions/SearchQuestion.h"

#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "questions/QuestionError.h"
#include "report/SummaryReport.h"
#include "views/AllocationSearch.h"

#include <algorithm>

namespace memlens {

namespace {
// Matched against every frame, label and address: a bounded needle bounds the work.
constexpr size_t kMaxSearchText = 1000;

void admitSearchText(const std::string &text)
{
    if (text.empty())
        throw QuestionError("text", "empty");
    if (text.size() > kMaxSearchText)
        throw QuestionError("text", "longer than " + std::to_string(kMaxSearchText) + " bytes");
}
} // namespace

SearchAnswer answerSearch(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const SearchRequest &request)
{
    admitSearchText(request.text);
    return answerSearch(admitIndexedDevice(file, std::move(snapshot), request.device, 0), request);
}

SearchAnswer answerSearch(const IndexedDevice &device, const SearchRequest &request)
{
    admitSearchText(request.text);
    SearchAnswer answer{device.file, device.snapshot, device.device, request.text, 0, {}, {}};
    const DeviceIndex &index = *device.index;
    answer.matcher = std::make_shared<const AllocationSearch>(*device.snapshot, index, request.text);
    std::vector<AllocationId> hits;
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        if (answer.matcher->matches(AllocationId(i)))
            hits.push_back(AllocationId(i));
    }
    // The largest first: what an agent asks about next.
    std::stable_sort(hits.begin(), hits.end(), [&](AllocationId x, AllocationId y) { return index.requestedBytes(x) > index.requestedBytes(y); });
    answer.matches = hits.size();
    for (size_t i = 0; i < hits.size() && i < request.top; ++i)
        answer.hits.push_back({liveBlockInfo(index, hits[i], device.figures->categories.get()), index.allocation(hits[i]).freeCompleted});
    return answer;
}

nlohmann::json searchJson(const SearchAnswer &answer)
{
    nlohmann::json list = nlohmann::json::array();
    for (const SearchHit &h : answer.hits) {
        // Named as summary --json names a live block, with the free that ended it.
        nlohmann::json hit = liveBlockJson(*answer.snapshot, h.block);
        hit["free_index"] = h.freed == kNever ? nlohmann::json(nullptr) : nlohmann::json(h.freed.index());
        list.push_back(std::move(hit));
    }
    return {{"file", answer.file}, {"device", answer.device}, {"text", answer.text}, {"matches", answer.matches}, {"allocations", list}};
}

std::string searchBrief(const SearchAnswer &answer)
{
    std::string text = std::to_string(answer.matches) + " allocations match '" + answer.text + "'";
    if (!answer.hits.empty())
        text += "; the largest " + formatBytes(answer.hits.front().block.size);
    return text;
}

} // namespace memlens
