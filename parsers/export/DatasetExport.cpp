#include "export/DatasetExport.h"

#include "cache/CachedSnapshot.h"
#include "export/DatasetFigures.h"
#include "figures/DeviceFigures.h"
#include "index/DeviceIndex.h"
#include "model/LoadError.h"
#include "parquet/ParquetFileWriter.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memlens {

namespace {

// The snapshot's devices indexed and their figures assembled, as `summary` has them (no advice,
// no timeline).
struct LoadedInput {
    CachedSnapshot loaded;
    std::vector<std::unique_ptr<DeviceIndex>> indices;
    std::vector<std::unique_ptr<const DeviceFigures>> figures;
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
        const DeviceFigures &f = *input->figures.emplace_back(std::make_unique<const DeviceFigures>(assembleDeviceFigures(snapshot, *input->indices.back(), 0)));
        input->source.devices.push_back({d, input->indices.back().get(), f.categories.get(), &f.summary});
    }
    return input;
}

namespace fs = std::filesystem;

// Who made a staging folder: the boot (its id names the host's boot too), the PID namespace and
// the PID. A PID says whether its process is alive only to a process of the same boot and PID
// namespace: an export in another container or on another host of a shared file system always
// looked dead to kill(pid, 0), and lost its staging folder mid-write.
struct StagingOwner {
    std::string boot;        // /proc/sys/kernel/random/boot_id, dashes removed
    std::string namespaceId; // the inode of /proc/self/ns/pid
    pid_t pid = 0;
};

std::string firstLine(const char *path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::erase(line, '-');
    return line;
}

const StagingOwner &thisProcess()
{
    static const StagingOwner self = [] {
        struct stat st {};
        const std::string ns = ::stat("/proc/self/ns/pid", &st) == 0 ? std::to_string(st.st_ino) : std::string("0");
        return StagingOwner{firstLine("/proc/sys/kernel/random/boot_id"), ns, ::getpid()};
    }();
    return self;
}

// A staging folder's name, ".input=x<hash>.<boot>_<namespace>_<pid>.tmp".
std::string stagingName(const fs::path &final)
{
    const StagingOwner &self = thisProcess();
    return "." + final.filename().string() + "." + self.boot + "_" + self.namespaceId + "_" + std::to_string(self.pid) + ".tmp";
}

// The owner a staging folder's name gives; an older memlens's ".<pid>.tmp" has a PID alone.
std::optional<StagingOwner> stagingOwner(const std::string &name)
{
    if (!name.starts_with(".input=") || !name.ends_with(".tmp"))
        return std::nullopt;
    const std::string stem = name.substr(0, name.size() - 4);
    const size_t dot = stem.rfind('.');
    if (dot == std::string::npos)
        return std::nullopt;
    const std::string owner = stem.substr(dot + 1);
    const size_t a = owner.find('_'), b = owner.rfind('_');
    try {
        if (a == std::string::npos)
            return StagingOwner{{}, {}, static_cast<pid_t>(std::stol(owner))};
        return StagingOwner{owner.substr(0, a), owner.substr(a + 1, b - a - 1), static_cast<pid_t>(std::stol(owner.substr(b + 1)))};
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

// Left by an export that died: its owner is of this boot and PID namespace and gone, or it has
// not been written to for a day (an owner this process cannot see, or an older memlens's).
bool abandoned(const fs::directory_entry &entry, const StagingOwner &owner)
{
    const StagingOwner &self = thisProcess();
    if (owner.boot == self.boot && owner.namespaceId == self.namespaceId && !self.boot.empty())
        return owner.pid != self.pid && ::kill(owner.pid, 0) == -1 && errno == ESRCH;
    std::error_code ec;
    const auto written = fs::last_write_time(entry.path(), ec);
    return !ec && fs::file_time_type::clock::now() - written > std::chrono::hours(24);
}

// What exports that died left in a step's folder.
void sweepLeftovers(const fs::path &stepFolder)
{
    std::error_code ec;
    for (fs::directory_iterator it(stepFolder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::optional<StagingOwner> owner = stagingOwner(it->path().filename().string());
        if (owner && abandoned(*it, *owner)) {
            std::error_code removeEc;
            fs::remove_all(it->path(), removeEc);
        }
    }
}

// The staged folder becomes the input's folder in one rename, or takes the place of an earlier
// export's in one exchange (whose old folder is then removed).
void publish(const fs::path &staging, const fs::path &final)
{
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final.c_str(), RENAME_NOREPLACE) == 0)
        return;
    if (errno == EEXIST || errno == ENOTEMPTY) {
        if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final.c_str(), RENAME_EXCHANGE) != 0)
            throw std::runtime_error(final.string() + ": cannot replace: " + std::strerror(errno));
        std::error_code ec;
        fs::remove_all(staging, ec);
        return;
    }
    throw std::runtime_error(final.string() + ": cannot publish: " + std::strerror(errno));
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
    const fs::path final = inputFolder(out, input);
    const fs::path staging = final.parent_path() / stagingName(final);
    try {
        const std::unique_ptr<LoadedInput> loaded = loadInput(input.path, cache, cancel);
        fs::create_directories(final.parent_path());
        sweepLeftovers(final.parent_path());
        fs::create_directory(staging);
        for (FleetTable table : kFleetTables) {
            parquet::ParquetOptions options;
            options.metadata = {{kDatasetSourceKey, input.source}};
            parquet::ParquetFileWriter writer((staging / tableFileName(fleetTableName(table))).string(), fleetTableColumns(table), options);
            writeFleetTable(table, loaded->source, input.name, writer);
            writer.finish();
            result.rows[static_cast<size_t>(table)] = writer.rows();
        }
        publish(staging, final);
    } catch (const LoadError &e) {
        result.error = e.what();
    } catch (const std::exception &e) {
        result.error = input.path + ": " + e.what();
    }
    if (!result.error.empty()) {
        std::error_code ec;
        fs::remove_all(staging, ec);
        result.rows = {}; // nothing of it was published
    }
    return result;
}

void checkDatasetFolder(const std::string &out)
{
    std::error_code ec;
    fs::create_directories(out, ec);
    const fs::path probe = fs::path(out) / (".memlens-probe." + std::to_string(::getpid()));
    std::FILE *f = ec ? nullptr : std::fopen(probe.c_str(), "wb");
    if (!f)
        throw std::runtime_error(out + ": cannot write there: " + (ec ? ec.message() : std::string(std::strerror(errno))));
    std::fclose(f);
    fs::remove(probe, ec);
}

} // namespace memlens
