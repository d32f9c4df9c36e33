// The cluster predictor against hand-worked cases: every number below is computed in the
// comment next to it from the inputs, not by calling the code under test.

#include "predict/model_cluster.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/predict/cluster_fixture.h"

namespace bfv::predict {
namespace {

using test_support::App, test_support::Cluster, test_support::Link;

std::map<std::string, LinkProfile> Links() {
    return {{"shm", Link("shm", 0.0, 1e12, 0.01)},
            {"slow", Link("slow", 0.0, 1e6, 0.5)},
            {"slow2", Link("slow2", 0.0, 1e6, 0.5)}};
}

ClusterRun RunOf(int n) { return {1000, 100, 1000, n}; }  // one message per tracer share

TEST(ModelCluster, TracersBindWhenLinksAreFast) {
    // 8 one-core hosts on an (almost) free link: N = 6 has 4 tracers, 0.5 / 4 = 0.125 s each.
    Machine m = Cluster(8, 1, {"shm"});
    auto p = PredictCluster(App(), m, Links(), RunOf(6));
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_NEAR(p->prediction.fps, 8.0, 0.01);
    EXPECT_EQ(p->prediction.binding, Term::RayTrace);
    EXPECT_NEAR(p->sequentialFps, 1.0 / 0.51, 1e-6);
}

TEST(ModelCluster, DisplayLinkSetsThePlateau) {
    // Screen 1000x100x3 B + 44 B per message; at 1 MB/s the link needs ~0.3 s per frame, which
    // overlaps the display's own 0.01 s (+ ~0.15 s of receive CPU at CPU% 0.5): ~3.3 FPS
    // whatever N, once tracers are faster than that.
    Machine m = Cluster(32, 1, {"slow"});
    auto small = PredictCluster(App(), m, Links(), RunOf(3));
    auto large = PredictCluster(App(), m, Links(), RunOf(20));
    ASSERT_TRUE(small.ok() && large.ok());
    EXPECT_EQ(small->prediction.binding, Term::RayTrace);
    EXPECT_EQ(large->prediction.binding, Term::DisplayReceive);
    double bytes = 300000.0 + 18 * 44.0;
    EXPECT_NEAR(large->prediction.fps, 1.0 / (bytes / 1e6), 0.01);
}

// A codec that halves the columns (and costs no CPU) doubles the link's plateau.
TEST(ModelCluster, CompressedColumnsRaiseTheLinksPlateau) {
    Machine m = Cluster(32, 1, {"slow"});
    MeasuredApp app = App();
    app.codecs = {{common::ColumnCodec::Lz4, 2.0, 0.0, 0.0}};
    ClusterRun run = RunOf(20);
    run.codec = common::ColumnCodec::Lz4;
    auto p = PredictCluster(app, m, Links(), run);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->prediction.binding, Term::DisplayReceive);
    double bytes = 150000.0 + 18 * 44.0;
    EXPECT_NEAR(p->prediction.fps, 1.0 / (bytes / 1e6), 0.01);
}

// The codec's CPU goes to the tracers (compress) and to the display (decompress).
TEST(ModelCluster, CodecCpuCountsOnTracersAndDisplay) {
    Machine m = Cluster(8, 1, {"shm"});
    MeasuredApp app = App();
    app.codecs = {{common::ColumnCodec::Zstd, 4.0, 1e-6, 2e-7}};
    ClusterRun run = RunOf(6);
    run.codec = common::ColumnCodec::Zstd;
    auto p = PredictCluster(app, m, Links(), run);
    ASSERT_TRUE(p.ok()) << p.error().message;
    // Each of 4 tracers traces 0.125 s and compresses 75 kB raw at 1 us/B: 0.075 s more.
    EXPECT_NEAR(p->prediction.SPerFrame(Term::Send), 0.075, 1e-3);
    EXPECT_NEAR(p->prediction.fps, 1.0 / 0.2, 0.05);
    // The display decompresses 300 kB at 0.2 us/B: 0.06 s of its CPU.
    EXPECT_NEAR(p->prediction.SPerFrame(Term::DisplayWork), 0.01 + 0.06, 2e-3);
}

TEST(ModelCluster, ACodecTheProfileDidNotMeasureIsNamed) {
    MeasuredApp app = App();
    app.codecs = {{common::ColumnCodec::Lz4, 2.0, 0.0, 0.0}};
    ClusterRun run = RunOf(6);
    run.codec = common::ColumnCodec::Zstd;
    auto p = PredictCluster(app, Cluster(8, 1, {"shm"}), Links(), run);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("--column-codec zstd"), std::string::npos)
        << p.error().message;
}

TEST(ModelCluster, AStreamMovesAtTheMeasuredStreamRate) {
    // A ping-pong that saw 1 MB/s on a link that streams only 0.5 MB/s (a rate-limited link
    // with a deep buffer): the frame's 300 kB take twice as long as the ping-pong suggests.
    auto links = Links();
    links["slow"].manyToOne = {{1, 1440.0, 0.9e6, 0.1}, {1, 262144.0, 0.5e6, 0.1}};
    Machine m = Cluster(32, 1, {"slow"});
    auto p = PredictCluster(App(), m, links, RunOf(20));
    ASSERT_TRUE(p.ok());
    double bytes = 300000.0 + 18 * 44.0;
    EXPECT_NEAR(p->prediction.SPerFrame(Term::DisplayReceive), bytes / 0.5e6, 1e-3);
}

