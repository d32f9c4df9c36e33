// tools/emulated-cluster: a 2-host cluster comes up (namespaces, bridge, cgroups, /etc/hosts),
// bfv runs across its hosts through Hydra's launcher hooks, and `down` leaves no namespace,
// link, cgroup, hosts line or process behind; a bring-up that fails (bad description, or a
// failure half-way) leaves nothing behind either; the bench sweeps on it. Needs root: skipped
// otherwise. A test binary of its own, whose tests run alone (see tests/CMakeLists.txt).

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::Contains;
using test_support::Quote;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

const std::string kScript = std::string(BFV_SOURCE_DIR) + "/tools/emulated-cluster";

// A cluster name of this test process: parallel ctest runs each get their own.
std::string ClusterName(const std::string& suffix) {
    return "gt" + std::to_string(::getpid()) + suffix;
}

RunResult Cluster(const std::string& arguments, int timeoutS = 60) {
    return RunCommand(Quote(kScript) + " " + arguments, timeoutS);
}

std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir.File(name)) << text;
    return dir.File(name);
}

// Writes the description {"name": NAME, REST} as DIR/c.json and returns its path.
std::string Description(const TempDir& dir, const std::string& name, const std::string& rest) {
    return WriteFile(dir, "c.json", R"({"name": ")" + name + R"(", )" + rest + "}");
}

