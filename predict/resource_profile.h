#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/instrument.h"
#include "common/render_options.h"
#include "predict/model_app.h"
#include "predict/model_cluster.h"

namespace bfv::predict {

/// bfv's own resource characteristics on the machine that measured them (section 1.1 of the
/// source paper, for our program): what `bfv render --sequential --profile FILE` writes and
/// `bfv predict` reads. Per-frame figures exclude the warm-up frames.
struct ResourceProfile {
    std::string host;  // machine that measured it
    std::string terrainName;
    int widthPx = 0;  // screen the trace was measured at
    int heightPx = 0;
    int columnsPerMessage = 0;        // MSGZ in columns that rayTrace.msgBytes stands for
    int framesMeasured = 0;           // frames after warm-up
    predict::AppCharacteristics app;  // RTEX, CPU%, DVOL, MSGZ per calculation, per frame
    double terrainBytes = 0.0;        // terrain sent once at start-up, bytes
    double terrainReadS = 0.0;        // reading and checking the terrain file, then serving the
                                      //  view's tiles every frame, seconds over the whole run
    double pyramidBuildS = 0.0;       // building the start-up cache, then applying the streamed
                                      //  tiles every frame, seconds over the whole run
    std::vector<double> columnCostShares;  // share of the trace time of each of up to
                                           //  kProfileStrips equal strips of columns, left to
                                           //  right (sums to 1); empty = uniform
    std::vector<CodecCost> codecs;         // column codecs measured on the frames (CodecMeter)
    CastView view;                         // the camera the frames were cast with
};

/// How many strips of columns a profile times separately (fewer on narrower screens).
inline constexpr int kProfileStrips = 64;

/// `values` scaled to sum to 1 (empty or all-zero input: empty).
std::vector<double> Shares(const std::vector<double>& values);

/// Builds the profile of a --sequential run from its activity totals: `total` at the end of
/// `frames` frames and `afterWarmup` once `warmupFrames` frames were done (per-frame figures
/// use the difference). The ray trace sends the whole screen, W x H pixels of 2 bytes plus one
/// header per message of options.pipeline.columnsPerMessage columns; the display receives it. The
/// terrain stream is the tile bytes the in-process server sent after warm-up (traffic of
/// common::Activity::TerrainReceive) per second of flight (options.view.frameDtS per frame); the
/// terrain server's calculation is its per-frame work (TerrainRead), the tile receive the
/// per-frame decoding and shading of the tiles (TerrainReceive). The view is the options' field
/// of view and anti-aliasing at their --pitch (the caller sets the flight's mean pitch and the
/// marches' share of the trace).
ResourceProfile BuildResourceProfile(const common::RenderOptions& options,
                                     const std::string& terrainName, const common::Recorder& total,
                                     const common::Recorder& afterWarmup, int frames,
                                     int warmupFrames, double terrainBytes);

/// The profile as JSON ({"bfvResourceProfileVersion": 1, ...}).
nlohmann::json ResourceProfileJson(const ResourceProfile& profile);

/// Reads a profile; errors name the file, the field, the allowed range and the value
/// ("resource profile 'p.json': calculations.rayTrace.cpuFraction must be >= 0 and <= 1, got
/// 1.5"); calculations.tileReceive is optional (0 when absent). Ranges: widthPx and heightPx
/// 1..kMaxScreenPx, columnsPerMessage 1..widthPx, rtexS 0..3600 s, cpuFraction 0..1, bytes >= 0,
/// compressionRatio 1..1e6, CPU per byte 0..1 s; "view" is optional (profiles written before it:
/// pitch 0, no anti-aliasing), its pitchDeg -90..90, hFovDeg 1..160, antialias true or false,
/// marchShare 0..1 (optional: 1).
Expected<ResourceProfile> ReadResourceProfile(const std::string& path);

/// The same from parsed JSON; `source` names it in errors.
Expected<ResourceProfile> ParseResourceProfile(const nlohmann::json& doc,
                                               const std::string& source);

}  // namespace bfv::predict