TEST(ModelCluster, TwoNicsAndTwoReceiveThreadsRaiseThePlateau) {
    Machine one = Cluster(32, 1, {"slow"});
    Machine two = Cluster(32, 1, {"slow", "slow2"});
    two.displayReceiveThreads = 2;
    auto a = PredictCluster(App(), one, Links(), RunOf(20));
    auto b = PredictCluster(App(), two, Links(), RunOf(20));
    ASSERT_TRUE(a.ok() && b.ok());
    // Half the bytes on each NIC: receive 0.1 s + 0.01 s of display work.
    EXPECT_NEAR(b->prediction.fps, 1.0 / (a->prediction.SPerFrame(Term::DisplayReceive) / 2 + 0.01),
                0.05);
    EXPECT_GT(b->prediction.fps, 1.8 * a->prediction.fps);
}

// The display's receive names what binds it: the slower of two NICs (tracer t on NIC t mod K),
// or the one NIC that two receive threads share.
TEST(ModelCluster, TheDisplayReceiveNamesTheNicThatBindsIt) {
    auto links = Links();
    links["slower"] = Link("slower", 0.0, 0.25e6, 0.01);  // little CPU: the link binds
    Machine two = Cluster(8, 1, {"slow", "slower"});
    two.displayReceiveThreads = 2;
    // N = 5: tracers 0 and 2 on nic0 (2/3 of 200 kB at 1 MB/s: 0.13 s), tracer 1 on nic1
    // (1/3 at 0.25 MB/s: 0.27 s).
    auto a = PredictCluster(App(), two, links, RunOf(5));
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a->prediction.binding, Term::DisplayReceive);
    EXPECT_EQ(a->displayReceiveBound, "nic1 (slower)");
    Machine shared = Cluster(8, 1, {"slow"});
    shared.displayReceiveThreads = 2;
    auto b = PredictCluster(App(), shared, links, RunOf(5));
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(b->displayReceiveBound, "nic0 (slow)");
}

TEST(ModelCluster, RanksSharingAHostShareItsCores) {
    // One 2-core host, N = 6: four tracers trace 0.5 s of CPU per frame, the display 0.01 s,
    // sends and receives ~0: the host needs ~0.51 CPU-s per frame from 2 cores: ~3.9 FPS,
    // although each tracer alone could do 8.
    Machine m = Cluster(1, 2, {});
    auto p = PredictCluster(App(), m, Links(), RunOf(6));
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->prediction.binding, Term::HostCpu);
    EXPECT_NEAR(p->prediction.fps, 2.0 / 0.51, 0.05);
}

// The live terrain stream: every tracer decodes and shades the whole stream before it traces,
// and the terrain server's per-frame work takes CPU on its host.
TEST(ModelCluster, EveryTracerReceivesTheTileStreamAndTheServerWorksOnItsHost) {
    MeasuredApp app = App();
    app.app.tileReceive = {"tile receive", 0.025, 1.0, 0.0, 0.0};
    app.app.terrainServer.rtexS = 0.1;
    app.app.terrainServer.cpuFraction = 1.0;
    // 8 one-core hosts, N = 6: each tracer 0.025 s of tiles + 0.125 s of trace = 0.15 s.
    auto own = PredictCluster(app, Cluster(8, 1, {"shm"}), Links(), RunOf(6));
    ASSERT_TRUE(own.ok()) << own.error().message;
    EXPECT_NEAR(own->prediction.fps, 1.0 / 0.15, 0.01);
    EXPECT_EQ(own->prediction.binding, Term::RayTrace);
    EXPECT_NEAR(own->prediction.SPerFrame(Term::TerrainStream), 0.025, 1e-9);
    // The single machine: trace 0.5 + display 0.01 + server 0.1 + tiles once 0.025 = 0.635 s.
    EXPECT_NEAR(own->sequentialFps, 1.0 / 0.635, 1e-6);
    // One 2-core host: 4 x 0.15 + 0.01 (display) + 0.1 (server) = 0.71 CPU-s per frame.
    auto shared = PredictCluster(app, Cluster(1, 2, {}), Links(), RunOf(6));
    ASSERT_TRUE(shared.ok()) << shared.error().message;
    EXPECT_EQ(shared->prediction.binding, Term::HostCpu);
    EXPECT_NEAR(shared->prediction.fps, 2.0 / 0.71, 0.05);
    // Tiles that cost more than the trace name the stream as the tracers' binding term.
    app.app.tileReceive.rtexS = 0.3;
    auto streamBound = PredictCluster(app, Cluster(8, 1, {"shm"}), Links(), RunOf(6));
    ASSERT_TRUE(streamBound.ok());
    EXPECT_EQ(streamBound->prediction.binding, Term::TerrainStream);
    EXPECT_NEAR(streamBound->prediction.fps, 1.0 / 0.425, 0.01);
}

