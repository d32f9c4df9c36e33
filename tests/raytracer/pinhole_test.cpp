// The ray caster's image against the pinhole camera, computed from the pose alone (issue 28's
// geometry targets): on a flat heightfield every hit projects to its own pixel, draped markers
// land where the pinhole camera puts them, a straight draped line stays straight, and the
// sky/terrain mask is the analytic one; and every split of the screen between tracers gives the
// same pixels.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "common/decomposition.h"
#include "common/fan.h"
#include "common/pixel.h"
#include "raytracer/ray_caster.h"
#include "tests/raytracer/tile_world.h"

namespace bfv::raytracer {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// A flat world at height 0: finest posts `spacingM` apart over a square `sizeM` on a side, as
// few levels as cover it (the coarsest level's one tile), every level resident, with draped
// materials `material` if given.
TileWorld FlatWorld(double spacingM, double sizeM, MaterialFn material = {}) {
    int levels = 1;
    while (terrain::kTileCells * spacingM * std::ldexp(1.0, levels - 1) < sizeM) ++levels;
    return MakeWorld(
        spacingM, levels, sizeM, sizeM, [](int, int) { return 0.0; }, levels, 1.0f,
        terrain::kNoWaterM, std::move(material));
}

// Settings that read the finest level everywhere, without haze.
CastSettings FinestEverywhere() {
    CastSettings settings;
    settings.lodBias = 1e-9;
    settings.hazeHalfDistanceM = 1e12;
    return settings;
}

// A frame cast plane by plane over the whole screen: each pixel's colour and, in the same
// column-major order, its hit distance (< 0: sky), its ray's slope and its plane's direction.
struct CastFrame {
    std::vector<common::Pixel> image;
    std::vector<double> hitS, slope;
    std::vector<common::HorizontalDirection> dir;
};

CastFrame CastAll(const TileWorld& w, const View& view, const CastSettings& settings) {
    CastFrame frame;
    const std::size_t pixels = view.fan.pixelIndex.size();
    frame.hitS.resize(pixels), frame.slope.resize(pixels), frame.dir.resize(pixels);
    ColumnScratch scratch;
    for (int p = 0; p < view.fan.PlaneCount(); ++p) {
        common::HorizontalDirection dir = view.Cast(*w.cache, p, settings, scratch, frame.image);
        for (int r = 0; r < scratch.rows; ++r) {
            std::uint32_t pixel = view.PixelIndex(p, r);
            frame.hitS[pixel] = scratch.hitS[r];
            frame.slope[pixel] = scratch.slopes[r];
            frame.dir[pixel] = dir;
        }
    }
    return frame;
}

// Whether pixel `i` of `frame` shows a marker (kMarkerCode below): ground nearer the marker's red.
bool ShowsMarker(const CastFrame& frame, std::size_t i) {
    return frame.hitS[i] >= 0.0 && frame.image[i].r > frame.image[i].g;
}

// The draped code of a marker's posts (red, DrapedTestColour), the ground's being 0 (green): a
// pixel shows the marker where the colour interpolated at its hit is nearer the marker's.
constexpr std::uint8_t kMarkerCode = 255;

// The world point where the pinhole camera's ray through screen point (xPx, yPx) meets the
// ground z = 0, from the pose alone (no fan): the ray F + u R + v U for image-plane coordinates
// (u, v) at focal length 1, F, R, U the camera's forward, right and up. False if it does not.
bool PinholeGroundPoint(const common::CameraPose& pose, const common::ScreenSpec& screen,
                        double xPx, double yPx, glm::dvec3& groundM) {
    const double f = 0.5 * screen.widthPx / std::tan(0.5 * screen.hFovRad);
    const double u = (xPx - 0.5 * screen.widthPx) / f, v = (0.5 * screen.heightPx - yPx) / f;
    const double sinH = std::sin(pose.headingRad), cosH = std::cos(pose.headingRad);
    const double c = std::cos(pose.pitchRad), s = std::sin(pose.pitchRad);
    glm::dvec3 forward{c * sinH, c * cosH, s}, right{cosH, -sinH, 0.0}, up{-s * sinH, -s * cosH, c};
    glm::dvec3 ray = forward + u * right + v * up;
    if (ray.z >= 0.0) return false;
    groundM = pose.eyeM + (-pose.eyeM.z / ray.z) * ray;
    return true;
}

std::string PoseText(double pitchDeg, double headingDeg) {
    return "pitch " + std::to_string(pitchDeg) + " heading " + std::to_string(headingDeg);
}

// (a) Every pixel that hits the flat ground hits it on its own pinhole ray to within half a
// pixel: the hit point, eye + s (direction, slope), projects within 0.5 px of the pixel's centre.
TEST(RayCasterPinhole, FlatGroundHitsProjectToTheirOwnPixels) {
    TileWorld w = FlatWorld(64.0, 12000.0);
    common::ScreenSpec screen{320, 180, 60.0 * kDeg};
    for (double pitchDeg : {-8.0, -20.0, -45.0, -60.0, -89.0}) {
        for (double headingDeg : {0.0, 37.0, 200.0}) {
            View view(*w.cache, {{6000.0, 5000.0, 1500.0}, headingDeg * kDeg, pitchDeg * kDeg, 0},
                      screen, CastSettings{});
            CastFrame frame = CastAll(w, view, CastSettings{});
            double worstPx = 0.0;
            int hits = 0;
            for (std::size_t i = 0; i < frame.hitS.size(); ++i) {
                double s = frame.hitS[i];
                if (s < 0.0) continue;
                ++hits;
                glm::dvec3 hitM =
                    view.pose.eyeM +
                    s * glm::dvec3(frame.dir[i].dirX, frame.dir[i].dirY, frame.slope[i]);
                EXPECT_NEAR(hitM.z, 0.0, 1e-6);
                double xPx = 0.0, yPx = 0.0;
                ASSERT_TRUE(common::ProjectToScreen(view.pose, screen, hitM, xPx, yPx));
                int x = static_cast<int>(i) / screen.heightPx,
                    y = static_cast<int>(i) % screen.heightPx;
                worstPx = std::max(worstPx, std::hypot(xPx - (x + 0.5), yPx - (y + 0.5)));
            }
            EXPECT_GT(hits, screen.widthPx * screen.heightPx / 4) << PoseText(pitchDeg, headingDeg);
            EXPECT_LE(worstPx, 0.5 + 1e-6) << PoseText(pitchDeg, headingDeg);
        }
    }
}

// How far a marker reaches past its cells, in cells: across a cell next to it the colour blends
// from the marker's to the ground's, and is nearer the marker's for the first half.
constexpr double kMarkerReachCells = 0.5;

// Square draped markers on flat ground, each covering cells [i0, i0 + n) x [j0, j0 + n) of
// posts `spacingM` apart.
struct Marker {
    int i0 = 0, j0 = 0, n = 0;

