#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/expected.h"
#include "common/pixel.h"

namespace bfv::common {

/// A colour as three floats: linear light (a multiplier) or display values on the 0..255 sRGB
/// scale, as each function says.
struct SkyColour {
    float r = 0, g = 0, b = 0;
};

/// Rows of the sky's table (and of a PlaneSky's column): sin(elevation) 1/128 apart, 0.45 deg
/// at the horizon.
inline constexpr int kSkyTableElevations = 129;

/// The clear daylight sky of "A Practical Analytic Model for Daylight" (Preetham, Shirley and
/// Smits, 1999): the Perez et al. distribution of luminance Y and chromaticity x, y over the
/// sky, with coefficients and zenith values from the turbidity and the sun's zenith angle,
/// converted Yxy -> CIE XYZ -> linear sRGB, exposed, tone mapped (Reinhard) and encoded with
/// the sRGB transfer function to display values (0..255 floats). A sun disc (drawn 0.5 deg in
/// radius with a soft limb; the real one is 0.27 deg) and a glow around it are mixed toward the
/// sunlight's colour and clip to white.
///
/// Directions: azimuth in radians from north, clockwise (x east, y north); slope = rise per
/// metre of horizontal distance (negative looks down). Below the horizon the sky is the
/// horizon's colour in that azimuth, which is also the colour distance haze fades to
/// (HorizonColour), so that far terrain meets the sky without a seam.
///
/// Build one per sun position (about 5 ms: it tabulates the sky over azimuth x sin(elevation));
/// a frame's planes then each take a PlaneSky (Plane) and read it per row (PlaneSky::At: a
/// lookup and a linear blend, plus the glow near the sun). Everything is deterministic
/// (no threads, no state after construction); a Sky is immutable and may be shared by threads.
class Sky {
  public:
    /// A sky for the sun at `sunAzimuthRad` (from north, clockwise; any finite value) and
    /// `sunElevationRad` (in (0, pi/2]) under `turbidity` (in [1.7, 10], the model's range; 3 is
    /// a clear day). Errors name the bad value: the sun on or below the horizon (the model does
    /// not cover twilight), a turbidity outside the range, or a non-finite input.
    static Expected<Sky> Make(double sunAzimuthRad, double sunElevationRad, double turbidity = 3.0);

    class PlaneSky;

    /// The sky along the vertical plane of rays at `azimuthRad` (radians from north,
    /// clockwise): what a ray caster takes once per plane and reads per row. With `tabulate`
    /// the table is blended to the azimuth once (for a plane read at many rows); without, each
    /// read blends the rows it needs (cheaper for a handful of reads); both give the same
    /// colours. Refers to this Sky, which must outlive it.
    PlaneSky Plane(double azimuthRad, bool tabulate = true) const;

    /// Plane(azimuthRad, tabulate) written into `plane`: a caster that takes a plane per cast
    /// keeps one, whose 1.5 KB table (written only when `tabulate`) a new PlaneSky would zero
    /// each time (anti-aliasing's planes of four rays took 5% of a frame doing so).
    void Plane(double azimuthRad, bool tabulate, PlaneSky& plane) const;

    /// The sky's display colour (0..255 per channel, sRGB) toward `azimuthRad` at ray `slope`,
    /// with the sun and its glow; equal to Plane(azimuthRad).At(slope).
    SkyColour At(double azimuthRad, double slope) const;

    /// The colour (0..255, sRGB display values) distance haze fades to toward `azimuthRad`:
    /// the sky at slope 0 there, including the glow of a sun less than 10 deg up, so that far
    /// terrain meets the sky without a seam.
    SkyColour HorizonColour(double azimuthRad) const;

    /// The direct sunlight's colour at the ground as a linear RGB multiplier: the sun's
    /// transmittance through the air mass at its elevation (Rayleigh and the aerosol's
    /// Angstrom law, as in the appendix of the source paper, air mass after Kasten and Young
    /// 1989), times the exposure, relative to a sun at 45 deg (where it is 1, 1, 1). A low sun
    /// gives a warmer, dimmer multiplier. Multiply by the cosine of incidence yourself.
    SkyColour SunlightColour() const { return sunlight_; }

