#include "export/DatasetExport.h"

#include "cache/CachedSnapshot.h"
#include "export/DatasetFigures.h"
#include "figures/AllocationCategories.h"
#include "figures/SnapshotSummary.h"
#include "index/DeviceIndex.h"
#include "model/LoadError.h"
#include "parquet/ParquetFileWriter.h"

#include <filesystem>
#include <stdexcept>

#include <unistd.h>

namespace memlens {

namespace {

struct PendingFile {
    std::string temporary;
    std::string final;
};

// The snapshot's devices indexed and summarised, as `summary` makes them (no advice, no timeline).
struct LoadedInput {
    CachedSnapshot loaded;
    std::vector<std::unique_ptr<DeviceIndex>> indices;
    std::vector<std::unique_ptr<const AllocationCategories>> categories;
    std::vector<std::unique_ptr<DeviceSummary>> summaries;
    FleetSource source;
};

std::unique_ptr<LoadedInput> loadInput(const std::string &path, const SnapshotCache *cache, const std::atomic<bool> *cancel)
{
    auto input = std::make_unique<LoadedInput>();
    LoadControl control;
    control.cancel = cancel;
    input->loaded = loadSnapshotCached(path, control, cache);
    const Snapshot &snapshot = *input->loaded.snapshot;
    if (const std::optional<std::string> why = whyNotExportable(snapshot))
        throw std::invalid_argument(*why);
    input->source.snapshot = &snapshot;
    for (int d : snapshot.devices()) {
        input->indices.push_back(std::make_unique<DeviceIndex>(snapshot, d, cancel));
        std::unique_ptr<const AllocationCategories> categories;
        input->summaries.push_back(std::make_unique<DeviceSummary>(summarizeDevice(snapshot, *input->indices.back(), 0, nullptr, &categories)));
        input->categories.push_back(std::move(categories));
        input->source.devices.push_back({d, input->indices.back().get(), input->categories.back().get(), input->summaries.back().get()});
    }
    return input;
}

void removeAll(const std::vector<PendingFile> &files)
{
    std::error_code ec;
    for (const PendingFile &f : files)
        std::filesystem::remove(f.temporary, ec);
}

} // namespace

std::optional<std::string> whyNotExportable(const Snapshot &snapshot)
{
    if (snapshot.categories)
        return "a memory-timeline file holds bytes per category over time, not the allocations the tables are made of; export the snapshot "
               "or the profiler trace it came from";
    return std::nullopt;
}

ExportedInput exportInput(const ExportInput &input, const std::string &out, const SnapshotCache *cache,
                          const std::atomic<bool> *cancel)
{
    ExportedInput result{input, {}, {}};
    std::vector<PendingFile> pending;
    try {
        const std::unique_ptr<LoadedInput> loaded = loadInput(input.path, cache, cancel);
        const std::string part = partFileName(input);
        for (FleetTable table : kFleetTables) {
            const std::filesystem::path final = partPath(out, fleetTableName(table), input, part);
            std::filesystem::create_directories(final.parent_path());
            pending.push_back({(final.parent_path() / ("." + part + "." + std::to_string(::getpid()) + ".tmp")).string(), final.string()});
            parquet::ParquetOptions options;
            options.metadata = {{kDatasetSourceKey, input.source}};
            parquet::ParquetFileWriter writer(pending.back().temporary, fleetTableColumns(table), options);
            writeFleetTable(table, loaded->source, input.name, writer);
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
