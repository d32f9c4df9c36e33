#include "predict/resource_profile.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/json_file.h"
#include "common/messages.h"

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

Error FieldError(const std::string& source, const std::string& field, const std::string& what) {
    return Error{"resource profile '" + source + "': " + field + " " + what};
}

Expected<double> NonNegative(const json& object, const std::string& key, const std::string& path,
                             const std::string& source) {
    if (!object.is_object() || !object.contains(key) || !object.at(key).is_number()) {
        return FieldError(source, path + key, "is missing or not a number");
    }
    double v = object.at(key).get<double>();
    if (!std::isfinite(v) || v < 0) return FieldError(source, path + key, "must be >= 0");
    return v;
}

Expected<predict::Calculation> ParseCalculation(const json& doc, const std::string& name,
                                                const std::string& source) {
    if (!doc.contains("calculations") || !doc.at("calculations").contains(name)) {
        return FieldError(source, "calculations." + name, "is missing");
    }
    const json& c = doc.at("calculations").at(name);
    std::string path = "calculations." + name + ".";
    predict::Calculation calc;
    calc.name = name;
    double* fields[] = {&calc.rtexS, &calc.cpuFraction, &calc.dvolBytes, &calc.msgBytes};
    const char* keys[] = {"rtexS", "cpuFraction", "dvolBytes", "msgBytes"};
    for (int k = 0; k < 4; ++k) {
        auto v = NonNegative(c, keys[k], path, source);
        if (!v) return v.error();
        *fields[k] = *v;
    }
    if (calc.cpuFraction > 1.0) return FieldError(source, path + "cpuFraction", "must be <= 1");
    return calc;
}

Expected<int> PositiveInt(const json& doc, const std::string& key, const std::string& source) {
    if (!doc.contains(key) || !doc.at(key).is_number_integer() || doc.at(key).get<int>() < 1) {
        return FieldError(source, key, "must be a positive integer");
    }
    return doc.at(key).get<int>();
}

}  // namespace

ResourceProfile BuildResourceProfile(const common::RenderOptions& options,
                                     const std::string& terrainName, const common::Recorder& total,
                                     const common::Recorder& afterWarmup, int frames,
                                     int warmupFrames, double terrainBytes) {
    ResourceProfile p;
    p.host = HostName();
    p.terrainName = terrainName;
    p.widthPx = options.screen.widthPx;
    p.heightPx = options.screen.heightPx;
    p.columnsPerMessage = options.columnsPerMessage;
    p.framesMeasured = frames - warmupFrames;
    p.app.terrainServer.name = "terrain server";
    p.app.terrainServer.msgBytes = options.terrainMessageBytes;
    double streamBytes = total.Get(common::Activity::TerrainReceive).bytes -
                         afterWarmup.Get(common::Activity::TerrainReceive).bytes;
    p.app.terrainStreamBytesPerS =
        streamBytes / std::max(p.framesMeasured * options.frameDtS, 1e-9);
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
              {"rayTrace", CalculationJson(p.app.rayTrace)},
              {"display", CalculationJson(p.app.display)}}},
            {"terrainStreamBytesPerS", p.app.terrainStreamBytesPerS},
            {"startup",
             {{"terrainBytes", p.terrainBytes},
              {"terrainReadS", p.terrainReadS},
              {"pyramidBuildS", p.pyramidBuildS}}},
            {"columnCostShares", p.columnCostShares},
            {"columnCodecs", CodecsJson(p.codecs)}};
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
        CodecCost cost{*codec};
        double* fields[] = {&cost.compressionRatio, &cost.compressCpuSPerRawByte,
                            &cost.decompressCpuSPerRawByte};
        const char* keys[] = {"compressionRatio", "compressCpuSPerRawByte",
                              "decompressCpuSPerRawByte"};
        for (int f = 0; f < 3; ++f) {
            auto v = NonNegative(list[k], keys[f], path, source);
            if (!v) return v.error();
            *fields[f] = *v;
        }
        if (cost.compressionRatio < 1.0) {
            return FieldError(source, path + "compressionRatio", "must be >= 1");
        }
        codecs.push_back(cost);
    }
    return codecs;
}

namespace {

// ParseResourceProfile, but for fields of the wrong type, which nlohmann::json throws for.
Expected<ResourceProfile> ParseFields(const json& doc, const std::string& source) {
    if (!doc.is_object() || !doc.contains("bfvResourceProfileVersion") ||
        doc.at("bfvResourceProfileVersion") != 1) {  // compared as JSON: 1e40 is no int
        return FieldError(source, "bfvResourceProfileVersion",
                          "must be 1 (is this a profile "
                          "written by bfv render --profile?)");
    }
    ResourceProfile p;
    p.host = doc.value("host", "");
    p.terrainName = doc.value("terrain", "");
    int* ints[] = {&p.widthPx, &p.heightPx, &p.columnsPerMessage};
    const char* intKeys[] = {"widthPx", "heightPx", "columnsPerMessage"};
    for (int k = 0; k < 3; ++k) {
        auto v = PositiveInt(doc, intKeys[k], source);
        if (!v) return v.error();
        *ints[k] = *v;
    }
    if (doc.contains("framesMeasured")) {
        if (!doc.at("framesMeasured").is_number_integer())
            return FieldError(source, "framesMeasured", "must be an integer");
        p.framesMeasured = doc.at("framesMeasured").get<int>();
    }
    auto server = ParseCalculation(doc, "terrainServer", source);
    auto trace = ParseCalculation(doc, "rayTrace", source);
    auto display = ParseCalculation(doc, "display", source);
    for (const auto* c : {&server, &trace, &display}) {
        if (!c->ok()) return c->error();
    }
    p.app = {*server, *trace, *display, 0.0};
    auto stream = NonNegative(doc, "terrainStreamBytesPerS", "", source);
    if (!stream) return stream.error();
    p.app.terrainStreamBytesPerS = *stream;
    if (doc.contains("columnCostShares")) {
        const json& shares = doc.at("columnCostShares");
        if (!shares.is_array()) return FieldError(source, "columnCostShares", "must be a list");
        for (const json& v : shares) {
            if (!v.is_number() || v.get<double>() < 0) {
                return FieldError(source, "columnCostShares", "must hold non-negative numbers");
            }
            p.columnCostShares.push_back(v.get<double>());
        }
        p.columnCostShares = Shares(p.columnCostShares);
    }
    auto codecs = ParseCodecs(doc, source);
    if (!codecs) return codecs.error();
    p.codecs = *codecs;
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
