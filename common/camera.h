#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glm/vec3.hpp>
#include <numbers>

namespace bfv::common {

/// Radians per degree: options and files give angles in degrees, bfv computes in radians.
inline constexpr double kRadPerDeg = std::numbers::pi / 180.0;

/// `angleRad` in degrees, rounded to 1e-9 degree so that an angle given in degrees and stored
/// in radians reads back as it was given (for range checks and their messages).
double DegreesFromRadians(double angleRad);

/// Where the pilot is and where they look. World frame: x east, y north, z up, metres, with
/// the origin at the dataset's south-west corner at height 0.
struct CameraPose {
    glm::dvec3 eyeM{0.0};     // eye position, metres
    double headingRad = 0.0;  // view azimuth: 0 = north, pi/2 = east (clockwise from north)
    double pitchRad = 0.0;    // view elevation: negative looks down
    double timeS = 0.0;       // flight time of this pose, seconds
};

/// The screen and lens: size in pixels and horizontal field of view.
struct ScreenSpec {
    int widthPx = 1280;       // = 1280 // columns
    int heightPx = 720;       // = 720  // rows
    double hFovRad = 1.0472;  // = 60 deg // horizontal field of view, radians

    bool operator==(const ScreenSpec&) const = default;
};

/// A horizontal unit direction (east and north components): where a vertical plane of rays
/// through the eye runs (common::FanLayout).
struct HorizontalDirection {
    double dirX = 0.0;  // horizontal direction, unit length (east component)
    double dirY = 0.0;  // horizontal direction, unit length (north component)
};

/// The steepest pitch either way, radians: straight down (-kMaxPitchRad) to straight up. The
/// pinhole camera (common::FanLayout) draws every pitch.
inline constexpr double kMaxPitchRad = std::numbers::pi / 2.0;

/// `pose` with its pitch clamped to +-kMaxPitchRad: how a flight's poses are flown.
CameraPose WithinPitchLimit(CameraPose pose);

/// Angle subtended by one pixel at the image centre, radians: the footprint of a sample at
/// distance d metres is about d * PixelAngle(screen) metres.
double PixelAngle(const ScreenSpec& screen);

/// How many times longer a pixel's footprint is along the ground track than across it, for a
/// ray of slope k (dz per metre of horizontal distance) over level ground:
/// 1 / sin(depression) = sqrt(1 + 1 / k^2), within [1, maxAnisotropy] (1 for a vertical ray,
/// k = -inf; rays level with or above the horizon take maxAnisotropy). The level of detail takes
/// the footprint's longer axis, as a GPU's mip selection does.
inline double AlongTrackStretch(double k, double maxAnisotropy) {
    return k < 0.0 ? std::clamp(std::sqrt(1.0 + 1.0 / (k * k)), 1.0, maxAnisotropy) : maxAnisotropy;
}

/// A horizontal ray's ground track: from (xM, yM), distance s metres along the unit direction
/// (dirX, dirY).
struct GroundTrack {
    double xM = 0.0, yM = 0.0;
    double dirX = 0.0, dirY = 0.0;
};

/// Clips `track` to the rectangle [x0M, x1M] x [y0M, y1M] (slab method): narrows [s0, s1],
/// which the caller starts as the part of the track it cares about (e.g. [0, inf)), to the
/// distances inside the rectangle. False when no distance in it is inside.
bool ClipTrackToRect(const GroundTrack& track, double x0M, double x1M, double y0M, double y1M,
                     double& s0, double& s1);

}  // namespace bfv::common
