#include "common/flight.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>

#include "tests/expected_error.h"

namespace bfv::common {
namespace {

namespace fs = std::filesystem;
constexpr double kPi = std::numbers::pi;

double Ground(double xM, double yM) { return 100.0 + 0.05 * xM + 20.0 * std::sin(yM / 300.0); }

FlightStyle Style() {
    FlightStyle style;
    style.aglM = 150.0;
    style.speedMPerS = 20.0;
    style.lookAheadM = 50.0;
    return style;
}

// An L: 1000 m east, then 600 m north.
Flight LFlight(bool loop) {
    return Flight::FromWaypoints({{0, 0}, {1000, 0}, {1000, 600}}, loop, Style(), Ground);
}

double HorizontalDistance(const CameraPose& a, const CameraPose& b) {
    return std::hypot(a.eyeM.x - b.eyeM.x, a.eyeM.y - b.eyeM.y);
}

TEST(Flight, MovesAtItsSpeedAlongALeg) {
    Flight flight = LFlight(false);
    for (double t : {0.0, 10.0, 31.5}) {  // all within the 50 s first leg
        EXPECT_NEAR(HorizontalDistance(flight.PoseAt(t), flight.PoseAt(t + 1.0)), 20.0, 1e-9);
    }
    EXPECT_NEAR(flight.PoseAt(10.0).eyeM.x, 200.0, 1e-9);
    EXPECT_NEAR(flight.PoseAt(10.0).eyeM.y, 0.0, 1e-9);
}

TEST(Flight, KeepsItsHeightAboveTheGround) {
    Flight flight = LFlight(true);
    for (double t = 0.0; t < 200.0; t += 7.3) {
        CameraPose pose = flight.PoseAt(t);
        EXPECT_NEAR(pose.eyeM.z - Ground(pose.eyeM.x, pose.eyeM.y), 150.0, 1e-9) << "t " << t;
        EXPECT_DOUBLE_EQ(pose.timeS, t);
        EXPECT_DOUBLE_EQ(pose.pitchRad, Style().pitchRad);
    }
}

TEST(Flight, HeadsAlongTheLeg) {
    Flight flight = LFlight(false);
    EXPECT_NEAR(flight.PoseAt(10.0).headingRad, kPi / 2, 1e-9);  // east
    EXPECT_NEAR(flight.PoseAt(60.0).headingRad, 0.0, 1e-9);      // north, second leg
}

TEST(Flight, LoopReturnsToTheStart) {
    Flight flight = LFlight(true);
    double lengthM = 1000.0 + 600.0 + std::hypot(1000.0, 600.0);
    EXPECT_NEAR(flight.PathLengthM(), lengthM, 1e-9);
    CameraPose start = flight.PoseAt(0.0), again = flight.PoseAt(lengthM / 20.0);
    EXPECT_NEAR(HorizontalDistance(start, again), 0.0, 1e-6);
    EXPECT_NEAR(HorizontalDistance(flight.PoseAt(12.0), flight.PoseAt(12.0 + lengthM / 20.0)), 0.0,
                1e-6);
    // Just before closing the loop it flies the closing leg back towards the start.
    CameraPose closing = flight.PoseAt(lengthM / 20.0 - 5.0);
    EXPECT_NEAR(HorizontalDistance(closing, start), 100.0, 1e-6);
}

TEST(Flight, OpenFlightStopsAtTheLastWaypoint) {
    // 600 m north, then 1000 m east: 80 s at 20 m/s.
    Flight flight = Flight::FromWaypoints({{0, 0}, {0, 600}, {1000, 600}}, false, Style(), Ground);
    EXPECT_NEAR(flight.PathLengthM(), 1600.0, 1e-9);
    for (double t : {80.0, 80.01, 100.0, 1000.0}) {
        CameraPose pose = flight.PoseAt(t);
        EXPECT_NEAR(pose.eyeM.x, 1000.0, 1e-9) << "t " << t;
        EXPECT_NEAR(pose.eyeM.y, 600.0, 1e-9) << "t " << t;
        EXPECT_NEAR(pose.headingRad, kPi / 2, 1e-9) << "t " << t << ": still facing the last leg";
    }
}

TEST(Flight, DefaultCircuitIsALoopAroundTheCentre) {
    Flight flight = Flight::DefaultCircuit(3000.0, 2000.0, Style(), Ground);
    double radiusM = 600.0;
    EXPECT_NEAR(flight.PathLengthM(), 2 * kPi * radiusM, 0.01 * radiusM);  // 72-gon
    for (double t = 0.0; t < 200.0; t += 13.0) {
        CameraPose p = flight.PoseAt(t);
        EXPECT_NEAR(std::hypot(p.eyeM.x - 1500.0, p.eyeM.y - 1000.0), radiusM, 0.01 * radiusM);
    }
}

TEST(Flight, RecordedPosesInterpolateAndHoldTheLast) {
    CameraPose a{{0, 0, 100}, 0.1, -0.2, 0.0};
    CameraPose b{{100, 50, 200}, 2 * kPi - 0.1, -0.4, 0.0};  // heading wraps through north
    Flight flight = Flight::FromPoses({{10.0, a}, {20.0, b}});
    CameraPose mid = flight.PoseAt(15.0);
    EXPECT_NEAR(mid.eyeM.x, 50.0, 1e-9);
    EXPECT_NEAR(mid.eyeM.y, 25.0, 1e-9);
    EXPECT_NEAR(mid.eyeM.z, 150.0, 1e-9);
    EXPECT_NEAR(std::remainder(mid.headingRad, 2 * kPi), 0.0, 1e-9);  // the short way round
    EXPECT_NEAR(mid.pitchRad, -0.3, 1e-9);
    EXPECT_NEAR(flight.PoseAt(0.0).eyeM.x, 0.0, 1e-12);     // before the first: the first
    EXPECT_NEAR(flight.PoseAt(99.0).eyeM.x, 100.0, 1e-12);  // after the last: the last
    EXPECT_NEAR(flight.PoseAt(99.0).pitchRad, -0.4, 1e-12);
}

class FlightFile : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("bfv_flight_test_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string Write(const std::string& text) {
        std::string path = (dir_ / "flight.json").string();
        std::ofstream(path) << text;
        return path;
    }
    // The error message of loading `text`, or "" if it loads.
    std::string ErrorOf(const std::string& text) {
        Expected<Flight> flight = LoadFlightFile(Write(text), Ground);
        return flight.ok() ? "" : flight.error().message;
    }

