#pragma once

// The comm benchmark behind `bfv commbench`: a ping-pong sweep between ranks 0 and 1 that
// measures the link's one-way times (eqs. 16-17 of the source paper, section 3) and the
// CPU per message each side pays (eqs. 18-19), then many-to-one streams into rank 0 (the
// display's case), and the conversion of the results into FitLinkProfile's input
// (comm_fit.h). Streams use the renderer's message pattern and yielding waits
// (common/mpi_wait.h), so that their times and CPU% are what bfv's ranks pay. Sizes in bytes,
// times in seconds, rates in bytes per second.

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/mpi_group.h"
#include "predict/comm_fit.h"
#include "predict/link_profile.h"

namespace bfv::predict {

inline constexpr double kMB = 1e6;  // the paper's MB, the unit of commbench's tables and CSV
inline constexpr double kStreamBytesPerTrial = 64 * 1048576.0;  // many-to-one default, bytes
inline constexpr double kOutlierMads = 5.0;  // a round trip above median + 5 MAD is an outlier

/// What one benchmark run measures.
struct CommBenchSettings {
    std::vector<int> sizes;           // ping-pong message sizes, bytes, ascending, non-empty
    std::vector<int> manyToOneSizes;  // many-to-one message sizes, bytes
    double maxSecondsPerSize = 0.5;   // time limit of one size's round trips, seconds
    double targetRse = 0.02;          // stop once the mean's relative standard error is below
    double streamBytesPerTrial = kStreamBytesPerTrial;  // one many-to-one trial, all senders
    int trials = 3;  // many-to-one trials per point (the median bandwidth counts)
    std::vector<double> waitsS = {2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2};  // waits to cost, seconds
    double waitSecondsPerPoint = 0.1;  // waiting measured per point, seconds
    double tickSeconds = 0.4;          // the scheduler tick's measurement, seconds
};

/// One ping-pong size: one-way times (round trip / 2) of the latency pass, which polls, and
/// per message figures of the CPU pass, a stream 0 -> 1 with the renderer's yielding waits.
struct CommBenchSize {
    int bytes = 0;            // message size, bytes
    int reps = 0;             // recorded round trips
    double medianS = 0;       // one-way time, median over the round trips, seconds
    double minS = 0;          // one-way time, fastest round trip, seconds
    double meanS = 0;         // one-way time, mean over the round trips, seconds
    double rse = 0;           // relative standard error of the round trips' mean
    int outliers = 0;         // round trips above median + kOutlierMads MAD
    double streamS = 0;       // CPU pass: wall seconds per message
    double senderCpuS = 0;    // CPU pass: rank 0's thread CPU seconds per message
    double receiverCpuS = 0;  // CPU pass: rank 1's thread CPU seconds per message

