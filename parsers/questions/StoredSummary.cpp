#include "questions/StoredSummary.h"

#include "cache/StoredAnswers.h"
#include "report/JsonText.h"

#include <nlohmann/json.hpp>

namespace memlens {

namespace {

std::string questionName(const SummaryRequest &request, SummaryForm form)
{
    return std::string("summary ") + (form == SummaryForm::Json ? "json" : "text") +
           " device=" + (request.device ? std::to_string(*request.device) : std::string("all")) + (request.oneDevice ? " one" : "") +
           " top=" + std::to_string(request.top) + " at=" + (request.at ? request.at->text() : std::string("none")) +
           " gpu=" + (request.deviceTotal ? std::to_string(*request.deviceTotal) : std::string("none"));
}

} // namespace

std::optional<std::string> storedSummary(const SnapshotCache &cache, const CacheKey &key, const std::string &file,
                                         const SummaryRequest &request, SummaryForm form)
{
    const std::optional<std::string> kept = StoredAnswers(cache, key).find(questionName(request, form));
    if (!kept)
        return std::nullopt;
    if (form == SummaryForm::Text)
        return file + *kept;
    // Parsed, which also refuses a kept text that is not a summary's JSON object.
    nlohmann::json object = nlohmann::json::parse(*kept, nullptr, false);
    if (!object.is_object() || !object.contains(summary_keys::file) || !object.contains(summary_keys::devices))
        return std::nullopt;
    object[summary_keys::file] = file;
    return jsonText(object, 2) + "\n";
}

void storeSummary(const SnapshotCache &cache, const CacheKey &key, const SummaryAnswer &answer, const SummaryRequest &request,
                  SummaryForm form, const std::string &printed)
{
    std::string kept;
    if (form == SummaryForm::Text) {
        if (!printed.starts_with(answer.file))
            return;
        kept = printed.substr(answer.file.size());
    } else {
        nlohmann::json object = nlohmann::json::parse(printed, nullptr, false);
        if (!object.is_object())
            return;
        object[summary_keys::file] = "";
        kept = jsonText(object);
    }
    StoredAnswers(cache, key).store(questionName(request, form), kept);
}

} // namespace memlens
