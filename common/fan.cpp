#include "common/fan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace bfv::common {

namespace {

// A pixel's ray in the camera's terms: the horizontal part's components along the heading
// (forward) and to its right, and the vertical one. For image-plane coordinates (u, v) (focal
// length 1, v up) and pitch p the ray is F + u R + v U with F = (cos p h, sin p) and
// U = (-sin p h, cos p), h the heading's unit vector: forward = cos p - v sin p,
// right = u, up = sin p + v cos p.
struct CameraRay {
    double forward, right, up;
};

// The square pseudo-angle of a horizontal direction (forward a, right u), in [-1, 7): the
// direction's position on the square |a|, |u| <= 1 walked clockwise from the heading. Side 0
// (within 45 degrees of the heading) is u / a, side 1 (to the right) 2 - a / u, side 2 (behind)
// 4 + u / a, side 3 (to the left) 6 - a / u; continuous across the sides, monotonic in the
// azimuth, and free of trigonometry. Straight up or down (a = u = 0) takes 0.
double PseudoAngle(double a, double u) {
    if (a == 0.0 && u == 0.0) return 0.0;
    if (a >= std::abs(u)) return u / a;
    if (u >= std::abs(a)) return 2.0 - a / u;
    if (-a >= std::abs(u)) return 4.0 + u / a;
    return 6.0 - a / u;
}

// The horizontal direction (forward, right) of pseudo-angle `phi`, not normalised.
void DirectionOf(double phi, double& a, double& u) {
    if (phi < 1.0) {
        a = 1.0, u = phi;
    } else if (phi < 3.0) {
        a = 2.0 - phi, u = 1.0;
    } else if (phi < 5.0) {
        a = -1.0, u = 4.0 - phi;
    } else {
        a = phi - 6.0, u = -1.0;
    }
}

// Screen pixels per unit of pseudo-angle at a pixel whose ray is (a, u) horizontally: how far
// apart on the screen the lines of two planes a unit of pseudo-angle apart run there, bounded by
// their distance along the pixel's row and along its column (the lines' perpendicular distance
// is at most either). `sinPitch`: sin of the camera's pitch; `focalPx`: focal length in pixels.
// On sides 0 and 2 (t = u / a) a row (a fixed) gives dx/dt = f |a|, a column (u fixed, a moving
// with v at -sin p) dy/dt = f a^2 / |u sin p|; on sides 1 and 3 (t = -a / u) a row gives
// f u^2 / |a|, a column f |u / sin p|.
double PixelsPerPseudoAngle(double a, double u, double sinPitch, double focalPx) {
    if (a == 0.0 && u == 0.0) return 0.0;
    bool forwardOrBack = std::abs(a) >= std::abs(u);
    double alongRow = forwardOrBack ? std::abs(a) : u * u / std::abs(a);
    double alongColumn = forwardOrBack ? a * a / std::abs(u * sinPitch) : std::abs(u / sinPitch);
    return focalPx * std::min(alongRow, alongColumn);
}

double FocalPx(const ScreenSpec& screen) {
    return 0.5 * screen.widthPx / std::tan(0.5 * screen.hFovRad);
}

// Image-plane coordinates of pixel centres: column x's u, row y's v (y = 0 at the top).
double ImageU(const ScreenSpec& screen, double focalPx, int x) {
    return (x + 0.5 - 0.5 * screen.widthPx) / focalPx;
}
double ImageV(const ScreenSpec& screen, double focalPx, int y) {
    return (0.5 * screen.heightPx - y - 0.5) / focalPx;
}

double SlopeOf(const CameraRay& ray) {
    double horizontal = std::sqrt(ray.forward * ray.forward + ray.right * ray.right);
    if (horizontal == 0.0) return ray.up < 0.0 ? -kMaxFanSlope : kMaxFanSlope;
    return std::clamp(ray.up / horizontal, -kMaxFanSlope, kMaxFanSlope);
}

// The ray of the point of plane (a, u)'s screen line nearest to image point (u0, v0), for a
// camera whose pitch has cosine c and sine s: a pixel's ray moved straight across to its plane,
// keeping its place along the plane's line (moving it at its own slope instead would also move
// it along the line, the cone of one slope and the plane's line meeting at an angle on the
// screen: 0.503 px from the pixel's centre at pitch -8 in a corner of 1280x720). The line holds
// the image points whose ray runs along (a, u), u' a = u (c - v' s): n . (u', v') = u c with
// n = (a, u s), never zero for a plane holding a pixel.
CameraRay NearestRayInPlane(double a, double u, double u0, double v0, double c, double s) {
    const double nu = a, nv = u * s;
    const double t = (nu * u0 + nv * v0 - u * c) / (nu * nu + nv * nv);
    const double u1 = u0 - t * nu, v1 = v0 - t * nv;
    return {c - v1 * s, u1, s + v1 * c};
}

// The pseudo-angles of every pixel (row-major, top row first) and the widest spacing of plane
// lines per unit of pseudo-angle anywhere on the screen. A row's widest is at its middle or its
// end columns: on sides 0 and 2 (|u| <= |a|, so |u sin p| <= |a|) PixelsPerPseudoAngle is
// f |a| whatever u, and a row's middle columns are on those sides if any of its pixels are; on
// sides 1 and 3 it grows with |u|.
double PseudoAngles(const ScreenSpec& screen, double pitchRad, std::vector<double>& phi) {
    const int w = screen.widthPx;
    const double f = FocalPx(screen), c = std::cos(pitchRad), s = std::sin(pitchRad);
    phi.resize(static_cast<std::size_t>(w) * screen.heightPx);
    double widestPx = 0.0;
    for (int y = 0; y < screen.heightPx; ++y) {
        double a = c - ImageV(screen, f, y) * s;
        for (int x : {0, (w - 1) / 2, w / 2, w - 1}) {
            widestPx = std::max(widestPx, PixelsPerPseudoAngle(a, ImageU(screen, f, x), s, f));
        }
        double* row = phi.data() + static_cast<std::size_t>(y) * w;
        for (int x = 0; x < w; ++x) row[x] = PseudoAngle(a, ImageU(screen, f, x));
    }
    return widestPx;
}

// Puts plane p's pixels in descending slope where the row-major fill did not (planes running
// down or sideways from the nadir's image); ties by pixel index, so every rank agrees.
void SortPlanes(FanLayout& fan) {
    std::vector<int> order;
    std::vector<std::uint32_t> index;
    std::vector<double> slope;
    for (int p = 0; p < fan.PlaneCount(); ++p) {
        int begin = fan.planeStart[p], end = fan.planeStart[p + 1];
        auto slopes = fan.pixelSlope.begin();
        if (std::is_sorted(slopes + begin, slopes + end, std::greater<>())) continue;
        order.resize(static_cast<std::size_t>(end - begin));
        std::iota(order.begin(), order.end(), begin);
        std::sort(order.begin(), order.end(), [&](int i, int j) {
            if (fan.pixelSlope[i] != fan.pixelSlope[j])
                return fan.pixelSlope[i] > fan.pixelSlope[j];
            return fan.pixelIndex[i] < fan.pixelIndex[j];
        });
        index.clear(), slope.clear();
        for (int i : order) index.push_back(fan.pixelIndex[i]), slope.push_back(fan.pixelSlope[i]);
        std::copy(index.begin(), index.end(), fan.pixelIndex.begin() + begin);
        for (int i = begin; i < end; ++i) {
            fan.pixelX[i] = static_cast<std::uint16_t>(fan.pixelIndex[i] / fan.screen.heightPx);
        }
        std::copy(slope.begin(), slope.end(), fan.pixelSlope.begin() + begin);
    }
}

}  // namespace

