#pragma once
// Between a DocumentView and a saved Session: what is captured and how it is restored.
#include "report/SessionFile.h"

namespace memlens {

class DocumentView;

Session captureSession(const DocumentView &view);
// Applies device, page, visible range and selection to a view whose document is loaded.
void applySession(DocumentView &view, const Session &session);

} // namespace memlens
