// link_profile.json: what `bfv commbench` writes and `bfv predict` reads.

#include "predict/link_profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "tests/temp_dir.h"

namespace bfv::predict {
namespace {

using nlohmann::json;

// Eager up to 64 KiB, rendezvous up to 4 MiB, as a shared-memory run might measure.
LinkProfile TwoSegmentProfile() {
    LinkProfile p;
    p.name = "shm";
    p.overall = {3e-6, 6e9, 9e9};
    p.segments = {{256, 65536, {1e-6, 4e9, 8e9}}, {65536, 4194304, {12e-6, 7e9, 10e9}}};
    p.breakpointsBytes = {65536};
    p.nHalfBytes = 12e-6 * 7e9;
    p.apbbwSendBytesPerS = 14e9;
    p.apbbwReceiveBytesPerS = 10e9;
    p.manyToOne = {{1, 1440, 1.2e9, 0.4}, {2, 1440, 1.5e9, 0.6}};
    p.waitCost = {{5e-4, 0.16}, {5e-3, 0.06}};
    p.waitCostBusy = {{5e-4, 0.1}, {5e-3, 0.04}};
    p.schedulerTickS = 4e-3;
    p.host = "node1";
    p.ranks = 3;
    p.transport = "sm,self";
    p.hostCpuQuotas = {{"node1", 0.5, 0.1}, {"node2", 0.0, 0.0}};
    return p;
}

std::string ParseError(const json& doc) {
    auto parsed = ParseLinkProfile(doc, "x.json");
    return parsed ? "parsed" : parsed.error().message;
}

TEST(LinkProfile, JsonRoundTripKeepsEveryField) {
    const LinkProfile p = TwoSegmentProfile();
    auto back = ParseLinkProfile(json::parse(LinkProfileJson(p).dump()), "mem");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->name, "shm");
    EXPECT_EQ(back->overall.alcbwBytesPerS, 6e9);
    ASSERT_EQ(back->segments.size(), 2u);
    EXPECT_EQ(back->segments[1].minBytes, 65536);
    EXPECT_EQ(back->segments[1].params.msgSetupS, 12e-6);
    EXPECT_EQ(back->breakpointsBytes, p.breakpointsBytes);
    EXPECT_EQ(back->nHalfBytes, p.nHalfBytes);
    EXPECT_EQ(back->apbbwSendBytesPerS, 14e9);
    EXPECT_EQ(back->apbbwReceiveBytesPerS, 10e9);
    ASSERT_EQ(back->manyToOne.size(), 2u);
    EXPECT_EQ(back->manyToOne[1].senders, 2);
    EXPECT_EQ(back->manyToOne[1].receiverCpuFraction, 0.6);
    ASSERT_EQ(back->waitCost.size(), 2u);
    EXPECT_EQ(back->waitCost[1].waitS, 5e-3);
    EXPECT_EQ(back->waitCost[1].cpuFraction, 0.06);
    ASSERT_EQ(back->waitCostBusy.size(), 2u);
    EXPECT_EQ(back->waitCostBusy[0].cpuFraction, 0.1);
    EXPECT_EQ(back->schedulerTickS, 4e-3);
    EXPECT_EQ(back->host, "node1");
    EXPECT_EQ(back->ranks, 3);
    EXPECT_EQ(back->transport, "sm,self");
    ASSERT_EQ(back->hostCpuQuotas.size(), 2u);
    EXPECT_EQ(back->hostCpuQuotas[0].host, "node1");
    EXPECT_EQ(back->hostCpuQuotas[0].cpuQuotaCores, 0.5);
    EXPECT_EQ(back->hostCpuQuotas[0].quotaPeriodS, 0.1);
    EXPECT_EQ(LinkProfileJson(*back), LinkProfileJson(p));
    // A measurement's odd quota entries are left out, as its other informational fields are.
    json odd = LinkProfileJson(p);
    odd["hostCpuQuotas"] = json::array(
        {{{"host", 3}}, {{"host", "n"}, {"cpuQuotaCores", 1.0}, {"quotaPeriodS", 0.1}}});
    auto kept = ParseLinkProfile(odd, "odd");
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    ASSERT_EQ(kept->hostCpuQuotas.size(), 1u);
    EXPECT_EQ(kept->hostCpuQuotas[0].host, "n");
}

TEST(LinkProfile, ReadsTheFileItWrote) {
    test_support::TempDir dir;
    std::ofstream(dir.File("link_profile.json")) << LinkProfileJson(TwoSegmentProfile()).dump(2);
    auto read = ReadLinkProfile(dir.File("link_profile.json"));
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->segments.size(), 2u);
    std::ofstream(dir.File("bad.json")) << "{not json";
    EXPECT_NE(ReadLinkProfile(dir.File("bad.json")).error().message.find("not valid JSON"),
              std::string::npos);
    EXPECT_NE(ReadLinkProfile(dir.File("absent.json")).error().message.find("cannot open"),
              std::string::npos);
}