void BuildFanLayout(const ScreenSpec& screen, double pitchRad, FanLayout& fan) {
    // Working memory kept from one build to the next: a build is then arithmetic, not the
    // allocation and zeroing of tens of megabytes.
    thread_local std::vector<double> phi;
    thread_local std::vector<int> count, planeOfSlot, next, slotOf;
    fan.screen = screen;
    fan.pitchRad = pitchRad;
    const int w = screen.widthPx, h = screen.heightPx;
    const double f = FocalPx(screen), c = std::cos(pitchRad), s = std::sin(pitchRad);
    // Planes one pixel apart where their lines are farthest apart: pseudo-angle step 1 / widest.
    // Plane j covers pseudo-angles [(j - w/2) step, (j + 1 - w/2) step): at pitch 0 the planes
    // are the columns, plane j's centre column j's.
    const double stepPerPx = PseudoAngles(screen, pitchRad, phi);
    // std::floor, without the library call the baseline instruction set makes of it.
    auto planeOf = [&](double angle) {
        const double x = angle * stepPerPx + 0.5 * w;
        const auto truncated = static_cast<long long>(x);
        return truncated - (x < static_cast<double>(truncated) ? 1 : 0);
    };
    const auto [lowest, highest] = std::minmax_element(phi.begin(), phi.end());
    const long long first = planeOf(*lowest), span = planeOf(*highest) - first + 1;
    count.assign(static_cast<std::size_t>(span), 0);
    slotOf.resize(phi.size());
    for (std::size_t i = 0; i < phi.size(); ++i) {
        slotOf[i] = static_cast<int>(planeOf(phi[i]) - first);
        ++count[slotOf[i]];
    }
    // Non-empty planes only, in pseudo-angle order.
    planeOfSlot.assign(static_cast<std::size_t>(span), -1);
    fan.planeForward.clear(), fan.planeRight.clear(), fan.planeMinX.clear(), fan.planeMaxX.clear();
    fan.planeStart.assign(1, 0);
    for (long long j = 0; j < span; ++j) {
        if (count[j] == 0) continue;
        planeOfSlot[j] = fan.PlaneCount();
        double a = 0.0, u = 0.0;
        DirectionOf(((j + first) + 0.5 - 0.5 * w) / stepPerPx, a, u);
        double norm = std::sqrt(a * a + u * u);
        fan.planeForward.push_back(a / norm);
        fan.planeRight.push_back(u / norm);
        fan.planeStart.push_back(fan.planeStart.back() + count[j]);
        fan.planeMinX.push_back(w);
        fan.planeMaxX.push_back(-1);
    }
    fan.pixelIndex.resize(phi.size());
    fan.pixelX.resize(phi.size());
    fan.pixelSlope.resize(phi.size());
    next.assign(fan.planeStart.begin(), fan.planeStart.end() - 1);
    // Rows top first: along a plane whose line runs up from the nadir's image (or down from the
    // zenith's) that is already descending slope.
    for (int y = 0; y < h; ++y) {
        double v = ImageV(screen, f, y);
        for (int x = 0; x < w; ++x) {
            int p = planeOfSlot[slotOf[static_cast<std::size_t>(y) * w + x]];
            int at = next[p]++;
            fan.pixelIndex[at] = static_cast<std::uint32_t>(x) * h + y;
            fan.pixelX[at] = static_cast<std::uint16_t>(x);
            fan.pixelSlope[at] = SlopeOf(NearestRayInPlane(fan.planeForward[p], fan.planeRight[p],
                                                           ImageU(screen, f, x), v, c, s));
            fan.planeMinX[p] = std::min(fan.planeMinX[p], x);
            fan.planeMaxX[p] = std::max(fan.planeMaxX[p], x);
        }
    }
    SortPlanes(fan);
}

