#include "predict/machine_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/temp_dir.h"

namespace bfv::predict {
namespace {

using test_support::TempDir;

void WriteLink(const TempDir& dir, const std::string& name, double alcbw) {
    predict::LinkProfile link;
    link.name = name;
    link.overall = {1e-5, alcbw, alcbw * 2};
    link.segments = {{0.0, 1e9, link.overall}};
    link.nHalfBytes = 1e-5 * alcbw;
    link.apbbwSendBytesPerS = link.apbbwReceiveBytesPerS = alcbw * 2;
    std::ofstream(dir.File(name + ".json")) << predict::LinkProfileJson(link).dump();
}

std::string WriteMachine(const TempDir& dir, const std::string& text) {
    WriteLink(dir, "shm", 5e9);
    WriteLink(dir, "gige", 1.1e8);
    std::ofstream(dir.File("machine.json")) << text;
    return dir.File("machine.json");
}

const char* kLab =
    R"({"name": "lab", "hosts": [{"name": "head", "cores": 4, "nics": ["gige", "gige"]},
    {"name": "node", "count": 3, "cores": 2, "cpuSpeed": 1.5, "nics": ["gige"]}],
    "displayReceiveThreads": 2, "links": {"shm": "shm.json", "gige": "gige.json"}})";

TEST(MachineFile, ExpandsCountedHostsAndLoadsLinksRelativeToTheFile) {
    TempDir dir;
    auto m = ReadMachineFile(WriteMachine(dir, kLab));
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_EQ(m->machine.hosts.size(), 4u);
    EXPECT_EQ(m->machine.hosts[3].name, "node3");
    EXPECT_EQ(m->machine.hosts[3].cpuSpeed, 1.5);
    EXPECT_EQ(m->machine.hosts[0].nics.size(), 2u);
    EXPECT_EQ(m->machine.displayReceiveThreads, 2);
    EXPECT_DOUBLE_EQ(m->links.at("gige").overall.alcbwBytesPerS, 1.1e8);
    EXPECT_EQ(m->machine.switchBytesPerS, 0.0);  // non-blocking unless described
}

// A container's CPU limit: cpuQuotaCores cores of CPU time per quotaPeriodS (100 ms unless
// given, as CFS), on every host of a counted group.
TEST(MachineFile, ReadsAHostsCpuQuota) {
    TempDir dir;
    auto m = ReadMachineFile(WriteMachine(dir, R"({"hosts": [{"name": "pod", "count": 2,
        "cores": 4, "cpuQuotaCores": 1.5}, {"name": "d", "cpuQuotaCores": 0.5,
        "quotaPeriodS": 0.01}], "links": {"shm": "shm.json"}})"));
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_EQ(m->machine.hosts.size(), 3u);
    EXPECT_EQ(m->machine.hosts[1].cpuQuotaCores, 1.5);
    EXPECT_EQ(m->machine.hosts[1].quotaPeriodS, 0.1);
    EXPECT_EQ(m->machine.hosts[2].quotaPeriodS, 0.01);
    EXPECT_EQ(CapacityCores(m->machine.hosts[0]), 1.5);  // the quota, not the 4 cores
    EXPECT_EQ(ReadMachineFile(WriteMachine(dir, kLab))->machine.hosts[0].cpuQuotaCores, 0.0);
}

TEST(MachineFile, ReadsASharedSwitch) {
    TempDir dir;
    auto m = ReadMachineFile(WriteMachine(
        dir,
        R"({"hosts": [{"name": "a"}], "switchBytesPerS": 1.25e9, "links": {"shm": "shm.json"}})"));
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_DOUBLE_EQ(m->machine.switchBytesPerS, 1.25e9);
}

