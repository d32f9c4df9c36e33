#include "common/rank_protocol.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/tags.h"
#include "tests/mpi/mpi_world.h"

namespace bfv::common {
namespace {

using test_support::World;

constexpr int kFrames = 3;

CameraPose PoseOf(int frame) {
    return {{100.0 * frame, 7.0, 300.0 + frame}, 0.1 * frame, -0.5, 0.04 * frame};
}

// A split of a screen 1000 columns wide among the job's ray tracers, differing per frame when
// there are two tracers or more.
std::vector<int> SplitOf(int frame, int nTracers) {
    std::vector<int> boundariesPx = ContiguousBoundaries(nTracers, 1000);
    if (nTracers > 1) boundariesPx[1] += 3 * frame;
    return boundariesPx;
}

FrameCommand RenderWithSplit(int frame, int nTracers) {
    FrameCommand command = FrameCommand::Render(frame, PoseOf(frame));
    command.SetSplit(SplitOf(frame, nTracers));
    return command;
}

void ExpectRenderCommand(const FrameCommand& command, int frame) {
    EXPECT_EQ(command.kind, FrameCommand::kRender);
    EXPECT_EQ(command.frame, static_cast<std::uint32_t>(frame));
    CameraPose pose = command.Pose();
    EXPECT_EQ(pose.eyeM.x, PoseOf(frame).eyeM.x);
    EXPECT_EQ(pose.eyeM.z, PoseOf(frame).eyeM.z);
    EXPECT_EQ(pose.headingRad, PoseOf(frame).headingRad);
    EXPECT_EQ(pose.timeS, PoseOf(frame).timeS);
}

// The display's commands reach the tracers (blocking receive) and the terrain server (polled)
// in order, each with its pose and its split of the columns, and the quit after them.
TEST(RankProtocol, FrameCommandsReachEveryRankInOrder) {
    const Group& group = World();
    Recorder recorder;
    std::vector<FrameCommand> received;
    switch (group.role()) {
        case Role::Display: {
            for (int f = 0; f < kFrames; ++f) {
                EXPECT_TRUE(
                    BroadcastFrameCommand(group, RenderWithSplit(f, group.tracerCount()), recorder)
                        .ok());
            }
            FrameCommand quit;
            quit.kind = FrameCommand::kQuit;
            EXPECT_TRUE(BroadcastFrameCommand(group, quit, recorder).ok());
            return;
        }
        case Role::TerrainServer: {
            FrameCommandPoller poller(group);
            while (received.size() < kFrames + 1) {
                if (auto command = poller.Poll()) {
                    received.push_back(*command);
                } else {
                    std::this_thread::yield();
                }
            }
            EXPECT_FALSE(poller.Poll()) << "nothing after the quit";
            break;
        }
        case Role::RayTracer:
            for (int f = 0; f <= kFrames; ++f)
                received.push_back(ReceiveFrameCommand(group, recorder).value());
            break;
    }
    ASSERT_EQ(received.size(), static_cast<std::size_t>(kFrames + 1));
    for (int f = 0; f < kFrames; ++f) {
        ExpectRenderCommand(received[f], f);
        auto split = received[f].Split(group.tracerCount(), 1000);
        ASSERT_TRUE(split.ok()) << split.error().message;
        EXPECT_EQ(*split, SplitOf(f, group.tracerCount()));
    }
    EXPECT_EQ(received.back().kind, FrameCommand::kQuit);
    if (group.role() == Role::RayTracer) {
        EXPECT_GT(recorder.Get(Activity::Wait).wallS, 0.0);
    }
}

// A poller destroyed while its receive is posted cancels it: the next poller gets the next
// command, not a lost one.
TEST(RankProtocol, APollerDestroyedEarlyCancelsItsReceive) {
    const Group& group = World();
    Recorder recorder;
    if (group.role() == Role::TerrainServer) {
        { FrameCommandPoller early(group); }
        BFV_MPI_CHECK(MPI_Barrier(group.comm));
        FrameCommandPoller poller(group);
        std::optional<FrameCommand> command;
        while (!(command = poller.Poll())) std::this_thread::yield();
        ExpectRenderCommand(*command, 2);
        while (!(command = poller.Poll())) std::this_thread::yield();
        EXPECT_EQ(command->kind, FrameCommand::kQuit);
        return;
    }
    BFV_MPI_CHECK(MPI_Barrier(group.comm));
    if (group.role() == Role::Display) {
        EXPECT_TRUE(
            BroadcastFrameCommand(group, FrameCommand::Render(2, PoseOf(2)), recorder).ok());
        FrameCommand quit;
        quit.kind = FrameCommand::kQuit;
        EXPECT_TRUE(BroadcastFrameCommand(group, quit, recorder).ok());
    } else {
        ExpectRenderCommand(ReceiveFrameCommand(group, recorder).value(), 2);
        EXPECT_EQ(ReceiveFrameCommand(group, recorder).value().kind, FrameCommand::kQuit);
    }
}

// Every rank's summary arrives at the display, in rank order, with what each rank put in it.
TEST(RankProtocol, GatherSummaryCollectsEveryRankInRankOrder) {
    const Group& group = World();
    Recorder recorder;
    recorder.Add(Activity::Trace, 1.0 + group.rank, 0.5);
    RankSummary extra;
    extra.residentTileMiB = 1.5 * group.rank;
    extra.terrain.tilesSent = 10.0 * group.rank;
    auto gathered = GatherSummary(group, recorder, 2.0 + group.rank, extra, 30.0);
    ASSERT_TRUE(gathered.ok()) << gathered.error().message;
    const std::vector<RankSummary>& all = *gathered;
    if (group.role() != Role::Display) {
        EXPECT_TRUE(all.empty());
        return;
    }
    ASSERT_EQ(all.size(), static_cast<std::size_t>(group.size));
    for (int r = 0; r < group.size; ++r) {
        EXPECT_EQ(all[r].rank, r);
        EXPECT_EQ(all[r].role, static_cast<int>(RoleOf(r, group.size)));
        EXPECT_EQ(all[r].wallS, 2.0 + r);
        EXPECT_EQ(all[r].residentTileMiB, 1.5 * r);
        EXPECT_EQ(all[r].terrain.tilesSent, 10.0 * r);
        EXPECT_EQ(all[r].activities[static_cast<int>(Activity::Trace)].wallS, 1.0 + r);
        EXPECT_GT(all[r].peakRssMiB, 0.0);
    }
}

// A wait for a command that does not come ends at its limit with nothing, and its receive is
// cancelled: the next command goes to the next receive.
TEST(RankProtocol, AFrameCommandWaitEndsAtItsStallLimit) {
    const Group& group = World();
    Recorder recorder;
    if (group.role() == Role::RayTracer) {
        EXPECT_FALSE(ReceiveFrameCommand(group, recorder, 0.05).has_value());
    }
    BFV_MPI_CHECK(MPI_Barrier(group.comm));
    if (group.role() == Role::Display) {
        EXPECT_TRUE(
            BroadcastFrameCommand(group, FrameCommand::Render(4, PoseOf(4)), recorder, 30.0).ok());
        FrameCommand quit;
        quit.kind = FrameCommand::kQuit;
        EXPECT_TRUE(BroadcastFrameCommand(group, quit, recorder, 30.0).ok());
    } else if (group.role() == Role::RayTracer) {
        ExpectRenderCommand(ReceiveFrameCommand(group, recorder, 30.0).value(), 4);
        EXPECT_EQ(ReceiveFrameCommand(group, recorder, 30.0).value().kind, FrameCommand::kQuit);
    } else {
        FrameCommandPoller poller(group);
        std::optional<FrameCommand> command;
        while (!(command = poller.Poll())) std::this_thread::yield();
        ExpectRenderCommand(*command, 4);
        while (!(command = poller.Poll())) std::this_thread::yield();
    }
}

// Heartbeats (a paused window) reach every rank between the frames, and the server's poller
// keeps listening after them.
TEST(RankProtocol, HeartbeatsKeepThePollerListening) {
    const Group& group = World();
    Recorder recorder;
    FrameCommand heartbeat;
    heartbeat.kind = FrameCommand::kHeartbeat;
    FrameCommand quit;
    quit.kind = FrameCommand::kQuit;
    std::vector<std::uint32_t> kinds;
    if (group.role() == Role::Display) {
        EXPECT_TRUE(BroadcastFrameCommand(group, heartbeat, recorder, 30.0).ok());
        EXPECT_TRUE(BroadcastFrameCommand(group, heartbeat, recorder, 30.0).ok());
        EXPECT_TRUE(
            BroadcastFrameCommand(group, FrameCommand::Render(7, PoseOf(7)), recorder, 30.0).ok());
        EXPECT_TRUE(BroadcastFrameCommand(group, quit, recorder, 30.0).ok());
        return;
    }
    if (group.role() == Role::TerrainServer) {
        FrameCommandPoller poller(group);
        while (kinds.size() < 4) {
            if (auto command = poller.Poll()) kinds.push_back(command->kind);
        }
        EXPECT_FALSE(poller.Poll()) << "nothing after the quit";
    } else {
        for (int k = 0; k < 4; ++k)
            kinds.push_back(ReceiveFrameCommand(group, recorder, 30.0)->kind);
    }
    EXPECT_EQ(kinds, (std::vector<std::uint32_t>{FrameCommand::kHeartbeat, FrameCommand::kHeartbeat,
                                                 FrameCommand::kRender, FrameCommand::kQuit}));
}

// Every rank but the display: says it is ready after `startupS` of start-up, then takes commands
// (each wait limited as a tracer's wait on the display under --stall-timeout `stallTimeoutS`)
// until one that is not a heartbeat. Returns the kinds taken; nothing after a wait that stalled.
std::vector<std::uint32_t> StartAndTakeCommands(const Group& group, double startupS,
                                                double stallTimeoutS) {
    Recorder recorder;
    std::this_thread::sleep_for(std::chrono::duration<double>(startupS));
    NotifyReady(group);
    std::vector<std::uint32_t> kinds;
    double limitS = StallLimitS(stallTimeoutS, Role::RayTracer, Role::Display);
    while (kinds.empty() || kinds.back() == FrameCommand::kHeartbeat) {
        std::optional<FrameCommand> command = ReceiveFrameCommand(group, recorder, limitS);
        if (!command) return {};
        kinds.push_back(command->kind);
    }
    return kinds;
}

// A start-up longer than every stall limit of the frames (a tracer shading a large DEM's pinned
// levels) is not a stall: the display waits for every rank's word that it is ready, and its
// heartbeats meanwhile keep the ranks already waiting for frame 0 from naming it.
TEST(RankProtocol, AStartUpLongerThanTheStallLimitsIsNoStall) {
    const Group& group = World();
    const double stallTimeoutS = 1.0, slowStartupS = 3.0;  // > 2.5 x the limit, < 6 x
    ASSERT_GT(slowStartupS, StallLimitS(stallTimeoutS, Role::RayTracer, Role::Display));
    ASSERT_LT(slowStartupS, StartupLimitS(stallTimeoutS));
    if (group.role() == Role::Display) {
        Recorder recorder;
        EXPECT_TRUE(AwaitReady(group, recorder, stallTimeoutS, stallTimeoutS / 4.0).ok());
        FrameCommand quit;
        quit.kind = FrameCommand::kQuit;
        EXPECT_TRUE(BroadcastFrameCommand(group, quit, recorder, stallTimeoutS).ok());
        return;
    }
    double startupS = group.rank == group.tracerRank(0) ? slowStartupS : 0.0;
    std::vector<std::uint32_t> kinds = StartAndTakeCommands(group, startupS, stallTimeoutS);
    ASSERT_GE(kinds.size(), 2u) << "heartbeats came during the slow start-up";
    EXPECT_EQ(kinds.back(), FrameCommand::kQuit);
}

// A rank whose start-up outlasts StartupLimitS is named: its role and rank, and what the display
// waited for.
TEST(RankProtocol, AStartUpPastItsLimitNamesTheRank) {
    const Group& group = World();
    const double stallTimeoutS = 0.5;
    const double slowStartupS = StartupLimitS(stallTimeoutS) + 1.0;
    const int slow = group.tracerRank(0);
    Recorder recorder;
    if (group.role() == Role::Display) {
        Expected<void> ready = AwaitReady(group, recorder, stallTimeoutS, stallTimeoutS / 4.0);
        ASSERT_FALSE(ready.ok());
        EXPECT_NE(ready.error().message.find("stalled: ray tracer rank " + std::to_string(slow) +
                                             " on host "),
                  std::string::npos)
            << ready.error().message;
        EXPECT_NE(ready.error().message.find("no word that its start-up finished"),
                  std::string::npos)
            << ready.error().message;
        FrameCommand quit;
        quit.kind = FrameCommand::kQuit;
        EXPECT_TRUE(BroadcastFrameCommand(group, quit, recorder, 30.0).ok());
        // The late word, taken so that no later test's wait finds it.
        BFV_MPI_CHECK(
            MPI_Recv(nullptr, 0, MPI_BYTE, slow, tags::kReady, group.comm, MPI_STATUS_IGNORE));
        return;
    }
    std::vector<std::uint32_t> kinds =
        StartAndTakeCommands(group, group.rank == slow ? slowStartupS : 0.0, 30.0);
    ASSERT_FALSE(kinds.empty());
    EXPECT_EQ(kinds.back(), FrameCommand::kQuit);
}

// An interrupt one rank received reaches the display, once.
TEST(RankProtocol, AnInterruptNoticeReachesTheDisplay) {
    const Group& group = World();
    if (group.rank == group.tracerRank(0)) NotifyInterrupted(group, 15);
    BFV_MPI_CHECK(MPI_Barrier(group.comm));
    if (group.role() != Role::Display) return;
    int signal = 0;
    while (signal == 0) signal = PollInterrupted(group);
    EXPECT_EQ(signal, 15);
    EXPECT_EQ(PollInterrupted(group), 0) << "the notice is taken once";
}

}  // namespace
}  // namespace bfv::common