TEST(LinkProfile, ParamsForPicksTheSegmentHoldingTheSize) {
    const LinkProfile p = TwoSegmentProfile();
    EXPECT_EQ(p.ParamsFor(1440).msgSetupS, 1e-6);
    EXPECT_EQ(p.ParamsFor(65536).msgSetupS, 1e-6) << "a breakpoint belongs to the lower regime";
    EXPECT_EQ(p.ParamsFor(65537).msgSetupS, 12e-6);
    EXPECT_EQ(p.ParamsFor(1).msgSetupS, 1e-6) << "below the sweep: the first segment";
    EXPECT_EQ(p.ParamsFor(1e9).msgSetupS, 12e-6) << "above the sweep: the last segment";
}

TEST(LinkProfile, OptionalInformationalFieldsMayBeMissing) {
    json doc = LinkProfileJson(TwoSegmentProfile());
    doc.erase("host");
    doc.erase("ranks");
    doc.erase("transport");
    doc.erase("manyToOne");
    doc.erase("waitCost");  // profiles of older versions of bfv
    doc.erase("waitCostBusy");
    doc.erase("schedulerTickS");
    auto p = ParseLinkProfile(doc, "x.json");
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->transport, "default");
    EXPECT_TRUE(p->manyToOne.empty());
    EXPECT_EQ(p->WaitCpuFraction(1e-3), 0.0) << "no measured waits: waits cost nothing";
    EXPECT_EQ(p->WaitCpuFraction(1e-3, true), 0.0);
    EXPECT_EQ(p->schedulerTickS, 0.0) << "not measured: cores shared smoothly";
}

// Between two measured waits, the share follows log(wait); beyond them, the nearest point's.
TEST(LinkProfile, WaitCpuFractionInterpolatesInLogOfTheWait) {
    const LinkProfile p = TwoSegmentProfile();  // 16% at 0.5 ms, 6% at 5 ms
    EXPECT_DOUBLE_EQ(p.WaitCpuFraction(1e-4), 0.16);
    EXPECT_DOUBLE_EQ(p.WaitCpuFraction(5e-4), 0.16);
    EXPECT_NEAR(p.WaitCpuFraction(std::sqrt(5e-4 * 5e-3)), 0.11, 1e-12);  // half way in log
    EXPECT_DOUBLE_EQ(p.WaitCpuFraction(1.0), 0.06);
    EXPECT_EQ(p.WaitCpuFraction(0.0), 0.0);
}

// On a host whose cores are busy the busy points count (10% at 0.5 ms, 4% at 5 ms); a profile
// that measured none falls back on the idle host's.
TEST(LinkProfile, WaitCpuFractionOnABusyHostUsesTheBusyPoints) {
    LinkProfile p = TwoSegmentProfile();
    EXPECT_DOUBLE_EQ(p.WaitCpuFraction(5e-4, true), 0.1);
    EXPECT_NEAR(p.WaitCpuFraction(std::sqrt(5e-4 * 5e-3), true), 0.07, 1e-12);
    EXPECT_DOUBLE_EQ(p.WaitCpuFraction(1.0, true), 0.04);
    p.waitCostBusy.clear();
    EXPECT_DOUBLE_EQ(p.WaitCpuFraction(5e-4, true), 0.16);
}

TEST(LinkProfile, BadWaitCostsNameTheField) {
    json doc = LinkProfileJson(TwoSegmentProfile());
    json over = doc;
    over["waitCost"][0]["cpuFraction"] = 1.5;
    EXPECT_EQ(ParseError(over),
              "link profile 'x.json': waitCost[0].cpuFraction must be <= 1, got 1.5");
    json unordered = doc;
    unordered["waitCost"][1]["waitS"] = 1e-4;
    EXPECT_NE(ParseError(unordered).find("waitCost[1].waitS must be larger than the one before"),
              std::string::npos)
        << ParseError(unordered);
    json negative = doc;
    negative["waitCost"][0]["waitS"] = -1;
    EXPECT_EQ(ParseError(negative), "link profile 'x.json': waitCost[0].waitS must be > 0, got -1");
    json notArray = doc;
    notArray["waitCost"] = 3;
    EXPECT_EQ(ParseError(notArray), "link profile 'x.json': waitCost must be an array");
    json busyOver = doc;
    busyOver["waitCostBusy"][1]["cpuFraction"] = 2;
    EXPECT_EQ(ParseError(busyOver),
              "link profile 'x.json': waitCostBusy[1].cpuFraction must be <= 1, got 2");
    json tick = doc;
    tick["schedulerTickS"] = -0.004;
    EXPECT_EQ(ParseError(tick), "link profile 'x.json': schedulerTickS must be >= 0, got -0.004");
}

