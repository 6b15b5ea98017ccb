#pragma once
// A stitched run's gaps on the timeline: a hatched break where the dumps lost entries, labelled
// with how long it lasted. At least 8 pixels wide, so a gap is seen on the event axis too (where
// it takes no width) and on a whole long run.
#include "model/Snapshot.h"

#include <functional>
#include <QPainter>
#include <vector>

namespace memlens {

void drawGapBreaks(QPainter &painter, const QRect &area, const std::vector<TraceGap> &gaps, int device,
                   const std::function<double(int64_t timeUs)> &pixelOfTime, bool dark);

} // namespace memlens
