#include "display/pilot.h"

#include <algorithm>
#include <cmath>

namespace bfv::display {

namespace {

constexpr double kTurnRateRadPerS = 0.6;
constexpr double kPitchRateRadPerS = 0.5;
constexpr double kSpeedStep = 1.25;
constexpr double kMaxPitchRad = 1.3;  // about 75 degrees

}  // namespace

Pilot::Pilot(const common::Flight& flight, common::FlightStyle style, common::GroundFn ground)
    : flight_(flight), style_(style), ground_(std::move(ground)), pose_(flight.PoseAt(0.0)) {}

common::CameraPose Pilot::Advance(double dtS, const PilotInput& input) {
    if (input.togglePause) paused_ = !paused_;
    speedFactor_ = std::clamp(speedFactor_ * std::pow(kSpeedStep, input.speedSteps), 0.05, 400.0);
    if (input.turn != 0.0 || input.climb != 0.0) autopilot_ = false;
    if (paused_) return pose_;
    if (autopilot_) {
        flightTimeS_ += dtS * speedFactor_;
        pose_ = flight_.PoseAt(flightTimeS_);
        return pose_;
    }
    pose_.headingRad += input.turn * kTurnRateRadPerS * dtS;
    pose_.pitchRad = std::clamp(pose_.pitchRad + input.climb * kPitchRateRadPerS * dtS,
                                -kMaxPitchRad, kMaxPitchRad);
    double stepM = SpeedMPerS() * dtS;
    pose_.eyeM.x += std::sin(pose_.headingRad) * stepM;
    pose_.eyeM.y += std::cos(pose_.headingRad) * stepM;
    pose_.eyeM.z = ground_(pose_.eyeM.x, pose_.eyeM.y) + style_.aglM;
    pose_.timeS += dtS;
    return pose_;
}

}  // namespace bfv::display
