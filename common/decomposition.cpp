#include "common/decomposition.h"

#include "common/check.h"

namespace bfv::common {

ColumnSet ColumnsOf(Decomposition decomposition, int tracer, int nTracers, int widthPx) {
    BFV_CHECK(nTracers >= 1 && widthPx >= nTracers && tracer >= 0 && tracer < nTracers);
    if (decomposition == Decomposition::Interleaved) {
        return {tracer, nTracers, (widthPx - tracer + nTracers - 1) / nTracers};
    }
    long first = static_cast<long>(tracer) * widthPx / nTracers;
    long end = static_cast<long>(tracer + 1) * widthPx / nTracers;
    return {static_cast<int>(first), 1, static_cast<int>(end - first)};
}

int MessagesPerFrame(const ColumnSet& columns, int columnsPerMessage) {
    BFV_CHECK(columnsPerMessage >= 1);
    return (columns.count + columnsPerMessage - 1) / columnsPerMessage;
}

std::string ToString(Decomposition decomposition) {
    return decomposition == Decomposition::Interleaved ? "interleaved" : "contiguous";
}

}  // namespace bfv::common
