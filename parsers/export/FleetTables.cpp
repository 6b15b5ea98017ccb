#include "export/FleetTables.h"

#include "export/FleetTableRows.h"

namespace memlens {

using parquet::ColumnKind;
using parquet::ColumnSpec;

std::string_view fleetTableName(FleetTable table)
{
    switch (table) {
    case FleetTable::Snapshots: return "snapshots";
    case FleetTable::Steps: return "steps";
    case FleetTable::Events: return "events";
    case FleetTable::Stacks: return "stacks";
    case FleetTable::LiveAtPeak: return "live_at_peak";
    case FleetTable::Pools: return "pools";
    case FleetTable::Layers: return "layers";
    }
    return "";
}

namespace {

ColumnSpec integer(std::string name, bool nullable = false)
{
    return {std::move(name), ColumnKind::Int64, nullable, false};
}
ColumnSpec text(std::string name, bool nullable = false)
{
    return {std::move(name), ColumnKind::String, nullable, true};
}
ColumnSpec flag(std::string name)
{
    return {std::move(name), ColumnKind::Boolean, false, false};
}

std::vector<ColumnSpec> columnsOf(FleetTable table)
{
    switch (table) {
    case FleetTable::Snapshots:
        return {text("file"), integer("device"), text("name"), integer("entries"), integer("peak_active_bytes"),
                integer("peak_reserved_bytes"), integer("peak_time_us", true), integer("oom_count"), flag("truncated"),
                integer("reserved_bytes"), integer("allocated_bytes"), text("format"), integer("parameter_bytes_at_peak"),
                integer("gradient_bytes_at_peak"), integer("optimizer_state_bytes_at_peak"), integer("activation_bytes_at_peak"),
                integer("temporary_bytes_at_peak"), integer("kv_cache_bytes_at_peak"), integer("unknown_bytes_at_peak")};
    case FleetTable::Steps:
        return {text("file"), integer("device"), integer("index"), integer("start_time_us"), integer("end_time_us"),
                integer("peak_active_bytes"), integer("peak_reserved_bytes"), integer("end_active_bytes"), flag("partial")};
    case FleetTable::Events:
        return {text("file"), integer("device"), integer("seq"), integer("time_us"), text("action"), integer("addr"),
                integer("size"), integer("stream"), text("pool"), integer("stack_id"), text("category", true)};
    case FleetTable::Stacks:
        return {text("file"), integer("stack_id"), integer("depth"), text("frame"), text("site", true)};
    case FleetTable::LiveAtPeak:
        return {text("file"), integer("device"), integer("addr"), integer("size"), text("site", true), text("category"),
                integer("alloc_seq", true), text("module", true)};
    case FleetTable::Pools:
        return {text("file"), integer("device"), text("pool_id"), integer("segments"), integer("reserved_bytes"),
                integer("allocated_bytes")};
    case FleetTable::Layers: // summary --json's `layers`
        return {text("file"),           integer("device"),         integer("layer"),          text("pass"),
                integer("forward_pass"), integer("first_seq"),      integer("end_seq"),        integer("peak_bytes"),
                integer("retained_bytes"), integer("unfreed_bytes"), integer("transient_bytes"), integer("largest_bytes"),
                integer("at_peak_bytes")};
    }
    return {};
}

} // namespace

const std::vector<ColumnSpec> &fleetTableColumns(FleetTable table)
{
    static const std::array<std::vector<ColumnSpec>, kFleetTables.size()> all = [] {
        std::array<std::vector<ColumnSpec>, kFleetTables.size()> made;
        for (FleetTable t : kFleetTables)
            made[static_cast<size_t>(t)] = columnsOf(t);
        return made;
    }();
    return all[static_cast<size_t>(table)];
}

void writeFleetTable(FleetTable table, const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out)
{
    switch (table) {
    case FleetTable::Snapshots: return writeSnapshotRows(source, file, out);
    case FleetTable::Steps: return writeStepRows(source, file, out);
    case FleetTable::Events: return writeEventRows(source, file, out);
    case FleetTable::Stacks: return writeStackRows(source, file, out);
    case FleetTable::LiveAtPeak: return writeLiveAtPeakRows(source, file, out);
    case FleetTable::Pools: return writePoolRows(source, file, out);
    case FleetTable::Layers: return writeLayerRows(source, file, out);
    }
}

} // namespace memlens
