#include "display/pilot.h"

#include <algorithm>
#include <cmath>

namespace bfv::display {

namespace {

constexpr double kTurnRateRadPerS = 0.6;
constexpr double kPitchRateRadPerS = 0.5;
constexpr double kStep = 1.25;  // per '+'/'-' and PageUp/PageDown press

// `value` scaled by kStep^steps; '+' from below `minimum` (a standstill) gives `minimum`, '-'
// below it gives 0.
double Stepped(double value, int steps, double minimum, double maximum) {
    if (steps == 0) return value;
    double scaled = value * std::pow(kStep, steps);
    if (steps > 0) return std::clamp(scaled, minimum, maximum);
    return scaled < minimum ? 0.0 : scaled;
}

}  // namespace

Pilot::Pilot(const common::Flight& flight, common::FlightStyle style, common::GroundFn ground,
             double maxPitchRad)
    : flight_(flight),
      style_(style),
      ground_(std::move(ground)),
      pose_(flight.PoseAt(0.0)),
      speedMPerS_(style.speedMPerS),
      aglM_(style.aglM),
      maxPitchRad_(maxPitchRad) {}

void Pilot::ChangeSpeedAndHeight(const PilotInput& input) {
    speedMPerS_ =
        Stepped(speedMPerS_, input.speedSteps, kMinPilotSpeedMPerS, common::kSpeedRangeMPerS.max);
    if (input.aglSteps != 0) {
        aglM_ = std::clamp(aglM_ * std::pow(kStep, input.aglSteps), kMinPilotAglM,
                           common::kAglRangeM.max);
    }
}

// The scripted flight at the pilot's speed (its time runs faster or slower; a flight scripted
// at speed 0 stands still) and height (its height above ground scaled by the pilot's over the
// style's).
void Pilot::Autopilot(double dtS) {
    if (style_.speedMPerS > 0.0) flightTimeS_ += dtS * speedMPerS_ / style_.speedMPerS;
    pose_ = flight_.PoseAt(flightTimeS_);
    if (aglM_ != style_.aglM) {
        double groundM = ground_(pose_.eyeM.x, pose_.eyeM.y);
        pose_.eyeM.z =
            groundM + std::max(pose_.eyeM.z - groundM, kMinPilotAglM) * (aglM_ / style_.aglM);
    }
}

common::CameraPose Pilot::Advance(double dtS, const PilotInput& input) {
    if (input.togglePause) paused_ = !paused_;
    ChangeSpeedAndHeight(input);
    bool looks = input.lookRightPx != 0.0 || input.lookDownPx != 0.0;
    if (input.turn != 0.0 || input.climb != 0.0 || looks) autopilot_ = false;
    if (style_.speedMPerS <= 0.0 && speedMPerS_ > 0.0) autopilot_ = false;  // it cannot move
    if (!paused_) {
        if (autopilot_) {
            Autopilot(dtS);
        } else {
            Steer(dtS, input);
        }
    }
    // A paused frame too is a pose of its own: the recorded flight keeps one pose per frame
    // only while their times increase (common::RecordedFlightJson).
    clockS_ += dtS;
    pose_.timeS = clockS_;
    return pose_;
}

void Pilot::Steer(double dtS, const PilotInput& input) {
    pose_.headingRad +=
        input.turn * kTurnRateRadPerS * dtS + input.lookRightPx * kMouseLookRadPerPx;
    pose_.pitchRad = std::clamp(pose_.pitchRad + input.climb * kPitchRateRadPerS * dtS -
                                    input.lookDownPx * kMouseLookRadPerPx,
                                -maxPitchRad_, maxPitchRad_);
    double stepM = speedMPerS_ * dtS;
    pose_.eyeM.x += std::sin(pose_.headingRad) * stepM;
    pose_.eyeM.y += std::cos(pose_.headingRad) * stepM;
    pose_.eyeM.z = ground_(pose_.eyeM.x, pose_.eyeM.y) + aglM_;
}

}  // namespace bfv::display
