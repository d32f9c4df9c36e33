// A render ends cleanly however it is stopped: an interrupt (SIGINT or SIGTERM, to mpiexec or to
// one rank) ends it after the current frame with the report of the frames so far, and a rank
// that stops answering (SIGSTOP) is named within --stall-timeout, with the report written as
// "stalled". Each test starts its own job and signals only the processes it started.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/interrupt.h"
#include "pipeline/rank_keeper.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::AwaitFile;
using test_support::Background;
using test_support::Contains;
using test_support::Quote;
using test_support::Slurp;
using test_support::TempDir;

// A run far longer than any test waits for; frame 0's PNG says that frames are flowing. The
// stall limit leaves the tracers time to map the land at start-up under the sanitizers.
const std::string kLongRun =
    "render --headless --frames 100000 --size 160x90 --png-every 100000 --stall-timeout 5 ";

// The processes below `pid` (children, grandchildren, ...).
std::vector<pid_t> Descendants(pid_t pid) {
    std::vector<pid_t> found;
    for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
        std::istringstream children(Slurp(task.path().string() + "/children"));
        for (pid_t child; children >> child;) {
            found.push_back(child);
            for (pid_t below : Descendants(child)) found.push_back(below);
        }
    }
    return found;
}

// The pid of MPI rank `rank` of the job mpiexec `mpiexecPid` started (from PMI_RANK in its
// environment), or -1.
pid_t RankPid(pid_t mpiexecPid, int rank) {
    for (pid_t pid : Descendants(mpiexecPid)) {
        std::string comm = Slurp("/proc/" + std::to_string(pid) + "/comm");
        if (comm != "bfv\n") continue;
        std::string environ = Slurp("/proc/" + std::to_string(pid) + "/environ");
        std::string wanted = "PMI_RANK=" + std::to_string(rank);
        std::istringstream entries(environ);
        for (std::string entry; std::getline(entries, entry, '\0');) {
            if (entry == wanted) return pid;
        }
    }
    return -1;
}

// The pids of ranks 0 .. nRanks - 1 of the job mpiexec `mpiexecPid` started (RankPid).
std::vector<pid_t> RankPids(pid_t mpiexecPid, int nRanks) {
    std::vector<pid_t> pids;
    for (int rank = 0; rank < nRanks; ++rank) pids.push_back(RankPid(mpiexecPid, rank));
    return pids;
}

// SIGKILL to `pid` if it is still a bfv process (the stopped rank MPI_Abort could not end).
void KillStoppedRank(pid_t pid) {
    if (Slurp("/proc/" + std::to_string(pid) + "/comm") == "bfv\n") ::kill(pid, SIGKILL);
}

// Stops rank `rank` of `job` (SIGSTOP) and returns the job's exit code. The other ranks name
// it within a few stall timeouts; mpiexec may then wait for the stopped process, which
// MPI_Abort's signals do not end, so after `namedWithinS` it is killed (its stderr is flushed
// when mpiexec exits). -1 when the job did not end at all.
int StopRankAndWait(Background& job, int rank, double namedWithinS) {
    pid_t pid = RankPid(job.Pid(), rank);
    EXPECT_GT(pid, 0);
    if (pid <= 0) return -1;
    ::kill(pid, SIGSTOP);
    int code = job.Wait(namedWithinS);
    KillStoppedRank(pid);
    return code != -1 ? code : job.Wait(30.0);
}

// Whether process `pid` runs: it exists and is not a zombie (one that ended; init reaps it).
bool Running(pid_t pid) {
    std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
    return !stat.empty() && stat.find(") Z") == std::string::npos;
}

