#include "predict/comm_bench.h"

#include <fmt/format.h>
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <thread>

#include "common/instrument.h"
#include "common/mpi_wait.h"
#include "common/statistics.h"
#include "common/tags.h"

namespace bfv::predict {
namespace {

using common::Group;
using common::ThreadCpuS;
using common::WallClockS;
namespace tags = common::tags;

constexpr int kWarmupReps = 10;              // round trips before any is recorded
constexpr int kMinReps = 30;                 // recorded round trips before the RSE may stop
constexpr int kMinRepsAtTimeout = 5;         // recorded round trips even past the time limit
constexpr int kMaxReps = 200000;             // bounds the samples kept per size
constexpr double kCpuPassShare = 0.25;       // CPU pass stream time / maxSecondsPerSize
constexpr int kSendBatch = 8;                // Isends a sender posts before WaitAll (a "frame")
constexpr int kMinMessagesPerSender = 20;    // per many-to-one trial
constexpr int kMaxMessagesPerSender = 5000;  // per many-to-one trial
constexpr double kTickSleepMarginS = 0.2;    // past the tick's measurement, for its threads' end

// Rank 0's ping-pong buffers: a receive may not share memory with a pending send.
struct PingBuffers {
    std::vector<std::byte> send, receive;
};

void WaitForAll(const Group& g) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Ibarrier(g.comm, &request));
    common::WaitYielding(request);
}

// Threads that spin until destroyed, each noting the stretches it ran without a break of over
// kTickGapS (seconds).
class SpinningThreads {
  public:
    explicit SpinningThreads(int count) : stretchesS_(count) {
        for (int t = 0; t < count; ++t) threads_.emplace_back([this, t] { Spin(stretchesS_[t]); });
    }
    ~SpinningThreads() { Stop(); }
    SpinningThreads(const SpinningThreads&) = delete;
    SpinningThreads& operator=(const SpinningThreads&) = delete;

    // Stops and joins the threads; returns every thread's stretches.
    std::vector<double> Stop() {
        stop_.store(true);
        for (std::thread& t : threads_) t.join();
        threads_.clear();
        std::vector<double> all;
        for (const auto& each : stretchesS_) all.insert(all.end(), each.begin(), each.end());
        return all;
    }

  private:
    void Spin(std::vector<double>& stretchesS) {
        double startS = WallClockS(), lastS = startS;
        while (!stop_.load(std::memory_order_relaxed)) {
            double nowS = WallClockS();
            if (nowS - lastS > kTickGapS) {
                stretchesS.push_back(lastS - startS);
                startS = nowS;
            }
            lastS = nowS;
        }
    }

    std::atomic<bool> stop_{false};
    std::vector<std::vector<double>> stretchesS_;
    std::vector<std::thread> threads_;
};

// ---- streams: bfv's message pattern, with bfv's yielding waits ------------------------------

// A sender: `count` messages of `bytes` to `destination` in batches of kSendBatch Isends, each
// batch completed with WaitAllYielding (as a ray tracer posts a frame's columns). Every Isend
// reads `buffer`, which nothing writes while they are pending.
void SendStream(const Group& g, const std::vector<std::byte>& buffer, int bytes, int count,
                int destination) {
    std::vector<MPI_Request> requests;
    for (int sent = 0; sent < count;) {
        requests.assign(std::min(kSendBatch, count - sent), MPI_REQUEST_NULL);
        for (MPI_Request& r : requests) {
            BFV_MPI_CHECK(MPI_Isend(buffer.data(), bytes, MPI_BYTE, destination,
                                    tags::kCommbenchStream, g.comm, &r));
        }
        common::WaitAllYielding(static_cast<int>(requests.size()), requests.data());
        sent += static_cast<int>(requests.size());
    }
}

// The receiver: `perSource` messages of `bytes` from each rank in `sources`, one posted
// receive per source as the display does, completed with WaitAnyYielding. buffers[k] (at
// least `bytes`, owned by the caller) receives source k's messages; MPI owns it from each
// post until that receive completes.
void ReceiveStream(const Group& g, const std::vector<int>& sources, int bytes, int perSource,
                   std::vector<std::vector<std::byte>>& buffers) {
    const int n = static_cast<int>(sources.size());
    std::vector<MPI_Request> requests(n, MPI_REQUEST_NULL);
    std::vector<int> remaining(n, perSource);
    auto post = [&](int k) {
        BFV_MPI_CHECK(MPI_Irecv(buffers[k].data(), bytes, MPI_BYTE, sources[k],
                                tags::kCommbenchStream, g.comm, &requests[k]));
    };
    for (int k = 0; k < n; ++k) post(k);
    for (int left = n; left > 0;) {
        MPI_Status status;
        const int k = common::WaitAnyYielding(n, requests.data(), &status);
        if (--remaining[k] > 0) {
            post(k);
        } else {
            --left;
        }
    }
}

