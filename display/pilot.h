#pragma once

#include "common/camera.h"
#include "common/flight.h"

namespace bfv::display {

/// What the pilot's keys ask for during one frame (window mode).
struct PilotInput {
    double turn = 0.0;   // -1 (left) .. 1 (right), held arrow keys or A/D
    double climb = 0.0;  // -1 (pitch down) .. 1 (pitch up), held arrow keys or W/S
    int speedSteps = 0;  // +1 per '+' press, -1 per '-' press
    bool togglePause = false;
    bool quit = false;
};

/// The viewpoint in window mode. It flies the scripted flight (autopilot) until the pilot
/// steers; from then on it flies where it is pointed, at the flight style's height above
/// ground. '+'/'-' scale the speed by 1.25 in both modes; pause stops time.
class Pilot {
  public:
    Pilot(const common::Flight& flight, common::FlightStyle style, common::GroundFn ground);

    /// Advances by `dtS` seconds of wall time under `input` and returns the new pose.
    common::CameraPose Advance(double dtS, const PilotInput& input);
    bool Paused() const { return paused_; }
    double SpeedMPerS() const { return style_.speedMPerS * speedFactor_; }

  private:
    const common::Flight& flight_;
    common::FlightStyle style_;
    common::GroundFn ground_;
    common::CameraPose pose_;
    double flightTimeS_ = 0.0;
    double speedFactor_ = 1.0;
    bool autopilot_ = true;
    bool paused_ = false;
};

}  // namespace bfv::display
