#include "common/timeline.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>

#include "common/file_io.h"

namespace bfv::common {

namespace {

std::string ThreadName(int thread) {
    return thread == 0 ? "main" : "receive " + std::to_string(thread - 1);
}

}  // namespace

nlohmann::json TimelineJson(const std::vector<RankTimeline>& timelines) {
    double originS = std::numeric_limits<double>::infinity();
    for (const RankTimeline& t : timelines) {
        for (const TraceEvent& e : t.events) originS = std::min(originS, e.startS);
    }
    nlohmann::json events = nlohmann::json::array();
    for (const RankTimeline& t : timelines) {
        events.push_back(
            {{"ph", "M"}, {"name", "process_name"}, {"pid", t.rank}, {"args", {{"name", t.name}}}});
        events.push_back({{"ph", "M"},
                          {"name", "process_sort_index"},
                          {"pid", t.rank},
                          {"args", {{"sort_index", t.rank}}}});
        std::vector<int> threads;
        for (const TraceEvent& e : t.events) {
            if (std::find(threads.begin(), threads.end(), e.thread) == threads.end())
                threads.push_back(e.thread);
            events.push_back({{"ph", "X"},
                              {"cat", "bfv"},
                              {"name", ActivityName(e.activity)},
                              {"pid", t.rank},
                              {"tid", e.thread},
                              {"ts", (e.startS - originS) * 1e6},
                              {"dur", e.durationS * 1e6}});
        }
        for (int thread : threads) {
            events.push_back({{"ph", "M"},
                              {"name", "thread_name"},
                              {"pid", t.rank},
                              {"tid", thread},
                              {"args", {{"name", ThreadName(thread)}}}});
        }
        if (t.dropped > 0) {
            events.push_back(
                {{"ph", "M"},
                 {"name", "process_labels"},
                 {"pid", t.rank},
                 {"args", {{"labels", std::to_string(t.dropped) + " later events not recorded"}}}});
        }
    }
    return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

Expected<void> WriteTimeline(const std::string& path, const std::vector<RankTimeline>& timelines) {
    std::string json = TimelineJson(timelines).dump() + "\n";
    return WriteFileAtomic(path, std::as_bytes(std::span(json.data(), json.size())));
}

}  // namespace bfv::common