// ---- ping-pong ----------------------------------------------------------------------------
//
// Two passes per size. The latency pass polls with MPI_Test, calling sched_yield() between
// tests: a busy poll while the core is free, so it measures the link's own one-way time (the
// paper's and Hockney's MSGSETUP and ALCBW), yet the kernel's TCP work and other processes
// still run (a plain MPI_Wait spin on 2 shared cores measured 4-20 ms scheduler ticks over
// TCP). With the renderer's yielding waits a ping-pong measures their sleep instead: once a
// rank's short spin has run out it sleeps, so every hop waits for a sleeping partner (about
// 65-130 us one-way for any size, shared memory or TCP). The CPU pass streams messages from
// rank 0 to rank 1 with the renderer's pattern and yielding waits, so its CPU per message,
// per side, is what bfv's ranks pay (eqs. 18-19: #MSG messages in a row).
//
// Unless said otherwise, each non-blocking call below is completed before the function goes
// on, so its buffer is the function's own until then.

// Completes `request` (filling `status`, which may be MPI_STATUS_IGNORE), polling with
// sched_yield() between tests.
void Poll(MPI_Request& request, MPI_Status* status) {
    for (int done = 0;;) {
        BFV_MPI_CHECK(MPI_Test(&request, &done, status));
        if (done) return;
        sched_yield();
    }
}

// Rank 0's round trip: pre-post the pong's receive, send the ping, complete both. The
// buffers stay untouched until both complete.
void PingOnce(const Group& g, PingBuffers& buffers, int bytes) {
    MPI_Request receive, send;
    BFV_MPI_CHECK(MPI_Irecv(buffers.receive.data(), bytes, MPI_BYTE, 1, tags::kCommbenchPong,
                            g.comm, &receive));
    BFV_MPI_CHECK(
        MPI_Isend(buffers.send.data(), bytes, MPI_BYTE, 1, tags::kCommbenchPing, g.comm, &send));
    Poll(send, MPI_STATUS_IGNORE);
    Poll(receive, MPI_STATUS_IGNORE);
}

void SendStop(const Group& g) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Isend(nullptr, 0, MPI_BYTE, 1, tags::kCommbenchStop, g.comm, &request));
    common::WaitYielding(request);
}

// Rank 1: echoes pings until rank 0's stop.
void EchoLoop(const Group& g, std::vector<std::byte>& buffer) {
    for (;;) {
        MPI_Request request;
        MPI_Status status;
        const int capacity = static_cast<int>(buffer.size());
        BFV_MPI_CHECK(
            MPI_Irecv(buffer.data(), capacity, MPI_BYTE, 0, MPI_ANY_TAG, g.comm, &request));
        Poll(request, &status);
        if (status.MPI_TAG == tags::kCommbenchStop) return;
        int bytes = 0;
        BFV_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &bytes));
        BFV_MPI_CHECK(
            MPI_Isend(buffer.data(), bytes, MPI_BYTE, 0, tags::kCommbenchPong, g.comm, &request));
        Poll(request, MPI_STATUS_IGNORE);
    }
}

bool Enough(std::span<const double> samples, const CommBenchSettings& s, double elapsedS) {
    const int n = static_cast<int>(samples.size());
    if (n >= kMaxReps) return true;
    if (elapsedS >= s.maxSecondsPerSize) return n >= kMinRepsAtTimeout;
    return n >= kMinReps && RelativeStandardError(samples) <= s.targetRse;
}

// Rank 0: warm-up, then round trips until the RSE target or the time limit. Returns the
// recorded round-trip times, seconds.
std::vector<double> LatencyPass(const Group& g, PingBuffers& buffers, int bytes,
                                const CommBenchSettings& s) {
    std::vector<double> roundTripsS;
    const double startS = WallClockS();
    for (int rep = 0;; ++rep) {
        const double t0 = WallClockS();
        PingOnce(g, buffers, bytes);
        if (rep >= kWarmupReps) roundTripsS.push_back(WallClockS() - t0);
        if (Enough(roundTripsS, s, WallClockS() - startS)) break;
    }
    SendStop(g);
    return roundTripsS;
}

