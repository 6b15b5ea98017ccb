#include "parquet/ColumnValues.h"

#include <algorithm>

namespace memlens::parquet {

size_t ColumnValues::nullCount() const
{
    return present.empty() ? 0 : static_cast<size_t>(std::count(present.begin(), present.end(), uint8_t{0}));
}

void ColumnValues::clear()
{
    integers.clear();
    reals.clear();
    text.clear();
    textEnd.clear();
    present.clear();
    rows = 0;
}

} // namespace memlens::parquet