void UpdateFanLayout(const ScreenSpec& screen, double pitchRad, FanLayout& fan) {
    if (fan.PlaneCount() > 0 && fan.pitchRad == pitchRad && fan.screen == screen) return;
    BuildFanLayout(screen, pitchRad, fan);
}

FanLayout BuildFanLayout(const ScreenSpec& screen, double pitchRad) {
    FanLayout fan;
    BuildFanLayout(screen, pitchRad, fan);
    return fan;
}

HorizontalDirection PlaneDirection(const FanLayout& fan, int plane, double headingRad) {
    double a = fan.planeForward[plane], u = fan.planeRight[plane];
    double sinH = std::sin(headingRad), cosH = std::cos(headingRad);
    return {a * sinH + u * cosH, a * cosH - u * sinH};
}

ScreenAzimuths ScreenAzimuthRange(const CameraPose& pose, const ScreenSpec& screen,
                                  double widenRad) {
    const double f = FocalPx(screen), c = std::cos(pose.pitchRad), s = std::sin(pose.pitchRad);
    const double halfU = 0.5 * screen.widthPx / f, halfV = 0.5 * screen.heightPx / f;
    // The nadir's (zenith's) image, u = 0 and forward = c - v s = 0, within the screen's rows.
    if (std::abs(c) <= halfV * std::abs(s)) return {true, {}, {}};
    double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (double u : {-halfU, halfU}) {
        for (double v : {-halfV, halfV}) {
            double azimuth = std::atan2(u, c - v * s);
            lowest = std::min(lowest, azimuth), highest = std::max(highest, azimuth);
        }
    }
    auto world = [&](double azimuthRad) {
        double a = pose.headingRad + azimuthRad;
        return HorizontalDirection{std::sin(a), std::cos(a)};
    };
    return {false, world(lowest - widenRad), world(highest + widenRad)};
}

