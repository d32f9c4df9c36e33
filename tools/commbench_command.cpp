// `bfv commbench`: measures message costs between MPI ranks and fits the link parameters of
// eqs. 16-19 (the source paper's section 3) with the benchmark of predict/comm_bench.h: a
// ping-pong sweep between ranks 0 and 1, then many-to-one streams into rank 0 (the display's
// case), then the CPU of waiting for late messages. Rank 0 prints the tables and writes
// OUT/link_profile.json (read by `bfv predict`) and OUT/sweep.csv.
//
// MPI runs at MPI_THREAD_MULTIPLE as in `bfv render`, so times and CPU% are what bfv's ranks
// pay.

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "common/cpu_quota.h"
#include "common/file_io.h"
#include "common/mpi_group.h"
#include "predict/comm_bench.h"
#include "predict/comm_fit.h"
#include "predict/link_profile.h"
#include "tools/commands.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using common::Group;
using predict::CommBenchSize;
using predict::kMB;

constexpr long long kMaxMessageBytes = 1LL << 30;  // --sizes limit (MPI counts are ints)

// Command-line values; sizes and quick defaults are resolved in Resolve().
struct CommbenchArgs {
    std::string outDir = "out/commbench";
    std::string name;  // empty: from UCX_TLS
    std::vector<long long> sizes;
    double maxSecondsPerSize = 0.5;
    double targetRse = 0.02;
    bool quick = false;
};

// What one run does: the measurement and where its results go.
struct Settings {
    std::string outDir;
    std::string name;       // the link's name in the profile
    std::string transport;  // UCX_TLS, or "default"
    predict::CommBenchSettings bench;
};

const char* kCommbenchHelp =
    "Measure message costs between MPI ranks and fit the link parameters of the source paper's\n"
    "eqs. 16-19: MSGSETUP, ALCBW, APBBW (send and receive), n1/2 and the protocol breakpoints.\n"
    "Ranks 0 and 1 ping-pong every size (one-way = round trip / 2, polling, for the link's own\n"
    "times), then stream it 0 -> 1 with bfv's yielding waits (for the CPU per message each side\n"
    "pays); with N > 2 ranks, 1..N-1 senders then stream into rank 0, as ray tracers do into\n"
    "the display. Then rank 1 waits for messages that come 0.2 to 10 ms late, as the\n"
    "renderer's ranks wait (spinning, then sleeping between tests): the CPU% a waiting rank\n"
    "still takes, which `bfv predict` charges to ranks sharing a host's cores; once on an idle\n"
    "host and once with every core of rank 1's host busy (its tests then wait for a core).\n"
    "Last, rank 1 runs one more spinning thread than its host has cores: how long a thread\n"
    "runs before it yields its core, the scheduler's tick (4 ms on Linux at HZ = 250), at\n"
    "which `bfv predict` lets ranks that outnumber a host's cores take turns.\n"
    "Writes OUT/link_profile.json (for `bfv predict`) and OUT/sweep.csv.\n"
    "Examples:\n"
    "  mpiexec -n 2 bfv commbench --name shm                    shared memory\n"
    "  UCX_TLS=tcp,self mpiexec -n 2 bfv commbench --name tcp   TCP loopback (UCX uses tcp/lo\n"
    "                        and tcp/eth0 lanes; add UCX_NET_DEVICES=lo for loopback only)\n"
    "  mpiexec -n 5 bfv commbench                               many-to-one, 1..4 senders\n"
    "  mpiexec -n 2 bfv commbench --quick --out /tmp/cb         a few sizes, a few seconds\n"
    "Known problem: with UCX_TLS=tcp and 3 or more ranks, MPICH 4.0.2 with UCX 1.13 often\n"
    "hangs in MPI_Finalize (any program); the files are written before it, and bfv exits\n"
    "without it after 5 s.";

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
        ->check(InRange(common::Range::Closed(1e-3, 3600.0, "s")))
        ->capture_default_str();
    cmd.add_option("--target-rse", a.targetRse,
                   "Repeat until the relative standard error of the mean is below this")
        ->check(InRange(common::Range::Closed(1e-4, 1.0)))
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
    if (auto ok = common::CheckFolderCanBeMade("--out", a.outDir); !ok) {
        throw CLI::ValidationError(ok.error().message);
    }
    s.outDir = a.outDir;
    predict::CommBenchSettings& b = s.bench;
    b.sizes = PingPongSizes(a);
    b.maxSecondsPerSize = a.quick ? std::min(a.maxSecondsPerSize, 0.05) : a.maxSecondsPerSize;
    b.targetRse = a.targetRse;
    b.manyToOneSizes =
        a.quick ? std::vector<int>{1440, 23040} : std::vector<int>{1440, 23040, 262144};
    b.streamBytesPerTrial =
        a.quick ? predict::kStreamBytesPerTrial / 16 : predict::kStreamBytesPerTrial;
    b.trials = a.quick ? 1 : 3;
    b.waitSecondsPerPoint = a.quick ? 0.01 : b.waitSecondsPerPoint;
    return s;
}