    /// The sky's light at the ground (irradiance on a horizontal surface from the whole sky,
    /// without the sun) as a linear RGB multiplier relative to a sun at 45 deg (1, 1, 1 there)
    /// and exposed like the sky: bluer and dimmer for a low sun.
    SkyColour SkylightColour() const { return skylight_; }

    /// The sun's direction as a unit vector in world axes (x east, y north, z up).
    std::array<double, 3> SunDirection() const { return sunDirection_; }

  private:
    Sky() = default;
    friend class PlaneSky;

    // Display values: 128 columns over azimuth [0, 2 pi), each kSkyTableElevations rows over
    // sin(elevation) in [0, 1].
    std::vector<SkyColour> table_;
    double sunAzimuthRad_ = 0;
    double sinSunElevation_ = 0, cosSunElevation_ = 1;
    std::array<double, 3> sunDirection_{};
    SkyColour sunDisplay_;  // the colour the disc and glow mix toward (0..255)
    SkyColour sunlight_, skylight_;
};

/// The sky along one vertical plane of rays (one azimuth): the sky's table blended to that
/// azimuth once (1.5 KB; or per read, see Sky::Plane), then per row a lookup and a linear blend
/// and, only on planes passing within 10 deg of the sun, the disc and glow.
class Sky::PlaneSky {
  public:
    /// The display colour (0..255 per channel, sRGB; not quantised) at ray `slope` (rise per
    /// metre); below the horizon the horizon's colour.
    SkyColour At(float slope) const;

    /// The sun's glint on water for a reflected ray at `reflectedSlope` in this plane: a lobe
    /// about 2.5 deg wide around the sun (wider than the disc, as small waves spread the
    /// reflection), 1 at the sun and falling to 0 by 8 deg. A weight in [0, 1] for the caster
    /// to add the sun's colour with (mix toward white by weight x SchlickFresnel).
    float GlintAt(float reflectedSlope) const;

    /// The plane's sky as the table At reads: kSkyTableElevations colours, row j at
    /// sin(elevation) j / (kSkyTableElevations - 1), of which At blends the two rows around
    /// its ray's (below the horizon, row 0). For a caster that reads many rows at once. Null
    /// where At needs more than the table: a plane taken without one (Sky::Plane's
    /// `tabulate`), or one that passes near the sun (its disc and glow).
    const SkyColour* Table() const { return tabulated_ && !nearSun_ ? column_.data() : nullptr; }

  private:
    friend class Sky;
    const Sky* sky_ = nullptr;
    // The table's two columns around this azimuth and the second one's weight.
    const SkyColour* column0_ = nullptr;
    const SkyColour* column1_ = nullptr;
    float weight1_ = 0;
    // Whether column_ holds them blended: display values over sin(elevation) in [0, 1].
    bool tabulated_ = false;
    std::array<SkyColour, kSkyTableElevations> column_;
    bool nearSun_ = false;        // whether the plane passes within the glow's radius
    double cosAzimuthToSun_ = 0;  // cos of the azimuth difference to the sun

    double CosAngleToSun(float slope) const;
    // Row j of the table blended to this azimuth.
    SkyColour Row(int j) const;
};

/// The reflectance of water for light arriving at `cosIncidence` (cosine of the angle to the
/// surface normal, clamped to [0, 1]): Schlick's approximation f0 + (1 - f0) (1 - cos)^5 with
/// f0 = 0.02 ("An inexpensive BRDF model for physically-based rendering", Schlick 1994).
/// 0.02 looking straight down, 1 at grazing.
float SchlickFresnel(float cosIncidence);

/// `display` (0..255 floats) quantised to 8-bit sRGB after adding `ditherLevels` (in
/// [-0.5, 0.5): a dither the caller fixes to the sky direction, or 0 for plain rounding).
Rgb QuantiseSkyColour(SkyColour display, float ditherLevels = 0.0f);

}  // namespace bfv::common
