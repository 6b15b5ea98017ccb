#include "cli/ExportCommand.h"

#include "cache/SnapshotCache.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/ExportQuestion.h"
#include "report/JsonText.h"

#include <iostream>

namespace memlens {

int runExportCommand(const std::vector<std::string> &args)
{
    ExportRequest request;
    bool json = false;
    const SnapshotCache cache;
    bool useCache = true;
    try {
        CommandLine cl(args, commandSpec("export"));
        if (cl.positional().size() != 1 || !cl.value("parquet"))
            throw std::invalid_argument(usageLine(commandSpec("export")));
        request.input = cl.positional().front();
        request.out = *cl.value("parquet");
        if (const auto shard = cl.value("shard"))
            std::tie(request.shard, request.shards) = parseShard(*shard);
        request.prune = cl.flag("prune");
        json = cl.flag("json");
        useCache = !cl.flag("no-cache");
    } catch (const QuestionError &e) {
        return reportQuestionError("export", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens export: " << e.what() << '\n';
        return 2;
    }
    try {
        const ExportAnswer answer = answerExport(request, useCache ? &cache : nullptr, [&](const ExportedInput &input) {
            if (!json || !input.error.empty())
                (input.error.empty() ? std::cout : std::cerr) << exportedInputLine(input) << std::endl;
        });
        if (json)
            std::cout << jsonText(exportAnswerJson(answer), 2) << '\n';
        else
            std::cout << exportAnswerText(answer);
        return answer.failed() ? 1 : 0;
    } catch (const QuestionError &e) {
        return reportQuestionError("export", e);
    } catch (const std::exception &e) {
        std::cerr << "memlens: " << e.what() << '\n';
        return 1;
    }
}

} // namespace memlens