    fs::path dir_;
};

TEST_F(FlightFile, LoadsWaypointsWithStyle) {
    Expected<Flight> flight =
        LoadFlightFile(Write(R"({"waypoints": [[0, 0], [300, 400]], "loop": false, "aglM": 50,
                 "pitchDeg": -10, "speedMPerS": 25})"),
                       Ground);
    ASSERT_TRUE(flight.ok()) << flight.error().message;
    EXPECT_NEAR(flight->PathLengthM(), 500.0, 1e-9);
    CameraPose pose = flight->PoseAt(4.0);  // 100 m along
    EXPECT_NEAR(pose.eyeM.x, 60.0, 1e-9);
    EXPECT_NEAR(pose.eyeM.y, 80.0, 1e-9);
    EXPECT_NEAR(pose.eyeM.z, Ground(60.0, 80.0) + 50.0, 1e-9);
    EXPECT_NEAR(pose.pitchRad, -10.0 * kPi / 180.0, 1e-12);
    EXPECT_NEAR(flight->PoseAt(100.0).eyeM.x, 300.0, 1e-9);  // not a loop: stays at the end
}

TEST_F(FlightFile, LoadsRecordedPoses) {
    Expected<Flight> flight = LoadFlightFile(Write(R"({"poses": [
            {"timeS": 0, "xM": 0, "yM": 0, "zM": 500, "headingDeg": 90, "pitchDeg": -20},
            {"timeS": 2, "xM": 40, "yM": 0, "zM": 520, "headingDeg": 90, "pitchDeg": -20}]})"),
                                             Ground);
    ASSERT_TRUE(flight.ok()) << flight.error().message;
    CameraPose pose = flight->PoseAt(1.0);
    EXPECT_NEAR(pose.eyeM.x, 20.0, 1e-9);
    EXPECT_NEAR(pose.eyeM.z, 510.0, 1e-9);
    EXPECT_NEAR(pose.headingRad, kPi / 2, 1e-12);
}