    /// A2ABW, bytes per second: the size over the median one-way time.
    double A2abwBytesPerS() const { return bytes / medianS; }
    /// Sending side's CPU% of the CPU pass: CPU time over the stream's wall time, times 100.
    double SenderCpuPercent() const { return 100.0 * senderCpuS / streamS; }
    /// Receiving side's CPU% of the CPU pass.
    double ReceiverCpuPercent() const { return 100.0 * receiverCpuS / streamS; }
};

/// Receives one progress line of a run, without a newline: "ping-pong size 2 of 5 (2000 B)",
/// "many-to-one, 1 sender(s)". Called on rank 0 only.
using CommBenchProgress = std::function<void(const std::string& line)>;

/// Relative standard error of the mean of `samples`: sd / (mean sqrt(n)), sd with n - 1; 1 for
/// fewer than 2 samples.
double RelativeStandardError(std::span<const double> samples);

/// How many `samples` lie above median + kOutlierMads MAD, where the MAD is the median absolute
/// deviation from `median`, floored at 1% of `median` for timers that repeat one value.
int CountOutliers(std::span<const double> samples, double median);

/// One size's latency-pass figures from its recorded round-trip times (seconds, non-empty):
/// one-way times are round trip / 2; rse and outliers are those of the round trips. The CPU
/// pass's fields stay 0.
CommBenchSize SummarizeRoundTrips(int bytes, std::span<const double> roundTripsS);

/// The ping-pong sweep; every rank of `g` (at least 2 ranks) calls it with the same settings.
/// For each of s.sizes, ranks 0 and 1 run the latency pass (warm-up, then round trips until the
/// RSE reaches s.targetRse or s.maxSecondsPerSize runs out) and the CPU pass (rank 0 streams
/// to rank 1 for about a quarter of the time limit); ranks 2.. wait at a yielding barrier.
/// Rank 0 returns one result per size, in order, and calls `progress` before each; the other
/// ranks return nothing. An MPI failure ends the job (BFV_MPI_CHECK).
std::vector<CommBenchSize> RunPingPongSweep(const common::Group& g, const CommBenchSettings& s,
                                            const CommBenchProgress& progress);

/// Many-to-one streams; every rank of `g` calls it with the same settings. For 1 .. g.size - 1
/// senders and each of s.manyToOneSizes, s.trials trials in which ranks 1..senders stream
/// about s.streamBytesPerTrial together into rank 0, which posts one receive per sender as the
/// display does. Rank 0 returns one point per (senders, size), the trial of median aggregate
/// bandwidth, ordered by senders then size, and calls `progress` before each sender count;
/// the other ranks return nothing. An MPI failure ends the job (BFV_MPI_CHECK).
std::vector<ManyToOnePoint> RunManyToOne(const common::Group& g, const CommBenchSettings& s,
                                         const CommBenchProgress& progress);

/// The CPU of waiting (see WaitCostPoint); every rank of `g` calls it with the same settings.
/// For each of s.waitsS, rank 0 sends rank 1 a small message that many seconds after rank 1
/// has started waiting for it with common::WaitYielding (as the renderer's ranks wait), about
/// s.waitSecondsPerPoint seconds in all (at least 3 waits). Rank 1's thread CPU over the waits'
/// wall time is the point, at the median of its waits (one wait stretched by a busy host's
/// scheduler does not move it); the other ranks wait at a yielding barrier. Rank 0 returns the
/// points in order of their measured waits (a point whose median wait came out no longer than
/// the one before, on a busy host, is dropped) and calls `progress` once; the others return
/// nothing. An MPI failure ends the job (BFV_MPI_CHECK).
/// With `busyHost`, every core of rank 1's host is kept busy meanwhile (spinning threads, and
/// rank 0 runs out its wait instead of sleeping when it shares the host, as a ray tracer's
/// trace ends in its send), as a host whose ray tracers fill its cores is: a waiting thread then
/// tests less often.
std::vector<WaitCostPoint> RunWaitCost(const common::Group& g, const CommBenchSettings& s,
                                       const CommBenchProgress& progress, bool busyHost);

/// The cores this process may run on (its CPU affinity), at least 1.
int HostCores();

/// The scheduler tick of rank 1's host, as ranks that outnumber its cores meet it; every rank
/// of `g` calls it with the same settings. Rank 1 runs one more spinning thread than it has
/// cores (HostCores) for s.tickSeconds; each thread notes the stretches it ran without a break
/// of over kTickGapS (another thread had its core). Their median, seconds, is what one thread
/// runs before it yields its core to a waiting one (4 ms on Linux at HZ = 250, whatever the
/// scheduler's nominal slice). The other ranks sleep meanwhile (a rank testing for a message
/// would wake on the host and make the threads change places between ticks). Rank 0 returns
/// it and calls `progress` once; the others return 0. An MPI failure ends the job
/// (BFV_MPI_CHECK).
double RunSchedulerTick(const common::Group& g, const CommBenchSettings& s,
                        const CommBenchProgress& progress);

/// A break in a spinning thread's run longer than this, seconds, means another thread ran.
inline constexpr double kTickGapS = 200e-6;

/// The many-to-one point of one trial: `senders` ranks each sent `messagesPerSender` messages
/// of `msgBytes` in `wallS` seconds, the receiver's thread using `receiverCpuS` CPU seconds.
ManyToOnePoint ManyToOneFromTrial(int senders, int msgBytes, int messagesPerSender, double wallS,
                                  double receiverCpuS);

/// FitLinkProfile's input: one SweepPoint per size, the median one-way time and the CPU
/// pass's CPU seconds per message per side.
std::vector<SweepPoint> SweepPoints(std::span<const CommBenchSize> sweep);

/// sweep.csv: a header line, then one line per size with times in microseconds, A2ABW in MB/s
/// and CPU% of the CPU pass.
std::string SweepCsv(std::span<const CommBenchSize> sweep);

}  // namespace bfv::predict
