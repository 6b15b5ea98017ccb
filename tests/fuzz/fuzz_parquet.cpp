// libFuzzer target for the Parquet reader (what the GUI reads back from a dataset memlens or
// another engine wrote): values or a ParquetFormatError; never a crash, a hang or an
// allocation the input does not justify.
#include "parquet/ParquetFileReader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        const memlens::parquet::ParquetFileReader reader(std::string_view(reinterpret_cast<const char *>(data), size));
        for (const auto &column : reader.columns()) {
            try {
                if (column.physicalType == 6)
                    reader.strings(column.name);
                else
                    reader.integers(column.name);
            } catch (const memlens::parquet::ParquetFormatError &) {
            }
        }
        reader.metadata("memlens.source");
    } catch (const memlens::parquet::ParquetFormatError &) {
    }
    return 0;
}
