#include "common/sky.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace bfv::common {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr int kTableAzimuths = 128;                 // 2.8 deg apart
constexpr double kDiscRadiusRad = 0.5 * kPi / 180;  // drawn radius (the sun's is 0.27 deg)
constexpr double kLimbRad = 0.15 * kPi / 180;       // soft edge of the disc
constexpr double kGlowRadiusRad = 10 * kPi / 180;   // glow reaches 0 here
constexpr double kGlowWidthRad = 1.5 * kPi / 180;   // e-folding angle of the glow
constexpr float kGlowPeak = 0.55f;                  // glow's mix toward the sun at its centre
constexpr double kGlintWidthRad = 2.5 * kPi / 180;
constexpr double kGlintRadiusRad = 8 * kPi / 180;
// Exposure: a 45 deg sun's zenith (Y about 7.3 kcd/m^2 at T = 3) is scaled to Y 0.54
// (0.155 x 3.5) before the tone curve, which with the saturation and white balance below
// displays it as a clear blue and the horizon as a pale haze; other suns adapt
// half-way (square root of the zenith's luminance ratio), so that a low sun's sky is darker but
// not black and a high sun's is brighter but not white.
constexpr double kExposureAt45 = 0.155 / 7.32;
constexpr double kZenithY45 = 7.32;
constexpr double kAdaptation = 0.5;
constexpr double kExposureGain = 3.5;
// Saturation about the luminance in linear light: the model's clear sky is paler than the blue
// a viewer expects of a clear zenith (and than photographs show), so the chroma is raised.
constexpr double kSaturation = 1.6;
// The lowest a channel may go, as a share of the luminance, before the saturation is reduced.
constexpr double kChannelFloor = 0.1;
// A white balance toward blue: the model's horizon (x, y) is reddish in linear sRGB under D65,
// where a clear day's horizon haze looks pale blue-white.
constexpr double kWhiteBalance[3] = {0.62, 0.77, 1.0};

// The five Perez coefficients A..E of one quantity (Y, x or y) for turbidity T
// (appendix A.2 of the source paper), as (slope, intercept) per coefficient.
using PerezCoefficients = std::array<double, 5>;

PerezCoefficients PerezFor(const double (&table)[5][2], double turbidity) {
    PerezCoefficients c{};
    for (int i = 0; i < 5; ++i) c[i] = table[i][0] * turbidity + table[i][1];
    return c;
}

constexpr double kPerezY[5][2] = {
    {0.1787, -1.4630}, {-0.3554, 0.4275}, {-0.0227, 5.3251}, {0.1206, -2.5771}, {-0.0670, 0.3703}};
constexpr double kPerezX[5][2] = {{-0.0193, -0.2592},
                                  {-0.0665, 0.0008},
                                  {-0.0004, 0.2125},
                                  {-0.0641, -0.8989},
                                  {-0.0033, 0.0452}};
constexpr double kPerezYChroma[5][2] = {{-0.0167, -0.2608},
                                        {-0.0950, 0.0092},
                                        {-0.0079, 0.2102},
                                        {-0.0441, -1.6537},
                                        {-0.0109, 0.0529}};

// The Perez et al. distribution F(theta, gamma) (eq. 3 of the source paper) for a view at
// cos(zenith angle) `cosTheta` (>= 0) and angle `gammaRad` to the sun. At the horizon
// (cosTheta -> 0) the first factor tends to 1 because B < 0.
double Perez(const PerezCoefficients& c, double cosTheta, double gammaRad) {
    const double horizon = cosTheta > 0 ? std::exp(c[1] / cosTheta) : 0.0;
    const double cosGamma = std::cos(gammaRad);
    return (1 + c[0] * horizon) *
           (1 + c[2] * std::exp(c[3] * gammaRad) + c[4] * cosGamma * cosGamma);
}