// Expects every process of `pids` (-1: none found) to have ended, or to end within
// kOrphanGraceS and a second: a rank outlives its keeper, which the launcher kills as mpiexec
// returns, while it ends its interrupt (pipeline/rank_keeper.h). `what` names the case.
void ExpectEnded(const std::vector<pid_t>& pids, const std::string& what) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration<double>(pipeline::kOrphanGraceS + 1.0);
    for (pid_t pid : pids) {
        if (pid <= 0) continue;
        while (Running(pid) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        EXPECT_FALSE(Running(pid)) << what << ": pid " << pid << " runs on";
    }
}

nlohmann::json ReportAt(const std::string& dir) {
    return nlohmann::json::parse(Slurp(dir + "/report.json"));
}

std::string Mpiexec(int nRanks, const std::string& arguments) {
    return Quote(BFV_MPIEXEC) + " -n " + std::to_string(nRanks) + " " + Quote(BFV_BINARY) + " " +
           arguments;
}

// Starts a long run on 4 ranks, sends mpiexec `signal` `times` times at once once frames flow,
// and expects every rank to finish the frame, the report of the frames so far written as
// interrupted with every rank's summary, and exit code 128 + `signal`.
void ExpectMpiexecInterrupted(int signal, int times) {
    TempDir dir;
    std::string out = dir.File("out");
    Background job(Mpiexec(4, kLongRun + "--out " + Quote(out)), dir.File("job"));
    ASSERT_TRUE(AwaitFile(out + "/frame_00000.png", 60.0)) << job.Err();
    for (int k = 0; k < times; ++k) ::kill(job.Pid(), signal);
    EXPECT_EQ(job.Wait(60.0), 128 + signal) << job.Err();
    std::string reason = std::string("interrupted by ") + common::SignalName(signal);
    nlohmann::json report = ReportAt(out);
    EXPECT_EQ(report["end"], "interrupted");
    EXPECT_EQ(report["endReason"], reason);
    EXPECT_GE(report["frameTimesS"].size(), 1u);
    EXPECT_EQ(report["frameChecksums"].size(), report["frameTimesS"].size());
    EXPECT_EQ(report["ranks"].size(), 4u) << "every rank's summary gathered";
    EXPECT_TRUE(Contains(job.Out(), reason)) << job.Out();
}

// Ctrl-C to mpiexec: the report of the frames so far, exit 130.
TEST(RenderInterrupt, SigintToMpiexecWritesTheReportOfTheFramesSoFar) {
    ExpectMpiexecInterrupted(SIGINT, 1);
}

// Two SIGTERMs at once to mpiexec, which forwards each to every rank (a second SIGINT it takes
// as its own force abort, see docs/user-guide.md): one interrupt, the complete report.
TEST(RenderInterrupt, TwoSigtermsAtOnceToMpiexecWriteTheReport) {
    ExpectMpiexecInterrupted(SIGTERM, 2);
}

// Ctrl-C twice to mpiexec, the second before the run has ended: Hydra's force abort kills the
// ranks' keepers, after which mpiexec exits 255 (130 if the ranks had ended first). The ranks
// outlive their keepers just long enough to end the first interrupt with its report, and no longer
// than kOrphanGraceS: the force abort still ends every rank. Before the ranks had process groups of
// their own, its SIGKILL took them before any wrote a word.
TEST(RenderInterrupt, ASecondSigintToMpiexecStillWritesTheReportAndEndsEveryRank) {
    TempDir dir;
    std::string out = dir.File("out");
    Background job(Mpiexec(4, kLongRun + "--out " + Quote(out)), dir.File("job"));
    ASSERT_TRUE(AwaitFile(out + "/frame_00000.png", 60.0)) << job.Err();
    std::vector<pid_t> ranks = RankPids(job.Pid(), 4);
    for (pid_t pid : ranks) ASSERT_GT(pid, 0);
    ::kill(job.Pid(), SIGINT);
    // The second once mpiexec has taken the first (two at once may merge into one): its force
    // abort, a few milliseconds into the ranks' clean end.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!Contains(job.Out() + job.Err(), "again to force abort") &&
           std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    ::kill(job.Pid(), SIGINT);
    int code = job.Wait(60.0);
    EXPECT_TRUE(code == 130 || code == 255) << code << job.Err();
    ExpectEnded(ranks, "a double SIGINT to mpiexec");
    nlohmann::json report = ReportAt(out);
    EXPECT_EQ(report["end"], "interrupted");
    // The first signal a rank takes is the one reported: Hydra's SIGINT, or, when the force
    // abort's killing of the keepers outruns it (a loaded machine), the SIGTERM their death sends.
    EXPECT_TRUE(report["endReason"] == "interrupted by SIGINT" ||
                report["endReason"] == "interrupted by SIGTERM")
        << report["endReason"];
    EXPECT_GE(report["frameTimesS"].size(), 1u);
    EXPECT_EQ(report["frameChecksums"].size(), report["frameTimesS"].size());
    EXPECT_EQ(report["ranks"].size(), 4u) << "every rank's summary gathered";
}

