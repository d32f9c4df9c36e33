// `bfv commbench`: measures message costs between MPI ranks and fits the link parameters of
// eqs. 16-19 (shared/design/MODEL.md, section 3): a ping-pong sweep between ranks 0 and 1,
// then many-to-one streams into rank 0 (the display's case). Rank 0 prints the tables and
// writes OUT/link_profile.json (read by `bfv predict`) and OUT/sweep.csv.
//
// Every wait is one of the renderer's yielding waits (common/mpi_wait.h), and MPI runs at
// MPI_THREAD_MULTIPLE as in `bfv render`, so times and CPU% are what bfv's ranks pay.

#include <fmt/format.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "predict/comm_fit.h"
#include "common/file_io.h"
#include "common/instrument.h"
#include "predict/link_profile.h"
#include "common/mpi_group.h"
#include "common/mpi_wait.h"
#include "tools/commands.h"
#include "tools/render.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using common::Group;
using common::ThreadCpuS;
using common::WallClockS;

// Tags of commbench's own messages; commbench never runs alongside `bfv render`.
namespace tags {
constexpr int kPing = 201;    // rank 0 -> 1: a ping of the size under test
constexpr int kPong = 202;    // rank 1 -> 0: the echo
constexpr int kStop = 203;    // rank 0 -> 1: empty, ends a ping-pong loop
constexpr int kCount = 204;   // rank 0 -> 1: messages in the coming CPU-pass stream
constexpr int kCpu = 205;     // rank 1 -> 0: the stream's CPU and wall seconds at rank 1
constexpr int kStream = 206;  // stream payload (CPU pass, many-to-one)
}  // namespace tags

constexpr int kWarmupReps = 10;         // round trips before any is recorded
constexpr int kMinReps = 30;            // recorded round trips before the RSE may stop
constexpr int kMinRepsAtTimeout = 5;    // recorded round trips even past the time limit
constexpr int kMaxReps = 200000;        // bounds the samples kept per size
constexpr double kCpuPassShare = 0.25;  // CPU pass stream time / --max-seconds-per-size
constexpr double kOutlierMads = 5.0;    // outlier: > median + 5 MAD
constexpr int kSendBatch = 8;           // Isends a sender posts before WaitAll (a "frame")
constexpr double kStreamBytesPerTrial = 64 * 1048576.0;  // per many-to-one trial, all senders
constexpr long long kMaxMessageBytes = 1LL << 30;        // --sizes limit (MPI counts are ints)
constexpr double kMB = 1e6;                              // the paper's MB

// Command-line values; sizes and quick defaults are resolved in Resolve().
struct CommbenchArgs {
    std::string outDir = "out/commbench";
    std::string name;  // empty: from UCX_TLS
    std::vector<long long> sizes;
    double maxSecondsPerSize = 0.5;
    double targetRse = 0.02;
    bool quick = false;
};

// What one run does.
struct Settings {
    std::string outDir, name, transport;
    std::vector<int> sizes;           // ping-pong sizes, bytes, ascending
    std::vector<int> manyToOneSizes;  // many-to-one message sizes, bytes
    double maxSecondsPerSize = 0.5;   // ping-pong time limit per size, seconds
    double targetRse = 0.02;          // stop once the mean's relative standard error is below
    double streamBytesPerTrial = kStreamBytesPerTrial;
    int trials = 3;  // many-to-one trials per point (the median counts)
};

// One ping-pong size: one-way times (round trip / 2) and CPU per message per side.
struct SizeResult {
    int bytes = 0;
    int reps = 0;                                      // recorded round trips
    double medianS = 0, minS = 0, meanS = 0, rse = 0;  // latency pass (polling waits)
    int outliers = 0;
    double streamS = 0;  // CPU pass: wall seconds per message of a stream with yielding waits
    double senderCpuS = 0, receiverCpuS = 0;  // CPU pass: thread CPU seconds per message
};

// Rank 0's ping-pong buffers: a receive may not share memory with a pending send.
struct PingBuffers {
    std::vector<std::byte> send, receive;
};

