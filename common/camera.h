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
};

/// The ray geometry of one screen column. bfv's camera keeps every column in a vertical plane
/// (the convention of column ray casters such as the source paper's): column x looks along the
/// horizontal unit direction (dirX, dirY), and the ray of row y rises `slope[y]` metres per
/// metre of horizontal distance. Slopes grow from the bottom row to the top row, which is what
/// makes the rays of one column coherent: a row's hit is never nearer than the row below's.
struct ColumnRays {
    double dirX = 0.0;  // horizontal direction, unit length (east component)
    double dirY = 0.0;  // horizontal direction, unit length (north component)
};

/// Horizontal image-plane coordinate of the centre of screen column x (0 = left): tan of the
/// column's azimuth off the view direction, from -tan(hFov / 2) to +tan(hFov / 2).
double ImagePlaneU(const ScreenSpec& screen, int x);

/// Horizontal direction of screen column x (0 = left) for a pose and screen (pinhole in
/// azimuth: column offsets are evenly spaced on a flat image plane).
ColumnRays ColumnDirection(const CameraPose& pose, const ScreenSpec& screen, int x);

/// Vertical field of view in radians for a screen (square pixels).
double VerticalFov(const ScreenSpec& screen);

/// The steepest a ray may look above or below the horizon, radians (89.4 degrees): a column's
/// rays stay in its vertical plane and walk away from the eye, so none may pass the nadir or
/// the zenith; ColumnSlopes clamps steeper ones.
inline constexpr double kMaxRayElevationRad = 89.4 * kRadPerDeg;

/// The steepest pitch, radians either side of level, at which every ray of `screen` stays
/// within kMaxRayElevationRad: kMaxRayElevationRad - VerticalFov(screen) / 2 (71.4 degrees at
/// 1280x720 with a 60-degree field of view). A steeper pose would draw the rows past the nadir
/// as one smeared spot below the eye.
double MaxPitchRad(const ScreenSpec& screen);

/// `pose` with its pitch clamped to +-MaxPitchRad(screen): how a flight's poses are flown.
CameraPose WithinPitchLimit(CameraPose pose, const ScreenSpec& screen);

/// Ray slopes (dz per metre of horizontal distance) of every row of column x, row 0 = top.
/// The ray of row y makes the elevation angle pitch + atan(v / sqrt(1 + u^2)) where u and v
/// are the pixel's image-plane coordinates, so the centre column is an exact pinhole.
/// `out` must hold heightPx values. Slopes are clamped to those of +-kMaxRayElevationRad.
/// Vectorised with the widest instruction set the CPU has (Highway, picked at run time).
void ColumnSlopes(const CameraPose& pose, const ScreenSpec& screen, int x, double* out);

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
