#pragma once

// Colour spaces and colour differences: 8-bit sRGB to CIELAB and back, and the CIEDE2000 colour
// difference, for quantising imagery into a palette and for measuring how well a rendering
// reproduces a source's colours.

#include "common/pixel.h"

namespace bfv::common {

/// A CIE 1976 L*a*b* colour relative to the D65 white: l (lightness) 0..100, a (green-red) and
/// b (blue-yellow) about -128..128 for sRGB colours.
struct Lab {
    double l = 0.0, a = 0.0, b = 0.0;
};

/// The CIELAB colour of 8-bit sRGB `colour`: the sRGB transfer function undone (IEC 61966-2-1),
/// linear RGB to CIE XYZ by sRGB's primaries (D65), then CIE 1976 L*a*b* with D65 as white (sRGB
/// white is L* 100, a* = b* = 0).
Lab SrgbToLab(Rgb colour);

/// The 8-bit sRGB colour of `lab`, the inverse of SrgbToLab: each channel rounded to the nearest
/// value and clamped to 0..255 (a CIELAB colour outside sRGB's gamut comes back clipped).
Rgb LabToSrgb(const Lab& lab);

/// The CIEDE2000 colour difference of `first` and `second` (parametric factors kL = kC = kH = 1),
/// as "The CIEDE2000 color-difference formula: implementation notes, supplementary test data,
/// and mathematical observations" (Sharma, Wu and Dalal, 2005) gives it, eqs. 1-22: about 1 is
/// a just noticeable difference. Symmetric in its arguments, 0 for equal colours.
double Ciede2000(const Lab& first, const Lab& second);

}  // namespace bfv::common