const char* kCommbenchHelp =
    "Measure message costs between MPI ranks and fit the link parameters of the source paper's\n"
    "eqs. 16-19: MSGSETUP, ALCBW, APBBW (send and receive), n1/2 and the protocol breakpoints.\n"
    "Ranks 0 and 1 ping-pong every size (one-way = round trip / 2, polling, for the link's own\n"
    "times), then stream it 0 -> 1 with bfv's yielding waits (for the CPU per message each side\n"
    "pays); with N > 2 ranks, 1..N-1 senders then stream into rank 0, as ray tracers do into\n"
    "the display. Writes OUT/link_profile.json (for `bfv predict`) and OUT/sweep.csv.\n"
    "Examples:\n"
    "  mpiexec -n 2 bfv commbench --name shm                    shared memory\n"
    "  UCX_TLS=tcp,self mpiexec -n 2 bfv commbench --name tcp   TCP loopback (UCX uses tcp/lo\n"
    "                        and tcp/eth0 lanes; add UCX_NET_DEVICES=lo for loopback only)\n"
    "  mpiexec -n 5 bfv commbench                               many-to-one, 1..4 senders\n"
    "  mpiexec -n 2 bfv commbench --quick --out /tmp/cb         a few sizes, a few seconds\n"
    "Known problem: with UCX_TLS=tcp and 3 or more ranks, MPICH 4.0.2 with UCX 1.13 often\n"
    "hangs in MPI_Finalize (any program); the files are written before it.";

std::string EnvOr(const char* name, const std::string& otherwise) {
    const char* value = std::getenv(name);
    return value && *value ? value : otherwise;
}

// "shm" when UCX may use shared memory, "tcp" when it is told to use TCP, else "link".
std::string DefaultName(const std::string& ucxTls) {
    if (ucxTls.empty() || ucxTls.find("sm") != std::string::npos) return "shm";
    return ucxTls.find("tcp") != std::string::npos ? "tcp" : "link";
}

// The paper's Table 1 sizes and the powers of two from 256 B to 4 MiB.
std::vector<int> DefaultSizes() {
    std::vector<int> sizes = {200, 600, 1000, 1400, 2000, 6000, 10000, 20000, 80000, 640000};
    for (int n = 256; n <= 4 * 1048576; n *= 2) sizes.push_back(n);
    return sizes;
}

// Accepts a whole number of bytes in 1..kMaxMessageBytes.
CLI::Validator ByteCount() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            long long value = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (ec == std::errc() && end == text.data() + text.size() && value >= 1 &&
                value <= kMaxMessageBytes) {
                return "";
            }
            return fmt::format("'{}' is not a message size: give whole bytes from 1 to {}", text,
                               kMaxMessageBytes);
        },
        "BYTES");
}

void AddOptions(CLI::App& cmd, CommbenchArgs& a) {
    cmd.add_option("--out", a.outDir, "Output directory for link_profile.json and sweep.csv")
        ->capture_default_str();
    cmd.add_option("--name", a.name,
                   "Link name in the profile (default: shm, or tcp when UCX_TLS names tcp)");
    cmd.add_option("--sizes", a.sizes,
                   "Ping-pong message sizes in bytes, comma-separated (default: the paper's "
                   "200..640000 and powers of two 256..4194304)")
        ->delimiter(',')
        ->check(ByteCount());
    cmd.add_option("--max-seconds-per-size", a.maxSecondsPerSize,
                   "Time limit of the ping-pong repetitions of one size, seconds")
        ->check(CLI::Range(1e-3, 3600.0))
        ->capture_default_str();
    cmd.add_option("--target-rse", a.targetRse,
                   "Repeat until the relative standard error of the mean is below this")
        ->check(CLI::Range(1e-4, 1.0))
        ->capture_default_str();
    cmd.add_flag("--quick", a.quick, "Few sizes, short runs (tests, smoke checks)");
}

// --sizes, else the --quick or the default sizes; ascending and distinct. Throws
// CLI::ValidationError for fewer than 3 (the fit's minimum).
std::vector<int> PingPongSizes(const CommbenchArgs& a) {
    std::vector<int> sizes =
        a.quick ? std::vector<int>{200, 2000, 20000, 200000, 2000000} : DefaultSizes();
    if (!a.sizes.empty()) sizes.assign(a.sizes.begin(), a.sizes.end());
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    if (sizes.size() < 3) throw CLI::ValidationError("--sizes", "give at least 3 distinct sizes");
    return sizes;
}

