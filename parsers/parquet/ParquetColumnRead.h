#pragma once
// ParquetFileReader's column reading (its pages, dictionaries and levels) lives in
// ParquetColumnRead.cpp; this header only ties the two files together.
#include "parquet/ParquetFileReader.h"