TEST(LinkProfile, MalformedProfilesNameTheField) {
    json doc = LinkProfileJson(TwoSegmentProfile());
    json missing = doc;
    missing["segments"][1].erase("alcbwBytesPerS");
    EXPECT_EQ(ParseError(missing), "link profile 'x.json': segments[1].alcbwBytesPerS is missing");
    json negative = doc;
    negative["segments"][1]["alcbwBytesPerS"] = -3;
    EXPECT_EQ(ParseError(negative),
              "link profile 'x.json': segments[1].alcbwBytesPerS must be > 0, got -3");
    json unordered = doc;
    std::swap(unordered["segments"][0], unordered["segments"][1]);
    EXPECT_NE(ParseError(unordered).find("segments[1].minBytes must equal segments[0].maxBytes"),
              std::string::npos)
        << ParseError(unordered);
    json overall = doc;
    overall["overall"].erase("msgSetupS");
    EXPECT_EQ(ParseError(overall), "link profile 'x.json': overall.msgSetupS is missing");
    json infinite = doc;
    infinite["apbbwSendBytesPerS"] = std::numeric_limits<double>::infinity();
    EXPECT_EQ(ParseError(infinite),
              "link profile 'x.json': apbbwSendBytesPerS must be > 0, got inf");
    json zero = doc;
    zero["overall"]["msgSetupS"] = 0;
    EXPECT_EQ(ParseError(zero), "link profile 'x.json': overall.msgSetupS must be > 0, got 0");
    json text = doc;
    text["nHalfBytes"] = "big";
    EXPECT_EQ(ParseError(text), "link profile 'x.json': nHalfBytes must be a number");
}

TEST(LinkProfile, StructuralErrorsAreNamedToo) {
    json doc = LinkProfileJson(TwoSegmentProfile());
    json version = doc;
    version["bfvLinkProfileVersion"] = 2;
    EXPECT_NE(ParseError(version).find("bfvLinkProfileVersion must be 1"), std::string::npos);
    EXPECT_NE(ParseError(json::array()).find("bfvLinkProfileVersion"), std::string::npos);
    json empty = doc;
    empty["segments"] = json::array();
    empty["breakpointsBytes"] = json::array();
    EXPECT_NE(ParseError(empty).find("segments must hold at least one segment"), std::string::npos);
    json breakpoints = doc;
    breakpoints["breakpointsBytes"] = {1000};
    EXPECT_NE(ParseError(breakpoints).find("breakpointsBytes[0] must equal segments[0].maxBytes"),
              std::string::npos);
    json count = doc;
    count["breakpointsBytes"] = json::array();
    EXPECT_NE(ParseError(count).find("breakpointsBytes must hold one value per boundary"),
              std::string::npos);
    json inverted = doc;
    inverted["segments"][0]["maxBytes"] = 100;
    EXPECT_NE(ParseError(inverted).find("segments[0].maxBytes must exceed minBytes"),
              std::string::npos);
    json senders = doc;
    senders["manyToOne"][1]["senders"] = 0;
    EXPECT_EQ(ParseError(senders),
              "link profile 'x.json': manyToOne[1].senders must be >= 1 and <= 65536 ranks, "
              "got 0");
    senders["manyToOne"][1]["senders"] = 1e12;
    EXPECT_NE(ParseError(senders).find("senders must be >= 1 and <= 65536 ranks, got"),
              std::string::npos);
    json name = doc;
    name.erase("name");
    EXPECT_NE(ParseError(name).find("name is missing"), std::string::npos);
}

// Keys the profile does not know, at its top or inside its lists, are refused naming them.
TEST(LinkProfile, UnknownKeysAreRefusedNamingTheKey) {
    json doc = LinkProfileJson(TwoSegmentProfile());
    json top = doc;
    top["nHalfByte"] = 1;
    EXPECT_EQ(
        ParseError(top).find("link profile 'x.json' has an unknown key \"nHalfByte\" (did you "
                             "mean \"nHalfBytes\"?); the keys are: "),
        0u)
        << ParseError(top);
    struct Case {
        const char* list;
        const char* key;
    } cases[] = {{"segments", "segments[1]"},
                 {"manyToOne", "manyToOne[1]"},
                 {"waitCost", "waitCost[1]"},
                 {"waitCostBusy", "waitCostBusy[1]"}};
    for (const Case& c : cases) {
        json bad = doc;
        bad[c.list][1]["colour"] = 1;
        EXPECT_EQ(ParseError(bad).find(std::string("link profile 'x.json': ") + c.key +
                                       " has an unknown key \"colour\"; the keys are: "),
                  0u)
            << ParseError(bad);
    }
    json overall = doc;
    overall["overall"]["msgSetup"] = 1;
    EXPECT_EQ(ParseError(overall).find("link profile 'x.json': overall has an unknown key "
                                       "\"msgSetup\" (did you mean \"msgSetupS\"?)"),
              0u)
        << ParseError(overall);
}

}  // namespace
}  // namespace bfv::predict