TEST(ModelCluster, WaitingRanksTakeTheMeasuredShareOfTheirIdleTime) {
    // The same host, N = 6, with waits that take 10% of a core whatever their length (the
    // terrain server's half of that, kServerWaitCpuScale, idle all the period): the period T
    // solves 2 T = 0.51 + 0.1 x (6 T - 0.51) - 0.05 T (six ranks, 0.51 s busy together), so
    // T = 0.459 / 1.45 = 0.317 s: 3.16 FPS instead of 3.92.
    ASSERT_DOUBLE_EQ(kServerWaitCpuScale, 0.5);
    auto links = Links();
    links["shm"].waitCost = {{1e-3, 0.1}};
    auto p = PredictCluster(App(), Cluster(1, 2, {}), links, RunOf(6));
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->prediction.binding, Term::HostCpu);
    EXPECT_NEAR(p->prediction.fps, 1.45 / 0.459, 0.03);
    EXPECT_NEAR(p->prediction.SPerFrame(Term::HostCpu), 0.459 / 1.45, 3e-3);
    EXPECT_DOUBLE_EQ(p->ranks.front().waitCpuScale, 0.5);
    // Ranks with a core each: their waits take no one's CPU, the tracers bind as before.
    auto own = PredictCluster(App(), Cluster(8, 1, {"shm"}), links, RunOf(6));
    ASSERT_TRUE(own.ok()) << own.error().message;
    EXPECT_EQ(own->prediction.binding, Term::RayTrace);
    EXPECT_NEAR(own->prediction.fps, 8.0, 0.01);
}

// QuotaHoldS: a wake finds the quota spent by the host's other ranks with probability their
// use x (1 - share) and waits half of the held (1 - share) x period.
TEST(ModelCluster, AQuotaHoldsAWakeForPartOfItsPeriod) {
    ClusterHost pair{"pod", 2, 0.0, 1.0, {}, 1.0, 0.1};    // 2 cores, a quota of 1: share 0.5
    EXPECT_DOUBLE_EQ(QuotaHoldS(pair, 2, 1.0), 0.00625);   // 0.5 x 0.5^2 x 0.1 / 2
    EXPECT_DOUBLE_EQ(QuotaHoldS(pair, 2, 0.5), 0.003125);  // half the quota in use
    EXPECT_DOUBLE_EQ(QuotaHoldS(pair, 2, 3.0), 0.00625);   // a use above 1 counts as 1
    pair.quotaPeriodS = 0.01;
    EXPECT_DOUBLE_EQ(QuotaHoldS(pair, 2, 1.0), 0.000625);
    // 4 cores, 3 of them for busy ranks under a quota of 1.5: share 0.5, the others 2 of 3.
    ClusterHost wide{"pod", 4, 0.0, 1.0, {}, 1.5, 0.1};
    EXPECT_DOUBLE_EQ(QuotaHoldS(wide, 3, 1.0), 2.0 / 3.0 * 0.0125);
    // One busy rank: its own use of the quota is its stretch by 1 / share, nothing more.
    ClusterHost pod{"pod", 1, 0.0, 1.0, {}, 0.5, 0.1};
    EXPECT_DOUBLE_EQ(QuotaHoldS(pod, 1, 1.0), 0.0);
    EXPECT_DOUBLE_EQ(QuotaHoldS(wide, 1, 1.0), 0.0);
    pair.cpuQuotaCores = 0.0;
    EXPECT_DOUBLE_EQ(QuotaHoldS(pair, 2, 1.0), 0.0);  // no quota, no hold
}

// A lone tracer on a host with a quota of half a core: its 0.5 s trace takes a second, the
// quota's rate, and no more (measured: a lone tracer under 0.3 core of an emulated host traced
// at its CPU over 0.3 to within 1%, held in every period); the host's quota binds with it.
TEST(ModelCluster, ALoneTracerUnderAQuotaRunsAtTheQuotasRate) {
    Machine m = Cluster(8, 1, {"shm"});
    m.hosts[1].cpuQuotaCores = 0.5;
    for (double periodS : {0.1, 0.01}) {
        m.hosts[1].quotaPeriodS = periodS;
        auto p = PredictCluster(App(), m, Links(), RunOf(3));
        ASSERT_TRUE(p.ok()) << p.error().message;
        EXPECT_NEAR(p->prediction.SPerFrame(Term::HostQuota), 1.0, 1e-4);
        EXPECT_NEAR(p->prediction.SPerFrame(Term::RayTrace), 1.0, 1e-4);
        EXPECT_NEAR(p->prediction.fps, 1.0, 1e-4);
        EXPECT_EQ(p->prediction.SPerFrame(Term::HostCpu), 0.0);
    }
    // A quota of the host's whole core limits nothing: the trace binds at 2 FPS.
    m.hosts[1].cpuQuotaCores = 1.0;
    auto whole = PredictCluster(App(), m, Links(), RunOf(3));
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->prediction.binding, Term::RayTrace);
    EXPECT_NEAR(whole->prediction.fps, 2.0, 0.01);
}

