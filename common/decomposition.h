#pragma once

#include <string>

namespace bfv::common {

/// How the screen's columns are shared among the ray tracers. Every decomposition gives the
/// same image bit for bit; they differ in load balance and message pattern.
enum class Decomposition {
    Contiguous,   // tracer t gets one slice of about W/T adjacent columns (the source paper's)
    Interleaved,  // tracer t gets columns t, t+T, t+2T, ...: balances uneven terrain
};

/// The columns one tracer renders: first, first + stride, ..., count of them.
struct ColumnSet {
    int first = 0;
    int stride = 1;
    int count = 0;

    int At(int k) const { return first + k * stride; }
};

/// Columns of tracer `tracer` (0-based) of `nTracers` on a screen `widthPx` wide. Requires
/// widthPx >= nTracers >= 1, so that every tracer gets at least one column.
ColumnSet ColumnsOf(Decomposition decomposition, int tracer, int nTracers, int widthPx);

/// Number of messages a tracer with `columns` sends per frame at `columnsPerMessage` (MSGZ
/// in columns): the last message carries the remainder.
int MessagesPerFrame(const ColumnSet& columns, int columnsPerMessage);

/// "contiguous" or "interleaved".
std::string ToString(Decomposition decomposition);

}  // namespace bfv::common