// Turns the arguments into Settings; throws CLI::ValidationError on bad --name, --out, --sizes.
Settings Resolve(const CommbenchArgs& a) {
    Settings s;
    s.transport = EnvOr("UCX_TLS", "default");
    s.name = a.name.empty() ? DefaultName(EnvOr("UCX_TLS", "")) : a.name;
    if (s.name.empty()) throw CLI::ValidationError("--name", "must not be empty");
    std::error_code ec;
    if (fs::exists(a.outDir, ec) && !fs::is_directory(a.outDir, ec)) {
        throw CLI::ValidationError("--out", "'" + a.outDir + "' exists and is not a directory");
    }
    s.outDir = a.outDir;
    s.sizes = PingPongSizes(a);
    s.maxSecondsPerSize = a.quick ? std::min(a.maxSecondsPerSize, 0.05) : a.maxSecondsPerSize;
    s.targetRse = a.targetRse;
    s.manyToOneSizes =
        a.quick ? std::vector<int>{1440, 23040} : std::vector<int>{1440, 23040, 262144};
    s.streamBytesPerTrial = a.quick ? kStreamBytesPerTrial / 16 : kStreamBytesPerTrial;
    s.trials = a.quick ? 1 : 3;
    return s;
}

// ---- statistics -------------------------------------------------------------------------

double Median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

double Mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Relative standard error of the mean: sd / (mean sqrt(n)); 1 for fewer than 2 samples.
double RelativeStandardError(const std::vector<double>& v) {
    if (v.size() < 2) return 1.0;
    const double mean = Mean(v);
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    const double n = static_cast<double>(v.size());
    return std::sqrt(ss / (n - 1)) / (mean * std::sqrt(n));
}

// Samples above median + kOutlierMads MAD (MAD floored at 1% of the median, for timers that
// repeat one value).
int CountOutliers(const std::vector<double>& v, double median) {
    std::vector<double> deviations;
    for (double x : v) deviations.push_back(std::abs(x - median));
    const double mad = std::max(Median(deviations), 0.01 * median);
    return static_cast<int>(std::count_if(
        v.begin(), v.end(), [&](double x) { return x > median + kOutlierMads * mad; }));
}

SizeResult Summarize(int bytes, const std::vector<double>& roundTripsS) {
    SizeResult r;
    r.bytes = bytes;
    r.reps = static_cast<int>(roundTripsS.size());
    r.medianS = Median(roundTripsS) / 2;
    r.minS = *std::min_element(roundTripsS.begin(), roundTripsS.end()) / 2;
    r.meanS = Mean(roundTripsS) / 2;
    r.rse = RelativeStandardError(roundTripsS);
    r.outliers = CountOutliers(roundTripsS, 2 * r.medianS);
    return r;
}

void WaitForAll(const Group& g) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Ibarrier(g.comm, &request));
    common::WaitYielding(request);
}

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
            BFV_MPI_CHECK(
                MPI_Isend(buffer.data(), bytes, MPI_BYTE, destination, tags::kStream, g.comm, &r));
        }
        common::WaitAllYielding(static_cast<int>(requests.size()), requests.data());
        sent += static_cast<int>(requests.size());
    }
}

// The receiver: `perSource` messages of `bytes` from each rank in `sources`, one posted
// receive per source as the display does, completed with WaitAnyYielding. buffers[k] (at
// least `bytes`, owned by the caller) receives source k's messages.
void ReceiveStream(const Group& g, const std::vector<int>& sources, int bytes, int perSource,
                   std::vector<std::vector<std::byte>>& buffers) {
    const int n = static_cast<int>(sources.size());
    std::vector<MPI_Request> requests(n, MPI_REQUEST_NULL);
    std::vector<int> remaining(n, perSource);
    auto post = [&](int k) {
        BFV_MPI_CHECK(MPI_Irecv(buffers[k].data(), bytes, MPI_BYTE, sources[k], tags::kStream,
                                g.comm, &requests[k]));
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
    BFV_MPI_CHECK(
        MPI_Irecv(buffers.receive.data(), bytes, MPI_BYTE, 1, tags::kPong, g.comm, &receive));
    BFV_MPI_CHECK(MPI_Isend(buffers.send.data(), bytes, MPI_BYTE, 1, tags::kPing, g.comm, &send));
    Poll(send, MPI_STATUS_IGNORE);
    Poll(receive, MPI_STATUS_IGNORE);
}

void SendStop(const Group& g) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Isend(nullptr, 0, MPI_BYTE, 1, tags::kStop, g.comm, &request));
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
        if (status.MPI_TAG == tags::kStop) return;
        int bytes = 0;
        BFV_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &bytes));
        BFV_MPI_CHECK(MPI_Isend(buffer.data(), bytes, MPI_BYTE, 0, tags::kPong, g.comm, &request));
        Poll(request, MPI_STATUS_IGNORE);
    }
}