// Found through fuzz/flight_file_fuzz.cpp with a hand-made input, after
// fuzz/resource_profile_fuzz.cpp found the same bug there: a field of the wrong type threw
// nlohmann::json's type_error out of LoadFlightFile, and `bfv render --flight` died in
// std::terminate.
TEST_F(FlightFile, AFieldOfTheWrongTypeIsAnError) {
    for (const char* json : {R"({"waypoints": [[0, 0], [100, 100]], "loop": 3})",
                             R"({"waypoints": [[0, 0], [100, 100]], "aglM": "high"})"}) {
        std::string error = ErrorOf(json);
        EXPECT_TRUE(error.starts_with("flight file '")) << json << ": " << error;
    }
}

TEST_F(FlightFile, ErrorsNameTheProblem) {
    auto missing = LoadFlightFile((dir_ / "absent.json").string(), Ground);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
    EXPECT_NE(missing.error().message.find("absent.json"), std::string::npos);

    struct Case {
        const char* json;
        const char* messagePart;
    } cases[] = {
        {R"({"waypoints": [[0, 0], )", "not valid JSON"},
        {R"([1, 2])", "JSON object"},
        {R"({"route": []})", "\"waypoints\" or \"poses\""},
        {R"({"waypoints": [[0, 0]]})", "at least 2"},
        {R"({"waypoints": [[0, 0], [5, 5], [5, 5]]})", "waypoint 2 repeats"},
        {R"({"waypoints": [[0, 0], [5]]})", "waypoint 1 is not an [x, y] pair"},
        {R"({"waypoints": [[0, 0], [5, 5]], "aglM": "high"})", "\"aglM\" must be a number"},
        {R"({"waypoints": [[0, 0], [5, 5]], "loop": "yes"})", "\"loop\" must be true or false"},
        {R"({"poses": []})", "\"poses\" must be a list of at least one pose"},
        {R"({"poses": {}})", "\"poses\" must be a list of at least one pose"},
        {R"({"poses": [{"timeS": 0, "xM": 0, "yM": 0, "zM": 1, "headingDeg": 0}]})",
         "pose 0 needs a number \"pitchDeg\""},
        {R"({"poses": [{"timeS": 1, "xM": 0, "yM": 0, "zM": 1, "headingDeg": 0, "pitchDeg": 0},
                       {"timeS": 1, "xM": 1, "yM": 0, "zM": 1, "headingDeg": 0, "pitchDeg": 0}]})",
         "pose 1: timeS must increase"},
    };
    for (const Case& c : cases) {
        std::string message = ErrorOf(c.json);
        EXPECT_NE(message.find(c.messagePart), std::string::npos)
            << "input " << c.json << "\nmessage '" << message << "'";
        EXPECT_NE(message.find("flight.json"), std::string::npos) << message;
    }
}

// A key of neither form (a misspelt "speedMph") was ignored, and the flight flown at the default
// speed; a file with both forms flew the waypoints and ignored the poses. Each is refused,
// naming the file and the key.
TEST_F(FlightFile, UnknownKeysAndBothFormsAreRefused) {
    const std::string file = "flight file '" + (dir_ / "flight.json").string() + "'";
    EXPECT_EQ(ErrorOf(R"({"waypoints": [[0, 0], [5, 5]], "speedMph": 60})"),
              file +
                  " has an unknown key \"speedMph\" (did you mean \"speedMPerS\"?); the keys are: "
                  "waypoints, loop, aglM, " +
                  "pitchDeg, speedMPerS");
    EXPECT_EQ(ErrorOf(R"({"poses": [{"timeS": 0, "xM": 0, "yM": 0, "zM": 1, "headingDeg": 0,
                                     "pitchDeg": 0}], "aglM": 50})"),
              file + " has an unknown key \"aglM\"; the keys are: poses");
    EXPECT_EQ(ErrorOf(R"({"poses": [{"timeS": 0, "xM": 0, "yM": 0, "zFt": 1, "zM": 1,
                                     "headingDeg": 0, "pitchDeg": 0}]})"),
              file +
                  ": pose 0 has an unknown key \"zFt\" (did you mean \"zM\"?); the keys are: "
                  "timeS, xM, yM, zM, " +
                  "headingDeg, pitchDeg, headingRad, pitchRad");
    EXPECT_EQ(ErrorOf(R"({"waypoints": [[0, 0], [5, 5]], "poses": [{"timeS": 0, "xM": 0,
                          "yM": 0, "zM": 1, "headingDeg": 0, "pitchDeg": 0}]})"),
              file + ": has both \"waypoints\" and \"poses\"; give one: waypoints to fly a " +
                  "path, poses to replay a recorded flight");
}