TEST(MachineFile, BadFieldsAreNamed) {
    TempDir dir;
    auto message = [&](const std::string& text) {
        auto m = ReadMachineFile(WriteMachine(dir, text));
        return m.ok() ? std::string() : m.error().message;
    };
    EXPECT_NE(message(R"({"hosts": [], "links": {}})").find("hosts"), std::string::npos);
    EXPECT_NE(message(R"({"hosts": [{"name": "a", "cores": 0}], "links": {"shm": "shm.json"}})")
                  .find("hosts[0].cores"),
              std::string::npos);
    EXPECT_NE(message(R"({"hosts": [{"name": "a", "cpuSpeed": -1}], "links": {"shm": "shm.json"}})")
                  .find("hosts[0].cpuSpeed"),
              std::string::npos);
    EXPECT_NE(message(R"({"hosts": [{"name": "a", "nics": ["ib"]}], "links": {"shm": "shm.json"}})")
                  .find("'ib'"),
              std::string::npos);
    EXPECT_NE(message(R"({"hosts": [{"name": "a"}], "links": {"shm": "missing.json"}})")
                  .find("links.shm"),
              std::string::npos);
    EXPECT_NE(
        message(
            R"({"hosts": [{"name": "a"}], "placement": "random", "links": {"shm": "shm.json"}})")
            .find("placement"),
        std::string::npos);
    EXPECT_NE(message("not json").find("not valid JSON"), std::string::npos);
    EXPECT_NE(message("[1, 2]").find("not a JSON object"), std::string::npos);
}

// Found through fuzz/machine_file_fuzz.cpp with a hand-made input, after
// fuzz/resource_profile_fuzz.cpp found the same bug there: a field of the wrong type threw
// nlohmann::json's type_error out of ReadMachineFile, and `bfv predict` died in std::terminate.
TEST(MachineFile, AFieldOfTheWrongTypeIsAnError) {
    TempDir dir;
    for (const char* text :
         {R"({"name": 5, "hosts": [{"name": "a"}], "links": {"shm": "shm.json"}})",
          R"({"hosts": [{"name": "a", "cpuSpeed": "fast"}],
                                 "links": {"shm": "shm.json"}})"}) {
        auto m = ReadMachineFile(WriteMachine(dir, text));
        ASSERT_FALSE(m.ok()) << text;
        EXPECT_TRUE(m.error().message.starts_with("machine file '")) << m.error().message;
    }
}

TEST(MachineFile, HostfileFillsSlotsAndRejectsUnknownHosts) {
    TempDir dir;
    auto m = ReadMachineFile(WriteMachine(dir, kLab));
    ASSERT_TRUE(m.ok());
    std::ofstream(dir.File("hosts")) << "# lab\nnode2:2\nhead\n";
    ASSERT_TRUE(ApplyHostfile(dir.File("hosts"), m->machine).ok());
    EXPECT_EQ(m->machine.hostOfSlot, (std::vector<int>{2, 2, 0}));
    std::ofstream(dir.File("bad")) << "node9:1\n";
    auto bad = ApplyHostfile(dir.File("bad"), m->machine);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'node9'"), std::string::npos);
}

// Numbers outside their range (or of the wrong type) are refused with the file, the field, the
// range and the value, never thrown as a JSON type error.
TEST(MachineFile, OutOfRangeFieldsNameTheirRange) {
    TempDir dir;
    auto message = [&](const std::string& host, const std::string& rest = "") {
        auto m =
            ReadMachineFile(WriteMachine(dir, R"({"hosts": [{"name": "a")" + host + "}]" + rest +
                                                  R"(, "links": {"shm": "shm.json"}})"));
        return m.ok() ? std::string() : m.error().message;
    };
    struct Case {
        std::string host, rest, part;
    } cases[] = {
        {R"(, "cores": 0)", "", "hosts[0].cores must be >= 1 and <= 4096 cores, got 0"},
        {R"(, "cores": 1e12)", "", "hosts[0].cores must be >= 1 and <= 4096 cores"},
        {R"(, "cores": 2.5)", "", "hosts[0].cores must be a whole number, got 2.5"},
        {R"(, "count": 1e9)", "",
         "hosts[0].count must be >= 1 and <= 100000 hosts, got 1000000000"},
        {R"(, "cpuSpeed": 0)", "", "hosts[0].cpuSpeed must be > 0 and <= 1000, got 0"},
        {R"(, "cpuSpeed": 1e300)", "", "hosts[0].cpuSpeed must be > 0 and <= 1000, got 1e+300"},
        {R"(, "cpuSpeed": "fast")", "", "hosts[0].cpuSpeed must be a number"},
        {R"(, "cores": 2, "capacityCores": 3)", "",
         "hosts[0].capacityCores must be >= 0 and <= 2 cores, got 3"},
        {R"(, "nics": "gige")", "", "hosts[0].nics must be a list of link names"},
        {R"(, "cpuQuotaCores": -0.5)", "",
         "hosts[0].cpuQuotaCores must be >= 0 and <= 1 cores, got -0.5"},
        {R"(, "cores": 2, "cpuQuotaCores": 2.5)", "",
         "hosts[0].cpuQuotaCores must be >= 0 and <= 2 cores, got 2.5"},
        {R"(, "cpuQuotaCores": "half")", "", "hosts[0].cpuQuotaCores must be a number"},
        {R"(, "quotaPeriodS": 0)", "", "hosts[0].quotaPeriodS must be >= 0.001 and <= 1 s, got 0"},
        {R"(, "quotaPeriodS": 10)", "",
         "hosts[0].quotaPeriodS must be >= 0.001 and <= 1 s, got 10"},
        {"", R"(, "displayReceiveThreads": 0)",
         "displayReceiveThreads must be >= 1 and <= 64 threads, got 0"},
        {"", R"(, "intraHostLink": 3)", "intraHostLink must be a string"},
        {"", R"(, "switchBytesPerS": -1)",
         "switchBytesPerS must be >= 0 and <= 1000000000000000 bytes/s, got -1"},
        {"", R"(, "switchBytesPerS": "fast")", "switchBytesPerS must be a number"},
    };
    for (const Case& c : cases) {
        std::string m = message(c.host, c.rest);
        EXPECT_NE(m.find(c.part), std::string::npos) << c.part << "\ngot '" << m << "'";
        EXPECT_NE(m.find("machine file '"), std::string::npos) << m;
    }
}

