#pragma once

// A measured link: what `bfv commbench` writes (link_profile.json) and `bfv predict` reads.
// The simplified model of eqs. 16-19 (the source paper's section 3), fitted over all
// message sizes and, piecewise, per protocol regime (eager, rendezvous, ...). Sizes in bytes,
// rates in bytes per second, times in seconds.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/expected.h"
#include "predict/model_comm.h"

namespace bfv::predict {

/// One piece of a piecewise Hockney fit: messages of (minBytes, maxBytes] follow `params`.
struct LinkSegment {
    double minBytes = 0.0;  // lower end, bytes (the previous segment's maxBytes)
    double maxBytes = 0.0;  // upper end, bytes (the largest measured size in this regime)
    LinkParams params;      // MSGSETUP, ALCBW, APBBW of this regime
};

/// Many-to-one into one receiver (the display's case): `senders` ranks each stream messages
/// of msgBytes at the same receiver.
struct ManyToOnePoint {
    int senders = 0;                   // concurrent senders
    double msgBytes = 0.0;             // message size, bytes
    double aggregateBytesPerS = 0.0;   // payload bytes per second arriving at the receiver
    double receiverCpuFraction = 0.0;  // receiver thread CPU time / wall time (0..1+)
};

/// The CPU a rank spends waiting for a message of this link that arrives after `waitS`:
/// bfv's waits test for completion, spinning briefly and then sleeping between tests
/// (common/mpi_wait.h), so a waiting rank still takes a share of a core, larger for short waits.
struct WaitCostPoint {
    double waitS = 0.0;        // how long the wait lasted, seconds
    double cpuFraction = 0.0;  // the waiting thread's CPU time / wall time of the wait (0..1)
};

/// The CPU quota (its cgroup's) of a host that took part in a measurement.
struct HostCpuQuota {
    std::string host;
    double cpuQuotaCores = 0.0;  // cores of CPU time per period; 0: none
    double quotaPeriodS = 0.0;   // the period, seconds (0 without a quota)
};

/// The parameters of one link kind, as measured by `bfv commbench`.
struct LinkProfile {
    std::string name;                         // e.g. "shm", "tcp"
    LinkParams overall;                       // one Hockney fit over all sizes
    std::vector<LinkSegment> segments;        // ordered by size, contiguous, at least one
    std::vector<double> breakpointsBytes;     // segments[i].maxBytes for all but the last segment
    double nHalfBytes = 0;                    // n½ = MSGSETUP * ALCBW of the large-message segment
    double apbbwSendBytesPerS = 0;            // eq. 19's APBBW at the sending side, bytes/s
    double apbbwReceiveBytesPerS = 0;         // eq. 19's APBBW at the receiving side, bytes/s
    std::vector<ManyToOnePoint> manyToOne;    // empty when measured with 2 ranks only
    std::vector<WaitCostPoint> waitCost;      // by ascending waitS; empty: waits cost no CPU
    std::vector<WaitCostPoint> waitCostBusy;  // the same with the host's cores busy; empty:
                                              //  waitCost's
    double schedulerTickS = 0.0;        // what the host's scheduler runs a thread before it yields
                                        //  its core to a waiting one (RunSchedulerTick), seconds;
                                        //  0: not measured, cores shared smoothly
    std::string host;                   // informational: machine that measured it
    int ranks = 0;                      // informational: MPI ranks of the measurement
    std::string transport = "default";  // informational: UCX_TLS, or "default"
    std::vector<HostCpuQuota> hostCpuQuotas;  // informational: each measuring host's CPU quota,
                                              //  which tools/calibrate-links copies into the
                                              //  machine description

    /// The parameters of the segment holding a message of msgBytes: the first segment with
    /// msgBytes <= maxBytes; sizes past either end use the first or the last segment.
    /// Requires at least one segment.
    LinkParams ParamsFor(double msgBytes) const;

    /// The CPU fraction of a wait of `waitS` seconds, on a host whose cores are busy
    /// (waitCostBusy, where measured) or not: interpolated in log(waitS) between the measured
    /// points, the nearest point's beyond them; 0 without points or for waitS <= 0.
    double WaitCpuFraction(double waitS, bool busyHost = false) const;
};

/// The profile as JSON: {"bfvLinkProfileVersion": 1, "name", "overall": {msgSetupS,
/// alcbwBytesPerS, apbbwBytesPerS}, "segments": [{minBytes, maxBytes, msgSetupS, ...}],
/// "breakpointsBytes", "nHalfBytes", "apbbwSendBytesPerS", "apbbwReceiveBytesPerS",
/// "manyToOne": [{senders, msgBytes, aggregateBytesPerS, receiverCpuFraction}], "waitCost":
/// [{waitS, cpuFraction}], "waitCostBusy": [...], "schedulerTickS", "host", "ranks",
/// "transport", "hostCpuQuotas": [{host, cpuQuotaCores, quotaPeriodS}]}.
nlohmann::json LinkProfileJson(const LinkProfile& profile);

/// Reads a profile from parsed JSON; `source` names it in errors, which name the field:
/// "link profile 'x.json': segments[1].alcbwBytesPerS must be > 0, got -3". Checks the
/// version, every parameter positive, segments ordered and contiguous, breakpoints matching
/// them, waitCost's and waitCostBusy's waits positive and ascending with fractions in [0, 1],
/// schedulerTickS >= 0. waitCost, waitCostBusy and schedulerTickS (absent from profiles of
/// older versions of bfv), host, ranks, transport and hostCpuQuotas are optional (the last
/// four describe the measurement: odd values are ignored).
Expected<LinkProfile> ParseLinkProfile(const nlohmann::json& doc, const std::string& source);

/// Reads and parses the file at `path`. Errors: "link profile 'PATH': cannot open it", "...:
/// not valid JSON", or any error of ParseLinkProfile.
Expected<LinkProfile> ReadLinkProfile(const std::string& path);

}  // namespace bfv::predict