// SIGTERM to one ray tracer alone: it tells the display, which ends the run the same way.
TEST(RenderInterrupt, SigtermToOneTracerEndsTheRunCleanly) {
    TempDir dir;
    std::string out = dir.File("out");
    Background job(Mpiexec(4, kLongRun + "--out " + Quote(out)), dir.File("job"));
    ASSERT_TRUE(AwaitFile(out + "/frame_00000.png", 60.0)) << job.Err();
    pid_t tracer = RankPid(job.Pid(), 2);
    ASSERT_GT(tracer, 0);
    ::kill(tracer, SIGTERM);
    int code = job.Wait(60.0);
    EXPECT_EQ(code, 143) << job.Err();
    nlohmann::json report = ReportAt(out);
    EXPECT_EQ(report["end"], "interrupted");
    EXPECT_EQ(report["endReason"], "interrupted by SIGTERM");
    EXPECT_EQ(report["ranks"].size(), 4u);
}

// --sequential: the same on one process, sent SIGINT `times` times at once.
void ExpectSequentialInterrupted(int times) {
    TempDir dir;
    std::string out = dir.File("out");
    Background job(Quote(BFV_BINARY) + " " + kLongRun + "--sequential --out " + Quote(out),
                   dir.File("job"));
    ASSERT_TRUE(AwaitFile(out + "/frame_00000.png", 60.0)) << job.Err();
    for (int k = 0; k < times; ++k) ::kill(job.Pid(), SIGINT);
    EXPECT_EQ(job.Wait(60.0), 130) << job.Err();
    EXPECT_EQ(ReportAt(out)["end"], "interrupted");
}

TEST(RenderInterrupt, SigintToASequentialRenderWritesItsReport) { ExpectSequentialInterrupted(1); }

// Ctrl-C twice at once (a terminal's double press) is one interrupt: a --sequential run writes
// its report all the same (the second SIGINT killed it before, with no report).
TEST(RenderInterrupt, TwoSigintsAtOnceToASequentialRenderWriteItsReport) {
    ExpectSequentialInterrupted(2);
}

// Whether a "lost: " message, from the text after "lost: ", names `named` ("display rank 3")
// among the ranks it lists: "<role> rank R on host H [and ...] ended without finishing ..."
// (common::LostError), every rank lost on the host, in rank order.
bool NamesLost(const std::string& afterLost, const std::string& named) {
    const std::string list = afterLost.substr(0, afterLost.find(" ended without finishing"));
    for (std::size_t at = 0; at != std::string::npos;) {
        if (list.compare(at, named.size() + 9, named + " on host ") == 0) return true;
        at = list.find(" and ", at);
        if (at != std::string::npos) at += 5;
    }
    return false;
}