// What a cluster named `name` may leave on the machine, one line per kind; empty when none.
std::string Leftovers(const std::string& name) {
    std::string left;
    RunResult ns = RunCommand("ip netns list");
    if (Contains(ns.out, "bfvemu-" + name + "-")) left += "namespaces: " + ns.out + "\n";
    RunResult links = RunCommand("ip -o link show");
    if (Contains(links.out, "bfv-emu:" + name + " ") ||
        Contains(links.out, "bfv-emu:" + name + "\n"))
        left += "links tagged bfv-emu:" + name + "\n";
    for (const char* base : {"/sys/fs/cgroup", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/unified"})
        if (fs::exists(std::string(base) + "/bfv-emu-" + name))
            left += std::string("cgroup in ") + base + "\n";
    if (Contains(Slurp("/etc/hosts"), "# bfv-emu " + name + "\n")) left += "/etc/hosts lines\n";
    if (fs::exists("/run/bfv-emu/" + name)) left += "run dir /run/bfv-emu/" + name + "\n";
    return left;
}

// Tears the cluster down at the end of a test, also when an assertion ended it early.
struct DownAtEnd {
    std::string name;
    ~DownAtEnd() { Cluster("down " + name); }
};

// Whether a process runs (a zombie does not: its parent may reap it late).
bool Running(pid_t pid) {
    std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
    auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

class EmulatedCluster : public ::testing::Test {
  protected:
    void SetUp() override {
        if (::geteuid() != 0)
            GTEST_SKIP() << "emulated-cluster needs root (network namespaces, tc, cgroups)";
        for (const char* tool : {"ip", "tc", "jq", "nsenter", "unshare", "flock"})
            if (RunCommand(std::string("sh -c 'command -v ") + tool + "'").exitCode != 0)
                GTEST_SKIP() << "'" << tool << "' is missing (tools/install-deps.sh installs it)";
        std::string probe = "bfvprobe" + std::to_string(::getpid());
        if (RunCommand("ip netns add " + probe).exitCode != 0)
            GTEST_SKIP()
                << "'ip netns add' is not permitted here (a container without CAP_SYS_ADMIN?)";
        RunCommand("ip netns del " + probe);
    }
};

TEST(EmulatedClusterUsage, WithoutRootOneClearMessage) {
    TempDir dir;
    std::string description = Description(dir, "nobody", R"("hosts": [{"name": "h"}])");
    // A copy (with its parts) in the world-readable temp dir: the checkout may sit in a
    // directory only root can enter (a mktemp -d clone), where the unprivileged user could not
    // even start it.
    std::string script = dir.File("emulated-cluster");
    std::filesystem::copy_file(kScript, script);
    std::filesystem::copy(kScript + ".d", script + ".d");
    std::filesystem::permissions(
        dir.File(""), std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                          std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                          std::filesystem::perms::others_exec);
    std::string asUser = Quote(script) + " up " + Quote(description);
    if (::geteuid() == 0) {
        if (RunCommand("sh -c 'command -v setpriv'").exitCode != 0)
            GTEST_SKIP() << "no setpriv to drop root";
        asUser = "setpriv --reuid=65534 --regid=65534 --clear-groups " + asUser;
    }
    RunResult run = RunCommand(asUser);
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_EQ(run.err, "emulated-cluster needs root (network namespaces, tc, cgroups)\n");
}

TEST(EmulatedClusterUsage, UnknownOrNoCommandPrintsTheUsageAndExitsTwo) {
    RunResult unknown = Cluster("frob");
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_EQ(unknown.err.rfind("emulated-cluster: unknown command 'frob'\nUsage: ", 0), 0u)
        << unknown.err;
    RunResult none = Cluster("");
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_EQ(none.err.rfind("Usage: ", 0), 0u) << none.err;
    RunResult help = Cluster("--help");
    EXPECT_EQ(help.exitCode, 0);
    for (const char* part : {"up DESCRIPTION.json", "run [--down-after] NAME", "exec NAME HOST",
                             "env NAME", "status NAME", "down NAME", "Description:", "\"nics\""})
        EXPECT_TRUE(Contains(help.out, part)) << part << " is not in --help";
}

// Each command checks its arguments first (before it asks for root): one line, exit 1.
TEST(EmulatedClusterUsage, WrongArgumentsSayTheCommandsUsage) {
    const std::pair<const char*, const char*> cases[] = {
        {"up", "up DESCRIPTION.json"},
        {"up a.json b.json", "up DESCRIPTION.json"},
        {"run emu", "run [--down-after] NAME -- COMMAND..."},
        {"run --down-after emu mpiexec", "run [--down-after] NAME -- COMMAND..."},
        {"exec emu h0 hostname", "exec NAME HOST -- COMMAND..."},
        {"env", "env NAME"},
        {"status a b", "status NAME"},
        {"down", "down NAME"},
    };
    for (const auto& [arguments, usage] : cases) {
        RunResult run = Cluster(arguments);
        EXPECT_EQ(run.exitCode, 1) << arguments;
        EXPECT_EQ(run.err,
                  std::string("emulated-cluster: usage: tools/emulated-cluster ") + usage + "\n")
            << arguments;
    }
}

TEST(EmulatedClusterUsage, NoClusterOfThatNameOrABadNameOneClearMessage) {
    const std::string name = ClusterName("none");
    RunResult env = Cluster("env " + name);
    EXPECT_EQ(env.exitCode, 1);
    EXPECT_EQ(env.err, "emulated-cluster: no cluster '" + name +
                           "' is up (tools/emulated-cluster up DESCRIPTION.json)\n");
    RunResult status = Cluster("status Bad_Name");
    EXPECT_EQ(status.exitCode, 1);
    EXPECT_EQ(status.err,
              "emulated-cluster: bad cluster name 'Bad_Name': use [a-z][a-z0-9-]*, at most 20 "
              "characters\n");
}

// The script sources its steps from tools/emulated-cluster.d: a copy without them says so.
TEST(EmulatedClusterUsage, WithoutItsPartsOneClearMessage) {
    TempDir dir;
    std::string script = dir.File("emulated-cluster");
    std::filesystem::copy_file(kScript, script);
    RunResult run = RunCommand(Quote(script) + " status emu");
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_TRUE(Contains(run.err, "/emulated-cluster.d' is missing: keep it beside the script\n"))
        << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
}

TEST_F(EmulatedCluster, TwoHostsRunBfvAcrossThemAndTearDownCompletely) {
    TempDir dir;
    const std::string name = ClusterName("a");
    std::string description = Description(
        dir, name, R"("hosts": [{"name": "h", "cpu": 0.5, "rateMbit": 200}], "display": {})");

    DownAtEnd guard{name};
    RunResult up = Cluster("up " + Quote(description));
    ASSERT_EQ(up.exitCode, 0) << up.out << up.err;
    std::string state = Slurp("/run/bfv-emu/" + name + "/state");
    std::string bridge = state.substr(state.find("bridge=") + 7);
    bridge = bridge.substr(0, bridge.find('\n'));
    EXPECT_EQ(Slurp("/run/bfv-emu/" + name + "/hostfile"), name + "-h:1\n" + name + "-display:1\n");
    EXPECT_EQ(RunCommand("ip link show " + bridge).exitCode, 0) << bridge;
    RunResult ns = RunCommand("ip netns list");
    EXPECT_TRUE(Contains(ns.out, "bfvemu-" + name + "-h")) << ns.out;
    EXPECT_TRUE(Contains(ns.out, "bfvemu-" + name + "-display")) << ns.out;
    EXPECT_TRUE(Contains(Slurp("/etc/hosts"), name + "-display # bfv-emu " + name + "\n"));
    EXPECT_FALSE(Leftovers(name).empty());

    // A process on a host: in the host's namespaces, killed by `down`.
    ASSERT_EQ(std::system(("(exec " + Quote(kScript) + " exec " + name + " h -- sleep 300) " +
                           ">/dev/null 2>&1 & echo $! >" + Quote(dir.File("sleeper.pid")))
                              .c_str()),
              0);
    pid_t sleeper = std::stoi(Slurp(dir.File("sleeper.pid")));
    RunResult hostname = Cluster("exec " + name + " display -- hostname");
    EXPECT_EQ(hostname.out, name + "-display\n");

    // bfv across the two hosts: ranks 0 and 2 on NAME-h, rank 1 on NAME-display, over TCP.
    std::string rankScript =
        WriteFile(dir, "rank.sh",
                  "echo \"$PMI_RANK $(hostname) $(readlink /proc/self/ns/net)\" > " +
                      Quote(dir.File("rank")) + ".$PMI_RANK\nexec " + Quote(BFV_BINARY) +
                      " render --headless --frames 3 --size 96x54 --png-every 0 --out " +
                      Quote(dir.File("out")) + "\n");
    RunResult run =
        Cluster("run " + name + " -- " + Quote(BFV_MPIEXEC) + " -n 3 sh " + Quote(rankScript), 90);
    EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
    std::string checksums = Slurp(dir.File("out/checksums.txt"));
    EXPECT_EQ(std::count(checksums.begin(), checksums.end(), '\n'), 3) << run.err;
    std::string rank0 = Slurp(dir.File("rank.0")), rank1 = Slurp(dir.File("rank.1"));
    EXPECT_TRUE(Contains(rank0, "0 " + name + "-h net:")) << rank0;
    EXPECT_TRUE(Contains(rank1, "1 " + name + "-display net:")) << rank1;
    std::string ownNet = fs::read_symlink("/proc/self/ns/net").string();
    EXPECT_NE(rank0.substr(rank0.find("net:")), rank1.substr(rank1.find("net:")));
    EXPECT_FALSE(Contains(rank0, ownNet));
    EXPECT_FALSE(Contains(rank1, ownNet));

    ASSERT_TRUE(Running(sleeper));
    EXPECT_NE(fs::read_symlink("/proc/" + std::to_string(sleeper) + "/ns/net").string(), ownNet);

    RunResult down = Cluster("down " + name);
    EXPECT_EQ(down.exitCode, 0) << down.err;
    EXPECT_EQ(Leftovers(name), "");
    EXPECT_NE(RunCommand("ip link show " + bridge).exitCode, 0) << bridge << " is still there";
    EXPECT_FALSE(Running(sleeper)) << "pid " << sleeper << " survived `down`";
    RunResult again = Cluster("down " + name);  // idempotent
    EXPECT_EQ(again.exitCode, 0) << again.err;
}

TEST_F(EmulatedCluster, BadDescriptionCreatesNothing) {
    TempDir dir;
    const std::string name = ClusterName("b");
    std::string description = Description(dir, name, R"("hosts": [{"name": "h", "rate": 10}])");
    RunResult up = Cluster("up " + Quote(description));
    EXPECT_EQ(up.exitCode, 1);
    EXPECT_TRUE(Contains(up.err, "bad description")) << up.err;
    EXPECT_TRUE(Contains(up.err, "rate")) << up.err;
    EXPECT_EQ(Leftovers(name), "");
}

TEST_F(EmulatedCluster, BringUpFailingHalfWayLeavesNothing) {
    TempDir dir;
    const std::string name = ClusterName("c");
    std::string description = Description(
        dir, name,
        R"("hosts": [{"name": "h", "count": 2, "cpu": 0.5, "rateMbit": 50}], "display": {"nics": 2})");
    DownAtEnd guard{name};
    RunResult up = Cluster("up " + Quote(description));
    ASSERT_EQ(up.exitCode, 0) << up.err;  // the whole description works ...
    ASSERT_EQ(Cluster("down " + name).exitCode, 0);
    // ... and fails on purpose once two hosts exist.
    RunResult failing = RunCommand("env BFV_EMU_FAIL_AFTER_HOSTS=2 " + Quote(kScript) + " up " +
                                   Quote(description));
    EXPECT_NE(failing.exitCode, 0);
    EXPECT_TRUE(Contains(failing.err, "tearing down")) << failing.err;
    EXPECT_EQ(Leftovers(name), "");
}

// Descriptions that cannot be read or are not valid: one line saying why, exit 1, nothing made.
TEST_F(EmulatedCluster, UnreadableOrInvalidDescriptionsSayWhyAndCreateNothing) {
    TempDir dir;
    const std::string name = ClusterName("e");
    const std::pair<std::string, std::string> cases[] = {
        {"", "empty (a JSON object is expected)"},
        {"{\"name\": \"" + name + "\",", "parse error: Unfinished JSON term"},
        {"[1]", "not a JSON object"},
        {"{\"name\": \"" + name + "\", \"hosts\": []}",
         "\"hosts\" must be a non-empty array of host groups"},
        {"{\"name\": \"" + name + "\", \"hosts\": [{\"name\": \"h\", \"cpu\": -1}]}",
         "hosts[0]: \"cpu\" must be a number > 0"},
        {"{\"name\": \"" + name + "\", \"hosts\": [{\"name\": \"h\", \"count\": 1.5}]}",
         "hosts[0]: \"count\" must be an integer >= 1"},
        {"{\"name\": \"" + name +
             "\", \"hosts\": [{\"name\": \"h\"}], \"display\": {\"nics\": 17}}",
         "display: \"nics\" must be an integer 1..16"},
        {"{\"name\": \"" + name +
             "\", \"hosts\": [{\"name\": \"h\"}], \"display\": {\"name\": \"h\"}}",
         "duplicate host name(s) h"},
    };
    for (const auto& [text, message] : cases) {
        std::string path = WriteFile(dir, "bad.json", text);
        RunResult up = Cluster("up " + Quote(path));
        EXPECT_EQ(up.exitCode, 1) << text;
        EXPECT_EQ(up.err.rfind("emulated-cluster: bad description " + path + ": ", 0), 0u)
            << up.err;
        EXPECT_TRUE(Contains(up.err, message)) << text << ": " << up.err;
        EXPECT_EQ(std::count(up.err.begin(), up.err.end(), '\n'), 1) << up.err;
    }
    RunResult missing = Cluster("up " + Quote(dir.File("missing.json")));
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_EQ(missing.err,
              "emulated-cluster: cannot read the description '" + dir.File("missing.json") + "'\n");
    EXPECT_EQ(Leftovers(name), "");
}

// A second `up` of a name that is up, and a host the cluster does not have, are refused
// without touching the cluster.
TEST_F(EmulatedCluster, SecondUpOfOneNameAndAnUnknownHostAreRefused) {
    TempDir dir;
    const std::string name = ClusterName("f");
    std::string description = Description(dir, name, R"("hosts": [{"name": "h"}])");
    DownAtEnd guard{name};
    ASSERT_EQ(Cluster("up " + Quote(description)).exitCode, 0);
    RunResult again = Cluster("up " + Quote(description));
    EXPECT_EQ(again.exitCode, 1);
    EXPECT_EQ(again.err, "emulated-cluster: cluster '" + name +
                             "' is already up (or half torn down): tools/emulated-cluster down " +
                             name + "\n");
    RunResult nohost = Cluster("exec " + name + " nope -- true");
    EXPECT_EQ(nohost.exitCode, 1);
    EXPECT_EQ(nohost.err, "emulated-cluster: cluster '" + name + "' has no host 'nope'\n");
    EXPECT_EQ(Cluster("exec " + name + " h -- hostname").out, name + "-h\n");
    ASSERT_EQ(Cluster("down " + name).exitCode, 0);
    EXPECT_EQ(Leftovers(name), "");
}

// Ctrl-C during `up` tears down what was made; Ctrl-C during `run --down-after` reaches the
// command, and the cluster is torn down when it has ended.
TEST_F(EmulatedCluster, CtrlCDuringUpOrRunDownAfterLeavesNothing) {
    TempDir dir;
    const std::string name = ClusterName("g");
    std::string description =
        Description(dir, name, R"("hosts": [{"name": "h", "count": 12, "rateMbit": 50}])");
    DownAtEnd guard{name};
    {
        // A pause after each host keeps the bring-up running (2.4 s) until the Ctrl-C comes,
        // however loaded the machine: unpaused, it ended within 0.5 s, and a Ctrl-C that came
        // later found it up.
        test_support::Background up(
            "env BFV_EMU_HOST_PAUSE_S=0.2 " + Quote(kScript) + " up " + Quote(description),
            dir.File("up"));
        ASSERT_TRUE(test_support::AwaitFile("/run/bfv-emu/" + name + "/hosts.tsv", 30));
        ::kill(up.Pid(), SIGINT);
        EXPECT_EQ(up.Wait(60), 130) << up.Err();
        EXPECT_TRUE(Contains(up.Err(), "tearing down what was made")) << up.Err();
        EXPECT_EQ(Leftovers(name), "");
    }
    ASSERT_EQ(Cluster("up " + Quote(description)).exitCode, 0);
    std::string ready = dir.File("ready");
    std::string command = WriteFile(
        dir, "command.sh", "trap 'exit 42' INT\ntouch " + Quote(ready) + "\nsleep 60 &\nwait\n");
    test_support::Background run(
        Quote(kScript) + " run --down-after " + name + " -- sh " + Quote(command), dir.File("run"));
    ASSERT_TRUE(test_support::AwaitFile(ready, 30));
    ::kill(run.Pid(), SIGINT);
    // The command's own exit (42) or the script's 130: which one `run` returns depends on where
    // the signal finds the script's wait, as it did before the script was split.
    int exitCode = run.Wait(60);
    EXPECT_TRUE(exitCode == 42 || exitCode == 130) << exitCode << "\n" << run.Err();
    EXPECT_TRUE(Contains(run.Out(), "emulated-cluster: '" + name + "' is down")) << run.Out();
    EXPECT_EQ(Leftovers(name), "");
}

// Processes whose command line names `path`, one "PID: command line" a line; empty when none.
std::string ProcessesNaming(const std::string& path) {
    std::string found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        std::string pid = entry.path().filename();
        if (!std::all_of(pid.begin(), pid.end(), ::isdigit) || !Running(std::stoi(pid))) continue;
        std::string cmdline = Slurp(entry.path() / "cmdline");
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        if (Contains(cmdline, path)) found += pid + ": " + cmdline + "\n";
    }
    return found;
}

// A SIGTERM (a job scheduler's stop, timeout(1)) ends the bench as a Ctrl-C does, in the middle
// of its first measured run: one clear message, exit 1, its cluster torn down and no mpiexec or
// rank left running (the bench's commands run in process groups of their own, which it stops).
TEST_F(EmulatedCluster, BenchStoppedBySigtermLeavesNoClusterAndNoRank) {
    TempDir dir;
    const std::string name = ClusterName("t");
    std::string description = Description(
        dir, name, R"("hosts": [{"name": "h", "count": 2, "cpu": 0.5}], "display": {})");
    DownAtEnd guard{name};
    std::string out = dir.File("bench");
    // The bench's scratch files (every run's --out) go under the test's folder.
    test_support::Background bench("env TMPDIR=" + Quote(dir.File("")) + " " +
                                       test_support::PythonScript("bench/bfv_bench.py") +
                                       " --deployment emulated --emulated " + Quote(description) +
                                       " --n 3 --size 320x180 --frames 400 --warmup 2"
                                       " --repetitions 1 --quick-calibration --no-plots --out " +
                                       Quote(out),
                                   dir.File("run"));
    ASSERT_TRUE(test_support::AwaitFile(out + "/calibration/machine-emulated-320x180-r1.json", 300))
        << bench.Err();
    ::kill(bench.Pid(), SIGTERM);
    EXPECT_EQ(bench.Wait(60), 1) << bench.Err();
    EXPECT_TRUE(Contains(bench.Err(), "interrupted")) << bench.Err();
    for (const std::string& cluster : {name, name + "cal0", name + "cpu"}) {
        EXPECT_EQ(Leftovers(cluster), "") << cluster;
    }
    EXPECT_EQ(ProcessesNaming(dir.File("")), "");
}

// bench/bfv_bench.py on an emulated cluster whose display has a slower link than its hosts: it
// brings the cluster up, calibrates each link rate on two capped hosts (setup, rate,
// many-to-one) and the CPU cost per byte (APBBW) once on two uncapped ones, gives every host's
// NICs its own rate's link, sweeps, and leaves none of the clusters behind.
TEST_F(EmulatedCluster, BenchCalibratesEveryLinkRateAndTakesTheCpuCostFromAnUncappedTwin) {
    TempDir dir;
    const std::string name = ClusterName("d");
    std::string description = Description(dir, name,
                                          R"("hosts": [{"name": "h", "count": 2, "cpu": 0.5, )"
                                          R"("rateMbit": 200}], "display": {"rateMbit": 100})");
    DownAtEnd guard{name};
    std::string out = dir.File("bench");
    RunResult run = RunCommand(test_support::PythonScript("bench/bfv_bench.py") +
                                   " --deployment emulated --emulated " + Quote(description) +
                                   " --n 3 --size 160x90,320x180 --frames 12 --warmup 2"
                                   " --repetitions 1"
                                   " --quick-calibration --no-plots --out " +
                                   Quote(out),
                               600);
    ASSERT_EQ(run.exitCode, 0) << run.err;

    auto results = nlohmann::json::parse(Slurp(out + "/results.json"));
    ASSERT_EQ(results["rows"].size(), 2u);
    EXPECT_GT(results["rows"][0]["bestFps"].get<double>(), 0.0);
    EXPECT_GT(results["rows"][0]["predictedFps"].get<double>(), 0.0);
    // Speedup is over the sequential program run inside one emulated host (no sequential row).
    const auto& row = results["rows"][0];
    ASSERT_TRUE(row.contains("speedupBaseFps")) << row.dump();
    EXPECT_GT(row["speedupBaseFps"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(row["speedup"].get<double>(),
                     row["bestFps"].get<double>() / row["speedupBaseFps"].get<double>());

    auto uncapped =
        nlohmann::json::parse(Slurp(out + "/calibration/link-emulated-uncapped/link_profile.json"));
    for (const std::string rate : {"200", "100"}) {
        const std::string link = "emulated-" + rate + "mbit";
        auto merged = nlohmann::json::parse(Slurp(out + "/calibration/link-" + link + ".json"));
        auto capped =
            nlohmann::json::parse(Slurp(out + "/calibration/link-" + link + "/link_profile.json"));
        EXPECT_EQ(merged["overall"]["alcbwBytesPerS"], capped["overall"]["alcbwBytesPerS"]);
        EXPECT_EQ(merged["overall"]["msgSetupS"], capped["overall"]["msgSetupS"]);
        EXPECT_EQ(merged["manyToOne"], capped["manyToOne"]);
        EXPECT_EQ(merged["apbbwReceiveBytesPerS"], uncapped["apbbwReceiveBytesPerS"]);
        EXPECT_EQ(merged["apbbwSendBytesPerS"], uncapped["apbbwSendBytesPerS"]);
    }
    auto machine =
        nlohmann::json::parse(Slurp(out + "/calibration/machine-emulated-160x90-r1.json"));
    EXPECT_EQ(machine["links"]["emulated-200mbit"],
              out + "/calibration/link-emulated-200mbit.json");
    EXPECT_EQ(machine["links"]["emulated-100mbit"],
              out + "/calibration/link-emulated-100mbit.json");
    const auto& hosts = machine["hosts"];
    ASSERT_EQ(hosts.size(), 3u);
    EXPECT_EQ(hosts[0]["nics"], nlohmann::json::array({"emulated-200mbit"}));
    EXPECT_EQ(hosts[1]["nics"], nlohmann::json::array({"emulated-200mbit"}));
    EXPECT_EQ(hosts[2]["nics"], nlohmann::json::array({"emulated-100mbit"})) << "the display";
    // Each size's description has the hosts' quota measured at that size (0.5 of a core, a
    // little less as CFS enforces it), not one size's FPS over another's.
    for (const std::string size : {"160x90", "320x180"}) {
        auto described = nlohmann::json::parse(
            Slurp(out + "/calibration/machine-emulated-" + size + "-r1.json"));
        for (const auto& host : described["hosts"]) {
            ASSERT_TRUE(host.contains("cpuQuotaCores")) << size << ": " << host.dump();
            EXPECT_GT(host["cpuQuotaCores"].get<double>(), 0.25) << size << ": " << host.dump();
            EXPECT_LT(host["cpuQuotaCores"].get<double>(), 0.75) << size << ": " << host.dump();
        }
    }

    for (const std::string& cluster : {name, name + "cal0", name + "cal1", name + "cpu"}) {
        EXPECT_EQ(Leftovers(cluster), "") << cluster;
    }
}

}  // namespace
}  // namespace bfv::tools
