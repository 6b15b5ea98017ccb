#include "stitch/RunContinuation.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace memlens {

namespace {

bool sameFrames(const Snapshot &a, StackId sa, const Snapshot &b, StackId sb)
{
    const auto fa = a.stacks.at(sa), fb = b.stacks.at(sb);
    if (fa.empty() || fb.empty())
        return true; // a block without frames (context="state", a cut window) says nothing against it
    return std::equal(fa.begin(), fa.end(), fb.begin(), fb.end(), [&](FrameId x, FrameId y) {
        const Frame &p = a.frames.at(x), &q = b.frames.at(y);
        return p.line == q.line && a.strings.at(p.name) == b.strings.at(q.name) && a.strings.at(p.file) == b.strings.at(q.file);
    });
}

} // namespace

void markLongLived(AllocatorImage &image, const Snapshot &dump, int device)
{
    std::unordered_set<uint64_t> madeInTrace;
    if (device < static_cast<int>(dump.traces.size())) {
        const EventTable &t = dump.traces[device];
        for (size_t i = 0; i < t.count(); ++i) {
            if (t.action[i] == Action::Alloc)
                madeInTrace.insert(t.addr[i]);
        }
    }
    bool any = false;
    for (ImageBlock &b : image.blocks) {
        b.longLived = !madeInTrace.contains(b.addr);
        any = any || b.longLived;
    }
    if (!any) {
        for (ImageBlock &b : image.blocks)
            b.longLived = true;
    }
}

bool keepsLongLivedMemory(const Snapshot &run, const AllocatorImage &before, const Snapshot &dump, const AllocatorImage &after)
{
    std::multimap<std::pair<uint64_t, uint64_t>, StackId> kept;
    for (const ImageBlock &b : after.blocks)
        kept.emplace(std::pair{b.addr, b.size}, b.stack);
    uint64_t longLived = 0, carried = 0;
    for (const ImageBlock &b : before.blocks) {
        if (!b.longLived)
            continue;
        longLived += b.size;
        const auto [from, to] = kept.equal_range({b.addr, b.size});
        if (std::any_of(from, to, [&](const auto &k) { return sameFrames(run, b.stack, dump, k.second); }))
            carried += b.size;
    }
    return longLived == 0 || 2 * carried >= longLived;
}

} // namespace memlens