PlaneRayDirection PinholeRayAt(const CameraPose& pose, const ScreenSpec& screen, double xPx,
                               double yPx) {
    const double f = FocalPx(screen), c = std::cos(pose.pitchRad), s = std::sin(pose.pitchRad);
    const double u = (xPx - 0.5 * screen.widthPx) / f, v = (0.5 * screen.heightPx - yPx) / f;
    const CameraRay ray{c - v * s, u, s + v * c};
    double a = ray.forward, r = ray.right, norm = std::sqrt(a * a + r * r);
    if (norm == 0.0) a = 1.0, r = 0.0, norm = 1.0;
    const double sinH = std::sin(pose.headingRad), cosH = std::cos(pose.headingRad);
    return {{(a * sinH + r * cosH) / norm, (a * cosH - r * sinH) / norm}, SlopeOf(ray)};
}

bool PlaneRowsAt(const CameraPose& pose, const ScreenSpec& screen, double xPx, int yPx, int pixels,
                 int rowsPerPixel, double maxDriftPx, HorizontalDirection& dir,
                 std::span<double> slopes) {
    const double f = FocalPx(screen), c = std::cos(pose.pitchRad), s = std::sin(pose.pitchRad);
    const double u = (xPx - 0.5 * screen.widthPx) / f;
    const double v = (0.5 * screen.heightPx - yPx - 0.5 * pixels) / f;
    // The plane (forward a, right u): its line holds the image points u' = u (c - v' s) / a, so
    // du'/dv' = -u s / a, a drift of |u s| / a pixels a pixel down the screen.
    const double a = c - v * s;
    if (a <= 0.0 || std::abs(u * s) * pixels > a * maxDriftPx) return false;
    const double norm = std::sqrt(a * a + u * u);
    const double sinH = std::sin(pose.headingRad), cosH = std::cos(pose.headingRad);
    dir = {(a * sinH + u * cosH) / norm, (a * cosH - u * sinH) / norm};
    for (int j = 0; j < pixels * rowsPerPixel; ++j) {
        const double vj = (0.5 * screen.heightPx - yPx - (j + 0.5) / rowsPerPixel) / f;
        const double forward = c - vj * s;
        slopes[j] = SlopeOf({forward, u * forward / a, s + vj * c});
    }
    return true;
}

bool ProjectToScreen(const CameraPose& pose, const ScreenSpec& screen, const glm::dvec3& pointM,
                     double& xPx, double& yPx) {
    glm::dvec3 d = pointM - pose.eyeM;
    double sinH = std::sin(pose.headingRad), cosH = std::cos(pose.headingRad);
    double c = std::cos(pose.pitchRad), s = std::sin(pose.pitchRad);
    double ahead = d.x * sinH + d.y * cosH, right = d.x * cosH - d.y * sinH;
    double forward = c * ahead + s * d.z, up = -s * ahead + c * d.z;
    if (forward <= 0.0) return false;
    double f = FocalPx(screen);
    xPx = 0.5 * screen.widthPx + f * right / forward;
    yPx = 0.5 * screen.heightPx - f * up / forward;
    return true;
}

std::vector<int> PlanesCrossing(const FanLayout& fan, const ColumnSet& columns) {
    std::vector<int> planes;
    if (columns.count <= 0) return planes;
    const int first = columns.first, last = columns.At(columns.count - 1);
    for (int p = 0; p < fan.PlaneCount(); ++p) {
        int lo = std::max(first, fan.planeMinX[p]), hi = std::min(last, fan.planeMaxX[p]);
        if (lo > hi) continue;
        // A column of the set in [lo, hi]: the first at or after lo.
        int k = (lo - first + columns.stride - 1) / columns.stride;
        if (columns.At(k) <= hi) planes.push_back(p);
    }
    return planes;
}

void SpreadOverColumnStrips(const FanLayout& fan, int plane, double amount,
                            std::span<double> strips) {
    const int first = fan.planeStart[plane], end = fan.planeStart[plane + 1];
    if (end == first) return;
    const double perPixel = amount / (end - first);
    const std::size_t widthPx = fan.screen.widthPx;
    for (int i = first; i < end; ++i) strips[fan.pixelX[i] * strips.size() / widthPx] += perPixel;
}

}  // namespace bfv::common
