// common::ColumnSlopes, compiled once per instruction set Highway targets and dispatched at run
// time: the ray caster asks for every column's slopes, a division per row.
#include <algorithm>
#include <cmath>

#include "common/camera.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "common/column_slopes.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bfv::common {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

constexpr double kMaxSlope = 95.49;  // tan(kMaxRayElevationRad): keeps near-vertical rays finite
constexpr double kMinDenominator = 1e-9;

void ColumnSlopesOn(const CameraPose& pose, const ScreenSpec& screen, int x, double* out) {
    double u = ImagePlaneU(screen, x);
    double planeDistance = std::sqrt(1.0 + u * u);
    double halfTan = std::tan(screen.hFovRad / 2.0) * screen.heightPx / screen.widthPx;
    double tanPitch = std::tan(pose.pitchRad);
    // w = v / planeDistance, with v running from +halfTan (top) to -halfTan (bottom).
    double wTop = halfTan / planeDistance;
    double wPerRow = 2.0 * wTop / screen.heightPx;
    const hn::ScalableTag<double> d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    const auto tanPitchV = hn::Set(d, tanPitch), one = hn::Set(d, 1.0);
    const auto minDenominator = hn::Set(d, kMinDenominator);
    const auto lo = hn::Set(d, -kMaxSlope), hi = hn::Set(d, kMaxSlope);
    for (int y = 0; y < screen.heightPx; y += lanes) {
        // Row centres y + 0.5; the last vector may cover rows past the end, not stored.
        auto rowCentre = hn::Iota(d, y + 0.5);
        auto w = hn::NegMulAdd(rowCentre, hn::Set(d, wPerRow), hn::Set(d, wTop));
        // tan(pitch + atan(w)) by the tangent addition formula: no trigonometry per row.
        // A denominator <= 0 means the ray would pass the vertical; clamping it to a tiny
        // positive value keeps the sign (tanPitch + w has tanPitch's).
        auto denominator = hn::Max(hn::NegMulAdd(tanPitchV, w, one), minDenominator);
        auto slope = hn::Clamp((tanPitchV + w) / denominator, lo, hi);
        if (y + lanes <= screen.heightPx) {
            hn::StoreU(slope, d, out + y);
        } else {
            HWY_ALIGN double last[HWY_MAX_BYTES / sizeof(double)];
            hn::Store(slope, d, last);
            std::copy(last, last + (screen.heightPx - y), out + y);
        }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace bfv::common
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bfv::common {

HWY_EXPORT(ColumnSlopesOn);

void ColumnSlopes(const CameraPose& pose, const ScreenSpec& screen, int x, double* out) {
    HWY_DYNAMIC_DISPATCH(ColumnSlopesOn)(pose, screen, x, out);
}

}  // namespace bfv::common
#endif  // HWY_ONCE