// The zenith's chromaticity (x or y) for turbidity T and sun zenith angle theta (appendix A.2).
double ZenithChroma(const double (&m)[3][4], double turbidity, double thetaSun) {
    const double t2 = turbidity * turbidity;
    const double th[4] = {thetaSun * thetaSun * thetaSun, thetaSun * thetaSun, thetaSun, 1};
    double v = 0;
    for (int k = 0; k < 4; ++k) v += (t2 * m[0][k] + turbidity * m[1][k] + m[2][k]) * th[k];
    return v;
}

constexpr double kZenithX[3][4] = {{0.00166, -0.00375, 0.00209, 0},
                                   {-0.02903, 0.06377, -0.03202, 0.00394},
                                   {0.11693, -0.21196, 0.06052, 0.25886}};
constexpr double kZenithY[3][4] = {{0.00275, -0.00610, 0.00317, 0},
                                   {-0.04214, 0.08970, -0.04153, 0.00516},
                                   {0.15346, -0.26756, 0.06670, 0.26688}};

// The zenith's luminance in kcd/m^2 (eq. of appendix A.2).
double ZenithLuminance(double turbidity, double thetaSun) {
    const double chi = (4.0 / 9.0 - turbidity / 120.0) * (kPi - 2 * thetaSun);
    return (4.0453 * turbidity - 4.9710) * std::tan(chi) - 0.2155 * turbidity + 2.4192;
}

// Everything the sky's radiance needs for one sun: coefficients and zenith values.
struct SkyModel {
    PerezCoefficients y, x, yc;
    double zenithY = 0, zenithX = 0, zenithYc = 0;
    double thetaSun = 0;
    std::array<double, 3> sun{};  // unit vector toward the sun

    SkyModel(double sunAzimuthRad, double sunElevationRad, double turbidity)
        : y(PerezFor(kPerezY, turbidity)),
          x(PerezFor(kPerezX, turbidity)),
          yc(PerezFor(kPerezYChroma, turbidity)),
          thetaSun(kPi / 2 - sunElevationRad),
          sun{std::cos(sunElevationRad) * std::sin(sunAzimuthRad),
              std::cos(sunElevationRad) * std::cos(sunAzimuthRad), std::sin(sunElevationRad)} {
        zenithY = ZenithLuminance(turbidity, thetaSun);
        zenithX = ZenithChroma(kZenithX, turbidity, thetaSun);
        zenithYc = ZenithChroma(kZenithY, turbidity, thetaSun);
    }

    // Linear sRGB radiance (kcd/m^2 scale) toward unit vector `d` with d[2] >= 0 (eq. 4 of the
    // source paper: each quantity is its zenith value times F(theta, gamma) / F(0, theta_sun)).
    std::array<double, 3> Radiance(const std::array<double, 3>& d) const {
        const double cosGamma =
            std::clamp(d[0] * sun[0] + d[1] * sun[1] + d[2] * sun[2], -1.0, 1.0);
        const double gamma = std::acos(cosGamma);
        const double lum = zenithY * Perez(y, d[2], gamma) / Perez(y, 1, thetaSun);
        const double cx = zenithX * Perez(x, d[2], gamma) / Perez(x, 1, thetaSun);
        const double cy = zenithYc * Perez(yc, d[2], gamma) / Perez(yc, 1, thetaSun);
        // Yxy -> XYZ -> linear sRGB (IEC 61966-2-1 matrix, D65 white).
        const double bigX = cx / cy * lum, bigZ = (1 - cx - cy) / cy * lum;
        return {3.2406 * bigX - 1.5372 * lum - 0.4986 * bigZ,
                -0.9689 * bigX + 1.8758 * lum + 0.0415 * bigZ,
                0.0557 * bigX - 0.2040 * lum + 1.0570 * bigZ};
    }
};

std::array<double, 3> Direction(double azimuthRad, double sinElevation) {
    const double cosElevation = std::sqrt(std::max(0.0, 1 - sinElevation * sinElevation));
    return {cosElevation * std::sin(azimuthRad), cosElevation * std::cos(azimuthRad), sinElevation};
}

double Exposure(double zenithY) {
    return kExposureAt45 * std::pow(kZenithY45 / zenithY, kAdaptation);
}

