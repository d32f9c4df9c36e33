// ReadCpuQuota on hand-made cgroup trees (v1 and v2 layouts in a temporary directory), and on
// this machine's own (whatever it is, it reads without failing).

#include "common/cpu_quota.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/temp_dir.h"

namespace bfv::common {
namespace {

using test_support::TempDir;
namespace fs = std::filesystem;

void Write(const TempDir& dir, const std::string& path, const std::string& text) {
    fs::path file = dir.File(path);
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// cgroup v1, the cpu controller mounted alone: the group's own quota of 0.3 core per 10 ms is
// tighter than its parent's 2 cores; the counters are the group's.
TEST(CpuQuota, ReadsAVersion1GroupsQuotaAndCounters) {
    TempDir dir;
    Write(dir, "proc", "4:memory:/x\n1:cpu:/emu/host-a\n0::/\n");
    Write(dir, "root/cpu/cpu.cfs_period_us", "100000\n");
    Write(dir, "root/cpu/cpu.cfs_quota_us", "-1\n");
    Write(dir, "root/cpu/emu/cpu.cfs_period_us", "100000\n");
    Write(dir, "root/cpu/emu/cpu.cfs_quota_us", "200000\n");
    Write(dir, "root/cpu/emu/host-a/cpu.cfs_period_us", "10000\n");
    Write(dir, "root/cpu/emu/host-a/cpu.cfs_quota_us", "3000\n");
    Write(dir, "root/cpu/emu/host-a/cpu.stat",
          "nr_periods 478\nnr_throttled 462\nthrottled_time 2235321621\n");
    CpuQuota q = ReadCpuQuota(dir.File("proc"), dir.File("root"));
    EXPECT_DOUBLE_EQ(q.cores, 0.3);
    EXPECT_DOUBLE_EQ(q.periodS, 0.01);
    EXPECT_EQ(q.periods, 478);
    EXPECT_EQ(q.throttledPeriods, 462);
    EXPECT_NEAR(q.throttledS, 2.235321621, 1e-9);
}

// A parent's quota binds a child without one (a container's limit on the processes inside).
TEST(CpuQuota, AnAncestorsQuotaBinds) {
    TempDir dir;
    Write(dir, "proc", "3:cpuacct,cpu:/pod/rank\n");
    Write(dir, "root/cpuacct,cpu/cpu.cfs_period_us", "100000\n");
    Write(dir, "root/cpuacct,cpu/pod/cpu.cfs_period_us", "100000\n");
    Write(dir, "root/cpuacct,cpu/pod/cpu.cfs_quota_us", "50000\n");
    Write(dir, "root/cpuacct,cpu/pod/rank/cpu.cfs_quota_us", "-1\n");
    CpuQuota q = ReadCpuQuota(dir.File("proc"), dir.File("root"));
    EXPECT_DOUBLE_EQ(q.cores, 0.5);
    EXPECT_DOUBLE_EQ(q.periodS, 0.1);
}

// cgroup v2: cpu.max "QUOTA PERIOD" in µs, "max" for none; cpu.stat's throttled_usec.
TEST(CpuQuota, ReadsAVersion2GroupsCpuMax) {
    TempDir dir;
    Write(dir, "proc", "0::/kubepods/pod1\n");
    Write(dir, "root/cgroup.controllers", "cpu memory\n");
    Write(dir, "root/kubepods/cpu.max", "max 100000\n");
    Write(dir, "root/kubepods/pod1/cpu.max", "150000 100000\n");
    Write(dir, "root/kubepods/pod1/cpu.stat",
          "usage_usec 5\nnr_periods 10\nnr_throttled 4\nthrottled_usec 250000\n");
    CpuQuota q = ReadCpuQuota(dir.File("proc"), dir.File("root"));
    EXPECT_DOUBLE_EQ(q.cores, 1.5);
    EXPECT_DOUBLE_EQ(q.periodS, 0.1);
    EXPECT_EQ(q.throttledPeriods, 4);
    EXPECT_DOUBLE_EQ(q.throttledS, 0.25);
    Write(dir, "root/kubepods/pod1/cpu.max", "max 100000\n");
    EXPECT_EQ(ReadCpuQuota(dir.File("proc"), dir.File("root")).cores, 0.0);
}

// No cgroup files, an unreadable /proc file, garbage: no quota, and no failure.
TEST(CpuQuota, MissingOrMalformedFilesMeanNoQuota) {
    TempDir dir;
    EXPECT_EQ(ReadCpuQuota(dir.File("absent"), dir.File("root")).cores, 0.0);
    Write(dir, "proc", "1:cpu:/g\n");
    Write(dir, "root/cpu/cpu.cfs_period_us", "100000\n");
    Write(dir, "root/cpu/g/cpu.cfs_quota_us", "lots\n");
    Write(dir, "root/cpu/g/cpu.cfs_period_us", "0\n");
    EXPECT_EQ(ReadCpuQuota(dir.File("proc"), dir.File("root")).cores, 0.0);
    // This machine's own groups, whatever they are, read as a quota within the range a cgroup
    // can set, or none.
    CpuQuota own = ProcessCpuQuota();
    EXPECT_GE(own.cores, 0.0);
    EXPECT_GE(own.throttledS, 0.0);
}

TEST(CpuQuota, QuotaSinceTakesTheCountersDifference) {
    CpuQuota start{0.5, 0.1, 10, 4, 0.2}, now{0.5, 0.1, 30, 9, 0.7};
    CpuQuota d = QuotaSince(start, now);
    EXPECT_EQ(d.cores, 0.5);
    EXPECT_EQ(d.periods, 20);
    EXPECT_EQ(d.throttledPeriods, 5);
    EXPECT_DOUBLE_EQ(d.throttledS, 0.5);
}

TEST(CpuQuota, ARanksCoreShareIsItsQuotaUpToOneCore) {
    EXPECT_EQ(QuotaCoreShare(0.0), 1.0);
    EXPECT_EQ(QuotaCoreShare(0.3), 0.3);
    EXPECT_EQ(QuotaCoreShare(2.5), 1.0);
}

// Traces of 6 ms of CPU that took 7 ms (on a fresh quota) and 27 ms (held twice) sustained 12 ms
// of 34: each stands for 17 ms, whichever it was. The share is 1 until a frame has both times,
// at most 1, and forgets the frames kFrames back.
TEST(CpuQuota, TheSustainedShareIsTheLastFramesCpuOverTheirWall) {
    SustainedShare share;
    EXPECT_EQ(share.Share(), 1.0);
    share.Add(0.0, 0.0);
    EXPECT_EQ(share.SecondsOf(0.006), 0.006);
    share.Add(0.007, 0.006);
    share.Add(0.027, 0.006);
    EXPECT_DOUBLE_EQ(share.Share(), 12.0 / 34.0);
    EXPECT_DOUBLE_EQ(share.SecondsOf(0.006), 0.017);
    SustainedShare crowded;
    crowded.Add(0.009, 0.010);  // a thread's CPU clock a little ahead of the wall
    EXPECT_EQ(crowded.Share(), 1.0);
    for (int f = 0; f < SustainedShare::kFrames; ++f) share.Add(0.010, 0.005);
    EXPECT_DOUBLE_EQ(share.Share(), 0.5);
}

}  // namespace
}  // namespace bfv::common
