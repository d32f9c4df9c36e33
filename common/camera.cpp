#include "common/camera.h"

#include <algorithm>
#include <cmath>

namespace bfv::common {

double ImagePlaneU(const ScreenSpec& screen, int x) {
    double ndc = 2.0 * (x + 0.5) / screen.widthPx - 1.0;
    return ndc * std::tan(screen.hFovRad / 2.0);
}

double DegreesFromRadians(double angleRad) {
    double angleDeg = angleRad / kRadPerDeg;
    return std::abs(angleDeg) < 1e6 ? std::round(angleDeg * 1e9) / 1e9 : angleDeg;
}

double VerticalFov(const ScreenSpec& screen) {
    double halfTan = std::tan(screen.hFovRad / 2.0) * screen.heightPx / screen.widthPx;
    return 2.0 * std::atan(halfTan);
}

double MaxPitchRad(const ScreenSpec& screen) {
    return kMaxRayElevationRad - 0.5 * VerticalFov(screen);
}

CameraPose WithinPitchLimit(CameraPose pose, const ScreenSpec& screen) {
    double maxRad = MaxPitchRad(screen);
    pose.pitchRad = std::clamp(pose.pitchRad, -maxRad, maxRad);
    return pose;
}

double PixelAngle(const ScreenSpec& screen) {
    return 2.0 * std::tan(screen.hFovRad / 2.0) / screen.widthPx;
}

ColumnRays ColumnDirection(const CameraPose& pose, const ScreenSpec& screen, int x) {
    double u = ImagePlaneU(screen, x);
    double azimuth = pose.headingRad + std::atan(u);
    return {std::sin(azimuth), std::cos(azimuth)};
}

bool ClipTrackToRect(const GroundTrack& track, double x0M, double x1M, double y0M, double y1M,
                     double& s0, double& s1) {
    auto slab = [&](double e, double d, double lo, double hi) {
        if (d == 0.0) return e >= lo && e <= hi;
        double a = (lo - e) / d, b = (hi - e) / d;
        s0 = std::max(s0, std::min(a, b));
        s1 = std::min(s1, std::max(a, b));
        return s0 <= s1;
    };
    return slab(track.xM, track.dirX, x0M, x1M) && slab(track.yM, track.dirY, y0M, y1M);
}

}  // namespace bfv::common