// The sRGB transfer function (IEC 61966-2-1) of a linear value in [0, 1], on the 0..255 scale.
float SrgbEncode(double linear) {
    const double v =
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1 / 2.4) - 0.055;
    return static_cast<float>(255 * std::clamp(v, 0.0, 1.0));
}

// Exposed linear radiance -> display value: Reinhard's curve c / (1 + c) per channel ("Photographic
// tone reproduction for digital images", Reinhard et al. 2002), then sRGB.
SkyColour ToDisplay(const std::array<double, 3>& rgb, double exposure) {
    std::array<double, 3> c{};
    for (int i = 0; i < 3; ++i) c[i] = std::max(0.0, rgb[i] * kWhiteBalance[i]);
    const double lum = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    // The saturation, reduced where it would push a channel under kChannelFloor of the luminance
    // (near a low sun the model's own colour is at sRGB's gamut edge).
    const double lowest = std::min({c[0], c[1], c[2]});
    const double saturation =
        lowest < lum ? std::min(kSaturation, (1 - kChannelFloor) * lum / (lum - lowest)) : 1.0;
    auto channel = [&](double v) {
        const double e = std::max(0.0, (lum + saturation * (v - lum)) * exposure * kExposureGain);
        return SrgbEncode(e / (1 + e));
    };
    return {channel(c[0]), channel(c[1]), channel(c[2])};
}

// The sun's transmittance at red, green and blue (0.65, 0.55, 0.45 um) through the air mass of
// elevation `elevationRad`: Rayleigh optical depth 0.008735 lambda^-4.08 and aerosol
// beta lambda^-1.3 with beta = 0.04608 T - 0.04586 (appendix A.3 of the source paper, ozone and
// water vapour left out); air mass after Kasten and Young (1989).
std::array<double, 3> SunTransmittance(double elevationRad, double turbidity) {
    const double elevationDeg = elevationRad * 180 / kPi;
    const double airMass =
        1 / (std::sin(elevationRad) + 0.50572 * std::pow(elevationDeg + 6.07995, -1.6364));
    const double beta = 0.04608 * turbidity - 0.04586;
    const double lambdaUm[3] = {0.65, 0.55, 0.45};
    std::array<double, 3> t{};
    for (int i = 0; i < 3; ++i) {
        const double tau =
            0.008735 * std::pow(lambdaUm[i], -4.08) + beta * std::pow(lambdaUm[i], -1.3);
        t[i] = std::exp(-tau * airMass);
    }
    return t;
}

// The sky's irradiance on a horizontal surface (linear RGB, kcd/m^2 x sr scale), by the midpoint
// rule over 32 azimuths x 16 elevations.
std::array<double, 3> SkyIrradiance(const SkyModel& model) {
    constexpr int nAz = 32, nEl = 16;
    std::array<double, 3> sum{};
    for (int j = 0; j < nEl; ++j) {
        const double elevation = (j + 0.5) * (kPi / 2) / nEl;
        const double weight = std::sin(elevation) * std::cos(elevation);
        for (int i = 0; i < nAz; ++i) {
            const auto rgb =
                model.Radiance(Direction((i + 0.5) * 2 * kPi / nAz, std::sin(elevation)));
            for (int c = 0; c < 3; ++c) sum[c] += std::max(0.0, rgb[c]) * weight;
        }
    }
    const double cell = (2 * kPi / nAz) * (kPi / 2 / nEl);
    for (double& s : sum) s *= cell;
    return sum;
}

float Smoothstep(double edge0, double edge1, double x) {
    const double t = std::clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0);
    return static_cast<float>(t * t * (3 - 2 * t));
}

// How far the sun's colour covers the sky at angle `gammaRad` from the sun: 1 on the disc with a
// soft limb, and an exponential glow that reaches 0 at kGlowRadiusRad.
float SunMix(double gammaRad) {
    const float disc =
        1 - Smoothstep(kDiscRadiusRad - kLimbRad, kDiscRadiusRad + kLimbRad, gammaRad);
    const double edge = std::exp(-kGlowRadiusRad / kGlowWidthRad);
    const double glow = std::max(0.0, (std::exp(-gammaRad / kGlowWidthRad) - edge) / (1 - edge));
    return std::min(1.0f, disc + kGlowPeak * static_cast<float>(glow));
}

