// The schedule simulator against the analytic predictor where the model is exact (one binding
// resource, nothing shared), and against hand-worked rates where the two part: overlapped
// message set-ups at the display, a tracer host's shared NIC, a shared switch.

#include "predict/simulate.h"

#include <gtest/gtest.h>

#include "tests/predict/cluster_fixture.h"

namespace bfv::predict {
namespace {

using test_support::App, test_support::Cluster, test_support::Link;

std::map<std::string, LinkProfile> Links() {
    return {{"shm", Link("shm", 0.0, 1e12, 0.01)},
            {"fast", Link("fast", 1e-5, 1e9, 0.01)},
            {"slow", Link("slow", 1e-3, 1e6, 0.01)},
            {"laggy", Link("laggy", 1e-2, 1e6, 0.01)}};
}

// columnsPerMessage columns a message, on the 1000x100 screen.
ClusterRun RunOf(int n, int columnsPerMessage) { return {1000, 100, columnsPerMessage, n}; }

double AnalyticFps(const MeasuredApp& app, const Machine& m, const ClusterRun& run) {
    auto p = PredictCluster(app, m, Links(), run);
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p ? p->prediction.fps : 0.0;
}

TEST(Simulate, TraceBoundRunMatchesTheAnalyticRate) {
    // 4 tracers on their own hosts, fast links: each traces 0.5 / 4 s a frame, 8 FPS.
    Machine m = Cluster(8, 1, {"fast"});
    MeasuredApp app = App(0.5);
    ClusterRun run = RunOf(6, 50);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(sim->fps, AnalyticFps(app, m, run), 0.01 * sim->fps);
    EXPECT_NEAR(sim->fps, 8.0, 0.1);
    EXPECT_EQ(sim->busiest, "tracer 1");
    EXPECT_NEAR(sim->busiestFraction, 1.0, 0.02);
}

TEST(Simulate, OneTracerOnASlowLinkMatchesEq18) {
    // One tracer, 10 messages of 100 columns (30000 B + a 44 B header) a frame at 1 MB/s and
    // 1 ms a message: eq. 18 gives 10 x 1 ms + 300 kB / 1 MB/s = 0.31 s a frame. The tracer's 0.05
    // s trace and the display's work overlap the transfer.
    Machine m = Cluster(3, 1, {"slow"});
    MeasuredApp app = App(0.05);
    ClusterRun run = RunOf(3, 100);
    double analytic = AnalyticFps(app, m, run);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(analytic, 1.0 / 0.31044, 0.05);
    EXPECT_NEAR(sim->fps, analytic, 0.01 * analytic);
    EXPECT_EQ(sim->busiest, "nic0 (slow)");
}

TEST(Simulate, ConcurrentSendersOverlapTheirMessageSetups) {
    // 10 tracers, 100 messages a frame over one display NIC with 10 ms a message: eq. 18
    // charges the set-ups in turn, 100 x 10 ms + 0.3 s = 1.3 s a frame. In the simulation the
    // ten streams wait out their set-ups side by side: each sends 10 messages of 3000 B at a
    // tenth of 1 MB/s, (10 ms + 30 ms) each, 0.4 s a frame. Eq. 19 counts a set-up as CPU, so
    // each tracer's columns take 0.1 s of the display's CPU: 10 receive threads on 10 cores.
    Machine m = Cluster(12, 1, {"laggy"});
    m.hosts[11].cores = 10;
    m.displayReceiveThreads = 10;
    MeasuredApp app = App(0.05);
    ClusterRun run = RunOf(12, 10);
    double analytic = AnalyticFps(app, m, run);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(analytic, 1.0 / 1.3, 0.01);
    EXPECT_NEAR(sim->fps, 1.0 / 0.4, 0.08);
}

TEST(Simulate, TracersOnOneHostShareItsNic) {
    // Server and 4 tracers fill a 5-core host whose NIC moves 1 MB/s; the display is on a host
    // of its own with a fast NIC. The analytic model charges only the display's NIC (fast) and
    // the tracers' CPU (0.05 / 4 s); the simulation finds the tracers' host NIC: 300 kB a frame
    // at 1 MB/s, 3.3 FPS.
    Machine m = Cluster(2, 5, {"slow"});
    m.hosts[1].nics = {"fast"};
    MeasuredApp app = App(0.05);
    ClusterRun run = RunOf(6, 50);
    EXPECT_GT(AnalyticFps(app, m, run), 20.0);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(sim->fps, 1.0 / 0.3, 0.1);
}

TEST(Simulate, ASharedSwitchBindsLikeALink) {
    // Fast NICs everywhere, but every remote transfer crosses a 2 MB/s backplane: 6.7 FPS.
    Machine m = Cluster(8, 1, {"fast"});
    m.switchBytesPerS = 2e6;
    MeasuredApp app = App(0.05);
    ClusterRun run = RunOf(6, 50);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(sim->fps, 2e6 / 300000.0, 0.2);
    EXPECT_EQ(sim->busiest, "switch");
}

TEST(Simulate, AHostsCapacityBoundsItsRanksTogether) {
    // Server and 2 tracers on a 3-core host that does 1.5 cores' work (SMT); the display alone.
    // Each tracer alone would trace its 0.1 s a frame at one core's speed (10 FPS), but the two
    // need 0.2 CPU seconds a frame of 1.5 cores: 7.5 FPS, as the analytic host term says.
    Machine m = Cluster(2, 3, {"fast"});
    m.hosts[0].capacityCores = 1.5;
    m.hosts[1].cores = 1;
    MeasuredApp app = App(0.2);
    ClusterRun run = RunOf(4, 50);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(sim->fps, 7.5, 0.15);
    EXPECT_NEAR(sim->fps, AnalyticFps(app, m, run), 0.02 * sim->fps);
    EXPECT_EQ(sim->busiest, "host 0 cpu") << sim->busiestFraction << " fps " << sim->fps;
}

TEST(Simulate, AHostsCpuQuotaBoundsItsRanksWithItsHolds) {
    // Server and 2 tracers on a 3-core host under a quota of 1.5 cores, period 0.1 s: as the
    // 1.5-core host above, 0.2 CPU seconds a frame at 7.5 FPS, and the quota's holds on top
    // (share 0.5: a frame loses up to 0.25 x 0.05 s): the analytic host quota term's rate.
    Machine m = Cluster(2, 3, {"fast"});
    m.hosts[0].cpuQuotaCores = 1.5;
    m.hosts[1].cores = 1;
    MeasuredApp app = App(0.2);
    ClusterRun run = RunOf(4, 50);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    auto p = PredictCluster(app, m, Links(), run);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->prediction.binding, Term::HostQuota);
    EXPECT_LT(sim->fps, 7.5 * 0.99);
    EXPECT_NEAR(sim->fps, p->prediction.fps, 0.03 * sim->fps);
    EXPECT_EQ(sim->busiest, "host 0 cpu") << sim->busiestFraction << " fps " << sim->fps;
}

TEST(Simulate, TheTileStreamAndTheServersWorkTakeTheirHostsCpu) {
    // The same 1.5-core host: each tracer also decodes 0.05 s of streamed tiles a frame and the
    // terrain server works 0.1 s: (2 x 0.15 + 0.1) CPU seconds of 1.5 cores, 3.75 FPS.
    Machine m = Cluster(2, 3, {"fast"});
    m.hosts[0].capacityCores = 1.5;
    m.hosts[1].cores = 1;
    MeasuredApp app = App(0.2);
    app.app.tileReceive = {"tile receive", 0.05, 1.0, 0.0, 0.0};
    app.app.terrainServer.rtexS = 0.1;
    app.app.terrainServer.cpuFraction = 1.0;
    ClusterRun run = RunOf(4, 50);
    auto sim = SimulateCluster(app, m, Links(), run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    EXPECT_NEAR(sim->fps, 3.75, 0.08);
    EXPECT_NEAR(sim->fps, AnalyticFps(app, m, run), 0.02 * sim->fps);
    EXPECT_EQ(sim->busiest, "host 0 cpu");
    // On hosts of their own each tracer's 0.05 + 0.1 s binds: 6.67 FPS.
    Machine own = Cluster(8, 1, {"fast"});
    auto alone = SimulateCluster(app, own, Links(), run, {});
    ASSERT_TRUE(alone.ok()) << alone.error().message;
    EXPECT_NEAR(alone->fps, 1.0 / 0.15, 0.1);
    EXPECT_NEAR(alone->fps, AnalyticFps(app, own, run), 0.02 * alone->fps);
}

TEST(Simulate, WaitingRanksTakeTheirShareOfTheHost) {
    // One 2-core host, N = 6, waits that take 10% of a core (the terrain server's half of
    // that). The analytic model charges every rank's whole idle time (2 T = 0.51 + 0.1 x
    // (6 T - 0.51) - 0.05 T: 3.16 FPS), an upper bound on a
    // saturated host, where the tracers wait for a core rather than for a message. In the
    // simulation only actors waiting for a message poll: the server all the time and the receive
    // thread most of it (at most about 0.2 cores: 1.8 / 0.51 = 3.5 FPS), the tracers briefly.
    auto links = Links();
    links["shm"].waitCost = {{1e-3, 0.1}};
    Machine m = Cluster(1, 2, {});
    ClusterRun run = RunOf(6, 50);
    auto sim = SimulateCluster(App(0.5), m, links, run, {});
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    auto free = SimulateCluster(App(0.5), m, Links(), run, {});
    ASSERT_TRUE(free.ok()) << free.error().message;
    EXPECT_NEAR(free->fps, 2.0 / 0.51, 0.05);
    EXPECT_LT(sim->fps, 0.99 * free->fps);
    EXPECT_GT(sim->fps, 1.8 / 0.51 - 0.05);
    auto model = PredictCluster(App(0.5), m, links, run);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_NEAR(model->prediction.fps, 1.45 / 0.459, 0.05);
    EXPECT_GT(sim->fps, model->prediction.fps) << "the model charges every rank's idle time";
}

// The 2-core host at N = 5 of ModelCluster's turns test (three tracers of 0.5 / 3 s, the
// display's 0.01 s): SimGrid shares the cores smoothly, (0.5 + 0.01) / 2 s a frame, 3.92 FPS;
// with the scheduler's tick measured (longer than a frame) the cores take the tracers in turns,
// two on one core: 1 / 3 s a frame, 3.0 FPS, the display working on the other core while it has
// no tracer (the model charges half the display's work to each core, 1 / 3 + 0.005 s: 2.96 FPS).
// A host with a core for every rank is not crowded: the tick changes nothing.
TEST(Simulate, TracersThatOutnumberTheCoresTakeTurnsAsTheModelSays) {
    auto links = Links();
    Machine host = Cluster(1, 2, {});
    ClusterRun run = RunOf(5, 50);
    auto smooth = SimulateCluster(App(0.5), host, links, run, {});
    ASSERT_TRUE(smooth.ok()) << smooth.error().message;
    EXPECT_NEAR(smooth->fps, 2.0 / 0.51, 0.05);
    links["shm"].schedulerTickS = 10.0;
    auto turns = SimulateCluster(App(0.5), host, links, run, {});
    ASSERT_TRUE(turns.ok()) << turns.error().message;
    EXPECT_NEAR(turns->fps, 3.0, 0.03);
    auto model = PredictCluster(App(0.5), host, links, run);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_NEAR(turns->fps, model->prediction.fps, 0.02 * turns->fps);
    auto roomy = SimulateCluster(App(0.5), Cluster(1, 5, {}), links, run, {});
    ASSERT_TRUE(roomy.ok()) << roomy.error().message;
    EXPECT_NEAR(roomy->fps, 6.0, 0.06);
}

// The same host with a tick shorter than a tracer's frame (10 ms against 167 ms): after each
// tick a tracer that another waits for moves to a free core if there is one, so the frames
// spread over both cores nearly as smooth sharing does, (0.5 + 0.01) / 2 s a frame: 3.92 FPS. A
// tracer whose core has no one waiting keeps it: with two tracers on two cores (N = 4) each
// runs on its own, 0.25 s a frame, 4 FPS less the display's share.
TEST(Simulate, TracersLongerThanATickSpreadOverTheCores) {
    auto links = Links();
    links["shm"].schedulerTickS = 0.01;
    Machine host = Cluster(1, 2, {});
    auto spread = SimulateCluster(App(0.5), host, links, RunOf(5, 50), {});
    ASSERT_TRUE(spread.ok()) << spread.error().message;
    EXPECT_NEAR(spread->fps, 2.0 / 0.51, 0.12);
    auto model = PredictCluster(App(0.5), host, links, RunOf(5, 50));
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_NEAR(spread->fps, model->prediction.fps, 0.05 * spread->fps);
    auto two = SimulateCluster(App(0.5), host, links, RunOf(4, 50), {});
    ASSERT_TRUE(two.ok()) << two.error().message;
    EXPECT_NEAR(two->fps, 2.0 / 0.51, 0.12);
}

// On a crowded host the waits cost what the profile measured with the host's cores busy: busy
// waits that cost nothing leave the rate of free waits.
TEST(Simulate, WaitsOnACrowdedHostCostTheirBusyHostShare) {
    auto links = Links();
    links["shm"].waitCost = {{1e-3, 0.1}};
    links["shm"].waitCostBusy = {{1e-3, 0.0}};
    auto busy = SimulateCluster(App(0.5), Cluster(1, 2, {}), links, RunOf(6, 50), {});
    ASSERT_TRUE(busy.ok()) << busy.error().message;
    EXPECT_NEAR(busy->fps, 2.0 / 0.51, 0.05);
}

TEST(Simulate, RepeatedSimulationsAgree) {
    Machine m = Cluster(8, 1, {"fast"});
    auto first = SimulateCluster(App(0.5), m, Links(), RunOf(5, 50), {});
    auto second = SimulateCluster(App(0.5), m, Links(), RunOf(5, 50), {});
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_DOUBLE_EQ(first->fps, second->fps);
}

TEST(Simulate, BadOptionsAndRunsAreRefusedByName) {
    Machine m = Cluster(8, 1, {"fast"});
    auto tooFew = SimulateCluster(App(0.5), m, Links(), RunOf(5, 50), {1, 0});
    ASSERT_FALSE(tooFew.ok());
    EXPECT_NE(tooFew.error().message.find("frames"), std::string::npos) << tooFew.error().message;
    auto warmup = SimulateCluster(App(0.5), m, Links(), RunOf(5, 50), {20, 20});
    ASSERT_FALSE(warmup.ok());
    EXPECT_NE(warmup.error().message.find("warm-up"), std::string::npos);
    auto n = SimulateCluster(App(0.5), m, Links(), RunOf(2, 50), {});
    ASSERT_FALSE(n.ok());
    EXPECT_NE(n.error().message.find("N must be at least 3"), std::string::npos);
}

}  // namespace
}  // namespace bfv::predict