// Rank 0: tells rank 1 the message count, streams `count` messages to it and collects rank
// 1's {CPU seconds, wall seconds}; fills the result's CPU per message per side and the
// stream's wall time per message.
void CpuPass(const Group& g, const PingBuffers& buffers, int count, CommBenchSize& r) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Isend(&count, 1, MPI_INT, 1, tags::kCommbenchCount, g.comm, &request));
    common::WaitYielding(request);
    const double cpu0 = ThreadCpuS();
    SendStream(g, buffers.send, r.bytes, count, 1);
    const double sendCpuS = ThreadCpuS() - cpu0;
    double receiver[2];
    BFV_MPI_CHECK(MPI_Irecv(receiver, 2, MPI_DOUBLE, 1, tags::kCommbenchCpu, g.comm, &request));
    common::WaitYielding(request);
    r.senderCpuS = sendCpuS / count;
    r.receiverCpuS = receiver[0] / count;
    r.streamS = receiver[1] / count;
}

// Rank 1's side of CpuPass: times the whole stream, wall and CPU.
void ReceiverCpuPass(const Group& g, std::vector<std::vector<std::byte>>& buffers) {
    int count = 0;
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Irecv(&count, 1, MPI_INT, 0, tags::kCommbenchCount, g.comm, &request));
    common::WaitYielding(request);
    const double wall0 = WallClockS(), cpu0 = ThreadCpuS();
    ReceiveStream(g, {0}, static_cast<int>(buffers[0].size()), count, buffers);
    double figures[2] = {ThreadCpuS() - cpu0, WallClockS() - wall0};
    BFV_MPI_CHECK(MPI_Isend(figures, 2, MPI_DOUBLE, 0, tags::kCommbenchCpu, g.comm, &request));
    common::WaitYielding(request);
}

// Rank 0: both passes for one size; the CPU pass streams for about kCpuPassShare of the time
// limit (at least kMinReps messages).
CommBenchSize MeasureSize(const Group& g, PingBuffers& buffers, int bytes,
                          const CommBenchSettings& s) {
    CommBenchSize r = SummarizeRoundTrips(bytes, LatencyPass(g, buffers, bytes, s));
    const double budget = kCpuPassShare * s.maxSecondsPerSize / r.medianS;
    CpuPass(g, buffers, std::clamp(static_cast<int>(budget), kMinReps, kMaxReps), r);
    return r;
}

// Rank 1's side of one size.
void EchoSize(const Group& g, std::vector<std::byte>& echo, int bytes,
              std::vector<std::vector<std::byte>>& stream) {
    EchoLoop(g, echo);
    stream[0].resize(static_cast<size_t>(bytes));
    ReceiverCpuPass(g, stream);
}

// ---- many-to-one --------------------------------------------------------------------------

int MessagesPerSender(const CommBenchSettings& s, int senders, int bytes) {
    const double count = s.streamBytesPerTrial / (static_cast<double>(senders) * bytes);
    return std::clamp(static_cast<int>(count), kMinMessagesPerSender, kMaxMessagesPerSender);
}

// All ranks: one trial, ranks 1..senders streaming into rank 0; rank 0 returns its
// measurement, the others their own timings (buffers are allocated before the clocks start).
ManyToOnePoint StreamTrial(const Group& g, const CommBenchSettings& s, int senders, int bytes) {
    const int perSender = MessagesPerSender(s, senders, bytes);
    const bool receives = g.rank == 0, sends = g.rank >= 1 && g.rank <= senders;
    std::vector<std::vector<std::byte>> buffers(receives ? senders : 0,
                                                std::vector<std::byte>(bytes));
    const std::vector<std::byte> source(sends ? bytes : 0);
    std::vector<int> sources(senders);
    std::iota(sources.begin(), sources.end(), 1);
    WaitForAll(g);
    const double wall0 = WallClockS(), cpu0 = ThreadCpuS();
    if (receives) ReceiveStream(g, sources, bytes, perSender, buffers);
    if (sends) SendStream(g, source, bytes, perSender, 0);
    const double wallS = WallClockS() - wall0, cpuS = ThreadCpuS() - cpu0;
    WaitForAll(g);
    return ManyToOneFromTrial(senders, bytes, perSender, wallS, cpuS);
}

// All ranks: s.trials trials; the one with the median aggregate bandwidth counts.
ManyToOnePoint StreamPoint(const Group& g, const CommBenchSettings& s, int senders, int bytes) {
    std::vector<ManyToOnePoint> trials;
    for (int t = 0; t < s.trials; ++t) trials.push_back(StreamTrial(g, s, senders, bytes));
    std::nth_element(
        trials.begin(), trials.begin() + trials.size() / 2, trials.end(),
        [](const auto& a, const auto& b) { return a.aggregateBytesPerS < b.aggregateBytesPerS; });
    return trials[trials.size() / 2];
}

}  // namespace

