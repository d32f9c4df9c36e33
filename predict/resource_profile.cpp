#include "predict/resource_profile.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/camera.h"
#include "common/flight.h"
#include "common/json_file.h"
#include "common/messages.h"
#include "common/render_options.h"

namespace bfv::predict {

namespace {

using nlohmann::json;

// Per-frame RTEX and CPU% of one activity between the warm-up mark and the end.
predict::Calculation PerFrame(const std::string& name, const common::Recorder& total,
                              const common::Recorder& afterWarmup, common::Activity activity,
                              int frames) {
    const common::ActivityStats &end = total.Get(activity), &start = afterWarmup.Get(activity);
    double wallS = end.wallS - start.wallS, cpuS = end.cpuS - start.cpuS;
    predict::Calculation calc;
    calc.name = name;
    calc.rtexS = frames > 0 ? wallS / frames : 0.0;
    calc.cpuFraction = wallS > 0 ? std::min(cpuS / wallS, 1.0) : 0.0;
    return calc;
}

std::string HostName() {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    return name;
}

json CalculationJson(const predict::Calculation& c) {
    return {{"rtexS", c.rtexS},
            {"cpuFraction", c.cpuFraction},
            {"dvolBytes", c.dvolBytes},
            {"msgBytes", c.msgBytes}};
}

// Allowed values of a profile's measurements.
constexpr common::Range kFrameTimeRangeS = common::Range::Closed(0.0, 3600.0, "s");  // per frame
constexpr common::Range kCpuFractionRange = common::Range::Closed(0.0, 1.0);  // CPU / wall time
constexpr common::Range kCompressionRatioRange = common::Range::Closed(1.0, 1e6);
constexpr common::Range kCpuPerByteRangeS = common::Range::Closed(0.0, 1.0, "s");

Error FieldError(const std::string& source, const std::string& field, const std::string& what) {
    return Error{"resource profile '" + source + "': " + field + " " + what};
}

// object[key] within `range`, named path+key in errors.
Expected<double> NumberIn(const json& object, const std::string& key, const std::string& path,
                          const common::Range& range, const std::string& source) {
    if (!object.is_object() || !object.contains(key)) {
        return FieldError(source, path + key, "is missing");
    }
    auto v = common::JsonNumberIn(object.at(key), path + key, range);
    if (!v) return Error{"resource profile '" + source + "': " + v.error().message};
    return v;
}

// Success when every key of `object` is one of `keys`; else common::JsonKnownKeys's error
// naming the profile and the object `where` ("calculations.rayTrace").
Expected<void> KnownKeys(const json& object, const std::string& where, const std::string& source,
                         std::initializer_list<std::string_view> keys) {
    auto known = common::JsonKnownKeys(object, where, keys);
    if (!known) return Error{"resource profile '" + source + "': " + known.error().message};
    return {};
}

Expected<predict::Calculation> ParseCalculation(const json& doc, const std::string& name,
                                                const std::string& source) {
    if (!doc.contains("calculations") || !doc.at("calculations").contains(name)) {
        return FieldError(source, "calculations." + name, "is missing");
    }
    const json& c = doc.at("calculations").at(name);
    std::string path = "calculations." + name + ".";
    if (auto ok = KnownKeys(c, path.substr(0, path.size() - 1), source,
                            {"rtexS", "cpuFraction", "dvolBytes", "msgBytes"});
        !ok) {
        return ok.error();
    }
    predict::Calculation calc;
    calc.name = name;
    double* fields[] = {&calc.rtexS, &calc.cpuFraction, &calc.dvolBytes, &calc.msgBytes};
    const char* keys[] = {"rtexS", "cpuFraction", "dvolBytes", "msgBytes"};
    const common::Range ranges[] = {kFrameTimeRangeS, kCpuFractionRange,
                                    common::Range::NonNegative("bytes"),
                                    common::Range::NonNegative("bytes")};
    for (int k = 0; k < 4; ++k) {
        auto v = NumberIn(c, keys[k], path, ranges[k], source);
        if (!v) return v.error();
        *fields[k] = *v;
    }
    return calc;
}

// doc[key] as a whole number within `range`.
Expected<int> IntegerIn(const json& doc, const std::string& key, const common::Range& range,
                        const std::string& source) {
    if (!doc.contains(key)) return FieldError(source, key, "is missing");
    auto v = common::JsonIntegerIn(doc.at(key), key, range);
    if (!v) return Error{"resource profile '" + source + "': " + v.error().message};
    return v;
}

// doc[key] as a string, "" when absent.
Expected<std::string> OptionalString(const json& doc, const std::string& key,
                                     const std::string& source) {
    if (!doc.contains(key)) return std::string();
    if (!doc.at(key).is_string()) return FieldError(source, key, "must be a string");
    return doc.at(key).get<std::string>();
}

}  // namespace

ResourceProfile BuildResourceProfile(const common::RenderOptions& options,
                                     const std::string& terrainName, const common::Recorder& total,
                                     const common::Recorder& afterWarmup, int frames,
                                     int warmupFrames, double terrainBytes) {
    ResourceProfile p;
    p.host = HostName();
    p.terrainName = terrainName;
    p.widthPx = options.view.screen.widthPx;
    p.heightPx = options.view.screen.heightPx;
    p.columnsPerMessage = options.pipeline.columnsPerMessage;
    p.framesMeasured = frames - warmupFrames;
    p.app.terrainServer = PerFrame("terrain server", total, afterWarmup,
                                   common::Activity::TerrainRead, p.framesMeasured);
    p.app.terrainServer.msgBytes = options.terrain.terrainMessageBytes;
    p.app.tileReceive = PerFrame("tile receive", total, afterWarmup,
                                 common::Activity::TerrainReceive, p.framesMeasured);
    double streamBytes = total.Get(common::Activity::TerrainReceive).bytes -
                         afterWarmup.Get(common::Activity::TerrainReceive).bytes;
    p.app.terrainStreamBytesPerS =
        streamBytes / std::max(p.framesMeasured * options.view.frameDtS, 1e-9);
    p.app.rayTrace =
        PerFrame("ray trace", total, afterWarmup, common::Activity::Trace, p.framesMeasured);
    int messages = (p.widthPx + p.columnsPerMessage - 1) / p.columnsPerMessage;
    p.app.rayTrace.dvolBytes = static_cast<double>(p.widthPx) * p.heightPx * sizeof(common::Pixel) +
                               messages * sizeof(common::ColumnsHeader);
    p.app.rayTrace.msgBytes =
        static_cast<double>(common::ColumnsMessageBytes(p.columnsPerMessage, p.heightPx));
    p.app.display =
        PerFrame("display", total, afterWarmup, common::Activity::Present, p.framesMeasured);
    p.terrainBytes = terrainBytes;
    p.terrainReadS = total.Get(common::Activity::TerrainRead).wallS;
    p.pyramidBuildS = total.Get(common::Activity::TerrainReceive).wallS;
    p.view = {options.view.flightStyle.pitchRad, options.view.screen.hFovRad,
              options.shading.antialias};
    return p;
}

json CodecsJson(const std::vector<CodecCost>& codecs) {
    json out = json::array();
    for (const CodecCost& c : codecs) {
        out.push_back({{"codec", common::ToString(c.codec)},
                       {"compressionRatio", c.compressionRatio},
                       {"compressCpuSPerRawByte", c.compressCpuSPerRawByte},
                       {"decompressCpuSPerRawByte", c.decompressCpuSPerRawByte}});
    }
    return out;
}

json ResourceProfileJson(const ResourceProfile& p) {
    return {{"bfvResourceProfileVersion", 1},
            {"host", p.host},
            {"terrain", p.terrainName},
            {"widthPx", p.widthPx},
            {"heightPx", p.heightPx},
            {"columnsPerMessage", p.columnsPerMessage},
            {"framesMeasured", p.framesMeasured},
            {"calculations",
             {{"terrainServer", CalculationJson(p.app.terrainServer)},
              {"tileReceive", CalculationJson(p.app.tileReceive)},
              {"rayTrace", CalculationJson(p.app.rayTrace)},
              {"display", CalculationJson(p.app.display)}}},
            {"terrainStreamBytesPerS", p.app.terrainStreamBytesPerS},
            {"startup",
             {{"terrainBytes", p.terrainBytes},
              {"terrainReadS", p.terrainReadS},
              {"pyramidBuildS", p.pyramidBuildS}}},
            {"columnCostShares", p.columnCostShares},
            {"columnCodecs", CodecsJson(p.codecs)},
            {"view",
             {{"pitchDeg", common::DegreesFromRadians(p.view.pitchRad)},
              {"hFovDeg", common::DegreesFromRadians(p.view.hFovRad)},
              {"antialias", p.view.antialias},
              {"marchShare", p.view.marchShare}}}};
}

// "columnCodecs" (optional: older profiles have none).
Expected<std::vector<CodecCost>> ParseCodecs(const json& doc, const std::string& source) {
    std::vector<CodecCost> codecs;
    if (!doc.contains("columnCodecs")) return codecs;
    const json& list = doc.at("columnCodecs");
    if (!list.is_array()) return FieldError(source, "columnCodecs", "must be a list");
    for (std::size_t k = 0; k < list.size(); ++k) {
        std::string path = "columnCodecs[" + std::to_string(k) + "].";
        if (!list[k].is_object() || !list[k].contains("codec") || !list[k]["codec"].is_string()) {
            return FieldError(source, path + "codec", "is missing or not a string");
        }
        auto codec = common::ParseColumnCodec(list[k]["codec"].get<std::string>());
        if (!codec) return FieldError(source, path + "codec", "must be none, lz4 or zstd");
        if (auto ok = KnownKeys(list[k], path.substr(0, path.size() - 1), source,
                                {"codec", "compressionRatio", "compressCpuSPerRawByte",
                                 "decompressCpuSPerRawByte"});
            !ok) {
            return ok.error();
        }
        CodecCost cost{*codec};
        double* fields[] = {&cost.compressionRatio, &cost.compressCpuSPerRawByte,
                            &cost.decompressCpuSPerRawByte};
        const char* keys[] = {"compressionRatio", "compressCpuSPerRawByte",
                              "decompressCpuSPerRawByte"};
        const common::Range ranges[] = {kCompressionRatioRange, kCpuPerByteRangeS,
                                        kCpuPerByteRangeS};
        for (int f = 0; f < 3; ++f) {
            auto v = NumberIn(list[k], keys[f], path, ranges[f], source);
            if (!v) return v.error();
            *fields[f] = *v;
        }
        codecs.push_back(cost);
    }
    return codecs;
}

namespace {

// The screen and message fields of a profile into `p`: widthPx, heightPx, columnsPerMessage,
// framesMeasured (optional: 0).
Expected<void> ParseScreen(const json& doc, const std::string& source, ResourceProfile& p) {
    const common::Range screenRange = common::Range::Closed(1.0, common::kMaxScreenPx, "pixels");
    auto width = IntegerIn(doc, "widthPx", screenRange, source);
    if (!width) return width.error();
    auto height = IntegerIn(doc, "heightPx", screenRange, source);
    auto columns = IntegerIn(doc, "columnsPerMessage",
                             common::Range::Closed(1.0, *width, "columns (widthPx)"), source);
    auto frames = doc.contains("framesMeasured")
                      ? IntegerIn(doc, "framesMeasured", common::kFramesRange, source)
                      : Expected<int>(0);
    for (const auto* v : {&height, &columns, &frames}) {
        if (!v->ok()) return v->error();
    }
    p.widthPx = *width;
    p.heightPx = *height;
    p.columnsPerMessage = *columns;
    p.framesMeasured = *frames;
    return {};
}

// A profile's "calculations" and "terrainStreamBytesPerS" (not yet validated as a whole:
// predict::ValidateApp).
Expected<predict::AppCharacteristics> ParseApp(const json& doc, const std::string& source) {
    auto server = ParseCalculation(doc, "terrainServer", source);
    auto trace = ParseCalculation(doc, "rayTrace", source);
    auto display = ParseCalculation(doc, "display", source);
    for (const auto* c : {&server, &trace, &display}) {
        if (!c->ok()) return c->error();
    }
    predict::AppCharacteristics app{*server, *trace, *display, 0.0, {}};
    app.tileReceive.name = "tileReceive";
    // Profiles of bfv before it measured the tile stream's cost have no tileReceive: 0.
    if (doc.contains("calculations") && doc.at("calculations").contains("tileReceive")) {
        auto tiles = ParseCalculation(doc, "tileReceive", source);
        if (!tiles) return tiles.error();
        app.tileReceive = *tiles;
    }
    auto stream =
        NumberIn(doc, "terrainStreamBytesPerS", "", common::Range::NonNegative("bytes/s"), source);
    if (!stream) return stream.error();
    app.terrainStreamBytesPerS = *stream;
    return app;
}

// "columnCostShares" (optional: none), normalised to sum to 1 (Shares).
Expected<std::vector<double>> ParseColumnCostShares(const json& doc, const std::string& source) {
    std::vector<double> values;
    if (!doc.contains("columnCostShares")) return values;
    const json& shares = doc.at("columnCostShares");
    if (!shares.is_array()) return FieldError(source, "columnCostShares", "must be a list");
    for (std::size_t k = 0; k < shares.size(); ++k) {
        auto v = common::JsonNumberIn(shares[k], "columnCostShares[" + std::to_string(k) + "]",
                                      common::Range::NonNegative());
        if (!v) return Error{"resource profile '" + source + "': " + v.error().message};
        values.push_back(*v);
    }
    return Shares(values);
}

// "view" (optional: profiles written before it cast every column as one vertical plane, as a
// camera at pitch 0 does, without anti-aliasing); its marchShare is optional too (1: a tracer's
// whole trace grows with the planes it marches).
Expected<CastView> ParseView(const json& doc, const std::string& source) {
    if (!doc.contains("view")) return CastView{};
    const json& v = doc.at("view");
    if (!v.is_object()) return FieldError(source, "view", "must be an object");
    if (auto ok = KnownKeys(v, "view", source, {"pitchDeg", "hFovDeg", "antialias", "marchShare"});
        !ok) {
        return ok.error();
    }
    auto pitch = NumberIn(v, "pitchDeg", "view.", common::kPitchRangeDeg, source);
    if (!pitch) return pitch.error();
    auto fov = NumberIn(v, "hFovDeg", "view.", common::kFovRangeDeg, source);
    if (!fov) return fov.error();
    if (!v.contains("antialias") || !v.at("antialias").is_boolean()) {
        return FieldError(source, "view.antialias", "must be true or false");
    }
    auto march = v.contains("marchShare")
                     ? NumberIn(v, "marchShare", "view.", kCpuFractionRange, source)
                     : Expected<double>(1.0);
    if (!march) return march.error();
    return CastView{*pitch * common::kRadPerDeg, *fov * common::kRadPerDeg,
                    v.at("antialias").get<bool>(), *march};
}

// The keys of a profile's top level, "calculations" and "startup" (what ResourceProfileJson
// writes); the calculations' and codecs' own keys are checked where they are read.
Expected<void> KnownKeysOfProfile(const json& doc, const std::string& source) {
    if (auto ok = common::JsonKnownKeys(
            doc, "resource profile '" + source + "'",
            {"bfvResourceProfileVersion", "host", "terrain", "widthPx", "heightPx",
             "columnsPerMessage", "framesMeasured", "calculations", "terrainStreamBytesPerS",
             "startup", "columnCostShares", "columnCodecs", "view"});
        !ok) {
        return ok;
    }
    if (doc.contains("calculations")) {
        auto ok = KnownKeys(doc.at("calculations"), "calculations", source,
                            {"terrainServer", "tileReceive", "rayTrace", "display"});
        if (!ok) return ok;
    }
    if (!doc.contains("startup")) return {};
    return KnownKeys(doc.at("startup"), "startup", source,
                     {"terrainBytes", "terrainReadS", "pyramidBuildS"});
}

// ParseResourceProfile, but for fields of the wrong type, which nlohmann::json throws for.
Expected<ResourceProfile> ParseFields(const json& doc, const std::string& source) {
    if (!doc.is_object() || !doc.contains("bfvResourceProfileVersion") ||
        doc.at("bfvResourceProfileVersion") != 1) {  // compared as JSON: 1e40 is no int
        return FieldError(source, "bfvResourceProfileVersion",
                          "must be 1 (is this a profile "
                          "written by bfv render --profile?)");
    }
    if (auto ok = KnownKeysOfProfile(doc, source); !ok) return ok.error();
    ResourceProfile p;
    auto host = OptionalString(doc, "host", source);
    auto terrain = OptionalString(doc, "terrain", source);
    if (!host) return host.error();
    if (!terrain) return terrain.error();
    p.host = *host;
    p.terrainName = *terrain;
    if (auto ok = ParseScreen(doc, source, p); !ok) return ok.error();
    auto app = ParseApp(doc, source);
    if (!app) return app.error();
    p.app = *app;
    auto shares = ParseColumnCostShares(doc, source);
    if (!shares) return shares.error();
    p.columnCostShares = *shares;
    auto codecs = ParseCodecs(doc, source);
    if (!codecs) return codecs.error();
    p.codecs = *codecs;
    auto view = ParseView(doc, source);
    if (!view) return view.error();
    p.view = *view;
    if (auto ok = predict::ValidateApp(p.app); !ok)
        return Error{"resource profile '" + source + "': " + ok.error().message};
    return p;
}

}  // namespace

Expected<ResourceProfile> ParseResourceProfile(const json& doc, const std::string& source) {
    try {
        return ParseFields(doc, source);
    } catch (const json::exception& e) {
        return Error{"resource profile '" + source + "': a field has the wrong type (" + e.what() +
                     ")"};
    }
}

std::vector<double> Shares(const std::vector<double>& values) {
    double total = 0.0;
    for (double v : values) total += v;
    if (!(total > 0.0)) return {};
    std::vector<double> shares;
    for (double v : values) shares.push_back(v / total);
    return shares;
}

Expected<ResourceProfile> ReadResourceProfile(const std::string& path) {
    auto doc = common::ReadJsonFile(path, "resource profile");
    if (!doc) return doc.error();
    return ParseResourceProfile(*doc, path);
}

}  // namespace bfv::predict
