#include "ranks/RankUnits.h"

#include "model/ByteFormat.h"

#include <algorithm>
#include <iomanip>
#include <map>

namespace memlens {

uint64_t RankUnitRow::most() const
{
    return bytes.empty() ? 0 : *std::max_element(bytes.begin(), bytes.end());
}

uint64_t RankUnitRow::median() const
{
    std::vector<uint64_t> sorted = bytes;
    std::sort(sorted.begin(), sorted.end());
    return sorted.empty() ? 0 : sorted[sorted.size() / 2];
}

std::vector<RankUnitRow> unitsAcrossRanks(const std::vector<RankFigures> &ranks)
{
    // Keyed by (kind, name): units first (kind 0), then outside every unit (1), before the trace (2).
    std::map<std::pair<int, std::string>, RankUnitRow> rows;
    for (size_t r = 0; r < ranks.size(); ++r) {
        if (ranks[r].unitsFrom == UnitSource::None)
            continue;
        for (const UnitBytes &u : ranks[r].unitsAtPeak) {
            const int kind = !u.unit.empty() ? 0 : u.beforeTrace ? 2 : 1;
            RankUnitRow &row = rows[{kind, u.unit}];
            row.unit = u.unit;
            row.beforeTrace = u.beforeTrace && u.unit.empty();
            row.bytes.resize(ranks.size());
            row.bytes[r] += u.bytes;
        }
    }
    std::vector<RankUnitRow> out;
    for (auto &[key, row] : rows)
        out.push_back(std::move(row));
    std::stable_sort(out.begin(), out.end(), [](const RankUnitRow &a, const RankUnitRow &b) {
        const bool aUnit = !a.unit.empty(), bUnit = !b.unit.empty();
        if (aUnit != bUnit)
            return aUnit;
        return aUnit && a.most() > b.most();
    });
    return out;
}

namespace {

std::string rowName(const RankUnitRow &row)
{
    return !row.unit.empty() ? row.unit : row.beforeTrace ? "(made before the trace)" : "(outside every unit)";
}

} // namespace

void writeUnitsAcrossRanks(std::ostream &out, const std::vector<RankFigures> &ranks, size_t shownUnits, size_t shownRanks)
{
    const std::vector<RankUnitRow> rows = unitsAcrossRanks(ranks);
    if (rows.empty())
        return;
    UnitSource from = UnitSource::None;
    for (const RankFigures &r : ranks)
        from = from == UnitSource::None ? r.unitsFrom : from;
    out << "By unit at each rank's peak (" << unitSourceText(from) << "):\n";
    const bool everyRank = ranks.size() <= shownRanks;
    std::vector<std::string> heads;
    if (everyRank) {
        for (const RankFigures &r : ranks)
            heads.push_back("rank " + std::to_string(r.file.rank));
    } else {
        heads = {"least", "median", "most"};
    }
    size_t nameWidth = 16; // "(N more units)"
    for (const RankUnitRow &row : rows)
        nameWidth = std::max(nameWidth, rowName(row).size());
    constexpr int kColumn = 11;
    out << "  " << std::left << std::setw(int(nameWidth)) << "unit" << std::right;
    for (const std::string &h : heads)
        out << std::setw(kColumn) << h;
    out << "\n";
    auto write = [&](const std::string &name, const RankUnitRow &row) {
        std::vector<uint64_t> cells = row.bytes;
        if (!everyRank)
            cells = {*std::min_element(row.bytes.begin(), row.bytes.end()), row.median(), row.most()};
        out << "  " << std::left << std::setw(int(nameWidth)) << name << std::right;
        for (uint64_t b : cells)
            out << std::setw(kColumn) << formatBytes(b);
        out << "\n";
    };
    size_t units = 0;
    RankUnitRow rest{{}, false, std::vector<uint64_t>(ranks.size())};
    for (const RankUnitRow &row : rows) {
        if (row.unit.empty())
            continue;
        if (units++ < shownUnits) {
            write(row.unit, row);
            continue;
        }
        for (size_t r = 0; r < ranks.size(); ++r)
            rest.bytes[r] += row.bytes[r];
    }
    if (units > shownUnits)
        write(std::to_string(units - shownUnits) + " more units", rest);
    for (const RankUnitRow &row : rows) {
        if (row.unit.empty())
            write(rowName(row), row);
    }
}

} // namespace memlens