// Every rank's line that blames a rank ("[r2 tracer] bfv render: stalled: <role> rank R ..." or
// "lost: ...") names `named` ("ray tracer rank 1"): a stall first, as each rank blames the rank
// that went silent, not the one it happened to wait on; a loss among the ranks it lists, in rank
// order (UCX may end a rank that reads a lost one's memory: both are lost, and when both are
// found at once the lower rank comes first). A keeper's line about its own rank ("... was ended
// by SIGABRT") blames nobody else.
void ExpectEveryBlameNames(const std::string& err, const std::string& named) {
    std::istringstream lines(err);
    for (std::string line; std::getline(lines, line);) {
        if (Contains(line, ") was ended by SIG") && !Contains(line, named + " on host ")) continue;
        const std::string stalled = "bfv render: stalled: ", lost = "bfv render: lost: ";
        if (std::size_t at = line.find(stalled); at != std::string::npos) {
            EXPECT_EQ(line.compare(at + stalled.size(), named.size(), named), 0) << line;
        }
        if (std::size_t at = line.find(lost); at != std::string::npos) {
            EXPECT_TRUE(NamesLost(line.substr(at + lost.size()), named)) << named << ": " << line;
        }
    }
}

// Starts a long run with `extraArgs`, stops rank `rank` once frames flow, and expects the
// job to end with a non-zero exit and `message` (naming the stopped rank) on stderr, whatever
// the role, within the stall timeout (5 s) and a little more: the rank that names it speaks
// after the timeout, not twice it (the display's heartbeats while it waits for columns keep the
// server from needing the longer wait). Returns the output folder.
std::string ExpectStopNamed(const TempDir& dir, int rank, const std::string& extraArgs,
                            const std::string& message) {
    std::string out = dir.File("out");
    Background job(Mpiexec(4, kLongRun + extraArgs + " --out " + Quote(out)), dir.File("job"));
    EXPECT_TRUE(AwaitFile(out + "/frame_00000.png", 60.0)) << job.Err();
    auto stoppedAt = std::chrono::steady_clock::now();
    int code = StopRankAndWait(job, rank, 20.0);
    double endedAfterS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - stoppedAt).count();
    EXPECT_NE(code, 0);
    EXPECT_NE(code, -1) << "the job hung";
    EXPECT_LT(endedAfterS, 8.0) << "twice --stall-timeout 5 would be 10 s";
    EXPECT_TRUE(Contains(job.Err(), message)) << job.Err() << job.Out();
    EXPECT_TRUE(Contains(job.Err(), "--stall-timeout 5")) << job.Err();
    std::string named = message.substr(std::strlen("stalled: "));
    ExpectEveryBlameNames(job.Err(), named.substr(0, named.find(" on host")));
    return out;
}

// A ray tracer that stops answering: the display names it (role, rank, host, the frame it
// waited for) once --stall-timeout has passed, writes the report as stalled, and the job ends
// with a non-zero exit instead of hanging.
// The report in `out` ended as stalled, naming `rank` ("ray tracer rank 1"), with every frame
// so far.
void ExpectStalledReportNaming(const std::string& out, const std::string& rank) {
    nlohmann::json report = ReportAt(out);
    EXPECT_EQ(report["end"], "stalled");
    EXPECT_TRUE(Contains(report["endReason"].get<std::string>(), rank)) << report["endReason"];
    EXPECT_EQ(report["frameChecksums"].size(), report["frameTimesS"].size());
}

TEST(RenderStall, AStoppedTracerIsNamedAndTheReportWritten) {
    TempDir dir;
    std::string out = ExpectStopNamed(dir, 1, "", "stalled: ray tracer rank 1 on host ");
    ExpectStalledReportNaming(out, "ray tracer rank 1");
}

// A display that stops answering: the terrain server names it first (the tracers wait longer
// for it) and writes the report as stalled in its place, without the display's frames.
TEST(RenderStall, AStoppedDisplayIsNamedAndTheServerWritesTheReport) {
    TempDir dir;
    std::string out = ExpectStopNamed(dir, 3, "", "stalled: display rank 3 on host ");
    ExpectStalledReportNaming(out, "display rank 3");
    EXPECT_TRUE(Contains(ReportAt(out)["endReason"].get<std::string>(),
                         "report written by terrain server rank 0 on host "))
        << ReportAt(out)["endReason"];
}

