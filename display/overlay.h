#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bfv::display {

/// Draws `text` (ASCII, '\n' for new lines) in white on a dark box at pixel (x, y) of a
/// row-major RGB image `widthPx` wide, with stb_easy_font's glyphs scaled by `scale`.
/// Parts outside the image are clipped.
void DrawText(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
              const std::string& text, int scale = 2);

/// Width of `text` in pixels as DrawText draws it at `scale` (its longest line).
int TextWidthPx(const std::string& text, int scale);

/// `text` laid out to fit `maxWidthPx` pixels: at scale 2 if every line fits, else at scale 1
/// with lines that still do not fit broken at spaces (a run of spaces between two items becomes
/// the break; a single word wider than the width stays whole and is clipped when drawn).
struct FittedText {
    std::string text;
    int scale = 2;
};
FittedText FitTextToWidth(const std::string& text, int maxWidthPx);

/// Frames the HUD's frame-time graph shows: the last 120 (4 s at 30 FPS).
inline constexpr int kGraphFrames = 120;

/// Draws a bar graph of `frameTimesS` (seconds per frame, oldest first; the last kGraphFrames
/// are shown, newest at the right) on a darkened box whose top-left corner is pixel (x, y) of
/// a row-major RGB image, `barWidthPx` per frame and `heightPx` high. The box spans 0 to twice
/// `referenceS` (taller bars are cut, drawn red); a white line marks `referenceS`; bars at or
/// under it are green, over it amber. Parts outside the image are clipped.
void DrawFrameTimeGraph(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
                        int barWidthPx, int graphHeightPx, std::span<const double> frameTimesS,
                        double referenceS);

/// Draws one horizontal bar per ray tracer from the top-left corner (x, y) of a row-major RGB
/// image: bar i is `traceTimesS[i]` (seconds) long, scaled so that the slowest tracer spans
/// `barsWidthPx` (drawn amber, the others cyan), on a darkened box `boxHeightPx` high that
/// the bars share (at least 1 pixel each, 1 pixel apart while they fit). Nothing is drawn
/// for no tracers or no time. Parts outside the image are clipped.
void DrawLoadBars(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, int x, int y,
                  int barsWidthPx, int boxHeightPx, std::span<const double> traceTimesS);

/// What the HUD shows over a frame. The spans are borrowed for the DrawHud call.
struct HudContent {
    std::string text;                     // status lines, drawn at the top left
    std::span<const double> frameTimesS;  // seconds per frame, oldest first: the graph
    std::span<const double> traceTimesS;  // last frame's trace time per ray tracer, seconds;
                                          // empty: no load bars (--sequential)
    double referenceFrameS = 1.0 / 30.0;  // = 1/30 // the graph's reference line, seconds
};

/// Draws the HUD over a row-major RGB image `widthPx` x `heightPx`: the text at the top left
/// (fitted to the width by FitTextToWidth),
/// the frame-time graph (DrawFrameTimeGraph) at the bottom left and the per-tracer load bars
/// (DrawLoadBars) beside it, each under a one-line label. A few thousand pixels are written
/// (rectangle fills, no blending), well under a millisecond at 1280x720.
void DrawHud(std::vector<std::uint8_t>& rgb, int widthPx, int heightPx, const HudContent& content);

}  // namespace bfv::display
