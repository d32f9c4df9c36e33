#pragma once

// Every MPI message tag bfv uses, one per kind of point-to-point message, so that no two
// kinds can collide. `bfv render` uses the 100s; `bfv commbench` (which never runs alongside
// a render) the 200s.

namespace bfv::common::tags {

inline constexpr int kColumns = 101;       // tracer -> display: ColumnsHeader + pixels
inline constexpr int kFrameCommand = 102;  // display -> every rank: FrameCommand
inline constexpr int kTerrainTiles = 103;  // terrain server -> each ray tracer: tile stream
inline constexpr int kInterrupted = 104;   // any rank -> display: int, the signal it received
inline constexpr int kSummary = 105;       // every rank -> display: RankSummary at the end
inline constexpr int kTimeline = 106;      // every rank -> display: TraceEvents (--trace)
inline constexpr int kReady = 107;         // every rank -> display: empty, its start-up is done

inline constexpr int kCommbenchPing = 201;    // rank 0 -> 1: a ping of the size under test
inline constexpr int kCommbenchPong = 202;    // rank 1 -> 0: the echo
inline constexpr int kCommbenchStop = 203;    // rank 0 -> 1: empty, ends a ping-pong loop
inline constexpr int kCommbenchCount = 204;   // rank 0 -> 1: messages in the coming CPU-pass stream
inline constexpr int kCommbenchCpu = 205;     // rank 1 -> 0: the stream's CPU and wall seconds
inline constexpr int kCommbenchStream = 206;  // stream payload (CPU pass, many-to-one)
inline constexpr int kCommbenchWait = 207;    // ranks 0 <-> 1: start a wait; 0 -> 1: end it

}  // namespace bfv::common::tags