// The angle (radians) whose cosine is `cosAngle`, for angles under about 10 deg: sqrt(2 (1 -
// cos)), within 0.13% there and cheaper than acos.
double SmallAngle(double cosAngle) { return std::sqrt(2 * std::max(0.0, 1 - cosAngle)); }

SkyColour Mix(SkyColour a, SkyColour b, float t) {
    return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

}  // namespace

Expected<Sky> Sky::Make(double sunAzimuthRad, double sunElevationRad, double turbidity) {
    if (!std::isfinite(sunAzimuthRad) || !std::isfinite(sunElevationRad) ||
        !std::isfinite(turbidity)) {
        return Error{fmt::format("sky: non-finite sun azimuth {}, elevation {} or turbidity {}",
                                 sunAzimuthRad, sunElevationRad, turbidity)};
    }
    if (sunElevationRad <= 0 || sunElevationRad > kPi / 2 + 1e-9) {
        return Error{
            fmt::format("sky: sun elevation {:.6g} rad outside (0, pi/2]: the daylight "
                        "model needs the sun above the horizon",
                        sunElevationRad)};
    }
    if (turbidity < 1.7 || turbidity > 10) {
        return Error{
            fmt::format("sky: turbidity {} outside [1.7, 10], the model's range", turbidity)};
    }
    Sky sky;
    const double elevation = std::min(sunElevationRad, kPi / 2);
    const SkyModel model(sunAzimuthRad, elevation, turbidity);
    const double exposure = Exposure(model.zenithY);
    sky.sunAzimuthRad_ = sunAzimuthRad;
    sky.sinSunElevation_ = std::sin(elevation);
    sky.cosSunElevation_ = std::cos(elevation);
    sky.sunDirection_ = model.sun;
    sky.table_.resize(static_cast<std::size_t>(kTableAzimuths) * kSkyTableElevations);
    for (int i = 0; i < kTableAzimuths; ++i) {
        const double azimuth = i * 2 * kPi / kTableAzimuths;
        for (int j = 0; j < kSkyTableElevations; ++j) {
            const double sinElevation = static_cast<double>(j) / (kSkyTableElevations - 1);
            sky.table_[static_cast<std::size_t>(i) * kSkyTableElevations + j] =
                ToDisplay(model.Radiance(Direction(azimuth, sinElevation)), exposure);
        }
    }
    const double relativeExposure = exposure / kExposureAt45;
    const auto sun = SunTransmittance(elevation, turbidity);
    const auto sun45 = SunTransmittance(kPi / 4, turbidity);
    const auto sky0 = SkyIrradiance(model);
    const auto sky45 = SkyIrradiance(SkyModel(0, kPi / 4, turbidity));
    const double sunMax = std::max({sun[0], sun[1], sun[2]});
    auto f = [](double v) { return static_cast<float>(v); };
    sky.sunlight_ = {f(relativeExposure * sun[0] / sun45[0]),
                     f(relativeExposure * sun[1] / sun45[1]),
                     f(relativeExposure * sun[2] / sun45[2])};
    sky.skylight_ = {f(relativeExposure * sky0[0] / sky45[0]),
                     f(relativeExposure * sky0[1] / sky45[1]),
                     f(relativeExposure * sky0[2] / sky45[2])};
    // The disc and glow: the sunlight's hue, softened toward white (the eye sees the disc as
    // nearly white until the sun is very low).
    auto disc = [&](double t) { return f(255 * std::pow(t / sunMax, 0.1)); };
    sky.sunDisplay_ = {disc(sun[0]), disc(sun[1]), disc(sun[2])};
    return sky;
}

Sky::PlaneSky Sky::Plane(double azimuthRad, bool tabulate) const {
    PlaneSky plane;
    Plane(azimuthRad, tabulate, plane);
    return plane;
}

