#pragma once

// A palette for draped imagery: up to 256 colours that reproduce an image's colours, and the
// nearest of them to any colour, both in CIELAB (common/colour.h) so that "near" is near as the
// eye sees it. A draped dataset stores the palette in its header (PyramidInfo::landColours) and
// at each post the index of its colour (TilePosts::materials).

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/pixel.h"

namespace bfv::terrain {

/// Most colours a palette holds: a post's index into it is a byte.
inline constexpr int kMaxPaletteColours = 256;

/// The palette of at most `maxColours` (1..kMaxPaletteColours) colours that reproduces `samples`
/// (an image's colours; at least one): the distinct sample colours themselves when there are no
/// more than `maxColours` of them (ordered by 0xRRGGBB), else median cut in CIELAB (boxes split
/// at the weighted median of their widest axis, the box of the largest squared error first)
/// refined by kPaletteRounds rounds of k-means (Lloyd's algorithm, each distinct colour weighted
/// by its count), the centres rounded to sRGB. Deterministic: the same samples in any order
/// give the same palette.
std::vector<common::Rgb> BuildPalette(std::span<const common::Rgb> samples,
                                      int maxColours = kMaxPaletteColours);

/// Rounds of k-means after the median cut.
inline constexpr int kPaletteRounds = 6;

/// The nearest colour of a palette in CIELAB (Euclidean, CIE76), by a search of the palette
/// sorted by lightness that stops where the lightness alone is farther than the best so far.
class NearestColour {
  public:
    /// `labs`: the palette's colours in CIELAB (l, a, b), at least one; the index Nearest
    /// returns is into this list.
    explicit NearestColour(std::span<const std::array<float, 3>> labs);
    /// The index of the colour nearest `lab`; of equally near ones, the lowest index.
    int Nearest(const std::array<float, 3>& lab) const;

  private:
    struct Entry {
        std::array<float, 3> lab;
        int index;
    };
    std::vector<Entry> byLightness_;
};

/// The index in `palette` (1..kMaxPaletteColours colours) of the colour nearest any 8-bit sRGB
/// colour in CIELAB, found once per distinct colour (a large image's posts repeat their colours
/// many times over): a 32 MiB table made at the first lookup.
class PaletteIndex {
  public:
    explicit PaletteIndex(std::span<const common::Rgb> palette);
    /// The index of the palette colour nearest `colour`.
    std::uint8_t Of(common::Rgb colour);

  private:
    /// indices_ entry of a colour not looked up yet.
    static constexpr std::uint16_t kUnknown = 0xFFFF;

    NearestColour nearest_;
    std::vector<std::uint16_t> indices_;  // by 0xRRGGBB: the index, or kUnknown
};

}  // namespace bfv::terrain
