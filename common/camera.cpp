#include "common/camera.h"

#include <algorithm>
#include <cmath>

namespace bfv::common {

namespace {

constexpr double kMaxSlope = 95.49;  // tan(89.4 deg): keeps near-vertical rays finite

double ImagePlaneU(const ScreenSpec& screen, int x) {
    double ndc = 2.0 * (x + 0.5) / screen.widthPx - 1.0;
    return ndc * std::tan(screen.hFovRad / 2.0);
}

}  // namespace

double VerticalFov(const ScreenSpec& screen) {
    double halfTan = std::tan(screen.hFovRad / 2.0) * screen.heightPx / screen.widthPx;
    return 2.0 * std::atan(halfTan);
}

double PixelAngle(const ScreenSpec& screen) {
    return 2.0 * std::tan(screen.hFovRad / 2.0) / screen.widthPx;
}

ColumnRays ColumnDirection(const CameraPose& pose, const ScreenSpec& screen, int x) {
    double u = ImagePlaneU(screen, x);
    double azimuth = pose.headingRad + std::atan(u);
    return {std::sin(azimuth), std::cos(azimuth)};
}

void ColumnSlopes(const CameraPose& pose, const ScreenSpec& screen, int x, double* out) {
    double u = ImagePlaneU(screen, x);
    double planeDistance = std::sqrt(1.0 + u * u);
    double halfTan = std::tan(VerticalFov(screen) / 2.0);
    double tanPitch = std::tan(pose.pitchRad);
    for (int y = 0; y < screen.heightPx; ++y) {
        double w = (1.0 - 2.0 * (y + 0.5) / screen.heightPx) * halfTan / planeDistance;
        // tan(pitch + atan(w)) by the tangent addition formula: no trigonometry per row.
        double denominator = 1.0 - tanPitch * w;
        double slope = denominator > 0.0 ? (tanPitch + w) / denominator
                                         : std::copysign(kMaxSlope, tanPitch);
        out[y] = std::clamp(slope, -kMaxSlope, kMaxSlope);
    }
}

}  // namespace bfv::common
