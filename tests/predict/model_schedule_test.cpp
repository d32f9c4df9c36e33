#include "predict/model_schedule.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace bfv::predict {
namespace {

constexpr int kManyRanks = 1'000'000;  // stands in for N -> infinity in eq. 20

// Eq. 20 as the source paper prints it: 1 = 0.25 + FPS (0.6/(N-2) + 0.16 + 0.04).
TimeSliceTerms PaperEq20() { return {0.25, 0.6, 0.16, 0.04, 1.0}; }

// The seed case over Table 2's LAM/MPI link.
ScheduleInputs SeedOverLamMpi() {
    ScheduleInputs inputs;
    inputs.app = SeedCase();
    inputs.terrainLink = {0.47e-3, 2.1e6, 5.3e6};
    inputs.screenLink = {0.47e-3, 2.1e6, 5.3e6};
    return inputs;
}

// Eqs. 22a/b: columns buffered into one message per tracer, two NICs with several receive
// threads on the display (20% faster receive, Table 4).
ScheduleInputs SeedEq22() {
    ScheduleInputs inputs = SeedOverLamMpi();
    inputs.bufferColumns = true;
    inputs.displayReceiveSpeedup = 1.2;
    return inputs;
}

std::vector<int> RankCounts(int first, int last) {
    std::vector<int> ns(static_cast<std::size_t>(last - first + 1));
    std::iota(ns.begin(), ns.end(), first);
    return ns;
}

// "The maximum frame rate for an infinite number of processors is 3.75 frames per second."
TEST(ModelSchedule, Eq20GivesThreePointSevenFiveFpsAtInfiniteN) {
    const Expected<Prediction> p = PredictTimeSlices(PaperEq20(), kManyRanks);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_NEAR(p->fps, 3.75, 0.005);
    EXPECT_EQ(p->binding, Term::DisplayReceive);
}

// Six receive threads change 0.16 to 0.1: "3.1 FPS" at N = 8, "only 5.3 FPS" at N -> inf.
TEST(ModelSchedule, Eq20WithSixReceiveThreads) {
    TimeSliceTerms terms = PaperEq20();
    terms.displayReceiveSpeedup = 0.16 / 0.1;
    const Expected<Prediction> at8 = PredictTimeSlices(terms, 8);
    const Expected<Prediction> atInf = PredictTimeSlices(terms, kManyRanks);
    ASSERT_TRUE(at8.ok() && atInf.ok());
    EXPECT_NEAR(at8->fps, 3.1, 0.05);
    EXPECT_NEAR(at8->SPerFrame(Term::DisplayReceive), 0.1, 1e-12);
    EXPECT_NEAR(atInf->fps, 5.3, 0.1);  // 0.75 / 0.14 = 5.36; the paper truncates
}

// Eq. 20's coefficients computed from Table 2 come within 7% of the printed 0.25 and 0.16.
TEST(ModelSchedule, Eq20CoefficientsFromTable2AreNearThePrintedOnes) {
    const TimeSliceTerms terms = TimeSliceTermsFor(SeedOverLamMpi(), 8);
    EXPECT_NEAR(terms.terrainSPerS, 0.25, 0.25 * 0.07);
    EXPECT_NEAR(terms.screenTransferSPerFrame, 0.16, 0.16 * 0.06);
    EXPECT_NEAR(terms.traceSPerFrame, 0.6, 1e-12);
    EXPECT_NEAR(terms.displayWorkSPerFrame, 0.04, 1e-12);
    const Expected<Prediction> p = PredictTimeSlices(SeedOverLamMpi(), 258);
    ASSERT_TRUE(p.ok());
    EXPECT_NEAR(p->fps, 3.75, 3.75 * 0.08);  // 3.98: the computed terms are a little smaller
}

// Conclusion: "utilizing eight processors ... we would achieve 8.7 FPS or approximately 7
// times speed up over a single node sequential implementation".
TEST(ModelSchedule, Eq22GivesAboutEightPointSevenFpsAtEightRanks) {
    const Expected<Prediction> p = PredictNodeBudgets(SeedEq22(), 8);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_NEAR(p->fps, 8.7, 8.7 * 0.05);
    EXPECT_NEAR(p->fps / SequentialFps(SeedCase()), 7.0, 0.6);
    EXPECT_EQ(p->binding, Term::RayTrace);
    EXPECT_NEAR(p->SPerFrame(Term::RayTrace), 0.1, 1e-12);
}

// Figure 5 / eq. 20: the trace binds with few tracers, the display's receive with many; once
// the trace stops binding it never binds again.
TEST(ModelSchedule, Eq20BindingMovesFromRayTraceToDisplayReceive) {
    const std::vector<int> ns = RankCounts(3, 258);
    const auto sweep = PredictSweep(SeedOverLamMpi(), ScheduleKind::TimeSlices, ns);
    ASSERT_TRUE(sweep.ok()) << sweep.error().message;
    EXPECT_EQ(sweep->front().binding, Term::RayTrace);
    EXPECT_EQ(sweep->back().binding, Term::DisplayReceive);
    bool traceDone = false;
    for (const Prediction& p : *sweep) {
        if (p.binding != Term::RayTrace) traceDone = true;
        EXPECT_FALSE(traceDone && p.binding == Term::RayTrace) << "n = " << p.n;
    }
}

// Figure 6a / eq. 22: near-linear growth while the trace binds, then the display limits.
TEST(ModelSchedule, Eq22BindingMovesFromRayTraceToDisplayReceive) {
    const std::vector<int> ns = RankCounts(3, 258);
    const auto sweep = PredictSweep(SeedEq22(), ScheduleKind::NodeBudgets, ns);
    ASSERT_TRUE(sweep.ok()) << sweep.error().message;
    EXPECT_EQ(sweep->front().binding, Term::RayTrace);
    EXPECT_EQ(sweep->back().binding, Term::DisplayReceive);
    const Prediction& at6 = (*sweep)[3];
    const Prediction& at10 = (*sweep)[7];
    EXPECT_NEAR(at10.fps / at6.fps, 2.0, 0.1);  // 8 tracers vs 4: linear while tracing binds
    EXPECT_LT(sweep->back().fps, 15.0);         // the display plateau: 1 / 0.04 s at best
}

// Eight ranks on two one-core hosts: the hosts' cores bind before any node budget does.
TEST(ModelSchedule, OversubscribedHostsBind) {
    ScheduleInputs inputs = SeedEq22();
    const Expected<Prediction> alone = PredictNodeBudgets(inputs, 8);
    inputs.hosts = {Host{1, 1.0}, Host{1, 1.0}};
    const Expected<Prediction> shared = PredictNodeBudgets(inputs, 8);
    inputs.hosts = {Host{8, 1.0}, Host{8, 1.0}};
    const Expected<Prediction> roomy = PredictNodeBudgets(inputs, 8);
    ASSERT_TRUE(alone.ok() && shared.ok() && roomy.ok());
    EXPECT_EQ(shared->binding, Term::HostCpu);
    EXPECT_LT(shared->fps, 0.5 * alone->fps);
    EXPECT_NEAR(roomy->fps, alone->fps, 1e-9);
    EXPECT_EQ(roomy->binding, Term::RayTrace);
}

// A tracer host twice as fast halves its trace (eq. 7 at CPU% 1).
TEST(ModelSchedule, FasterTracerHostsTraceFaster) {
    ScheduleInputs inputs = SeedEq22();
    inputs.hosts = {Host{1, 2.0}};
    const Expected<Prediction> p = PredictNodeBudgets(inputs, 8);
    ASSERT_TRUE(p.ok());
    EXPECT_NEAR(p->SPerFrame(Term::RayTrace), 0.05, 1e-12);
    EXPECT_NEAR(p->SPerFrame(Term::DisplayWork), 0.02, 1e-12);
}

TEST(ModelSchedule, FewerThanThreeRanksIsAnError) {
    const Expected<Prediction> p = PredictNodeBudgets(SeedEq22(), 2);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message, "schedule: n must be >= 3, got 2");
    EXPECT_FALSE(PredictTimeSlices(PaperEq20(), 2).ok());
}

