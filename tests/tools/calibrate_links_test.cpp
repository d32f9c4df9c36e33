// tools/calibrate-links: every link of a machine description measured by bfv commbench on a pair
// of its hosts, and a description pointing at the profiles that `bfv predict` reads.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/cpu_quota.h"
#include "predict/machine_file.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Quote;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::TempDir;

std::string CalibrateLinks() {
    return test_support::PythonScript("tools/calibrate-links") + " --bfv " + Quote(BFV_BINARY);
}

bool Contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Three one-core nodes on gige, a display with a second NIC (ib) and four cores.
std::string WriteLab(TempDir& dir) {
    std::string path = dir.File("lab.json");
    std::ofstream(path) << R"({"name": "lab", "intraHostLink": "shm",
        "hosts": [{"name": "node", "count": 3, "cores": 1, "nics": ["gige"]},
                  {"name": "disp", "cores": 4, "nics": ["gige", "ib"]}]})";
    return path;
}

TEST(CalibrateLinks, PlansAPairOfHostsForEveryLink) {
    TempDir dir;
    std::string lab = WriteLab(dir);
    RunResult run = RunCommand(CalibrateLinks() + " --dry-run --machine " + Quote(lab) +
                                   " --pair ib=disp-ib,node1 --out " + Quote(dir.File("links")),
                               60);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "shm: mpiexec -hosts disp,disp -n 2 ")) << run.out;
    EXPECT_TRUE(Contains(run.out, "gige: mpiexec -hosts node1,node2 -n 2 ")) << run.out;
    EXPECT_TRUE(Contains(run.out, "ib: mpiexec -hosts disp-ib,node1 -n 2 ")) << run.out;
    EXPECT_FALSE(std::filesystem::exists(dir.File("links"))) << "a dry run writes nothing";
}

TEST(CalibrateLinks, ALinkWithoutAPairOrAnUnknownHostIsNamed) {
    TempDir dir;
    std::string lab = WriteLab(dir);
    std::string out = dir.File("links");
    RunResult noPair =
        RunCommand(CalibrateLinks() + " --machine " + Quote(lab) + " --out " + Quote(out), 60);
    EXPECT_NE(noPair.exitCode, 0);
    EXPECT_TRUE(Contains(noPair.err,
                         "link 'ib': fewer than two hosts have it as their first NIC; "
                         "choose the hosts with --pair ib=HOST_A,HOST_B"))
        << noPair.err;
    std::ofstream(dir.File("hosts.txt")) << "node1:1\nnode9\n";
    RunResult unknown = RunCommand(CalibrateLinks() + " --machine " + Quote(lab) + " --hostfile " +
                                       Quote(dir.File("hosts.txt")) + " --out " + Quote(out),
                                   60);
    EXPECT_NE(unknown.exitCode, 0);
    EXPECT_TRUE(Contains(unknown.err, "hostfile host 'node9' is not in the description"))
        << unknown.err;
    RunResult badPair = RunCommand(
        CalibrateLinks() + " --machine " + Quote(lab) + " --pair ib=disp --out " + Quote(out), 60);
    EXPECT_NE(badPair.exitCode, 0);
    EXPECT_TRUE(Contains(badPair.err, "--pair 'ib=disp': expected LINK=HOST_A,HOST_B"))
        << badPair.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/machine.json"));
}

// On this host: the intra-host link and a "lo" NIC, both measured with --quick; the written
// description reads back with every link's profile.
TEST(CalibrateLinks, MeasuresEveryLinkAndWritesADescriptionPredictReads) {
    TempDir dir;
    std::string machine = dir.File("here.json");
    std::ofstream(machine) << R"({"name": "here", "intraHostLink": "shm",
        "hosts": [{"name": "localhost", "cores": 2, "nics": ["lo"]}]})";
    std::string out = dir.File("links");
    RunResult run = RunCommand(CalibrateLinks() + " --quick --machine " + Quote(machine) +
                                   " --pair lo=localhost,localhost --out " + Quote(out),
                               300);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "[2/2] measuring 'lo' between localhost and localhost"))
        << run.out;
    auto read = predict::ReadMachineFile(out + "/machine.json");
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->links.size(), 2u);
    EXPECT_EQ(read->links.at("lo").name, "lo");
    EXPECT_EQ(read->links.at("shm").name, "shm");
    EXPECT_FALSE(read->links.at("shm").waitCost.empty());
    // The host's CPU quota, as its cgroup gives it to this test's process too: copied into the
    // description where it limits the host's 2 cores, else named as none.
    common::CpuQuota quota = common::ProcessCpuQuota();
    if (quota.cores > 0.0 && quota.cores < 2.0) {
        EXPECT_DOUBLE_EQ(read->machine.hosts[0].cpuQuotaCores, quota.cores);
        EXPECT_TRUE(Contains(run.out, "hosts[0] 'localhost': CPU quota")) << run.out;
    } else {
        EXPECT_EQ(read->machine.hosts[0].cpuQuotaCores, 0.0);
        EXPECT_TRUE(Contains(run.out, quota.cores > 0.0 ? "not below its 2 cores: no limit"
                                                        : "hosts[0] 'localhost': no CPU quota"))
            << run.out;
    }
}

}  // namespace
}  // namespace bfv::tools
