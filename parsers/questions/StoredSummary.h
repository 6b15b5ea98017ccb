#pragma once
// `memlens summary FILE` asked again: its answer kept beside the file's cache entry
// (cache/StoredAnswers) without the file's name, which the asker may spell otherwise, and put
// back when it is printed. Every request is kept under its own name (device, moment, --top,
// --gpu, text or JSON), so an answer is only ever the one the same request gave.
#include "cache/SnapshotCache.h"
#include "questions/SummaryQuestion.h"

#include <optional>
#include <string>

namespace memlens {

enum class SummaryForm { Text, Json };

// The printed answer, or nothing when none is kept (or what is kept is not believed).
std::optional<std::string> storedSummary(const SnapshotCache &cache, const CacheKey &key, const std::string &file,
                                         const SummaryRequest &request, SummaryForm form);
// Keeps `printed` (what summaryAnswerText or summaryAnswerJson gave for `answer`).
void storeSummary(const SnapshotCache &cache, const CacheKey &key, const SummaryAnswer &answer, const SummaryRequest &request,
                  SummaryForm form, const std::string &printed);

} // namespace memlens
