#pragma once
// `memlens diff A B` and MCP's diff as a value: two runs' peaks, categories and live bytes by
// call site at a moment, and the CI gate's verdict.
#include "report/RunDiff.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

struct DiffRequest {
    std::optional<int64_t> device; // none: A's first, which B must have too
    Moment at = Moment::peak();
    size_t top = 20;
    DiffLimits limits;
};

struct DiffAnswer {
    RunDiff diff;
    int device = 0;
    size_t top = 20;
    DiffLimits limits;
    DiffGate gate;
};

// Throws QuestionError ("a", "device", "at") when the runs share no such device or moment.
DiffAnswer answerDiff(const std::string &nameA, std::shared_ptr<const Snapshot> a, const std::string &nameB, std::shared_ptr<const Snapshot> b,
                      const DiffRequest &request);
// Two devices indexed before (the window's documents): `request.device` is theirs.
DiffAnswer answerDiff(const IndexedDevice &a, const IndexedDevice &b, const DiffRequest &request);

std::string diffAnswerText(const DiffAnswer &answer);
std::string diffAnswerMarkdown(const DiffAnswer &answer);
// diff --json's object; `withGate` adds the gate's verdict (a tool's answer: it has no exit code).
nlohmann::json diffAnswerJson(const DiffAnswer &answer, bool withGate);
// The limits exceeded, one line each ("peak active grew 7.2 %, more than the allowed 5 %").
std::vector<std::string> diffGateFailures(const DiffAnswer &answer);
std::string diffBrief(const DiffAnswer &answer);

} // namespace memlens
