// resource profile JSON (what `bfv render --profile` writes and `bfv predict` reads): every
// number is checked against its range.

#include "predict/resource_profile.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/instrument.h"
#include "common/render_options.h"

namespace bfv::predict {
namespace {

using nlohmann::json;

json ValidProfile() {
    ResourceProfile p;
    p.widthPx = 640;
    p.heightPx = 360;
    p.columnsPerMessage = 16;
    p.framesMeasured = 20;
    p.app = SeedCase();
    p.codecs = {{common::ColumnCodec::Lz4, 1.6, 1e-9, 5e-10}};
    p.view = {-0.5, 1.2, true, 0.6};
    return ResourceProfileJson(p);
}

std::string ParseError(const json& doc) {
    auto profile = ParseResourceProfile(doc, "p.json");
    return profile.ok() ? "" : profile.error().message;
}

TEST(ResourceProfile, TheWrittenProfileReadsBack) {
    auto profile = ParseResourceProfile(ValidProfile(), "p.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_EQ(profile->columnsPerMessage, 16);
    EXPECT_EQ(profile->framesMeasured, 20);
    EXPECT_NEAR(profile->view.pitchRad, -0.5, 1e-9);
    EXPECT_NEAR(profile->view.hFovRad, 1.2, 1e-9);
    EXPECT_TRUE(profile->view.antialias);
    EXPECT_DOUBLE_EQ(profile->view.marchShare, 0.6);
}

// Profiles written before the view was recorded: every column one vertical plane (pitch 0),
// no anti-aliasing, --fov's default.
TEST(ResourceProfile, AProfileWithoutAViewReadsAsALevelCameraWithoutAntialiasing) {
    json doc = ValidProfile();
    doc.erase("view");
    auto profile = ParseResourceProfile(doc, "p.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_EQ(profile->view.pitchRad, 0.0);
    EXPECT_EQ(profile->view.hFovRad, common::ScreenSpec{}.hFovRad);
    EXPECT_FALSE(profile->view.antialias);
}

// The live stream's costs per frame after warm-up: the in-process server's (TerrainRead) and
// the tiles' decoding and shading (TerrainReceive); the stream's bytes per second of flight.
TEST(ResourceProfile, TheTerrainServerAndTileReceiveAreMeasuredPerFrame) {
    common::RenderOptions options;
    options.view.frameDtS = 0.05;
    common::Recorder total, afterWarmup;
    afterWarmup.Add(common::Activity::TerrainRead, 0.5, 0.5);
    afterWarmup.Add(common::Activity::TerrainReceive, 1.0, 1.0);
    afterWarmup.AddTraffic(common::Activity::TerrainReceive, 1000.0, 1);
    total.Merge(afterWarmup);
    total.Add(common::Activity::TerrainRead, 0.08, 0.04);  // 8 frames after warm-up
    total.Add(common::Activity::TerrainReceive, 0.16, 0.16);
    total.AddTraffic(common::Activity::TerrainReceive, 4000.0, 8);
    ResourceProfile p = BuildResourceProfile(options, "t", total, afterWarmup, 10, 2, 0.0);
    ASSERT_EQ(p.framesMeasured, 8);
    EXPECT_NEAR(p.app.terrainServer.rtexS, 0.01, 1e-12);
    EXPECT_NEAR(p.app.terrainServer.cpuFraction, 0.5, 1e-12);
    EXPECT_NEAR(p.app.tileReceive.rtexS, 0.02, 1e-12);
    EXPECT_NEAR(p.app.tileReceive.cpuFraction, 1.0, 1e-12);
    EXPECT_NEAR(p.app.terrainStreamBytesPerS, 4000.0 / (8 * 0.05), 1e-9);
    auto back = ParseResourceProfile(ResourceProfileJson(p), "p.json");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_NEAR(back->app.tileReceive.rtexS, 0.02, 1e-12);
    EXPECT_NEAR(back->app.terrainServer.rtexS, 0.01, 1e-12);
}

// Profiles written before bfv measured the tile stream have no tileReceive: it reads as 0;
// one that is there is checked like every calculation.
TEST(ResourceProfile, AProfileWithoutTileReceiveReadsAsNoTileCost) {
    json doc = ValidProfile();
    doc["calculations"].erase("tileReceive");
    auto profile = ParseResourceProfile(doc, "p.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_EQ(profile->app.tileReceive.rtexS, 0.0);
    doc["calculations"]["tileReceive"] = {
        {"rtexS", 0.01}, {"cpuFraction", 2}, {"dvolBytes", 0}, {"msgBytes", 0}};
    EXPECT_NE(ParseError(doc).find("calculations.tileReceive.cpuFraction must be >= 0 and <= 1"),
              std::string::npos)
        << ParseError(doc);
}

TEST(ResourceProfile, OutOfRangeNumbersNameTheFieldAndRange) {
    struct Case {
        const char* pointer;  // JSON pointer of the field to change
        json value;
        const char* message;
    } cases[] = {
        {"/calculations/rayTrace/cpuFraction", 1.5,
         "calculations.rayTrace.cpuFraction must be >= 0 and <= 1, got 1.5"},
        {"/calculations/display/rtexS", -1,
         "calculations.display.rtexS must be >= 0 and <= 3600 s"},
        {"/calculations/rayTrace/dvolBytes", "lots",
         "calculations.rayTrace.dvolBytes must be a number"},
        {"/widthPx", 0, "widthPx must be >= 1 and <= 16384 pixels, got 0"},
        {"/heightPx", 1e10, "heightPx must be >= 1 and <= 16384 pixels"},
        {"/columnsPerMessage", 1000,
         "columnsPerMessage must be >= 1 and <= 640 columns (widthPx), got 1000"},
        {"/framesMeasured", "many", "framesMeasured must be a number"},
        {"/terrainStreamBytesPerS", -5, "terrainStreamBytesPerS must be >= 0 bytes/s, got -5"},
        {"/columnCodecs/0/compressionRatio", 0.5, "columnCodecs[0].compressionRatio must be >= 1"},
        {"/columnCostShares", json::array({0.5, -1}), "columnCostShares[1] must be >= 0, got -1"},
        {"/host", 42, "host must be a string"},
        {"/view/pitchDeg", -95, "view.pitchDeg must be >= -90 and <= 90 degrees, got -95"},
        {"/view/hFovDeg", 0, "view.hFovDeg must be >= 1 and <= 160 degrees, got 0"},
        {"/view/antialias", "on", "view.antialias must be true or false"},
        {"/view", 3, "view must be an object"},
        {"/view/marchShare", 1.5, "view.marchShare must be >= 0 and <= 1, got 1.5"},
    };
    for (const Case& c : cases) {
        json doc = ValidProfile();
        doc[json::json_pointer(c.pointer)] = c.value;
        std::string message = ParseError(doc);
        EXPECT_NE(message.find(c.message), std::string::npos)
            << c.message << "\n got '" << message << "'";
        EXPECT_NE(message.find("resource profile 'p.json'"), std::string::npos) << message;
    }
}

TEST(ResourceProfile, AVersionOfTheWrongTypeIsRefusedNotThrown) {
    json doc = ValidProfile();
    doc["bfvResourceProfileVersion"] = "one";
    EXPECT_NE(ParseError(doc).find("bfvResourceProfileVersion must be 1"), std::string::npos);
}

// Found by fuzz/resource_profile_fuzz.cpp: a field of the wrong type threw nlohmann::json's
// type_error out of the parser (and `bfv predict` died in std::terminate).
TEST(ResourceProfile, AFieldOfTheWrongTypeIsAnError) {
    for (const char* field : {"terrain", "host", "framesMeasured", "bfvResourceProfileVersion"}) {
        nlohmann::json doc = ValidProfile();
        doc[field] = field == std::string("terrain") || field == std::string("host")
                         ? nlohmann::json(160)
                         : nlohmann::json("many");
        auto profile = ParseResourceProfile(doc, "p.json");
        ASSERT_FALSE(profile.ok()) << field;
        EXPECT_TRUE(profile.error().message.starts_with("resource profile 'p.json': "))
            << profile.error().message;
    }
}

// Found by fuzz/resource_profile_fuzz.cpp (UBSan): a huge number where an integer belongs was
// converted to int (undefined behaviour) before it was checked.
TEST(ResourceProfile, AHugeNumberWhereAnIntegerBelongsIsAnError) {
    for (const char* field : {"bfvResourceProfileVersion", "framesMeasured"}) {
        nlohmann::json doc = ValidProfile();
        doc[field] = 3.3e34;
        auto profile = ParseResourceProfile(doc, "p.json");
        ASSERT_FALSE(profile.ok()) << field;
        EXPECT_TRUE(profile.error().message.find(field) != std::string::npos)
            << profile.error().message;
    }
}

// Keys the profile does not know, at its top, in its calculations, start-up or codecs, are
// refused naming them.
TEST(ResourceProfile, UnknownKeysAreRefusedNamingTheKey) {
    struct Case {
        std::vector<std::string> at;  // the object's path in the profile; the key is added there
        std::string key, message;
    } cases[] = {
        {{},
         "widthPX",
         "resource profile 'p.json' has an unknown key \"widthPX\" (did you mean "
         "\"widthPx\"?)"},
        {{"calculations"},
         "raytrace",
         "resource profile 'p.json': calculations has an unknown "
         "key \"raytrace\" (did you mean \"rayTrace\"?)"},
        {{"calculations", "rayTrace"},
         "rtex",
         "resource profile 'p.json': calculations.rayTrace has an unknown key \"rtex\" (did "
         "you mean \"rtexS\"?)"},
        {{"startup"},
         "terrainReadMs",
         "resource profile 'p.json': startup has an unknown key "
         "\"terrainReadMs\" (did you mean \"terrainReadS\"?)"},
        {{"view"},
         "pitch",
         "resource profile 'p.json': view has an unknown key \"pitch\"; the keys are: "
         "pitchDeg, hFovDeg, antialias, marchShare"},
    };
    for (const Case& c : cases) {
        json doc = ValidProfile();
        json* object = &doc;
        for (const std::string& step : c.at) object = &(*object)[step];
        (*object)[c.key] = 1;
        EXPECT_EQ(ParseError(doc).find(c.message), 0u) << ParseError(doc);
    }
    json codec = ValidProfile();
    codec["columnCodecs"][0]["ratio"] = 2;
    EXPECT_EQ(ParseError(codec).find("resource profile 'p.json': columnCodecs[0] has an unknown "
                                     "key \"ratio\""),
              0u)
        << ParseError(codec);
}

}  // namespace
}  // namespace bfv::predict