TEST(ModelSchedule, MoreTracersThanColumnsIsAnError) {
    const Expected<Prediction> p = PredictNodeBudgets(SeedEq22(), 259);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message,
              "schedule: n must be at most 258 (one 256-byte column per ray tracer), got 259");
}

TEST(ModelSchedule, NegativeBandwidthIsAnErrorNamingTheLink) {
    ScheduleInputs inputs = SeedEq22();
    inputs.screenLink.alcbwBytesPerS = -3.0;
    const Expected<Prediction> p = PredictNodeBudgets(inputs, 8);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message, "link 'screen': alcbwBytesPerS must be > 0, got -3");
}

TEST(ModelSchedule, BadHostIsAnErrorNamingTheField) {
    ScheduleInputs inputs = SeedEq22();
    inputs.hosts = {Host{1, 1.0}, Host{0, 1.0}};
    const Expected<Prediction> p = PredictTimeSlices(inputs, 8);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message, "host 1: cores must be >= 1, got 0");
}

TEST(ModelSchedule, TermNames) {
    EXPECT_EQ(TermName(Term::RayTrace), "ray trace");
    EXPECT_EQ(TermName(Term::DisplayReceive), "display receive");
    EXPECT_EQ(TermName(Term::HostCpu), "host cpu");
    EXPECT_EQ(TermName(Term::HostQuota), "host quota");
}

}  // namespace
}  // namespace bfv::predict
