#pragma once

// The timeline of a run (`bfv render --trace FILE.json`) in the Chrome trace event format that
// ui.perfetto.dev and chrome://tracing open: one process per rank, one thread per rank thread,
// one complete ("X") event per timed scope. `bfv predict --trace` writes the predicted
// schedule in the same form, so that the two can be opened side by side.

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/instrument.h"

namespace bfv::common {

/// One rank's (or one predicted rank's) events.
struct RankTimeline {
    int rank = 0;
    std::string name;  // the process's name in the viewer, e.g. "r1 tracer (host vm)"
    std::vector<TraceEvent> events;
    std::size_t dropped = 0;  // events past the recording limit
};

/// Most events one thread keeps for --trace (32 bytes each: 6.4 MB).
inline constexpr std::size_t kMaxTimelineEvents = 200000;

/// The trace event JSON of `timelines`: times in microseconds from the earliest event, process
/// and thread names as metadata events, each event's activity as its name ("trace", "send",
/// ...) and category "bfv". Clocks of different hosts are not aligned (each rank's own
/// monotonic clock): compare ranks of one host only.
nlohmann::json TimelineJson(const std::vector<RankTimeline>& timelines);

/// Writes TimelineJson atomically to `path` (whole or not at all). Errors name the path.
Expected<void> WriteTimeline(const std::string& path, const std::vector<RankTimeline>& timelines);

}  // namespace bfv::common