bool Enough(const std::vector<double>& samples, const Settings& s, double elapsedS) {
    const int n = static_cast<int>(samples.size());
    if (n >= kMaxReps) return true;
    if (elapsedS >= s.maxSecondsPerSize) return n >= kMinRepsAtTimeout;
    return n >= kMinReps && RelativeStandardError(samples) <= s.targetRse;
}

// Rank 0: warm-up, then round trips until the RSE target or the time limit. Returns the
// recorded round-trip times, seconds.
std::vector<double> LatencyPass(const Group& g, PingBuffers& buffers, int bytes,
                                const Settings& s) {
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
void CpuPass(const Group& g, const PingBuffers& buffers, int count, SizeResult& r) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Isend(&count, 1, MPI_INT, 1, tags::kCount, g.comm, &request));
    common::WaitYielding(request);
    const double cpu0 = ThreadCpuS();
    SendStream(g, buffers.send, r.bytes, count, 1);
    const double sendCpuS = ThreadCpuS() - cpu0;
    double receiver[2];
    BFV_MPI_CHECK(MPI_Irecv(receiver, 2, MPI_DOUBLE, 1, tags::kCpu, g.comm, &request));
    common::WaitYielding(request);
    r.senderCpuS = sendCpuS / count;
    r.receiverCpuS = receiver[0] / count;
    r.streamS = receiver[1] / count;
}

// Rank 1's side of CpuPass: times the whole stream, wall and CPU.
void ReceiverCpuPass(const Group& g, std::vector<std::vector<std::byte>>& buffers) {
    int count = 0;
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Irecv(&count, 1, MPI_INT, 0, tags::kCount, g.comm, &request));
    common::WaitYielding(request);
    const double wall0 = WallClockS(), cpu0 = ThreadCpuS();
    ReceiveStream(g, {0}, static_cast<int>(buffers[0].size()), count, buffers);
    double figures[2] = {ThreadCpuS() - cpu0, WallClockS() - wall0};
    BFV_MPI_CHECK(MPI_Isend(figures, 2, MPI_DOUBLE, 0, tags::kCpu, g.comm, &request));
    common::WaitYielding(request);
}

