#include "export/DatasetExport.h"

#include "model/LoadError.h"
#include "parquet/ParquetFileWriter.h"
#include "pipeline/DocumentPipeline.h"

#include <filesystem>
#include <stdexcept>

#include <unistd.h>

namespace memlens {

namespace {

struct PendingFile {
    std::string temporary;
    std::string final;
};

void removeAll(const std::vector<PendingFile> &files)
{
    std::error_code ec;
    for (const PendingFile &f : files)
        std::filesystem::remove(f.temporary, ec);
}

} // namespace

ExportedInput exportInput(const ExportInput &input, const std::string &out, const SnapshotCache *cache,
                          const std::atomic<bool> *cancel)
{
    ExportedInput result{input, {}, {}};
    std::vector<PendingFile> pending;
    try {
        std::shared_ptr<const Document> document;
        runDocumentPipeline(input.path, cancel, {{}, [&](std::shared_ptr<const Document> d) { document = std::move(d); }, {}},
                            StopAfter::Document, cache);
        const std::string part = partFileName(input);
        for (FleetTable table : kFleetTables) {
            const std::filesystem::path final = partPath(out, fleetTableName(table), input, part);
            std::filesystem::create_directories(final.parent_path());
            pending.push_back({(final.parent_path() / ("." + part + "." + std::to_string(::getpid()) + ".tmp")).string(), final.string()});
            parquet::ParquetFileWriter writer(pending.back().temporary, fleetTableColumns(table));
            writeFleetTable(table, *document, input.name, writer);
            writer.finish();
            result.rows[static_cast<size_t>(table)] = writer.rows();
        }
        for (const PendingFile &f : pending)
            std::filesystem::rename(f.temporary, f.final);
    } catch (const LoadError &e) {
        result.error = e.what();
    } catch (const std::exception &e) {
        result.error = input.path + ": " + e.what();
    }
    if (!result.error.empty())
        removeAll(pending);
    return result;
}

} // namespace memlens
