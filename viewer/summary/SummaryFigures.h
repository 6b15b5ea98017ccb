#pragma once
// The Summary page's text: the file's facts in a line, and the device's figures as an HTML table
// (peak, pools, health, OOMs, categories, steps and leaks, the end state), each part its own
// function. Links in it ("event:N", "oom:N", "segments:N", "steps", "leaks", "health",
// "settings") are the page's to follow.
#include "pipeline/Document.h"

#include <QCoreApplication>
#include <QString>

namespace memlens {

class SummaryFigures {
    Q_DECLARE_TR_FUNCTIONS(SummaryPage)

public:
    static QString factsLine(const Document &document, const DeviceSummary &summary);
    static QString html(const Document &document, const DeviceData &data);

private:
    struct Rows;
    static void peakAndHealth(Rows &row, const Document &document, const DeviceData &data);
    static void oomsAndCategories(Rows &row, const DeviceData &data);
    static void stepsAndLeaks(Rows &row, const Document &document, const DeviceData &data);
    static void endState(Rows &row, const Document &document, const DeviceData &data);
};

} // namespace memlens
