#include "questions/ExportQuestion.h"

#include "export/DatasetFigures.h"
#include "export/DatasetPrune.h"
#include "model/ByteFormat.h"
#include "questions/QuestionError.h"

#include <charconv>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace memlens {

std::pair<int, int> parseShard(std::string_view text)
{
    const auto slash = text.find('/');
    int i = 0, n = 0;
    const auto parse = [](std::string_view part, int &value) {
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        return ec == std::errc() && end == part.data() + part.size() && !part.empty();
    };
    if (slash == std::string_view::npos || !parse(text.substr(0, slash), i) || !parse(text.substr(slash + 1), n) || n < 1 || i < 1 ||
        i > n)
        throw QuestionError("shard", "takes I/N with 1 ≤ I ≤ N, e.g. 3/8", QuestionError::Kind::Usage, std::string(text));
    return {i, n};
}

size_t ExportAnswer::failed() const
{
    size_t n = 0;
    for (const ExportedInput &input : inputs)
        n += input.error.empty() ? 0 : 1;
    return n;
}

ExportAnswer answerExport(const ExportRequest &request, const SnapshotCache *cache, const std::function<void(const ExportedInput &)> &done)
{
    ExportAnswer answer{request, 0, {}, {}};
    ExportInputs all;
    try {
        all = exportInputs(request.input);
    } catch (const std::runtime_error &e) { // nothing there to export
        throw QuestionError("path", e.what(), QuestionError::Kind::Input);
    }
    answer.inputsInAll = all.inputs.size();
    answer.notes = all.notes;
    std::error_code ec;
    if (request.prune && !std::filesystem::is_directory(request.input, ec))
        throw QuestionError("prune", "drops what a folder no longer has: give a folder, not a file", QuestionError::Kind::Usage);
    checkDatasetFolder(request.out);
    for (const ExportInput &input : shareOf(all.inputs, request.shard, request.shards)) {
        answer.inputs.push_back(exportInput(input, request.out, cache));
        if (done)
            done(answer.inputs.back());
    }
    if (request.prune) {
        // Every share's dumps stay; of this share's, those that could not be read now go (their
        // tables were of what the file held before).
        std::set<std::string> kept;
        for (const ExportInput &input : all.inputs)
            kept.insert(input.resolved);
        for (const ExportedInput &input : answer.inputs) {
            if (!input.error.empty())
                kept.erase(input.input.resolved);
        }
        answer.pruned = pruneDataset(request.out, request.input, kept);
    }
    // Counted from the listing: every part read whole cost a shard's export the whole dataset.
    answer.held = datasetInputCount(request.out);
    return answer;
}

std::string exportedInputLine(const ExportedInput &input)
{
    if (!input.error.empty())
        return "memlens: " + input.error;
    const auto rows = [&](FleetTable t) { return groupDigits(static_cast<uint64_t>(input.rows[static_cast<size_t>(t)])); };
    return "rank " + std::to_string(input.input.rank) + " step " + std::to_string(input.input.step) + "  " + input.input.name + ": " +
           rows(FleetTable::Events) + " events, " + rows(FleetTable::Steps) + " steps, " + rows(FleetTable::LiveAtPeak) +
           " live at the peak";
}

std::string exportAnswerText(const ExportAnswer &answer)
{
    std::array<int64_t, kFleetTables.size()> totals{};
    for (const ExportedInput &input : answer.inputs) {
        if (!input.error.empty())
            continue; // rolled back: none of its rows is in the dataset
        for (size_t t = 0; t < totals.size(); ++t)
            totals[t] += input.rows[t];
    }
    std::string text = "Exported " + std::to_string(answer.inputs.size() - answer.failed()) + " of " + std::to_string(answer.inputs.size()) +
                       " files";
    if (answer.request.shards > 1)
        text += " (shard " + std::to_string(answer.request.shard) + "/" + std::to_string(answer.request.shards) + " of " +
                std::to_string(answer.inputsInAll) + ")";
    text += " into " + answer.request.out + ":";
    for (FleetTable t : kFleetTables)
        text += " " + std::string(fleetTableName(t)) + " " + groupDigits(static_cast<uint64_t>(totals[static_cast<size_t>(t)])) + ",";
    text.back() = '\n';
    if (answer.failed())
        text += std::to_string(answer.failed()) + " could not be exported (above).\n";
    for (const std::string &dump : answer.pruned)
        text += "Pruned " + dump + ": no longer in " + answer.request.input + " as a dump that can be read\n";
    text += answer.request.out + " holds " + std::to_string(answer.held) + (answer.held == 1 ? " input" : " inputs") + " now.\n";
    for (const std::string &note : answer.notes)
        text += "note: " + note + "\n";
    return text;
}

nlohmann::json exportAnswerJson(const ExportAnswer &answer)
{
    nlohmann::json files = nlohmann::json::array();
    for (const ExportedInput &input : answer.inputs) {
        nlohmann::json f{{"file", input.input.name}, {"rank", input.input.rank}, {"step", input.input.step}};
        if (!input.error.empty()) {
            f["error"] = input.error;
        } else {
            nlohmann::json rows = nlohmann::json::object();
            for (FleetTable t : kFleetTables)
                rows[std::string(fleetTableName(t))] = input.rows[static_cast<size_t>(t)];
            f["rows"] = rows;
        }
        files.push_back(f);
    }
    return {{"out", answer.request.out},
            {"shard", {answer.request.shard, answer.request.shards}},
            {"inputs_in_all", answer.inputsInAll},
            {"files", files},
            {"failed", answer.failed()},
            {"pruned", answer.pruned},
            {"held", answer.held},
            {"notes", answer.notes}};
}

} // namespace memlens