// Two ranks sharing a host's quota: the server and a tracer on a 2-core host under one core,
// period 0.1 s. The tracer's 0.5 s trace and the server's 0.25 s fit the core's quota in 0.75 s
// of CPU; a wake finds the quota spent by the other rank: T = 0.75 + u x 0.5 x 0.25 x 0.05 with
// u = 0.75 / T, so T^2 - 0.75 T - 0.75 x 0.00625 = 0.
TEST(ModelCluster, RanksSharingAQuotaHoldEachOther) {
    Machine m = Cluster(2, 2, {"shm"});
    m.hosts[0].cpuQuotaCores = 1.0;
    MeasuredApp app = App();
    app.app.terrainServer = {"terrain server", 0.25, 1.0, 0.0, 0.0};
    auto p = PredictCluster(app, m, Links(), RunOf(3));
    ASSERT_TRUE(p.ok()) << p.error().message;
    const double periodT = (0.75 + std::sqrt(0.75 * 0.75 + 4 * 0.75 * 0.00625)) / 2.0;
    EXPECT_EQ(p->prediction.binding, Term::HostQuota);
    EXPECT_NEAR(p->prediction.SPerFrame(Term::HostQuota), periodT, 1e-4);
}

// A tracer under a quota of half a core traces at half speed: the dynamic split gives it a third
// of the screen and the other tracer two thirds, so both take 1/3 s of wall (0.5 s x 1/3 of CPU
// at half a core, 0.5 s x 2/3 at a whole one); contiguous halves take 0.5 s on the quota's host.
TEST(ModelCluster, AQuotaStretchesItsTracersTraceAndTheDynamicSplitFollows) {
    Machine m = Cluster(8, 1, {"shm"});
    m.hosts[1].cpuQuotaCores = 0.5;
    ClusterRun run = RunOf(4);
    auto halves = PredictCluster(App(), m, Links(), run);
    run.decomposition = common::Decomposition::Dynamic;
    auto balanced = PredictCluster(App(), m, Links(), run);
    ASSERT_TRUE(halves.ok() && balanced.ok());
    EXPECT_NEAR(halves->prediction.SPerFrame(Term::RayTrace), 0.5, 1e-3);
    EXPECT_NEAR(balanced->prediction.SPerFrame(Term::RayTrace), 1.0 / 3.0, 1e-3);
    EXPECT_NEAR(balanced->ranks[1].cpuSPerFrame, 0.5 / 3.0, 1e-3);  // CPU is not stretched
    ASSERT_EQ(balanced->slices.size(), 2u);  // a third and two thirds of the 1000 columns
    EXPECT_NEAR(balanced->slices[0].columns, 333, 1);
    EXPECT_NEAR(balanced->slices[1].columns, 667, 1);
    EXPECT_NEAR(balanced->slices[0].traceS, 1.0 / 3.0, 1e-3);
    EXPECT_EQ(halves->slices[0].columns, 500);
}

// Tiles of 0.05 s of CPU a frame, on a tracer under half a core and one on a whole core: 0.1 s
// and 0.05 s. The dynamic split balances tiles and trace together (water filling): level
// (1 + 0.1 x 1 + 0.05 x 2) / (1 + 2) = 0.4 s of work each, trace shares 0.3 (0.3 s at half a
// core) and 0.7 (0.35 s); balancing the trace alone (a third each) left the quota's tracer 0.433 s.
TEST(ModelCluster, TheDynamicSplitBalancesEachTracersTilesAndTraceTogether) {
    Machine m = Cluster(8, 1, {"shm"});
    m.hosts[1].cpuQuotaCores = 0.5;
    MeasuredApp app = App();
    app.app.tileReceive = {"tile receive", 0.05, 1.0, 0.0, 0.0};
    ClusterRun run = RunOf(4);
    run.decomposition = common::Decomposition::Dynamic;
    auto p = PredictCluster(app, m, Links(), run);
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_EQ(p->slices.size(), 2u);
    EXPECT_NEAR(p->slices[0].columns, 300, 1);
    EXPECT_NEAR(p->slices[1].columns, 700, 1);
    EXPECT_NEAR(p->slices[0].traceS, 0.3, 2e-3);
    EXPECT_NEAR(p->slices[1].traceS, 0.35, 2e-3);
    EXPECT_NEAR(p->prediction.SPerFrame(Term::TerrainStream), 0.1, 1e-9);
    EXPECT_NEAR(p->ranks[1].wallSPerFrame, 0.4, 0.01);
    EXPECT_NEAR(p->ranks[2].wallSPerFrame, 0.4, 0.01);
}

