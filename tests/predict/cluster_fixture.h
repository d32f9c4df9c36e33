#pragma once

// Hand-made clusters for the predictor's tests: links of given set-up, bandwidth and CPU share,
// a 1000x100 app whose costs are round numbers, and a row of identical hosts.

#include <string>
#include <vector>

#include "predict/model_cluster.h"

namespace bfv::test_support {

/// A link with setup `setupS`, bandwidth `bytesPerS` and a sender/receiver CPU share of
/// ALCBW/APBBW = cpuShare for large messages.
inline predict::LinkProfile Link(const std::string& name, double setupS, double bytesPerS,
                                 double cpuShare) {
    predict::LinkProfile link;
    link.name = name;
    link.overall = {setupS, bytesPerS, bytesPerS / cpuShare};
    link.segments = {{0.0, 1e12, link.overall}};
    link.nHalfBytes = setupS * bytesPerS;
    link.apbbwSendBytesPerS = link.apbbwReceiveBytesPerS = bytesPerS / cpuShare;
    return link;
}

/// 1000x100 screen; whole-screen trace `traceS` (200 kB of columns), display 0.01 s, both all
/// CPU.
inline predict::MeasuredApp App(double traceS = 0.5) {
    predict::MeasuredApp m;
    m.widthPx = 1000;
    m.heightPx = 100;
    m.app.terrainServer = {"terrain server", 0.0, 0.0, 0.0, 1056.0};
    m.app.rayTrace = {"ray trace", traceS, 1.0, 200000.0, 1000.0};
    m.app.display = {"display", 0.01, 1.0, 0.0, 0.0};
    return m;
}

/// `hosts` hosts node0, node1, ... of `cores` cores each, every one with the NICs `nics`.
inline predict::Machine Cluster(int hosts, int cores, const std::vector<std::string>& nics) {
    predict::Machine m;
    m.name = "test";
    for (int h = 0; h < hosts; ++h)
        m.hosts.push_back({"node" + std::to_string(h), cores, 0.0, 1.0, nics});
    return m;
}

}  // namespace bfv::test_support
