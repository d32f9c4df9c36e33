#pragma once

#include "common/camera.h"
#include "common/flight.h"

namespace bfv::display {

/// What the pilot's keys and mouse ask for during one frame (window mode).
struct PilotInput {
    double turn = 0.0;       // -1 (left) .. 1 (right), held arrow keys or A/D
    double climb = 0.0;      // -1 (pitch down) .. 1 (pitch up), held arrow keys or W/S
    double lookRightPx = 0;  // mouse motion to the right with the left button held, pixels
    double lookDownPx = 0;   // mouse motion downward with the left button held, pixels
    int speedSteps = 0;      // +1 per '+' press, -1 per '-' press
    int aglSteps = 0;        // +1 per PageUp or R press (higher), -1 per PageDown or F (lower)
    bool togglePause = false;
    bool quit = false;
};

/// Mouse look: heading and pitch turn by this much per pixel dragged, radians per pixel
/// (0.004 rad = 0.23 degrees: a drag of 400 pixels turns about 92 degrees).
inline constexpr double kMouseLookRadPerPx = 0.004;
/// '+' from a standstill (or from below this) sets this ground speed, m/s; '-' below it stops.
inline constexpr double kMinPilotSpeedMPerS = 5.0;
/// The height above ground PageUp/PageDown keep within, metres (the top is --agl's limit).
inline constexpr double kMinPilotAglM = 2.0;

/// The viewpoint in window mode. It flies the scripted flight (autopilot) until the pilot
/// steers (keys or mouse); from then on it flies where it is pointed, at the flight style's
/// height above ground. In both modes '+'/'-' scale the speed by 1.25 (from a standstill '+'
/// gives kMinPilotSpeedMPerS) and PageUp/PageDown scale the height above ground by 1.25;
/// pause stops time. With a scripted speed of 0 the autopilot stands still, so '+' takes the
/// controls and flies ahead.
class Pilot {
  public:
    /// Flies `flight` (which must outlive this) at `style` over `ground`; the pilot looks at
    /// most `maxPitchRad` up or down (common::kMaxPitchRad).
    Pilot(const common::Flight& flight, common::FlightStyle style, common::GroundFn ground,
          double maxPitchRad);

    /// Advances by `dtS` seconds of wall time under `input` and returns the new pose. Its
    /// timeS is the wall time flown (the sum of every dtS), so that poses a frame apart differ
    /// in time even when the frame paused the flight or the pilot stands still.
    common::CameraPose Advance(double dtS, const PilotInput& input);
    bool Paused() const { return paused_; }
    /// Ground speed now, m/s.
    double SpeedMPerS() const { return speedMPerS_; }
    /// Eye height above the (smoothed) ground the pilot holds when steering, metres.
    double AglM() const { return aglM_; }

  private:
    void ChangeSpeedAndHeight(const PilotInput& input);
    // The scripted flight's pose `dtS` later, into pose_.
    void Autopilot(double dtS);
    // The pose steered by `input` for `dtS` seconds, into pose_.
    void Steer(double dtS, const PilotInput& input);

    const common::Flight& flight_;
    common::FlightStyle style_;
    common::GroundFn ground_;
    common::CameraPose pose_;
    double flightTimeS_ = 0.0;  // the scripted flight's time (at the pilot's speed)
    double clockS_ = 0.0;       // wall time flown: every pose's timeS
    double speedMPerS_ = 0.0;   // = style's speed
    double aglM_ = 0.0;         // = style's height above ground
    double maxPitchRad_;        // the steepest the pilot may look up or down
    bool autopilot_ = true;
    bool paused_ = false;
};

}  // namespace bfv::display