// A display receive thread waits once per tracer it serves (a tracer's columns come in one
// burst), however many messages they make; a second receive thread waits as well.
TEST(ModelCluster, TheDisplaysReceiveThreadsWaitOncePerTracer) {
    auto links = Links();
    links["shm"].waitCost = {{1e-4, 0.3}, {1e-1, 0.01}};
    Machine host = Cluster(1, 2, {});
    ClusterRun few = RunOf(6);  // 4 tracers, 4 messages a frame
    ClusterRun many = RunOf(6);
    many.columnsPerMessage = 10;  // 100 messages a frame
    auto a = PredictCluster(App(), host, links, few);
    auto b = PredictCluster(App(), host, links, many);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->ranks.back().role, common::Role::Display);
    EXPECT_DOUBLE_EQ(a->ranks.back().waitsPerFrame, 4.0);
    EXPECT_DOUBLE_EQ(b->ranks.back().waitsPerFrame, 4.0);
    EXPECT_NEAR(b->prediction.fps, a->prediction.fps, 0.01 * a->prediction.fps);
    auto two = PredictCluster(App(), host, links, RunOf(4));
    ASSERT_TRUE(two.ok());
    EXPECT_DOUBLE_EQ(two->ranks.back().waitsPerFrame, 2.0);
    host.displayReceiveThreads = 2;
    auto c = PredictCluster(App(), host, links, few);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->ranks.back().waitingThreads, 2);
    EXPECT_DOUBLE_EQ(c->ranks.back().waitsPerFrame, 2.0);
}

// Ranks of 1, 3, 2 and 2 ms on 2 cores, the longest first, each on the least loaded core (the
// lower on a tie): rank 1 on core 0 (3 ms), rank 2 on core 1 (2), rank 3 on core 1 (4), rank 0
// on core 0 (4). Equal ranks keep their order.
TEST(ModelCluster, WholeRanksGoLongestFirstToTheLeastLoadedCore) {
    CorePlacement placed = PlaceOnCores({1.0, 3.0, 2.0, 2.0}, 2);
    EXPECT_EQ(placed.order, (std::vector<int>{1, 2, 3, 0}));
    EXPECT_EQ(placed.coreOf, (std::vector<int>{0, 0, 1, 1}));
    EXPECT_EQ(placed.placedS, (std::vector<double>{4.0, 4.0}));
    // More cores than ranks: one each, the rest idle.
    EXPECT_EQ(PlaceOnCores({1.0, 2.0}, 3).coreOf, (std::vector<int>{1, 0}));
    EXPECT_EQ(PlaceOnCores({1.0, 2.0}, 3).placedS, (std::vector<double>{2.0, 1.0, 0.0}));
}

// Three ranks of 1 ms on 2 cores of a 4 ms tick: ranks 0 and 2 on core A, rank 1 on core B.
// For the 12 of the 16 tick phases that fall after 1 ms, rank 2 starts when rank 0 ends: 2 ms.
// For a first tick at p < 1 ms (0.125, 0.375, 0.625, 0.875 ms), rank 0 yields to rank 2 at p
// and core B, free at 1 ms, takes rank 0's rest: max(1 + p, 2 - p) = 1.875, 1.625, 1.625,
// 1.875 ms. The mean: (7 + 24) / 16 = 1.9375 ms, where smooth sharing says 1.5.
TEST(ModelCluster, CrowdedRanksShorterThanATickTakeTurns) {
    EXPECT_NEAR(CrowdedMakespanS({1e-3, 1e-3, 1e-3}, 0.0, 2, 2.0, 4e-3), 31.0 / 16 * 1e-3, 1e-12);
    // A tick longer than the frame: whole turns.
    EXPECT_NEAR(CrowdedMakespanS({1e-3, 1e-3, 1e-3}, 0.0, 2, 2.0, 0.1), 2e-3, 1e-12);
    // The display's and the server's 0.4 ms land on both cores alike: the core with two
    // tracers gets 0.2 ms more.
    EXPECT_NEAR(CrowdedMakespanS({1e-3, 1e-3, 1e-3}, 0.4e-3, 2, 2.0, 0.1), 2.2e-3, 1e-12);
    // Two cores that do one core's work between them run at half speed while both are busy:
    // ranks 0 and 1 take 2 ms, then rank 2 alone 1 ms.
    EXPECT_NEAR(CrowdedMakespanS({1e-3, 1e-3, 1e-3}, 0.0, 2, 1.0, 0.1), 3e-3, 1e-12);
    // Frames of many ticks are shared almost smoothly: 3 x 40 ms on 2 cores, within a tick of
    // 60 ms.
    double longS = CrowdedMakespanS({40e-3, 40e-3, 40e-3}, 0.0, 2, 2.0, 1e-3);
    EXPECT_GE(longS, 60e-3 - 1e-12);
    EXPECT_LE(longS, 61e-3);
    // No tick measured: no turns to take.
    EXPECT_EQ(CrowdedMakespanS({1e-3, 1e-3, 1e-3}, 0.0, 2, 2.0, 0.0), 0.0);
}