    // The marker's centre projected on the screen, and the area centroid of its outline's
    // projection (grown by kMarkerReachCells), where the centroid of its pixels lies: the
    // outline's image is a quadrilateral whose nearer part is the larger, so that its centroid
    // lies a little nearer than the centre's image, by up to a pixel on the larger markers here.
    void OnScreen(const common::CameraPose& pose, const common::ScreenSpec& screen, double spacingM,
                  double& centreX, double& centreY, double& outlineX, double& outlineY) const {
        glm::dvec3 centreM{(i0 + 0.5 * n) * spacingM, (j0 + 0.5 * n) * spacingM, 0.0};
        EXPECT_TRUE(common::ProjectToScreen(pose, screen, centreM, centreX, centreY));
        const double halfM = (0.5 * n + kMarkerReachCells) * spacingM;
        const double cornersM[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};  // counterclockwise
        double x[4], y[4];
        for (int c = 0; c < 4; ++c) {
            glm::dvec3 cornerM = centreM + glm::dvec3(cornersM[c][0], cornersM[c][1], 0) * halfM;
            EXPECT_TRUE(common::ProjectToScreen(pose, screen, cornerM, x[c], y[c]));
        }
        double area = 0.0, sumX = 0.0, sumY = 0.0;  // the shoelace formula's centroid
        for (int c = 0; c < 4; ++c) {
            double cross = x[c] * y[(c + 1) % 4] - x[(c + 1) % 4] * y[c];
            area += cross;
            sumX += (x[c] + x[(c + 1) % 4]) * cross;
            sumY += (y[c] + y[(c + 1) % 4]) * cross;
        }
        outlineX = sumX / (3.0 * area), outlineY = sumY / (3.0 * area);
    }
};

// A marker about the ground seen at screen point (xPx, yPx), the fewest cells (at least 2) that
// span `minPx` pixels both ways on the screen.
Marker MarkerSeenAt(const common::CameraPose& pose, const common::ScreenSpec& screen,
                    double spacingM, double xPx, double yPx, double minPx) {
    glm::dvec3 groundM;
    EXPECT_TRUE(PinholeGroundPoint(pose, screen, xPx, yPx, groundM));
    int ci = static_cast<int>(std::floor(groundM.x / spacingM));
    int cj = static_cast<int>(std::floor(groundM.y / spacingM));
    for (int n = 2;; ++n) {
        Marker m{ci - n / 2, cj - n / 2, n};
        double lowX = 1e30, highX = -1e30, lowY = 1e30, highY = -1e30;
        for (int corner = 0; corner < 4; ++corner) {
            glm::dvec3 cornerM{(m.i0 + (corner & 1) * n) * spacingM,
                               (m.j0 + (corner >> 1) * n) * spacingM, 0.0};
            double x = 0.0, y = 0.0;
            EXPECT_TRUE(common::ProjectToScreen(pose, screen, cornerM, x, y));
            lowX = std::min(lowX, x), highX = std::max(highX, x);
            lowY = std::min(lowY, y), highY = std::max(highY, y);
        }
        if ((highX - lowX >= minPx && highY - lowY >= minPx) || n >= 60) return m;
    }
}

// (b) Draped markers render where the pinhole camera sees them: the centroid of each marker's
// pixels lies within half a pixel of the centroid of the marker's projected outline, and within
// a pixel and a half of its centre's projection (perspective moves the first from the second),
// at several pitches and headings, in several places on the screen.
TEST(RayCasterPinhole, DrapedMarkersLandOnTheirPinholePixels) {
    const double spacingM = 2.0;
    common::ScreenSpec screen{320, 180, 60.0 * kDeg};
    const double placesPx[][2] = {{160.0, 125.0}, {60.0, 150.0}, {255.0, 110.0}};
    for (double pitchDeg : {-8.0, -20.0, -45.0, -60.0, -89.0}) {
        for (double headingDeg : {0.0, 37.0, 200.0}) {
            common::CameraPose pose{{1024.0, 1024.0, 60.0}, headingDeg * kDeg, pitchDeg * kDeg, 0};
            std::vector<Marker> markers;
            for (const auto& place : placesPx) {
                markers.push_back(MarkerSeenAt(pose, screen, spacingM, place[0], place[1], 10.0));
            }
            auto onMarker = [&](int i, int j) {
                for (const Marker& m : markers) {
                    if (i >= m.i0 && i <= m.i0 + m.n && j >= m.j0 && j <= m.j0 + m.n) return true;
                }
                return false;
            };
            TileWorld w = FlatWorld(spacingM, 2048.0, [&](int i, int j) {
                return onMarker(i, j) ? kMarkerCode : std::uint8_t{0};
            });
            View view(*w.cache, pose, screen, FinestEverywhere());
            CastFrame frame = CastAll(w, view, FinestEverywhere());
            std::vector<std::array<double, 2>> centres;
            for (const Marker& m : markers) {
                double x = 0.0, y = 0.0, unused = 0.0;
                m.OnScreen(pose, screen, spacingM, x, y, unused, unused);
                centres.push_back({x, y});
            }
            for (const Marker& m : markers) {
                double centreX = 0.0, centreY = 0.0, outlineX = 0.0, outlineY = 0.0;
                m.OnScreen(pose, screen, spacingM, centreX, centreY, outlineX, outlineY);
                // The marker's pixels: those showing its material nearer its centre than any
                // other marker's.
                double sumX = 0.0, sumY = 0.0;
                int pixels = 0;
                for (std::size_t i = 0; i < frame.image.size(); ++i) {
                    if (!ShowsMarker(frame, i)) continue;
                    double x = static_cast<int>(i) / screen.heightPx + 0.5;
                    double y = static_cast<int>(i) % screen.heightPx + 0.5;
                    bool nearest = true;
                    for (const auto& other : centres) {
                        nearest &= std::hypot(x - centreX, y - centreY) <=
                                   std::hypot(x - other[0], y - other[1]);
                    }
                    if (!nearest) continue;
                    sumX += x, sumY += y;
                    ++pixels;
                }
                ASSERT_GT(pixels, 40) << PoseText(pitchDeg, headingDeg);
                const double gotX = sumX / pixels, gotY = sumY / pixels;
                EXPECT_LE(std::hypot(gotX - outlineX, gotY - outlineY), 0.5)
                    << PoseText(pitchDeg, headingDeg) << ": marker of " << m.n
                    << " cells, its outline's centroid at (" << outlineX << ", " << outlineY
                    << ") px, its " << pixels << " pixels' centroid at (" << gotX << ", " << gotY
                    << ")";
                EXPECT_LE(std::hypot(gotX - centreX, gotY - centreY), 1.5)
                    << PoseText(pitchDeg, headingDeg) << ": centre at (" << centreX << ", "
                    << centreY << ") px";
            }
        }
    }
}

// (c) A straight draped line (an east-west band of cells) stays straight: the centroids of its
// pixels in each screen column lie within a pixel of the line fitted through them, at pitch -20
// and -60 and a heading that turns it across the screen.
TEST(RayCasterPinhole, AStraightDrapedLineStaysStraight) {
    const double spacingM = 4.0;
    const int bandCells = 4;
    common::ScreenSpec screen{640, 360, 60.0 * kDeg};
    for (auto [pitchDeg, eyeM] : {std::pair{-20.0, 200.0}, std::pair{-60.0, 1000.0}}) {
        for (double headingDeg : {20.0, -35.0}) {
            common::CameraPose pose{{2048.0, 1200.0, eyeM}, headingDeg * kDeg, pitchDeg * kDeg, 0};
            glm::dvec3 centreM;
            ASSERT_TRUE(PinholeGroundPoint(pose, screen, 320.0, 180.0, centreM));
            const int j0 = static_cast<int>(std::floor(centreM.y / spacingM));
            TileWorld w = FlatWorld(spacingM, 4096.0, [&](int, int j) {
                return j >= j0 && j <= j0 + bandCells ? kMarkerCode : std::uint8_t{0};
            });
            View view(*w.cache, pose, screen, FinestEverywhere());
            CastFrame frame = CastAll(w, view, FinestEverywhere());
            std::vector<double> xs, ys;
            for (int x = 0; x < screen.widthPx; ++x) {
                double sumY = 0.0;
                int count = 0;
                bool cut = false;  // by the top or bottom of the screen
                for (int y = 0; y < screen.heightPx; ++y) {
                    if (ShowsMarker(frame, static_cast<std::size_t>(x) * screen.heightPx + y)) {
                        sumY += y + 0.5;
                        ++count;
                        cut |= y == 0 || y == screen.heightPx - 1;
                    }
                }
                if (count > 0 && !cut) xs.push_back(x + 0.5), ys.push_back(sumY / count);
            }
            ASSERT_GE(xs.size(), screen.widthPx * 3u / 4) << PoseText(pitchDeg, headingDeg);
            // Least squares y = a + b x.
            double n = static_cast<double>(xs.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (std::size_t k = 0; k < xs.size(); ++k) {
                sx += xs[k], sy += ys[k], sxx += xs[k] * xs[k], sxy += xs[k] * ys[k];
            }
            double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
            double worstPx = 0.0, worstX = 0.0;
            for (std::size_t k = 0; k < xs.size(); ++k) {
                double off = std::abs(ys[k] - (a + b * xs[k]));
                if (off > worstPx) worstPx = off, worstX = xs[k];
            }
            EXPECT_GT(std::abs(b), 0.1) << "the line runs across the screen at an angle";
            EXPECT_LE(worstPx, 1.0) << PoseText(pitchDeg, headingDeg) << ": column " << worstX;
        }
    }
}

// (d) Looking 8 degrees down from 1500 m with the flat DEM's far edges in view, the sky/terrain
// mask is the pinhole camera's: terrain where the pixel centre's ray meets z = 0 (the data, or
// the level ground the world continues with beyond its edge), on at least 99.9% of the pixels;
// and so is the data's edge: a terrain pixel's hit lies inside the data rectangle where the
// pinhole ray meets the ground inside it, on at least 99.9% of the pixels.
TEST(RayCasterPinhole, SkyTerrainMaskAndTheDataEdgeAreThePinholeCameras) {
    const double sizeM = 12000.0;
    TileWorld w = FlatWorld(64.0, sizeM);
    common::ScreenSpec screen{640, 360, 60.0 * kDeg};
    auto inside = [&](const glm::dvec3& pointM) {
        return pointM.x >= 0.0 && pointM.x <= sizeM && pointM.y >= 0.0 && pointM.y <= sizeM;
    };
    for (double headingDeg : {40.0, 0.0, 200.0}) {
        common::CameraPose pose{{6000.0, 5000.0, 1500.0}, headingDeg * kDeg, -8.0 * kDeg, 0};
        View view(*w.cache, pose, screen, CastSettings{});
        CastFrame frame = CastAll(w, view, CastSettings{});
        int maskDiffers = 0, edgeDiffers = 0, terrain = 0, pastTheEdge = 0;
        for (int x = 0; x < screen.widthPx; ++x) {
            for (int y = 0; y < screen.heightPx; ++y) {
                const std::size_t i = static_cast<std::size_t>(x) * screen.heightPx + y;
                glm::dvec3 groundM;
                bool down = PinholeGroundPoint(pose, screen, x + 0.5, y + 0.5, groundM);
                bool hit = frame.hitS[i] >= 0.0;
                maskDiffers += down != hit;
                terrain += down;
                pastTheEdge += down && !inside(groundM);
                if (down && hit) {
                    glm::dvec3 hitM =
                        pose.eyeM + frame.hitS[i] * glm::dvec3(frame.dir[i].dirX, frame.dir[i].dirY,
                                                               frame.slope[i]);
                    edgeDiffers += inside(groundM) != inside(hitM);
                }
            }
        }
        const int pixels = screen.widthPx * screen.heightPx;
        EXPECT_GT(pastTheEdge, pixels / 100) << "heading " << headingDeg << ": the edge is in view";
        EXPECT_GT(terrain, pixels / 4) << "heading " << headingDeg;
        EXPECT_LE(maskDiffers, pixels / 1000) << "heading " << headingDeg;
        EXPECT_LE(edgeDiffers, pixels / 1000) << "heading " << headingDeg;
    }
}

// Renders the screen as `nSlices` tracers would for `decomposition`: each casts the planes
// crossing its columns (PlanesCrossing) into its own slice buffer, which lands in the frame.
std::vector<common::Pixel> CastSplit(const TileWorld& w, const View& view,
                                     const CastSettings& settings,
                                     common::Decomposition decomposition, int nSlices) {
    const int widthPx = view.fan.screen.widthPx, heightPx = view.fan.screen.heightPx;
    std::vector<common::Pixel> image(static_cast<std::size_t>(widthPx) * heightPx);
    for (int t = 0; t < nSlices; ++t) {
        common::ColumnSet columns = common::ColumnsOf(decomposition, t, nSlices, widthPx);
        std::vector<common::Pixel> slice(static_cast<std::size_t>(columns.count) * heightPx);
        ColumnScratch scratch;
        for (int p : common::PlanesCrossing(view.fan, columns)) {
            CastPlane(*w.cache, view.frame, p, settings, columns, scratch, slice.data());
        }
        for (int k = 0; k < columns.count; ++k) {
            std::copy_n(slice.begin() + static_cast<std::ptrdiff_t>(k) * heightPx, heightPx,
                        image.begin() + static_cast<std::ptrdiff_t>(columns.At(k)) * heightPx);
        }
    }
    return image;
}

// Every split of the screen gives the same pixels, bit for bit: three contiguous slices, three
// interleaved ones and the whole screen, on hilly ground with every level of detail in play
// (looking 30 degrees down and straight down). This is what keeps frames identical for every
// number of tracers.
TEST(RayCasterPinhole, EverySplitOfTheScreenGivesTheSamePixels) {
    TileWorld w = MakeWorld(10.0, 5, 5000.0, 5000.0, RandomHeights(80.0, 12), 5, 80.0f);
    const CastSettings settings;
    for (common::ScreenSpec screen :
         {common::ScreenSpec{96, 64, 60.0 * kDeg}, common::ScreenSpec{75, 41, 75.0 * kDeg}}) {
        for (double pitchDeg : {-30.0, -90.0}) {
            for (auto [headingDeg, eyeM] : {std::pair{0.0, 120.0}, std::pair{131.0, 400.0}}) {
                View view(*w.cache, {{2500.0, 2400.0, eyeM}, headingDeg * kDeg, pitchDeg * kDeg, 0},
                          screen, settings);
                auto whole = CastSplit(w, view, settings, common::Decomposition::Contiguous, 1);
                int sky = 0;
                for (double s : CastAll(w, view, settings).hitS) sky += s < 0.0;
                EXPECT_LT(sky, static_cast<int>(whole.size()) / 2);
                for (auto decomposition :
                     {common::Decomposition::Contiguous, common::Decomposition::Interleaved}) {
                    auto split = CastSplit(w, view, settings, decomposition, 3);
                    int differing = 0;
                    for (std::size_t i = 0; i < whole.size(); ++i) {
                        differing += split[i] != whole[i];
                    }
                    EXPECT_EQ(differing, 0) << screen.widthPx << "x" << screen.heightPx << " "
                                            << PoseText(pitchDeg, headingDeg) << " eye " << eyeM
                                            << " m, " << common::ToString(decomposition);
                }
            }
        }
    }
}

}  // namespace
}  // namespace bfv::raytracer
