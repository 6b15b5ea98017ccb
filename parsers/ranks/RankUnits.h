#pragma once
// A sharded job's units side by side across its ranks: what each rank held at its peak by the
// unit that made it (FSDP's `layers.N`, Megatron's module paths), one row per unit, one column per
// rank. Ranks of one job run the same units; a unit that holds more on one rank is where that
// rank's imbalance comes from.
#include "ranks/RankSummary.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace memlens {

struct RankUnitRow {
    std::string unit;          // empty: made outside every unit (`beforeTrace`: before the trace)
    bool beforeTrace = false;
    std::vector<uint64_t> bytes; // per rank, in the ranks' order (0 where the rank holds none)
    uint64_t most() const;
    uint64_t median() const; // of the ranks' bytes (the upper one of an even count)
};

// The units of every rank with units, those holding most on some rank first, then what no unit
// made in the trace, then what was made before it; empty when no rank names a unit.
std::vector<RankUnitRow> unitsAcrossRanks(const std::vector<RankFigures> &ranks);

// The table in `summary DIR`'s text: the first `shownUnits` units and every rank's column (ranks
// beyond `shownRanks`: the least, median and most of all ranks instead).
void writeUnitsAcrossRanks(std::ostream &out, const std::vector<RankFigures> &ranks, size_t shownUnits = 12, size_t shownRanks = 8);

} // namespace memlens