// The 2-core host at N = 5 (three tracers of 0.5 / 3 s, the display's 0.01 s): with the
// scheduler's tick measured (longer than a frame), the tracers take turns, two on one core
// with half the display's work: 1 / 3 + 0.005 s a frame, 2.96 FPS, where smooth sharing says
// (0.5 + 0.01) / 2 s, 3.92 FPS.
TEST(ModelCluster, TracersThatOutnumberTheCoresTakeTurnsWhereTheTickIsMeasured) {
    auto links = Links();
    Machine host = Cluster(1, 2, {});
    auto smooth = PredictCluster(App(), host, links, RunOf(5));
    ASSERT_TRUE(smooth.ok()) << smooth.error().message;
    EXPECT_NEAR(smooth->prediction.fps, 2.0 / 0.51, 0.02);
    links["shm"].schedulerTickS = 10.0;
    auto turns = PredictCluster(App(), host, links, RunOf(5));
    ASSERT_TRUE(turns.ok()) << turns.error().message;
    EXPECT_EQ(turns->prediction.binding, Term::HostCpu);
    EXPECT_NEAR(turns->prediction.fps, 1.0 / (1.0 / 3 + 0.005), 0.02);
    // A host with a core for every rank is not crowded: the tick changes nothing.
    auto roomy = PredictCluster(App(), Cluster(1, 5, {}), links, RunOf(5));
    ASSERT_TRUE(roomy.ok()) << roomy.error().message;
    EXPECT_NEAR(roomy->prediction.fps, 6.0, 0.02);
}

// On a crowded host the waits cost what the profile measured with the host's cores busy.
TEST(ModelCluster, WaitsOnACrowdedHostCostTheirBusyHostShare) {
    auto links = Links();
    links["shm"].waitCost = {{1e-3, 0.1}};
    Machine host = Cluster(1, 2, {});
    auto idle = PredictCluster(App(), host, links, RunOf(6));
    links["shm"].waitCostBusy = {{1e-3, 0.0}};
    auto busy = PredictCluster(App(), host, links, RunOf(6));
    ASSERT_TRUE(idle.ok() && busy.ok());
    EXPECT_NEAR(idle->prediction.fps, 1.45 / 0.459, 0.03);
    EXPECT_NEAR(busy->prediction.fps, 2.0 / 0.51, 0.02) << "busy waits that cost nothing";
}

TEST(ModelCluster, SharedHardwareCapacityLimitsTheHost) {
    // The same host whose two cores together do the work of 1.2: 0.51 CPU-s per frame / 1.2.
    Machine m = Cluster(1, 2, {});
    m.hosts[0].capacityCores = 1.2;
    auto p = PredictCluster(App(), m, Links(), RunOf(6));
    ASSERT_TRUE(p.ok());
    EXPECT_NEAR(p->prediction.fps, 1.2 / 0.51, 0.05);
    m.hosts[0].capacityCores = 3.0;
    EXPECT_NE(PredictCluster(App(), m, Links(), RunOf(6)).error().message.find("capacityCores"),
              std::string::npos);
}

TEST(ModelCluster, AFasterCpuShortensTheTraceByEquation7) {
    // Trace CPU% 0.5, CPU twice as fast: RTEX x (0.5 / 2 + 0.5) = 0.75 (the paper's "25%").
    MeasuredApp app = App();
    app.app.rayTrace.cpuFraction = 0.5;
    Machine slow = Cluster(8, 1, {"shm"}), fast = Cluster(8, 1, {"shm"});
    for (auto& h : fast.hosts) h.cpuSpeed = 2.0;
    auto a = PredictCluster(app, slow, Links(), RunOf(4));
    auto b = PredictCluster(app, fast, Links(), RunOf(4));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NEAR(b->prediction.SPerFrame(Term::RayTrace) / a->prediction.SPerFrame(Term::RayTrace),
                0.75, 1e-9);
}

TEST(ModelCluster, MeasuredColumnCostsSetEachSlicesLoad) {
    // The left half of the screen costs 3/4 of the trace: with two contiguous slices the left
    // tracer traces 0.5 s * 0.75 per frame (2.67 FPS); interleaved columns share it evenly.
    MeasuredApp app = App();
    app.columnCostShares = {0.375, 0.375, 0.125, 0.125};
    Machine m = Cluster(8, 1, {"shm"});
    auto contiguous = PredictCluster(app, m, Links(), RunOf(4));
    ClusterRun interleaved = RunOf(4);
    interleaved.decomposition = common::Decomposition::Interleaved;
    auto even = PredictCluster(app, m, Links(), interleaved);
    ASSERT_TRUE(contiguous.ok() && even.ok());
    EXPECT_NEAR(contiguous->prediction.SPerFrame(Term::RayTrace), 0.375, 1e-9);
    EXPECT_NEAR(even->prediction.SPerFrame(Term::RayTrace), 0.25, 1e-9);
}

// The dynamic split balances the same screen: each of the two tracers traces half of it (0.25
// s), its slice ending where the measured cost reaches one half (column 333 of 1000: 0.375 per
// quarter-strip, 0.5 at 1/3 of the screen).
TEST(ModelCluster, DynamicSplitBalancesMeasuredColumnCosts) {
    MeasuredApp app = App();
    app.columnCostShares = {0.375, 0.375, 0.125, 0.125};
    ClusterRun run = RunOf(4);
    run.decomposition = common::Decomposition::Dynamic;
    run.columnsPerMessage = 100;
    auto p = PredictCluster(app, Cluster(8, 1, {"shm"}), Links(), run);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_NEAR(p->prediction.SPerFrame(Term::RayTrace), 0.25, 1e-9);
    EXPECT_EQ(p->prediction.binding, Term::RayTrace);
    // Tracer 1 gets columns 0..332 (4 messages of 100 columns), tracer 2 the other 667 (7
    // messages): tracer 2 sends twice the bytes, so its budget is the longer.
    EXPECT_GT(p->ranks[2].wallSPerFrame, p->ranks[1].wallSPerFrame);
}