// Rank 0: both passes for one size; the CPU pass streams for about kCpuPassShare of the time
// limit (at least kMinReps messages).
SizeResult MeasureSize(const Group& g, PingBuffers& buffers, int bytes, const Settings& s) {
    SizeResult r = Summarize(bytes, LatencyPass(g, buffers, bytes, s));
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

// All ranks: the ping-pong sweep; rank 0 returns the results, ranks 2.. idle at a yielding
// barrier.
std::vector<SizeResult> RunSweep(const Group& g, const Settings& s) {
    std::vector<SizeResult> results;
    const size_t capacity = g.rank <= 1 ? static_cast<size_t>(s.sizes.back()) : 0;
    PingBuffers buffers{std::vector<std::byte>(capacity), std::vector<std::byte>(capacity)};
    std::vector<std::vector<std::byte>> stream(1, std::vector<std::byte>(capacity));
    for (size_t i = 0; g.rank <= 1 && i < s.sizes.size(); ++i) {
        if (g.rank == 1) {
            EchoSize(g, buffers.receive, s.sizes[i], stream);
            continue;
        }
        std::fprintf(stderr, "commbench: ping-pong size %zu of %zu (%d B)\n", i + 1, s.sizes.size(),
                     s.sizes[i]);
        results.push_back(MeasureSize(g, buffers, s.sizes[i], s));
    }
    WaitForAll(g);
    return results;
}

// ---- many-to-one --------------------------------------------------------------------------

int MessagesPerSender(const Settings& s, int senders, int bytes) {
    const double count = s.streamBytesPerTrial / (static_cast<double>(senders) * bytes);
    return std::clamp(static_cast<int>(count), 20, 5000);
}

// All ranks: one trial, ranks 1..senders streaming into rank 0; rank 0 returns its
// measurement (buffers are allocated before the clocks start).
predict::ManyToOnePoint StreamTrial(const Group& g, const Settings& s, int senders, int bytes) {
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
    return {senders, static_cast<double>(bytes),
            static_cast<double>(senders) * perSender * bytes / wallS, cpuS / wallS};
}

// All ranks: s.trials trials; the one with the median aggregate bandwidth counts.
predict::ManyToOnePoint StreamPoint(const Group& g, const Settings& s, int senders, int bytes) {
    std::vector<predict::ManyToOnePoint> trials;
    for (int t = 0; t < s.trials; ++t) trials.push_back(StreamTrial(g, s, senders, bytes));
    std::nth_element(
        trials.begin(), trials.begin() + trials.size() / 2, trials.end(),
        [](const auto& a, const auto& b) { return a.aggregateBytesPerS < b.aggregateBytesPerS; });
    return trials[trials.size() / 2];
}

std::vector<predict::ManyToOnePoint> RunManyToOne(const Group& g, const Settings& s) {
    std::vector<predict::ManyToOnePoint> points;
    for (int senders = 1; senders < g.size; ++senders) {
        if (g.rank == 0) std::fprintf(stderr, "commbench: many-to-one, %d sender(s)\n", senders);
        for (int bytes : s.manyToOneSizes) points.push_back(StreamPoint(g, s, senders, bytes));
    }
    return points;
}

// ---- output (rank 0) ----------------------------------------------------------------------

double Percent(double cpuS, double wallS) { return 100.0 * cpuS / wallS; }

// The sweep table: one-way times of the latency pass; CPU% of the CPU pass, as a share of
// its stream's wall time.
void PrintSweep(const std::vector<SizeResult>& sweep) {
    std::printf(
        "ping-pong, ranks 0 <-> 1: one-way = round trip / 2, MB = 10^6 B. CPU%%: of a stream\n"
        "0 -> 1 with bfv's batched sends and yielding waits, 'stream us' per message\n");
    std::printf("%9s %6s %10s %9s %9s %9s %9s %9s %8s\n", "bytes", "reps", "median us", "min us",
                "MB/s", "stream us", "send CPU%", "recv CPU%", "outliers");
    for (const SizeResult& r : sweep) {
        std::printf("%9d %6d %10.2f %9.2f %9.1f %9.1f %9.1f %9.1f %8d\n", r.bytes, r.reps,
                    r.medianS * 1e6, r.minS * 1e6, r.bytes / r.medianS / kMB, r.streamS * 1e6,
                    Percent(r.senderCpuS, r.streamS), Percent(r.receiverCpuS, r.streamS),
                    r.outliers);
    }
}

std::string ParamsText(const predict::LinkParams& p) {
    return fmt::format("MSGSETUP {:.2f} us, ALCBW {:.1f} MB/s, APBBW {:.1f} MB/s, n1/2 {:.0f} B",
                       p.msgSetupS * 1e6, p.alcbwBytesPerS / kMB, p.apbbwBytesPerS / kMB,
                       predict::HalfPerformanceBytes(p));
}

void PrintFit(const predict::LinkProfile& p) {
    std::printf("\nfit (eqs. 16-19), link '%s':\n  overall: %s\n", p.name.c_str(),
                ParamsText(p.overall).c_str());
    for (const predict::LinkSegment& s : p.segments) {
        std::printf("  %8.0f .. %8.0f B: %s\n", s.minBytes, s.maxBytes,
                    ParamsText(s.params).c_str());
    }
    std::string breakpoints = p.breakpointsBytes.empty() ? "none" : "";
    for (double b : p.breakpointsBytes) breakpoints += fmt::format("{:.0f} B ", b);
    std::printf(
        "  breakpoints: %s\n  large messages: n1/2 %.0f B, APBBW send %.1f MB/s, "
        "receive %.1f MB/s\n",
        breakpoints.c_str(), p.nHalfBytes, p.apbbwSendBytesPerS / kMB,
        p.apbbwReceiveBytesPerS / kMB);
}

void PrintManyToOne(const std::vector<predict::ManyToOnePoint>& points) {
    if (points.empty()) return;
    std::printf("\nmany-to-one into rank 0\n%8s %10s %16s %14s\n", "senders", "bytes",
                "aggregate MB/s", "receiver CPU%");
    for (const predict::ManyToOnePoint& m : points) {
        std::printf("%8d %10.0f %16.1f %14.1f\n", m.senders, m.msgBytes, m.aggregateBytesPerS / kMB,
                    100.0 * m.receiverCpuFraction);
    }
}

std::string SweepCsv(const std::vector<SizeResult>& sweep) {
    std::string csv =
        "msgBytes,reps,oneWayMedianUs,oneWayMinUs,oneWayMeanUs,rse,outliers,a2abwMBPerS,"
        "streamUsPerMessage,senderCpuUs,receiverCpuUs,senderCpuPercent,receiverCpuPercent\n";
    for (const SizeResult& r : sweep) {
        csv += fmt::format(
            "{},{},{:.4f},{:.4f},{:.4f},{:.5f},{},{:.3f},{:.4f},{:.4f},{:.4f},{:.2f},{:.2f}\n",
            r.bytes, r.reps, r.medianS * 1e6, r.minS * 1e6, r.meanS * 1e6, r.rse, r.outliers,
            r.bytes / r.medianS / kMB, r.streamS * 1e6, r.senderCpuS * 1e6, r.receiverCpuS * 1e6,
            Percent(r.senderCpuS, r.streamS), Percent(r.receiverCpuS, r.streamS));
    }
    return csv;
}

Expected<void> WriteText(const std::string& path, const std::string& text) {
    return common::WriteFileAtomic(path, std::as_bytes(std::span(text.data(), text.size())));
}

Expected<void> WriteOutputs(const Settings& s, const predict::LinkProfile& p,
                            const std::vector<SizeResult>& sweep) {
    std::error_code ec;
    fs::create_directories(s.outDir, ec);
    if (ec) return Error{fmt::format("cannot create '{}': {}", s.outDir, ec.message())};
    if (auto ok = WriteText(s.outDir + "/sweep.csv", SweepCsv(sweep)); !ok) return ok;
    return WriteText(s.outDir + "/link_profile.json", predict::LinkProfileJson(p).dump(2) + "\n");
}

std::string HostName() {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    return name;
}

// Rank 0: fits, prints and writes. Returns the exit code.
int Report(const Group& g, const Settings& s, const std::vector<SizeResult>& sweep,
           std::vector<predict::ManyToOnePoint> manyToOne) {
    std::vector<predict::SweepPoint> points;
    for (const SizeResult& r : sweep) {
        points.push_back({static_cast<double>(r.bytes), r.medianS, r.senderCpuS, r.receiverCpuS});
    }
    PrintSweep(sweep);
    auto profile = predict::FitLinkProfile(points, s.name);
    if (!profile) {
        std::fprintf(stderr, "bfv commbench: cannot fit the link: %s\n",
                     profile.error().message.c_str());
        return 1;
    }
    profile->manyToOne = std::move(manyToOne);
    profile->host = HostName();
    profile->ranks = g.size;
    profile->transport = s.transport;
    PrintFit(*profile);
    PrintManyToOne(profile->manyToOne);
    if (auto ok = WriteOutputs(s, *profile, sweep); !ok) {
        std::fprintf(stderr, "bfv commbench: %s\n", ok.error().message.c_str());
        return 1;
    }
    std::printf("\nwrote %s/link_profile.json and %s/sweep.csv\n", s.outDir.c_str(),
                s.outDir.c_str());
    return 0;
}

// All ranks: initialises MPI at the renderer's thread level, measures, and finalises.
int RunCommbench(const Settings& s) {
    int provided = 0;
    BFV_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
    const Group g = Group::World();
    int code = 0;
    if (g.size < 2) {
        std::fprintf(stderr,
                     "bfv commbench needs at least 2 MPI ranks (ranks 0 and 1 ping-pong; "
                     "more ranks add many-to-one senders): run `mpiexec -n 2 bfv "
                     "commbench`\n");
        code = 1;
    } else {
        if (g.rank == 0) {
            std::printf("bfv commbench: link '%s' (UCX_TLS %s), %d ranks\n\n", s.name.c_str(),
                        s.transport.c_str(), g.size);
        }
        std::vector<SizeResult> sweep = RunSweep(g, s);
        std::vector<predict::ManyToOnePoint> manyToOne = RunManyToOne(g, s);
        if (g.rank == 0) code = Report(g, s, sweep, std::move(manyToOne));
    }
    BFV_MPI_CHECK(MPI_Finalize());
    return code;
}

}  // namespace

void AddCommbenchCommand(CLI::App& app) {
    auto args = std::make_shared<CommbenchArgs>();
    CLI::App* cmd = AddSubcommand(app, "commbench", kCommbenchHelp);
    AddOptions(*cmd, *args);
    cmd->callback([args] {
        const int code = RunCommbench(Resolve(*args));
        if (code != 0) throw CLI::RuntimeError(code);
    });
}

}  // namespace bfv::tools