// With --terrain-sync the tracers wait for the terrain server's tiles: they name it.
TEST(RenderStall, AStoppedTerrainServerIsNamedUnderTerrainSync) {
    TempDir dir;
    ExpectStopNamed(dir, 0, "--terrain-sync", "stalled: terrain server rank 0 on host ");
}

// On the live stream nobody waits for the terrain server's tiles: the display finds it stopped
// when its frame commands stay untaken, names it and still writes the report as stalled.
TEST(RenderStall, AStoppedTerrainServerOnTheLiveStreamIsNamedAndTheReportWritten) {
    TempDir dir;
    std::string out = ExpectStopNamed(dir, 0, "", "stalled: terrain server rank 0 on host ");
    ExpectStalledReportNaming(out, "terrain server rank 0");
}

// SIGKILL of any one role (terrain server, ray tracer, display), as the OOM killer or a crash
// would end it: the others find it gone, the job ends within 10 s with a non-zero exit, the
// report written as "lost" naming the rank (by the display, or by the terrain server in a lost
// display's place), every rank's message naming it too, and none of its processes is left
// running. (A rank may be lost with it, as UCX may end a rank that reads a lost one's memory:
// the report and the messages then name both, in rank order when found at once.)
TEST(RenderKill, AKilledRankOfEveryRoleIsNamedInTheReport) {
    const std::pair<int, const char*> cases[] = {
        {0, "terrain server rank 0"}, {1, "ray tracer rank 1"}, {3, "display rank 3"}};
    for (const auto& [rank, named] : cases) {
        TempDir dir;
        std::string out = dir.File("out");
        Background job(Mpiexec(4, kLongRun + "--out " + Quote(out)), dir.File("job"));
        ASSERT_TRUE(AwaitFile(out + "/frame_00000.png", 60.0)) << job.Err();
        std::vector<pid_t> ranks = RankPids(job.Pid(), 4);
        ASSERT_GT(ranks[static_cast<size_t>(rank)], 0);
        ::kill(ranks[static_cast<size_t>(rank)], SIGKILL);
        int code = job.Wait(10.0);
        EXPECT_NE(code, -1) << "rank " << rank << " killed: the job did not end within 10 s";
        EXPECT_NE(code, 0) << "rank " << rank;
        nlohmann::json report = ReportAt(out);
        EXPECT_EQ(report["end"], "lost") << named;
        std::string reason = report["endReason"].get<std::string>();
        EXPECT_EQ(reason.rfind("lost: ", 0), 0u) << reason;
        EXPECT_TRUE(NamesLost(reason.substr(std::strlen("lost: ")), named))
            << named << ": " << reason;
        EXPECT_TRUE(Contains(job.Err(), "bfv render: lost: ")) << job.Err();
        ExpectEveryBlameNames(job.Err(), named);
        ExpectEnded(ranks, "rank " + std::to_string(rank) + " killed");
    }
}