// Every number of a flight file is checked against its range; the error names the file, the
// field (with the waypoint or pose index), the allowed range and the value.
TEST_F(FlightFile, OutOfRangeNumbersAreRefusedWithTheirRange) {
    auto pose = [](const std::string& fields) {
        return R"({"poses": [{"timeS": 0, "xM": 0, "yM": 0, "zM": 500, "headingDeg": 0,
                              "pitchDeg": 0}, {)" +
               fields + "}]}";
    };
    const std::string good = R"("timeS": 1, "xM": 0, "yM": 0, "zM": 500, "headingDeg": 0)";
    struct Case {
        std::string json;
        const char* messagePart;
    } cases[] = {
        {R"({"waypoints": [[0, 0], [5, 5]], "aglM": -2000})",
         "\"aglM\" must be > 0 and <= 100000 m, got -2000"},
        {R"({"waypoints": [[0, 0], [5, 5]], "aglM": 0})", "\"aglM\" must be > 0"},
        {R"({"waypoints": [[0, 0], [5, 5]], "speedMPerS": -3})",
         "\"speedMPerS\" must be >= 0 and <= 10000 m/s, got -3"},
        {R"({"waypoints": [[0, 0], [5, 5]], "speedMPerS": 1e300})",
         "\"speedMPerS\" must be >= 0 and <= 10000 m/s, got 1e+300"},
        // nlohmann refuses a number too large for a double rather than reading infinity.
        {R"({"waypoints": [[0, 0], [5, 5]], "speedMPerS": 1e999})", "not valid JSON"},
        {R"({"waypoints": [[0, 0], [5, 5]], "pitchDeg": -91})",
         "\"pitchDeg\" must be >= -90 and <= 90 degrees, got -91"},
        {R"({"waypoints": [[0, 0], [5, 5]], "pitchDeg": 90.5})", "got 90.5"},
        {R"({"waypoints": [[0, 0], [2e7, 5]]})",
         "waypoint 1 x must be >= -10000000 and <= 10000000 m, got 20000000"},
        {R"({"waypoints": [[0, 0], [5, -1e300]]})", "waypoint 1 y must be >= -10000000"},
        {R"({"waypoints": [[0, 0], [5, "north"]]})", "waypoint 1 y must be a number"},
        {pose(good + R"(, "pitchDeg": -91)"),
         "pose 1 \"pitchDeg\" must be >= -90 and <= 90 degrees, got -91"},
        {pose(R"("timeS": 1, "xM": 1e300, "yM": 0, "zM": 500, "headingDeg": 0, "pitchDeg": 0)"),
         "pose 1 \"xM\" must be >= -10000000 and <= 10000000 m, got 1e+300"},
        {pose(R"("timeS": 1, "xM": 0, "yM": 0, "zM": 2e5, "headingDeg": 0, "pitchDeg": 0)"),
         "pose 1 \"zM\" must be >= -100000 and <= 100000 m, got 200000"},
        {pose(R"("timeS": 1e300, "xM": 0, "yM": 0, "zM": 5, "headingDeg": 0, "pitchDeg": 0)"),
         "pose 1 \"timeS\" must be"},
        {pose(R"("timeS": 1, "xM": 0, "yM": 0, "zM": 5, "headingDeg": 1e300, "pitchDeg": 0)"),
         "pose 1 \"headingDeg\" must be"},
    };
    for (const Case& c : cases) {
        std::string message = ErrorOf(c.json);
        EXPECT_NE(message.find(c.messagePart), std::string::npos)
            << "input " << c.json << "\nmessage '" << message << "'";
        EXPECT_NE(message.find("flight file '"), std::string::npos) << message;
    }
}