// Hosts of speeds 1 and 3 (trace all CPU): the dynamic split gives the fast host 3/4 of the
// trace, so both take 0.5 s * 1/4 = 0.125 s; contiguous halves leave the slow host 0.25 s.
TEST(ModelCluster, DynamicSplitEqualisesTimeOnHostsOfDifferentSpeeds) {
    Machine m = Cluster(4, 1, {"shm"});
    m.hosts[2].cpuSpeed = 3.0;  // rank 2: the second tracer
    ClusterRun run = RunOf(4);
    auto contiguous = PredictCluster(App(), m, Links(), run);
    run.decomposition = common::Decomposition::Dynamic;
    auto dynamic = PredictCluster(App(), m, Links(), run);
    ASSERT_TRUE(contiguous.ok() && dynamic.ok());
    EXPECT_NEAR(contiguous->prediction.SPerFrame(Term::RayTrace), 0.25, 1e-9);
    EXPECT_NEAR(dynamic->prediction.SPerFrame(Term::RayTrace), 0.125, 1e-9);
    EXPECT_GT(dynamic->prediction.fps, 1.9 * contiguous->prediction.fps);
    // Equal speeds: 1/T each, as interleaved on uniform costs.
    m.hosts[2].cpuSpeed = 1.0;
    auto even = PredictCluster(App(), m, Links(), run);
    ASSERT_TRUE(even.ok());
    EXPECT_NEAR(even->prediction.SPerFrame(Term::RayTrace), 0.25, 1e-9);
}

// At pitch 0 the fan's planes are the screen's columns: a tracer casts its own columns and,
// with anti-aliasing, the neighbouring columns it reads (4 x 2 screen, 2 pixels a column).
TEST(ModelCluster, CastWorkCountsTheColumnsATracerCastsAtPitchZero) {
    const common::FanLayout fan = common::BuildFanLayout({4, 2, 1.0}, 0.0);
    ASSERT_EQ(fan.PlaneCount(), 4);
    auto expect = [&](const common::ColumnSet& columns, bool antialias, double perPixel) {
        const CastWork work = CastWorkCounter(fan).Of(columns, antialias);
        EXPECT_DOUBLE_EQ(work.marchPerPixel, perPixel) << columns.first << "/" << columns.stride;
        EXPECT_DOUBLE_EQ(work.shadedPerPixel, perPixel) << columns.first << "/" << columns.stride;
    };
    expect({0, 1, 4}, false, 1.0);
    expect({0, 1, 4}, true, 1.0);
    expect({0, 2, 2}, false, 1.0);
    // Interleaved halves: the other half's two columns (4 pixels) as well as its own 4.
    expect({0, 2, 2}, true, 2.0);
    expect({1, 2, 2}, true, 2.0);
    // Contiguous halves: one neighbouring column (2 pixels) besides its own 4.
    expect({0, 1, 2}, true, 1.5);
    expect({2, 1, 2}, true, 1.5);
}

// Looking 30 degrees down, a plane's screen line leans toward the nadir's image: the whole
// screen still casts each pixel once, a slice marches the part of a plane across its edge
// that lies in it, and interleaved columns make each tracer march nearly every plane from end
// to end, though it shades only its own pixels (and, with anti-aliasing, its neighbours').
TEST(ModelCluster, CastWorkUnderAPitchedCameraCountsThePlanesCrossingTheColumns) {
    const double pitchRad = -30.0 * common::kRadPerDeg;
    const common::FanLayout fan = common::BuildFanLayout({64, 36, 1.0}, pitchRad);
    EXPECT_DOUBLE_EQ(CastWorkCounter(fan).Of({0, 1, 64}, false).marchPerPixel, 1.0);
    // Slices split at column 16, left of the middle, where the lines lean: a plane across the
    // split is nearest in the right slice and farthest in the left one, each marching its run.
    EXPECT_DOUBLE_EQ(CastWorkCounter(fan).Of({0, 1, 16}, false).marchPerPixel, 1.0);
    EXPECT_DOUBLE_EQ(CastWorkCounter(fan).Of({16, 1, 48}, false).marchPerPixel, 1.0);
    EXPECT_DOUBLE_EQ(CastWorkCounter(fan).Of({0, 1, 16}, true).shadedPerPixel, 17.0 / 16.0);
    EXPECT_GE(CastWorkCounter(fan).Of({0, 1, 16}, true).marchPerPixel, 17.0 / 16.0);
    for (const common::ColumnSet& half : {common::ColumnSet{0, 2, 32}, {1, 2, 32}}) {
        const CastWork plain = CastWorkCounter(fan).Of(half, false),
                       aa = CastWorkCounter(fan).Of(half, true);
        EXPECT_GT(plain.marchPerPixel, 1.6);
        EXPECT_LE(plain.marchPerPixel, 2.0);
        EXPECT_DOUBLE_EQ(plain.shadedPerPixel, 1.0);
        EXPECT_GT(aa.marchPerPixel, 3.2);
        EXPECT_DOUBLE_EQ(aa.shadedPerPixel, 2.0);
    }
    // Steeper, a plane's span of columns can hold a column without a pixel of it there (the
    // pixel belongs to a neighbouring plane): such a plane costs a slice nothing.
    const common::FanLayout steep =
        common::BuildFanLayout({1280, 720, 60.0 * common::kRadPerDeg}, -60.0 * common::kRadPerDeg);
    for (int t = 0; t < 3; ++t) {
        const common::ColumnSet slice =
            common::ColumnsOf(common::Decomposition::Contiguous, t, 3, 1280);
        EXPECT_DOUBLE_EQ(CastWorkCounter(steep).Of(slice, false).marchPerPixel, 1.0) << t;
    }
    // Marches taking half the trace: half of each.
    EXPECT_DOUBLE_EQ((CastWork{4.0, 2.0}).PerPixel(0.5), 3.0);
    EXPECT_DOUBLE_EQ((CastWork{4.0, 2.0}).PerPixel(1.0), 4.0);
}

