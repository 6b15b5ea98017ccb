#include "questions/DiffQuestion.h"

#include "model/ByteFormat.h"
#include "questions/QuestionAdmission.h"
#include "questions/QuestionError.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace memlens {

DiffAnswer answerDiff(const std::string &nameA, std::shared_ptr<const Snapshot> a, const std::string &nameB, std::shared_ptr<const Snapshot> b,
                      const DiffRequest &request)
{
    int device = 0;
    if (request.device) {
        device = static_cast<int>(std::clamp<int64_t>(*request.device, -1, INT32_MAX));
    } else {
        const std::vector<int> devices = a->devices();
        if (devices.empty())
            throw QuestionError("a", nameA + ": no device has segments or trace entries");
        device = devices.front();
    }
    // Both runs must have it: admitDevices refuses a device a file lacks, naming the file.
    admitDevices(*a, nameA, device);
    admitDevices(*b, nameB, device);
    return answerDiff(indexDevice(nameA, std::move(a), device, 0), indexDevice(nameB, std::move(b), device, 0), request);
}

DiffAnswer answerDiff(const IndexedDevice &a, const IndexedDevice &b, const DiffRequest &request)
{
    admitMoment(*a.index, request.at);
    admitMoment(*b.index, request.at);
    DiffAnswer answer{diffRuns(a, b, request.at), a.device, request.top, request.limits, {}};
    answer.gate = diffGate(answer.diff, request.limits);
    return answer;
}

std::string diffAnswerText(const DiffAnswer &answer)
{
    const RunDiff &d = answer.diff;
    std::ostringstream out;
    out << "Peak active: " << formatBytes(d.a.peakActiveBytes) << " in A, " << formatBytes(d.b.peakActiveBytes) << " in B\n"
        << "Peak reserved: " << formatBytes(d.a.peakReservedBytes) << " in A, " << formatBytes(d.b.peakReservedBytes) << " in B\n"
        << "Live at " << d.at.text() << ": " << formatBytes(d.a.liveAtPoint) << " in A, " << formatBytes(d.b.liveAtPoint) << " in B\n";
    if (d.sites.empty())
        out << "No differences by call site.\n";
    for (size_t i = 0; i < d.sites.size() && i < answer.top; ++i) {
        const int64_t c = d.sites[i].change();
        out << (c >= 0 ? "  +" : "  -") << formatBytes(static_cast<uint64_t>(std::abs(c))) << "  " << d.sites[i].site << "  ("
            << formatBytes(static_cast<uint64_t>(d.sites[i].bytesA)) << " -> " << formatBytes(static_cast<uint64_t>(d.sites[i].bytesB)) << ")\n";
    }
    return out.str();
}

std::string diffAnswerMarkdown(const DiffAnswer &answer)
{
    return diffMarkdown(answer.diff, answer.top);
}

nlohmann::json diffAnswerJson(const DiffAnswer &answer, bool withGate)
{
    nlohmann::json j = diffJson(answer.diff, answer.device, answer.top);
    if (withGate)
        j["gate"] = gateJson(answer.gate);
    return j;
}

std::vector<std::string> diffGateFailures(const DiffAnswer &answer)
{
    std::vector<std::string> lines;
    std::ostringstream peak, reserved;
    if (answer.gate.peakOver) {
        peak << "peak active grew " << answer.gate.peakGrowth << " %, more than the allowed " << *answer.limits.peakGrowsPercent << " %";
        lines.push_back(peak.str());
    }
    if (answer.gate.reservedOver) {
        reserved << "peak reserved grew " << answer.gate.reservedGrowth << " %, more than the allowed " << *answer.limits.reservedGrowsPercent << " %";
        lines.push_back(reserved.str());
    }
    return lines;
}

std::string diffBrief(const DiffAnswer &answer)
{
    const RunDiff &d = answer.diff;
    const DiffLimits &limits = answer.limits;
    return "peak active " + formatBytes(d.a.peakActiveBytes) + " → " + formatBytes(d.b.peakActiveBytes) + ", peak reserved " +
           formatBytes(d.a.peakReservedBytes) + " → " + formatBytes(d.b.peakReservedBytes) + "; " + std::to_string(d.sites.size()) +
           " call sites differ" +
           (limits.peakGrowsPercent || limits.reservedGrowsPercent ? (answer.gate.passed() ? "; the gate passes" : "; the gate fails") : "");
}

} // namespace memlens