TEST(MachineFile, HostfileSlotsAreBounded) {
    TempDir dir;
    auto m = ReadMachineFile(WriteMachine(dir, kLab));
    ASSERT_TRUE(m.ok());
    for (const char* line : {"head:0\n", "head:99999999999999999999\n"}) {
        std::ofstream(dir.File("hosts")) << line;
        auto bad = ApplyHostfile(dir.File("hosts"), m->machine);
        ASSERT_FALSE(bad.ok()) << line;
        EXPECT_NE(bad.error().message.find("line 1: slots must be >= 1 and <= 4096 slots"),
                  std::string::npos)
            << bad.error().message;
    }
}

// A key the description does not know, of the machine or of a host, is refused naming it and
// the close known one (an emulated cluster's "cpu" given to bfv predict, a misspelt "nic").
TEST(MachineFile, UnknownKeysAreRefusedNamingTheKey) {
    TempDir dir;
    auto message = [&](const std::string& text) {
        auto m = ReadMachineFile(WriteMachine(dir, text));
        return m.ok() ? std::string() : m.error().message;
    };
    const std::string file = "machine file '" + dir.File("machine.json") + "'";
    EXPECT_EQ(message(R"({"hosts": [{"name": "a"}], "links": {"shm": "shm.json"},
                          "displayReceiveThread": 2})"),
              file +
                  " has an unknown key \"displayReceiveThread\" (did you mean "
                  "\"displayReceiveThreads\"?); the keys are: name, hosts, links, "
                  "intraHostLink, displayReceiveThreads, placement, switchBytesPerS");
    EXPECT_EQ(message(R"({"hosts": [{"name": "a"}, {"name": "b", "nic": ["shm"]}],
                          "links": {"shm": "shm.json"}})"),
              file +
                  ": hosts[1] has an unknown key \"nic\" (did you mean \"nics\"?); the keys "
                  "are: name, cores, count, cpuSpeed, capacityCores, nics, cpuQuotaCores, "
                  "quotaPeriodS");
}

// A host of "count" > 1 is several hosts of the machine, but an error names the host by its
// place in the file: the second host written, after one of count 3, is hosts[1], not hosts[3].
TEST(MachineFile, AnErrorNamesTheHostByItsIndexInTheFile) {
    TempDir dir;
    auto m = ReadMachineFile(WriteMachine(dir, R"({"hosts": [{"name": "n", "count": 3},
        {"name": "d", "nics": ["ib"]}], "links": {"shm": "shm.json"}})"));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().message, "machine file '" + dir.File("machine.json") +
                                     "': hosts[1].nics names link 'ib', which \"links\" does not "
                                     "map to a profile");
}

}  // namespace
}  // namespace bfv::predict
