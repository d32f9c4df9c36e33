#include "display/pilot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <glm/geometric.hpp>
#include <vector>

namespace bfv::display {
namespace {

double FlatGround(double, double) { return 100.0; }

common::FlightStyle Style(double speedMPerS) {
    common::FlightStyle style;
    style.speedMPerS = speedMPerS;
    return style;
}

constexpr double kMaxPitchRad = 1.2;

// A pilot over flat ground at 100 m on a flight due north scripted at `speedMPerS`, who may
// look kMaxPitchRad up or down.
struct Piloted {
    explicit Piloted(double speedMPerS)
        : style(Style(speedMPerS)),
          flight(common::Flight::FromWaypoints({{0, 0}, {0, 10000}}, false, style, FlatGround)),
          pilot(flight, style, FlatGround, kMaxPitchRad) {}
    common::FlightStyle style;
    common::Flight flight;  // the pilot holds a reference
    Pilot pilot;
};

TEST(Pilot, PlusFromAStandstillGivesTheMinimumSpeedAndFlies) {
    Piloted p(0.0);
    Pilot& pilot = p.pilot;
    common::CameraPose start = pilot.Advance(0.0, {});
    EXPECT_EQ(pilot.Advance(1.0, {}).eyeM, start.eyeM) << "a speed-0 flight stands still";
    PilotInput plus;
    plus.speedSteps = 1;
    common::CameraPose moved = pilot.Advance(1.0, plus);
    EXPECT_DOUBLE_EQ(pilot.SpeedMPerS(), kMinPilotSpeedMPerS);
    EXPECT_NEAR(glm::length(moved.eyeM - start.eyeM), kMinPilotSpeedMPerS, 1e-9);
    PilotInput minus;
    minus.speedSteps = -1;
    pilot.Advance(0.0, minus);
    EXPECT_EQ(pilot.SpeedMPerS(), 0.0) << "'-' below the minimum stops";
}

// Each frame's pose is later than the one before, also on the frame that pauses and on the
// autopilot's frames at a standstill: a recorded flight keeps one pose per frame flown (it
// drops a pose no later than the one before, which lost the pause's frame).
TEST(Pilot, EveryFramesPoseIsLaterThanTheLastPausedOrStandingStill) {
    Piloted p(20.0);
    Pilot& pilot = p.pilot;
    PilotInput pause, stop;
    pause.togglePause = true;
    stop.speedSteps = -30;  // below the minimum: a standstill, still on the autopilot
    std::vector<double> timesS = {pilot.Advance(0.0, {}).timeS, pilot.Advance(0.02, {}).timeS,
                                  pilot.Advance(0.02, pause).timeS};
    EXPECT_TRUE(pilot.Paused());
    pilot.Advance(0.0, pause);  // the presenter's unpause, between two frames
    EXPECT_FALSE(pilot.Paused());
    timesS.push_back(pilot.Advance(0.02, stop).timeS);
    EXPECT_EQ(pilot.SpeedMPerS(), 0.0);
    timesS.push_back(pilot.Advance(0.02, {}).timeS);
    for (size_t k = 0; k < timesS.size(); ++k) EXPECT_NEAR(timesS[k], 0.02 * k, 1e-12) << k;
}

TEST(Pilot, PlusAndMinusScaleTheSpeedByAQuarter) {
    Piloted p(20.0);
    Pilot& pilot = p.pilot;
    PilotInput plus;
    plus.speedSteps = 2;
    pilot.Advance(0.0, plus);
    EXPECT_DOUBLE_EQ(pilot.SpeedMPerS(), 20.0 * 1.25 * 1.25);
}

TEST(Pilot, MouseDragTurnsHeadingAndPitchWithinThePitchRange) {
    Piloted p(20.0);
    Pilot& pilot = p.pilot;
    common::CameraPose start = pilot.Advance(0.0, {});
    PilotInput drag;
    drag.lookRightPx = 100;
    drag.lookDownPx = -50;  // upward
    common::CameraPose turned = pilot.Advance(0.0, drag);
    EXPECT_NEAR(turned.headingRad - start.headingRad, 100 * kMouseLookRadPerPx, 1e-12);
    EXPECT_NEAR(turned.pitchRad - start.pitchRad, 50 * kMouseLookRadPerPx, 1e-12);
    drag.lookRightPx = 0;
    drag.lookDownPx = 1e6;
    EXPECT_DOUBLE_EQ(pilot.Advance(0.0, drag).pitchRad, -kMaxPitchRad);
    drag.lookDownPx = -1e6;
    EXPECT_DOUBLE_EQ(pilot.Advance(0.0, drag).pitchRad, kMaxPitchRad);
}

TEST(Pilot, PageUpAndDownScaleTheHeightAboveGroundInEitherMode) {
    Piloted p(20.0);
    Pilot& pilot = p.pilot;
    PilotInput up;
    up.aglSteps = 1;
    EXPECT_NEAR(pilot.Advance(0.1, up).eyeM.z, 100.0 + p.style.aglM * 1.25, 1e-9) << "autopilot";
    PilotInput steer;
    steer.turn = 1;
    steer.aglSteps = -3;
    EXPECT_NEAR(pilot.Advance(0.1, steer).eyeM.z, 100.0 + p.style.aglM * 1.25 / std::pow(1.25, 3),
                1e-9)
        << "steering";
    PilotInput down;
    down.aglSteps = -100;
    EXPECT_NEAR(pilot.Advance(0.1, down).eyeM.z, 100.0 + kMinPilotAglM, 1e-9);
    EXPECT_DOUBLE_EQ(pilot.AglM(), kMinPilotAglM);
}

}  // namespace
}  // namespace bfv::display