// The profile's camera sets what each tracer casts. At pitch 0 with anti-aliasing, N = 4 (two
// tracers, 1000 x 100, trace 0.5 s a frame): an interleaved tracer casts both halves' columns,
// 0.5 s x 1/2 x 2 = 0.5 s; a contiguous one its 500 columns and one more, 0.25 s x 501 / 500.
TEST(ModelCluster, AnInterleavedTracerPaysForTheNeighbouringColumnsItCasts) {
    MeasuredApp app = App();
    app.view = {0.0, 1.0, true};
    Machine m = Cluster(8, 1, {"shm"});
    ClusterRun run = RunOf(4);
    auto contiguous = PredictCluster(app, m, Links(), run);
    run.decomposition = common::Decomposition::Interleaved;
    auto interleaved = PredictCluster(app, m, Links(), run);
    ASSERT_TRUE(contiguous.ok() && interleaved.ok());
    EXPECT_NEAR(contiguous->prediction.SPerFrame(Term::RayTrace), 0.25 * 501.0 / 500.0, 1e-9);
    EXPECT_NEAR(interleaved->prediction.SPerFrame(Term::RayTrace), 0.5, 1e-9);
}

TEST(ModelCluster, PlacementFillsHostsRoundRobinOrFollowsAHostfile) {
    Machine m = Cluster(3, 2, {});
    EXPECT_EQ(PlaceRanks(m, 7), (std::vector<int>{0, 0, 1, 1, 2, 2, 0}));
    m.placement = Placement::RoundRobin;
    EXPECT_EQ(PlaceRanks(m, 4), (std::vector<int>{0, 1, 2, 0}));
    m.hostOfSlot = {2, 1};
    EXPECT_EQ(PlaceRanks(m, 3), (std::vector<int>{2, 1, 2}));
}

TEST(ModelCluster, BadInputsNameTheProblem) {
    auto links = Links();
    EXPECT_NE(PredictCluster(App(), Cluster(2, 1, {"shm"}), links, RunOf(2))
                  .error()
                  .message.find("at least 3"),
              std::string::npos);
    Machine slowCpu = Cluster(2, 1, {"shm"});
    slowCpu.hosts[1].cpuSpeed = 0.0;
    EXPECT_NE(
        PredictCluster(App(), slowCpu, links, RunOf(3)).error().message.find("hosts[1].cpuSpeed"),
        std::string::npos);
    Machine unknownNic = Cluster(2, 1, {"infiniband"});
    EXPECT_NE(PredictCluster(App(), unknownNic, links, RunOf(3)).error().message.find("infiniband"),
              std::string::npos);
    Machine noNic = Cluster(4, 1, {});
    EXPECT_NE(PredictCluster(App(), noNic, links, RunOf(4)).error().message.find("no nics"),
              std::string::npos);
    EXPECT_NE(PredictCluster(App(), Cluster(8, 1, {"shm"}), links, {4, 100, 1, 8})
                  .error()
                  .message.find("columns"),
              std::string::npos);
}

// A machine built in code gets the machine file's wording: field, range and value.
TEST(ModelCluster, HostNumbersOutOfRangeNameTheirRange) {
    auto links = Links();
    Machine m = Cluster(2, 2, {"shm"});
    m.hosts[1].cpuSpeed = std::numeric_limits<double>::infinity();
    EXPECT_EQ(ValidateMachine(m, links).error().message,
              "machine '" + m.name + "': hosts[1].cpuSpeed must be > 0, got inf");
    m = Cluster(2, 2, {"shm"});
    m.hosts[0].capacityCores = 3.0;
    EXPECT_EQ(
        ValidateMachine(m, links).error().message,
        "machine '" + m.name + "': hosts[0].capacityCores must be >= 0 and <= 2 cores, got 3");
    m = Cluster(2, 2, {"shm"});
    m.hosts[0].cores = 0;
    EXPECT_EQ(ValidateMachine(m, links).error().message,
              "machine '" + m.name + "': hosts[0].cores must be >= 1, got 0");
}

}  // namespace
}  // namespace bfv::predict