// ---- output (rank 0) ----------------------------------------------------------------------

// The sweep table: one-way times of the latency pass; CPU% of the CPU pass, as a share of
// its stream's wall time.
void PrintSweep(const std::vector<CommBenchSize>& sweep) {
    std::printf(
        "ping-pong, ranks 0 <-> 1: one-way = round trip / 2, MB = 10^6 B. CPU%%: of a stream\n"
        "0 -> 1 with bfv's batched sends and yielding waits, 'stream us' per message\n");
    std::printf("%9s %6s %10s %9s %9s %9s %9s %9s %8s\n", "bytes", "reps", "median us", "min us",
                "MB/s", "stream us", "send CPU%", "recv CPU%", "outliers");
    for (const CommBenchSize& r : sweep) {
        std::printf("%9d %6d %10.2f %9.2f %9.1f %9.1f %9.1f %9.1f %8d\n", r.bytes, r.reps,
                    r.medianS * 1e6, r.minS * 1e6, r.A2abwBytesPerS() / kMB, r.streamS * 1e6,
                    r.SenderCpuPercent(), r.ReceiverCpuPercent(), r.outliers);
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

void PrintWaitCost(const predict::LinkProfile& p) {
    std::printf("\nthe CPU of waiting (yielding waits, as the renderer's ranks wait)\n");
    for (const auto* points : {&p.waitCost, &p.waitCostBusy}) {
        std::printf("%s\n%10s %8s\n",
                    points == &p.waitCost ? "on an idle host" : "with the host's cores busy",
                    "wait ms", "CPU%");
        for (const predict::WaitCostPoint& w : *points) {
            std::printf("%10.2f %8.1f\n", 1e3 * w.waitS, 100.0 * w.cpuFraction);
        }
    }
    std::printf("scheduler tick (a thread's run while another waits for its core): %.2f ms\n",
                1e3 * p.schedulerTickS);
    for (const predict::HostCpuQuota& q : p.hostCpuQuotas) {
        if (q.cpuQuotaCores > 0.0) {
            std::printf("CPU quota of %s: %.2f cores per %.0f ms (cpuQuotaCores, quotaPeriodS)\n",
                        q.host.c_str(), q.cpuQuotaCores, 1e3 * q.quotaPeriodS);
        } else {
            std::printf("CPU quota of %s: none\n", q.host.c_str());
        }
    }
}

// All ranks: every host's CPU quota, as its ranks read it from their cgroup (the first rank on
// a host speaks for it); rank 0 returns them, in rank order, the others nothing.
std::vector<predict::HostCpuQuota> GatherHostQuotas(const Group& g) {
    common::CpuQuota mine = common::ProcessCpuQuota();
    double sent[2] = {mine.cores, mine.periodS};
    std::vector<double> all(2 * static_cast<std::size_t>(g.size));
    BFV_MPI_CHECK(MPI_Gather(sent, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, g.comm));
    std::vector<predict::HostCpuQuota> quotas;
    for (int r = 0; g.rank == 0 && r < g.size; ++r) {
        std::string host =
            r < static_cast<int>(g.hosts.size()) ? g.hosts[r] : "rank " + std::to_string(r);
        bool seen = std::any_of(quotas.begin(), quotas.end(),
                                [&](const predict::HostCpuQuota& q) { return q.host == host; });
        if (!seen) quotas.push_back({host, all[2 * r], all[2 * r + 1]});
    }
    return quotas;
}

Expected<void> WriteText(const std::string& path, const std::string& text) {
    return common::WriteFileAtomic(path, std::as_bytes(std::span(text.data(), text.size())));
}

Expected<void> WriteOutputs(const Settings& s, const predict::LinkProfile& p,
                            const std::vector<CommBenchSize>& sweep) {
    std::error_code ec;
    fs::create_directories(s.outDir, ec);
    if (ec) return Error{fmt::format("cannot create '{}': {}", s.outDir, ec.message())};
    if (auto ok = WriteText(s.outDir + "/sweep.csv", predict::SweepCsv(sweep)); !ok) return ok;
    return WriteText(s.outDir + "/link_profile.json", predict::LinkProfileJson(p).dump(2) + "\n");
}

std::string HostName() {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    return name;
}

// What waiting costs on rank 1's host (predict::RunWaitCost, RunSchedulerTick).
struct HostWaits {
    std::vector<predict::WaitCostPoint> idle, busy;
    double schedulerTickS = 0.0;
};

// Rank 0: fits, prints and writes. Returns the exit code.
int Report(const Group& g, const Settings& s, const std::vector<CommBenchSize>& sweep,
           std::vector<predict::ManyToOnePoint> manyToOne, HostWaits waits,
           std::vector<predict::HostCpuQuota> quotas) {
    PrintSweep(sweep);
    auto profile = predict::FitLinkProfile(predict::SweepPoints(sweep), s.name);
    if (!profile) {
        std::fprintf(stderr, "bfv commbench: cannot fit the link: %s\n",
                     profile.error().message.c_str());
        return 1;
    }
    profile->manyToOne = std::move(manyToOne);
    profile->waitCost = std::move(waits.idle);
    profile->waitCostBusy = std::move(waits.busy);
    profile->schedulerTickS = waits.schedulerTickS;
    profile->host = HostName();
    profile->ranks = g.size;
    profile->transport = s.transport;
    profile->hostCpuQuotas = std::move(quotas);
    PrintFit(*profile);
    PrintManyToOne(profile->manyToOne);
    PrintWaitCost(*profile);
    if (auto ok = WriteOutputs(s, *profile, sweep); !ok) {
        std::fprintf(stderr, "bfv commbench: %s\n", ok.error().message.c_str());
        return 1;
    }
    std::printf("\nwrote %s/link_profile.json and %s/sweep.csv\n", s.outDir.c_str(),
                s.outDir.c_str());
    return 0;
}

// Rank 0's progress lines, on stderr.
void PrintProgress(const std::string& line) {
    std::fprintf(stderr, "commbench: %s\n", line.c_str());
}

// Ping-pong sweeps measured before giving up on a fit: other load on the hosts (a busy cluster,
// other jobs) can disturb one sweep enough that its times do not grow with size.
constexpr int kSweepAttempts = 3;

// All ranks: the ping-pong sweep, measured again (up to kSweepAttempts) while rank 0 cannot fit
// it. Returns the last sweep.
std::vector<CommBenchSize> FittableSweep(const Group& g, const Settings& s) {
    for (int attempt = 1;; ++attempt) {
        std::vector<CommBenchSize> sweep = predict::RunPingPongSweep(g, s.bench, PrintProgress);
        int fits = 1;
        if (g.rank == 0) {
            auto fit = predict::FitLinkProfile(predict::SweepPoints(sweep), s.name);
            fits = fit.ok() ? 1 : 0;
            if (!fit.ok() && attempt < kSweepAttempts) {
                PrintProgress(fmt::format("cannot fit this sweep ({}): measuring again, {} of {}",
                                          fit.error().message, attempt + 1, kSweepAttempts));
            }
        }
        BFV_MPI_CHECK(MPI_Bcast(&fits, 1, MPI_INT, 0, g.comm));
        if (fits == 1 || attempt == kSweepAttempts) return sweep;
    }
}

// All ranks: the sweep, many-to-one, the CPU of waiting on an idle and on a busy host, then the
// scheduler's tick; rank 0 reports. Returns the exit code.
int Measure(const Group& g, const Settings& s) {
    if (g.rank == 0) {
        std::printf("bfv commbench: link '%s' (UCX_TLS %s), %d ranks\n\n", s.name.c_str(),
                    s.transport.c_str(), g.size);
    }
    std::vector<CommBenchSize> sweep = FittableSweep(g, s);
    std::vector<predict::ManyToOnePoint> manyToOne =
        predict::RunManyToOne(g, s.bench, PrintProgress);
    HostWaits waits;
    waits.idle = predict::RunWaitCost(g, s.bench, PrintProgress, false);
    waits.busy = predict::RunWaitCost(g, s.bench, PrintProgress, true);
    waits.schedulerTickS = predict::RunSchedulerTick(g, s.bench, PrintProgress);
    std::vector<predict::HostCpuQuota> quotas = GatherHostQuotas(g);
    return g.rank == 0
               ? Report(g, s, sweep, std::move(manyToOne), std::move(waits), std::move(quotas))
               : 0;
}

// All ranks: MPI for the run, at the renderer's thread level (MPI_THREAD_MULTIPLE) and with
// at least 2 ranks, else a message and exit code 1. Returns the exit code.
int RunCommbench(const Settings& s) {
    common::MpiSession mpi;
    const Group& g = mpi.World();
    if (g.size < 2) {
        std::fprintf(stderr,
                     "bfv commbench needs at least 2 MPI ranks (ranks 0 and 1 ping-pong; "
                     "more ranks add many-to-one senders): run `mpiexec -n 2 bfv "
                     "commbench`\n");
        return mpi.Finish(1);
    }
    auto ok =
        mpi.RequireThreadLevel(MPI_THREAD_MULTIPLE, "to measure at the renderer's thread level");
    if (!ok) {
        if (g.rank == 0) std::fprintf(stderr, "bfv commbench: %s\n", ok.error().message.c_str());
        return mpi.Finish(1);
    }
    return mpi.Finish(Measure(g, s));
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