// The bounds themselves are allowed where the range includes them; a hovering flight (speed 0)
// and a look straight down or up (pitch -90 or 90) are valid.
TEST_F(FlightFile, ValuesInsideTheRangesAreAccepted) {
    EXPECT_EQ(ErrorOf(R"({"waypoints": [[-1e7, 0], [1e7, 5]], "aglM": 100000, "speedMPerS": 0,
                          "pitchDeg": -90})"),
              "");
    EXPECT_EQ(ErrorOf(R"({"poses": [{"timeS": 0, "xM": 0, "yM": 0, "zM": -100000,
                                      "headingDeg": 720, "pitchDeg": 90},
                                     {"timeS": 1, "xM": 0, "yM": 0, "zM": 5,
                                      "headingDeg": 0, "pitchDeg": -90}]})"),
              "");
}

// A recorded flight keeps the poses in order, drops the ones a pause held at the same time,
// and carries the angles in radians as well as degrees.
TEST(RecordedFlightJson, KeepsEachLaterPoseWithItsAngles) {
    std::vector<CameraPose> poses{{{1.0, 2.0, 3.0}, 0.5, -0.25, 0.0},
                                  {{4.0, 5.0, 6.0}, 0.75, -0.5, 0.1},
                                  {{4.0, 5.0, 6.0}, 0.75, -0.5, 0.1},
                                  {{7.0, 8.0, 9.0}, 1.0, -0.125, 0.2}};
    auto json = nlohmann::json::parse(RecordedFlightJson(poses));
    ASSERT_EQ(json["poses"].size(), 3u);
    EXPECT_EQ(json["poses"][1]["xM"], 4.0);
    EXPECT_EQ(json["poses"][2]["timeS"], 0.2);
    EXPECT_EQ(json["poses"][2]["headingRad"], 1.0);
    EXPECT_EQ(json["poses"][2]["pitchRad"], -0.125);
    EXPECT_NEAR(json["poses"][0]["headingDeg"].get<double>(), 28.64788975654116, 1e-9);
}

// A flight 5000 km off the terrain, or under its ground, rendered blank frames without a word.
TEST(Flight, AFlightOffTheTerrainOrBelowItsGroundIsNamed) {
    GroundFn ground = [](double, double) { return 100.0; };
    Flight off = Flight::FromWaypoints({{10, 10}, {5000000, 20}}, false, FlightStyle{}, ground);
    EXPECT_EQ(test_support::ErrorOf(off.CheckOverTerrain(1000, 2000, ground)),
              "waypoint 1 (5000000, 20) m lies outside the terrain (0..1000 x 0..2000 m)");
    TimedPose above{0.0, {glm::dvec3(500, 500, 150), 0.0, 0.0, 0.0}};
    TimedPose below{1.0, {glm::dvec3(500, 600, 58), 0.0, 0.0, 1.0}};
    Flight under = Flight::FromPoses({above, below});
    EXPECT_EQ(test_support::ErrorOf(under.CheckOverTerrain(1000, 2000, ground)),
              "pose 1 (500, 600, 58) m is 42.0 m below the ground");
    EXPECT_EQ(test_support::ErrorOf(Flight::FromPoses({above}).CheckOverTerrain(400, 2000, ground)),
              "pose 0 (500, 500, 150) m lies outside the terrain (0..400 x 0..2000 m)");
    EXPECT_TRUE(Flight::FromPoses({above}).CheckOverTerrain(1000, 2000, ground).ok());
    EXPECT_TRUE(Flight::DefaultCircuit(1000, 2000, FlightStyle{}, ground)
                    .CheckOverTerrain(1000, 2000, ground)
                    .ok());
}

}  // namespace
}  // namespace bfv::common