double RelativeStandardError(std::span<const double> samples) {
    if (samples.size() < 2) return 1.0;
    const double mean = common::Mean(samples);
    double ss = 0;
    for (double x : samples) ss += (x - mean) * (x - mean);
    const double n = static_cast<double>(samples.size());
    return std::sqrt(ss / (n - 1)) / (mean * std::sqrt(n));
}

int CountOutliers(std::span<const double> samples, double median) {
    std::vector<double> deviations;
    for (double x : samples) deviations.push_back(std::abs(x - median));
    const double mad = std::max(common::Median(std::move(deviations)), 0.01 * median);
    return static_cast<int>(std::count_if(
        samples.begin(), samples.end(), [&](double x) { return x > median + kOutlierMads * mad; }));
}

CommBenchSize SummarizeRoundTrips(int bytes, std::span<const double> roundTripsS) {
    CommBenchSize r;
    r.bytes = bytes;
    r.reps = static_cast<int>(roundTripsS.size());
    r.medianS = common::Median({roundTripsS.begin(), roundTripsS.end()}) / 2;
    r.minS = *std::min_element(roundTripsS.begin(), roundTripsS.end()) / 2;
    r.meanS = common::Mean(roundTripsS) / 2;
    r.rse = RelativeStandardError(roundTripsS);
    r.outliers = CountOutliers(roundTripsS, 2 * r.medianS);
    return r;
}

std::vector<CommBenchSize> RunPingPongSweep(const Group& g, const CommBenchSettings& s,
                                            const CommBenchProgress& progress) {
    std::vector<CommBenchSize> results;
    const size_t capacity = g.rank <= 1 ? static_cast<size_t>(s.sizes.back()) : 0;
    PingBuffers buffers{std::vector<std::byte>(capacity), std::vector<std::byte>(capacity)};
    std::vector<std::vector<std::byte>> stream(1, std::vector<std::byte>(capacity));
    for (size_t i = 0; g.rank <= 1 && i < s.sizes.size(); ++i) {
        if (g.rank == 1) {
            EchoSize(g, buffers.receive, s.sizes[i], stream);
            continue;
        }
        progress(fmt::format("ping-pong size {} of {} ({} B)", i + 1, s.sizes.size(), s.sizes[i]));
        results.push_back(MeasureSize(g, buffers, s.sizes[i], s));
    }
    WaitForAll(g);
    return results;
}

std::vector<ManyToOnePoint> RunManyToOne(const Group& g, const CommBenchSettings& s,
                                         const CommBenchProgress& progress) {
    std::vector<ManyToOnePoint> points;
    for (int senders = 1; senders < g.size; ++senders) {
        if (g.rank == 0) progress(fmt::format("many-to-one, {} sender(s)", senders));
        for (int bytes : s.manyToOneSizes) {
            const ManyToOnePoint point = StreamPoint(g, s, senders, bytes);
            if (g.rank == 0) points.push_back(point);
        }
    }
    return points;
}

