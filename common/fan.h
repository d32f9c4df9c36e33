#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/camera.h"
#include "common/decomposition.h"

namespace bfv::common {

/// The pinhole camera's pixels grouped by the vertical plane through the eye their rays lie in.
///
/// Under a pitched pinhole camera the rays of one screen column are not in one vertical plane,
/// but the vertical planes through the eye still exist: each projects to a screen line through
/// the image of the nadir (or, looking up, the zenith), f / tan(pitch) below (above) the screen
/// centre. Along one such line the rays' slopes grow monotonically away from that point, which
/// is the coherence a column ray caster needs: it walks the plane's ground track once, front to
/// back, and resolves the plane's pixels from the steepest-down up.
///
/// The fan holds planes close enough that every pixel's own plane is at most half a pixel from
/// it on the screen (their lines at most a pixel apart anywhere on the screen): a pixel is
/// traced in its nearest plane, at the slope of the point of the plane's screen line nearest to
/// its centre, so the image is the pinhole camera's to within half a pixel across the fan's
/// lines and exactly along them. At pitch 0 the planes are
/// the screen's columns and the image is exact.
///
/// Planes are indexed by a square pseudo-angle of their azimuth relative to the heading (see
/// fan.cpp); the layout depends on the screen and the pitch only, not on the heading or the eye.
struct FanLayout {
    ScreenSpec screen;
    double pitchRad = 0.0;
    /// Each plane's horizontal direction in the camera's terms, unit length: the component
    /// along the heading and the one to its right (PlaneDirection turns it into the world's).
    std::vector<double> planeForward, planeRight;
    /// Plane p's pixels are [planeStart[p], planeStart[p + 1]) of pixelIndex and pixelSlope.
    std::vector<int> planeStart;
    /// The leftmost and rightmost screen column holding a pixel of each plane.
    std::vector<int> planeMinX, planeMaxX;
    /// Every pixel of the screen once: its column-major index x * heightPx + y, and its column
    /// x (screens are at most 65535 pixels wide).
    std::vector<std::uint32_t> pixelIndex;
    std::vector<std::uint16_t> pixelX;
    /// The slope of each pixel's ray in its plane (dz per metre of horizontal distance: the ray
    /// of the point of the plane's line nearest to the pixel's centre), descending within a
    /// plane (the caster resolves the last first); +-kMaxFanSlope at the nadir and zenith.
    std::vector<double> pixelSlope;

    /// Number of planes, every one holding at least one pixel.
    int PlaneCount() const { return static_cast<int>(planeForward.size()); }
};

/// The slope given to a ray straight down or up, and the limit of every pixel's slope
/// (1e6: a kilometre's drop over a millimetre): keeps the march's arithmetic finite.
inline constexpr double kMaxFanSlope = 1e6;

/// The fan of `screen` at `pitchRad` (any pitch from -pi/2, straight down, to +pi/2). Takes
/// O(widthPx * heightPx): a few milliseconds at 1280x720; callers keep it while the pitch stays
/// the same.
FanLayout BuildFanLayout(const ScreenSpec& screen, double pitchRad);

/// BuildFanLayout into `fan`, reusing its memory (and the calling thread's working memory): how
/// a renderer follows a pilot who pitches every frame.
void BuildFanLayout(const ScreenSpec& screen, double pitchRad, FanLayout& fan);

/// Makes `fan` the fan of `screen` at `pitchRad`: rebuilds it (BuildFanLayout, reusing its
/// memory) unless it already is, so a renderer keeps the last frame's fan while the pitch holds.
void UpdateFanLayout(const ScreenSpec& screen, double pitchRad, FanLayout& fan);

/// World horizontal direction of plane `plane` of `fan` for a camera heading `headingRad`.
HorizontalDirection PlaneDirection(const FanLayout& fan, int plane, double headingRad);

/// The azimuths the screen's rays span, as the world's horizontal directions of its leftmost
/// and rightmost rays (unit length), widened by `widenRad` either way; or all around, when the
/// nadir's or the zenith's image is on the screen (looking steeply down or up).
struct ScreenAzimuths {
    bool allAround = false;
    HorizontalDirection left, right;
};

/// The ScreenAzimuths of `pose` on `screen`. The extreme azimuths lie at the screen's corners
/// whenever the nadir's or zenith's image is off the screen (the planes' lines all run through
/// that point).
ScreenAzimuths ScreenAzimuthRange(const CameraPose& pose, const ScreenSpec& screen,
                                  double widenRad);

/// A pinhole camera's ray as a ray caster walks it: the world horizontal direction of its
/// vertical plane through the eye (unit length; the heading's straight down or up) and its slope
/// in that plane (dz per metre of horizontal distance, within +-kMaxFanSlope).
struct PlaneRayDirection {
    HorizontalDirection dir;
    double slope = 0.0;
};

/// The ray of the pinhole camera at `pose` through screen point (xPx, yPx) (pixel coordinates as
/// ProjectToScreen's: pixel (i, j)'s centre is (i + 0.5, j + 0.5)), exactly, not snapped to a
/// plane of the fan: what anti-aliasing's extra rays inside a pixel take.
PlaneRayDirection PinholeRayAt(const CameraPose& pose, const ScreenSpec& screen, double xPx,
                               double yPx);

/// The vertical plane through the eye whose screen line passes through (xPx, yPx + pixels / 2),
/// and the slopes in it of the pixels * rowsPerPixel points of that line at heights yPx + (j +
/// 0.5) / rowsPerPixel, j = 0 .. pixels * rowsPerPixel - 1 (descending, into `slopes`, which
/// holds at least that many): the rows of sub-samples of `pixels` pixels of a column, from row
/// yPx down, in one plane, on the line through the middle of their grid column. False (nothing
/// written) where the line drifts sideways by more than maxDriftPx pixels across the run (near
/// the nadir's or zenith's image, or over too long a run), whose points would leave their grid
/// column: 1 for one pixel is a line closer to vertical than to horizontal.
bool PlaneRowsAt(const CameraPose& pose, const ScreenSpec& screen, double xPx, int yPx, int pixels,
                 int rowsPerPixel, double maxDriftPx, HorizontalDirection& dir,
                 std::span<double> slopes);

/// Where world point `pointM` appears on the screen of the pinhole camera at `pose`: the
/// pixel coordinates (x right from the left edge, y down from the top edge; pixel (i, j)'s
/// centre is (i + 0.5, j + 0.5)). False when the point is behind the camera.
bool ProjectToScreen(const CameraPose& pose, const ScreenSpec& screen, const glm::dvec3& pointM,
                     double& xPx, double& yPx);

/// The planes of `fan` with a pixel in `columns`, in order: what a caster of those columns
/// casts (each plane for its pixels in them).
std::vector<int> PlanesCrossing(const FanLayout& fan, const ColumnSet& columns);

/// Adds `amount` (a cost of plane `plane` of `fan`, e.g. its trace time in seconds) to
/// `strips`, the screen's columns cut into strips.size() equal strips left to right, in
/// proportion to the plane's pixels in each: a plane that leaves the screen by its side spans
/// hundreds of columns, not only its leftmost. How a profile turns planes' costs into a cost per
/// column (predict::ResourceProfile's columnCostShares).
void SpreadOverColumnStrips(const FanLayout& fan, int plane, double amount,
                            std::span<double> strips);

}  // namespace bfv::common
