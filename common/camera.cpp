#include "common/camera.h"

#include <algorithm>
#include <cmath>

namespace bfv::common {

double DegreesFromRadians(double angleRad) {
    double angleDeg = angleRad / kRadPerDeg;
    return std::abs(angleDeg) < 1e6 ? std::round(angleDeg * 1e9) / 1e9 : angleDeg;
}

CameraPose WithinPitchLimit(CameraPose pose) {
    pose.pitchRad = std::clamp(pose.pitchRad, -kMaxPitchRad, kMaxPitchRad);
    return pose;
}

double PixelAngle(const ScreenSpec& screen) {
    return 2.0 * std::tan(screen.hFovRad / 2.0) / screen.widthPx;
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