std::vector<WaitCostPoint> RunWaitCost(const Group& g, const CommBenchSettings& s,
                                       const CommBenchProgress& progress, bool busyHost) {
    if (g.rank == 0) {
        progress(fmt::format("the CPU of waiting, {} wait lengths{}", s.waitsS.size(),
                             busyHost ? ", on a host whose cores are busy" : ""));
    }
    std::vector<WaitCostPoint> points;
    std::byte message[8] = {};
    // Busy: every core of rank 1's host runs, rank 0's own run to the send among them when it
    // shares the host (as a ray tracer sends its columns at the end of its trace).
    bool sharedHost = g.hosts.size() > 1 && g.hosts[0] == g.hosts[1];
    SpinningThreads busy(g.rank == 1 && busyHost ? HostCores() - (sharedHost ? 1 : 0) : 0);
    for (double waitS : s.waitsS) {
        const int waits = std::max(3, static_cast<int>(s.waitSecondsPerPoint / waitS));
        std::vector<double> wallsS;
        double cpuS = 0.0;
        for (int i = 0; g.rank <= 1 && i < waits; ++i) {
            // Both start together; rank 0 sleeps out the wait (busy: runs it out), then sends.
            BFV_MPI_CHECK(MPI_Sendrecv(message, 1, MPI_BYTE, 1 - g.rank, tags::kCommbenchWait,
                                       message + 1, 1, MPI_BYTE, 1 - g.rank, tags::kCommbenchWait,
                                       g.comm, MPI_STATUS_IGNORE));
            if (g.rank == 0) {
                if (busyHost) {
                    for (double endS = WallClockS() + waitS; WallClockS() < endS;) {
                    }
                } else {
                    std::this_thread::sleep_for(std::chrono::duration<double>(waitS));
                }
                BFV_MPI_CHECK(MPI_Send(message, 1, MPI_BYTE, 1, tags::kCommbenchWait, g.comm));
                continue;
            }
            MPI_Request request;
            BFV_MPI_CHECK(
                MPI_Irecv(message, 1, MPI_BYTE, 0, tags::kCommbenchWait, g.comm, &request));
            const double wall0 = WallClockS(), cpu0 = ThreadCpuS();
            common::WaitYielding(request);
            wallsS.push_back(WallClockS() - wall0);
            cpuS += ThreadCpuS() - cpu0;
        }
        if (g.rank == 1) {
            const double wallS = std::accumulate(wallsS.begin(), wallsS.end(), 0.0);
            double measured[2] = {common::Median(std::move(wallsS)),
                                  std::clamp(cpuS / std::max(wallS, 1e-12), 0.0, 1.0)};
            BFV_MPI_CHECK(MPI_Send(measured, 2, MPI_DOUBLE, 0, tags::kCommbenchCpu, g.comm));
        } else if (g.rank == 0) {
            double measured[2] = {};
            BFV_MPI_CHECK(MPI_Recv(measured, 2, MPI_DOUBLE, 1, tags::kCommbenchCpu, g.comm,
                                   MPI_STATUS_IGNORE));
            if (points.empty() || measured[0] > points.back().waitS)
                points.push_back({measured[0], measured[1]});
        }
    }
    WaitForAll(g);
    return points;
}

int HostCores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
    return std::max(1, CPU_COUNT(&set));
}

double RunSchedulerTick(const Group& g, const CommBenchSettings& s,
                        const CommBenchProgress& progress) {
    if (g.rank == 0) progress("the scheduler's tick, one more spinning thread than cores");
    double tickS = 0.0;
    if (g.rank == 1) {
        SpinningThreads spinning(HostCores() + 1);
        std::this_thread::sleep_for(std::chrono::duration<double>(s.tickSeconds));
        std::vector<double> stretchesS = spinning.Stop();
        tickS = stretchesS.empty() ? 0.0 : common::Median(stretchesS);
    } else {
        // Asleep meanwhile, and a little longer: a rank's tests for a message would wake on
        // the host and make the spinning threads change places between ticks.
        std::this_thread::sleep_for(
            std::chrono::duration<double>(s.tickSeconds + kTickSleepMarginS));
    }
    BFV_MPI_CHECK(MPI_Bcast(&tickS, 1, MPI_DOUBLE, 1, g.comm));
    return g.rank == 0 ? tickS : 0.0;
}

ManyToOnePoint ManyToOneFromTrial(int senders, int msgBytes, int messagesPerSender, double wallS,
                                  double receiverCpuS) {
    const double payloadBytes = static_cast<double>(senders) * messagesPerSender * msgBytes;
    return {senders, static_cast<double>(msgBytes), payloadBytes / wallS, receiverCpuS / wallS};
}

std::vector<SweepPoint> SweepPoints(std::span<const CommBenchSize> sweep) {
    std::vector<SweepPoint> points;
    for (const CommBenchSize& r : sweep) {
        points.push_back({static_cast<double>(r.bytes), r.medianS, r.senderCpuS, r.receiverCpuS});
    }
    return points;
}

std::string SweepCsv(std::span<const CommBenchSize> sweep) {
    std::string csv =
        "msgBytes,reps,oneWayMedianUs,oneWayMinUs,oneWayMeanUs,rse,outliers,a2abwMBPerS,"
        "streamUsPerMessage,senderCpuUs,receiverCpuUs,senderCpuPercent,receiverCpuPercent\n";
    for (const CommBenchSize& r : sweep) {
        csv += fmt::format(
            "{},{},{:.4f},{:.4f},{:.4f},{:.5f},{},{:.3f},{:.4f},{:.4f},{:.4f},{:.2f},{:.2f}\n",
            r.bytes, r.reps, r.medianS * 1e6, r.minS * 1e6, r.meanS * 1e6, r.rse, r.outliers,
            r.A2abwBytesPerS() / kMB, r.streamS * 1e6, r.senderCpuS * 1e6, r.receiverCpuS * 1e6,
            r.SenderCpuPercent(), r.ReceiverCpuPercent());
    }
    return csv;
}

}  // namespace bfv::predict