void Sky::Plane(double azimuthRad, bool tabulate, PlaneSky& plane) const {
    plane.sky_ = this;
    const double turns = azimuthRad / (2 * kPi);
    const double u = (turns - std::floor(turns)) * kTableAzimuths;
    const int i0 = std::min(static_cast<int>(u), kTableAzimuths - 1);
    const int i1 = (i0 + 1) % kTableAzimuths;
    plane.weight1_ = static_cast<float>(u - i0);
    plane.column0_ = &table_[static_cast<std::size_t>(i0) * kSkyTableElevations];
    plane.column1_ = &table_[static_cast<std::size_t>(i1) * kSkyTableElevations];
    plane.tabulated_ = tabulate;
    if (tabulate) {
        for (int j = 0; j < kSkyTableElevations; ++j) {
            plane.column_[j] = Mix(plane.column0_[j], plane.column1_[j], plane.weight1_);
        }
    }
    plane.cosAzimuthToSun_ = std::cos(azimuthRad - sunAzimuthRad_);
    // The plane's closest approach to the sun is the angle between the sun and the plane's
    // half-plane (at the sun's elevation if the azimuths differ by under 90 deg).
    const double sinE = sinSunElevation_, cosE = cosSunElevation_;
    const double cosClosest =
        plane.cosAzimuthToSun_ > 0
            ? std::sqrt(sinE * sinE + cosE * cosE * plane.cosAzimuthToSun_ * plane.cosAzimuthToSun_)
            : sinE;
    plane.nearSun_ = cosClosest > std::cos(std::max(kGlowRadiusRad, kGlintRadiusRad));
}

double Sky::PlaneSky::CosAngleToSun(float slope) const {
    const double invLength = 1 / std::sqrt(1 + static_cast<double>(slope) * slope);
    return sky_->sunDirection_[2] * slope * invLength +
           sky_->cosSunElevation_ * cosAzimuthToSun_ * invLength;
}

SkyColour Sky::PlaneSky::Row(int j) const {
    return tabulated_ ? column_[j] : Mix(column0_[j], column1_[j], weight1_);
}

SkyColour Sky::PlaneSky::At(float slope) const {
    const float s = std::max(slope, 0.0f);
    const float v = s / std::sqrt(1 + s * s) * static_cast<float>(kSkyTableElevations - 1);
    const int j0 = std::min(static_cast<int>(v), kSkyTableElevations - 2);
    SkyColour colour = Mix(Row(j0), Row(j0 + 1), v - static_cast<float>(j0));
    if (nearSun_) {
        const double cosGamma = CosAngleToSun(s);
        if (cosGamma > std::cos(kGlowRadiusRad)) {
            colour = Mix(colour, sky_->sunDisplay_, SunMix(SmallAngle(cosGamma)));
        }
    }
    return colour;
}

float Sky::PlaneSky::GlintAt(float reflectedSlope) const {
    if (!nearSun_) return 0;
    const double cosGamma = CosAngleToSun(reflectedSlope);
    if (cosGamma <= std::cos(kGlintRadiusRad)) return 0;
    const double gamma = SmallAngle(cosGamma);
    const double edge =
        std::exp(-0.5 * (kGlintRadiusRad / kGlintWidthRad) * (kGlintRadiusRad / kGlintWidthRad));
    const double lobe = std::exp(-0.5 * (gamma / kGlintWidthRad) * (gamma / kGlintWidthRad));
    return static_cast<float>(std::max(0.0, (lobe - edge) / (1 - edge)));
}

SkyColour Sky::At(double azimuthRad, double slope) const {
    return Plane(azimuthRad).At(static_cast<float>(slope));
}

SkyColour Sky::HorizonColour(double azimuthRad) const { return Plane(azimuthRad).At(0.0f); }

float SchlickFresnel(float cosIncidence) {
    const float m = 1 - std::clamp(cosIncidence, 0.0f, 1.0f);
    constexpr float f0 = 0.02f;
    return f0 + (1 - f0) * m * m * m * m * m;
}

Rgb QuantiseSkyColour(SkyColour display, float ditherLevels) {
    return {ToChannel(display.r + ditherLevels), ToChannel(display.g + ditherLevels),
            ToChannel(display.b + ditherLevels)};
}

}  // namespace bfv::common