// SIGKILL of a ray tracer the moment it runs under its keeper, inside MPI_Init (which takes most
// of a second here), before any rank watches it: nobody can report it, so the keeper passes the
// loss on to Hydra at once, ending as its rank did. The job ends within 10 s with a non-zero
// exit and no rank left running (before: after the keeper's 14.5 s linger, and in 3 of 7 runs
// never, Hydra's proxy spinning while the other ranks waited in MPI_Init).
TEST(RenderKill, ARankKilledInsideMpiInitEndsTheJobAtOnce) {
    // Inside MPI_Init's exchange with the launcher, a rank reads its PMI socket.
    auto insideMpiInit = [](pid_t pid) {
        return Slurp("/proc/" + std::to_string(pid) + "/wchan").starts_with("unix_stream_read");
    };
    // A launch whose tracer went through MPI_Init before it was seen there is stopped (Ctrl-C)
    // and tried again.
    for (int attempt = 0; attempt < 5; ++attempt) {
        TempDir dir;
        std::string out = dir.File("out");
        Background job(Mpiexec(4, kLongRun + "--out " + Quote(out)), dir.File("job"));
        pid_t tracer = -1;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (tracer <= 0 && !fs::exists(out + "/frame_00000.png") &&
               std::chrono::steady_clock::now() < deadline) {
            pid_t pid = RankPid(job.Pid(), 1);
            if (pid > 0 && insideMpiInit(pid)) tracer = pid;
        }
        if (tracer <= 0) {
            ::kill(job.Pid(), SIGINT);
            job.Wait(60.0);
            continue;
        }
        ::kill(tracer, SIGKILL);
        std::vector<pid_t> ranks = RankPids(job.Pid(), 4);
        int code = job.Wait(10.0);
        EXPECT_NE(code, -1) << "the job did not end within 10 s";
        EXPECT_NE(code, 0);
        EXPECT_TRUE(Contains(job.Err(), "lost: ray tracer rank 1 on host ")) << job.Err();
        ExpectEnded(ranks, "a tracer killed in MPI_Init");
        return;
    }
    ADD_FAILURE() << "the tracer was never seen inside MPI_Init in 5 launches";
}

// A disk that fills mid-run: the write that failed is named with the system's reason, the job
// ends with a non-zero exit, and no half-written report or temporary file is left. Needs root
// (a 300 KiB tmpfs mounted for the test); skipped otherwise.
TEST(RenderDiskFull, AFullDiskIsNamedAndLeavesNoCorruptReport) {
    TempDir dir;
    std::string mount = dir.File("small");
    fs::create_directory(mount);
    if (::geteuid() != 0 ||
        test_support::RunCommand("mount -t tmpfs -o size=300k tmpfs " + Quote(mount)).exitCode !=
            0) {
        GTEST_SKIP() << "needs root to mount a small tmpfs";
    }
    struct Unmount {
        std::string path;
        ~Unmount() { test_support::RunCommand("umount " + Quote(path)); }
    } unmount{mount};
    std::string out = mount + "/out";
    test_support::RunResult run = test_support::RunBfvMpi(
        4, "render --headless --frames 30 --size 320x180 --png-every 1 --out " + Quote(out), 60);
    EXPECT_NE(run.exitCode, 0);
    EXPECT_NE(run.exitCode, 124) << "timed out: the job hung";
    EXPECT_TRUE(Contains(run.err, "No space left on device")) << run.err;
    if (fs::exists(out + "/report.json")) {
        EXPECT_TRUE(nlohmann::json::accept(Slurp(out + "/report.json"))) << "a corrupt report";
    }
    for (const auto& entry : fs::directory_iterator(out)) {
        EXPECT_FALSE(Contains(entry.path().filename().string(), ".tmp."))
            << entry.path() << " left behind";
    }
}

// A limit shorter than a healthy start-up (0.001) blamed "a rank stopped answering" when none
// had; it is refused with the bound, as a negative one is.
TEST(RenderStall, ABadStallTimeoutIsRefused) {
    const std::pair<const char*, const char*> cases[] = {
        {"-1", "--stall-timeout must be 0 (never) or 2..86400 seconds"},
        {"0.001", "--stall-timeout 0.001 is shorter than a healthy start-up keeps a rank silent"}};
    for (const auto& [timeoutS, message] : cases) {
        TempDir dir;
        auto run =
            test_support::RunBfv("render --sequential --headless --frames 1 --stall-timeout " +
                                 std::string(timeoutS) + " --out " + Quote(dir.File("out")));
        test_support::ExpectCleanFailure(run, message, dir.File("out"));
    }
}

}  // namespace
}  // namespace bfv::tools
