#include "predict/link_profile.h"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "common/json_file.h"
#include "predict/model_validate.h"

namespace bfv::predict {

namespace {

using nlohmann::json;
using Check = Expected<void> (*)(std::string_view, std::string_view, double);

// Concurrent senders of a many-to-one measurement: MPI ranks.
constexpr common::Range kSendersRange = common::Range::Closed(1.0, 65536.0, "ranks");

constexpr const char* kParamKeys[] = {"msgSetupS", "alcbwBytesPerS", "apbbwBytesPerS"};

double LinkParams::*const kParamFields[] = {&LinkParams::msgSetupS, &LinkParams::alcbwBytesPerS,
                                            &LinkParams::apbbwBytesPerS};

// Segment boundaries are written and read as JSON numbers, which round-trip exactly; the
// tolerance only forgives hand-edited files.
bool SameBytes(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

json ParamsJson(const LinkParams& p) {
    return {{"msgSetupS", p.msgSetupS},
            {"alcbwBytesPerS", p.alcbwBytesPerS},
            {"apbbwBytesPerS", p.apbbwBytesPerS}};
}

json SegmentJson(const LinkSegment& s) {
    json j = ParamsJson(s.params);
    j["minBytes"] = s.minBytes;
    j["maxBytes"] = s.maxBytes;
    return j;
}

json ManyToOneJson(const ManyToOnePoint& m) {
    return {{"senders", m.senders},
            {"msgBytes", m.msgBytes},
            {"aggregateBytesPerS", m.aggregateBytesPerS},
            {"receiverCpuFraction", m.receiverCpuFraction}};
}

json WaitCostJson(const WaitCostPoint& w) {
    return {{"waitS", w.waitS}, {"cpuFraction", w.cpuFraction}};
}

Error FieldError(const std::string& context, const std::string& field, const std::string& what) {
    return Error{context + ": " + field + " " + what};
}

// The number object[key], named prefix+key in errors, passed through `check`.
Expected<double> Number(const json& object, const std::string& context, const std::string& prefix,
                        const char* key, Check check) {
    const std::string field = prefix + key;
    if (!object.is_object() || !object.contains(key))
        return FieldError(context, field, "is missing");
    if (!object.at(key).is_number()) return FieldError(context, field, "must be a number");
    const double value = object.at(key).get<double>();
    if (auto ok = check(context, field, value); !ok) return ok.error();
    return value;
}

// Success when every key of `object` is one of `keys`; else common::JsonKnownKeys's error
// naming `context` and the object by `prefix` less its dot ("segments[0]"; "" for the top).
Expected<void> KnownKeys(const json& object, const std::string& context, const std::string& prefix,
                         std::initializer_list<std::string_view> keys) {
    if (prefix.empty()) return common::JsonKnownKeys(object, context, keys);
    auto known = common::JsonKnownKeys(object, prefix.substr(0, prefix.size() - 1), keys);
    if (!known) return Error{context + ": " + known.error().message};
    return {};
}

Expected<LinkParams> ParseParams(const json& object, const std::string& context,
                                 const std::string& prefix) {
    LinkParams params;
    for (int k = 0; k < 3; ++k) {
        auto value = Number(object, context, prefix, kParamKeys[k], RequirePositive);
        if (!value) return value.error();
        params.*kParamFields[k] = *value;
    }
    return params;
}

// The array doc[key]; a missing key is an error unless `optional` (then an empty array).
Expected<json> Array(const json& doc, const std::string& context, const char* key, bool optional) {
    if (!doc.contains(key)) {
        if (optional) return json::array();
        return FieldError(context, key, "is missing");
    }
    if (!doc.at(key).is_array()) return FieldError(context, key, "must be an array");
    return doc.at(key);
}

Expected<LinkSegment> ParseSegment(const json& j, const std::string& context,
                                   const std::string& prefix) {
    if (auto ok =
            KnownKeys(j, context, prefix,
                      {"minBytes", "maxBytes", "msgSetupS", "alcbwBytesPerS", "apbbwBytesPerS"});
        !ok) {
        return ok.error();
    }
    auto minBytes = Number(j, context, prefix, "minBytes", RequireNonNegative);
    if (!minBytes) return minBytes.error();
    auto maxBytes = Number(j, context, prefix, "maxBytes", RequirePositive);
    if (!maxBytes) return maxBytes.error();
    if (*maxBytes <= *minBytes) {
        return FieldError(context, prefix + "maxBytes",
                          fmt::format("must exceed minBytes ({}), got {}", *minBytes, *maxBytes));
    }
    auto params = ParseParams(j, context, prefix);
    if (!params) return params.error();
    return LinkSegment{*minBytes, *maxBytes, *params};
}

Expected<std::vector<LinkSegment>> ParseSegments(const json& doc, const std::string& context) {
    auto array = Array(doc, context, "segments", false);
    if (!array) return array.error();
    if (array->empty()) return FieldError(context, "segments", "must hold at least one segment");
    std::vector<LinkSegment> segments;
    for (size_t i = 0; i < array->size(); ++i) {
        const std::string prefix = fmt::format("segments[{}].", i);
        auto segment = ParseSegment(array->at(i), context, prefix);
        if (!segment) return segment.error();
        if (i > 0 && !SameBytes(segment->minBytes, segments.back().maxBytes)) {
            return FieldError(context, prefix + "minBytes",
                              fmt::format("must equal segments[{}].maxBytes ({}): segments are "
                                          "ordered by size and contiguous; got {}",
                                          i - 1, segments.back().maxBytes, segment->minBytes));
        }
        segments.push_back(*segment);
    }
    return segments;
}

Expected<std::vector<double>> ParseBreakpoints(const json& doc, const std::string& context,
                                               const std::vector<LinkSegment>& segments) {
    auto array = Array(doc, context, "breakpointsBytes", false);
    if (!array) return array.error();
    if (array->size() + 1 != segments.size()) {
        return FieldError(context, "breakpointsBytes",
                          fmt::format("must hold one value per boundary between segments "
                                      "({}), got {}",
                                      segments.size() - 1, array->size()));
    }
    std::vector<double> breakpoints;
    for (size_t i = 0; i < array->size(); ++i) {
        const json& value = array->at(i);
        if (!value.is_number() || !SameBytes(value.get<double>(), segments[i].maxBytes)) {
            return FieldError(context, fmt::format("breakpointsBytes[{}]", i),
                              fmt::format("must equal segments[{}].maxBytes ({}), got {}", i,
                                          segments[i].maxBytes, value.dump()));
        }
        breakpoints.push_back(value.get<double>());
    }
    return breakpoints;
}

Expected<ManyToOnePoint> ParseManyToOnePoint(const json& j, const std::string& context,
                                             const std::string& prefix) {
    if (!j.is_object() || !j.contains("senders")) {
        return FieldError(context, prefix + "senders", "is missing");
    }
    auto senders = common::JsonIntegerIn(j.at("senders"), prefix + "senders", kSendersRange);
    if (!senders) return Error{context + ": " + senders.error().message};
    if (auto ok = KnownKeys(j, context, prefix,
                            {"senders", "msgBytes", "aggregateBytesPerS", "receiverCpuFraction"});
        !ok) {
        return ok.error();
    }
    ManyToOnePoint point;
    point.senders = *senders;
    auto msgBytes = Number(j, context, prefix, "msgBytes", RequirePositive);
    auto rate = Number(j, context, prefix, "aggregateBytesPerS", RequirePositive);
    auto cpu = Number(j, context, prefix, "receiverCpuFraction", RequireNonNegative);
    for (const auto* v : {&msgBytes, &rate, &cpu}) {
        if (!v->ok()) return v->error();
    }
    point.msgBytes = *msgBytes;
    point.aggregateBytesPerS = *rate;
    point.receiverCpuFraction = *cpu;
    return point;
}

Expected<std::vector<ManyToOnePoint>> ParseManyToOne(const json& doc, const std::string& context) {
    auto array = Array(doc, context, "manyToOne", true);
    if (!array) return array.error();
    std::vector<ManyToOnePoint> points;
    for (size_t i = 0; i < array->size(); ++i) {
        auto point = ParseManyToOnePoint(array->at(i), context, fmt::format("manyToOne[{}].", i));
        if (!point) return point.error();
        points.push_back(*point);
    }
    return points;
}

Expected<std::vector<WaitCostPoint>> ParseWaitCost(const json& doc, const std::string& context,
                                                   const char* key) {
    auto array = Array(doc, context, key, true);
    if (!array) return array.error();
    std::vector<WaitCostPoint> points;
    for (size_t i = 0; i < array->size(); ++i) {
        const std::string prefix = fmt::format("{}[{}].", key, i);
        if (auto ok = KnownKeys(array->at(i), context, prefix, {"waitS", "cpuFraction"}); !ok) {
            return ok.error();
        }
        auto waitS = Number(array->at(i), context, prefix, "waitS", RequirePositive);
        if (!waitS) return waitS.error();
        auto cpu = Number(array->at(i), context, prefix, "cpuFraction", RequireNonNegative);
        if (!cpu) return cpu.error();
        if (*cpu > 1.0) {
            return FieldError(context, prefix + "cpuFraction",
                              fmt::format("must be <= 1, got {}", *cpu));
        }
        if (!points.empty() && *waitS <= points.back().waitS) {
            return FieldError(context, prefix + "waitS",
                              fmt::format("must be larger than the one before ({}), got {}",
                                          points.back().waitS, *waitS));
        }
        points.push_back({*waitS, *cpu});
    }
    return points;
}

// name, the version, and the scalar fields; the arrays come after.
Expected<LinkProfile> ParseScalars(const json& doc, const std::string& context) {
    if (!doc.is_object() || !doc.contains("bfvLinkProfileVersion") ||
        doc.at("bfvLinkProfileVersion") != 1) {
        return FieldError(context, "bfvLinkProfileVersion",
                          "must be 1 (is this a file written by `bfv commbench`?)");
    }
    LinkProfile p;
    if (!doc.contains("name") || !doc.at("name").is_string()) {
        return FieldError(context, "name", "is missing or not a string");
    }
    p.name = doc.at("name").get<std::string>();
    if (auto ok = KnownKeys(
            doc, context, "",
            {"bfvLinkProfileVersion", "name", "overall", "segments", "breakpointsBytes",
             "nHalfBytes", "apbbwSendBytesPerS", "apbbwReceiveBytesPerS", "manyToOne", "waitCost",
             "waitCostBusy", "schedulerTickS", "host", "ranks", "transport", "hostCpuQuotas"});
        !ok) {
        return ok.error();
    }
    if (doc.contains("overall")) {
        auto ok = KnownKeys(doc.at("overall"), context, "overall.",
                            {"msgSetupS", "alcbwBytesPerS", "apbbwBytesPerS"});
        if (!ok) return ok.error();
    }
    auto overall =
        ParseParams(doc.contains("overall") ? doc.at("overall") : json(), context, "overall.");
    auto nHalf = Number(doc, context, "", "nHalfBytes", RequirePositive);
    auto send = Number(doc, context, "", "apbbwSendBytesPerS", RequirePositive);
    auto receive = Number(doc, context, "", "apbbwReceiveBytesPerS", RequirePositive);
    if (!overall) return overall.error();
    for (const auto* v : {&nHalf, &send, &receive}) {
        if (!v->ok()) return v->error();
    }
    p.overall = *overall;
    p.nHalfBytes = *nHalf;
    p.apbbwSendBytesPerS = *send;
    p.apbbwReceiveBytesPerS = *receive;
    return p;
}

std::string OptionalString(const json& doc, const char* key, const std::string& otherwise) {
    return doc.contains(key) && doc.at(key).is_string() ? doc.at(key).get<std::string>()
                                                        : otherwise;
}

// host, ranks and transport only describe the measurement: absent or odd values are ignored.
void ParseInformational(const json& doc, LinkProfile& p) {
    p.host = OptionalString(doc, "host", "");
    p.transport = OptionalString(doc, "transport", "default");
    const bool hasRanks = doc.contains("ranks") && doc.at("ranks").is_number_integer();
    p.ranks = hasRanks ? doc.at("ranks").get<int>() : 0;
    if (!doc.contains("hostCpuQuotas") || !doc.at("hostCpuQuotas").is_array()) return;
    for (const json& q : doc.at("hostCpuQuotas")) {
        bool valid = q.is_object() && q.contains("host") && q.at("host").is_string() &&
                     q.contains("cpuQuotaCores") && q.at("cpuQuotaCores").is_number() &&
                     q.contains("quotaPeriodS") && q.at("quotaPeriodS").is_number();
        if (valid) {
            p.hostCpuQuotas.push_back({q.at("host").get<std::string>(),
                                       std::max(0.0, q.at("cpuQuotaCores").get<double>()),
                                       std::max(0.0, q.at("quotaPeriodS").get<double>())});
        }
    }
}

}  // namespace

LinkParams LinkProfile::ParamsFor(double msgBytes) const {
    for (const LinkSegment& segment : segments) {
        if (msgBytes <= segment.maxBytes) return segment.params;
    }
    return segments.back().params;
}

double LinkProfile::WaitCpuFraction(double waitS, bool busyHost) const {
    const std::vector<WaitCostPoint>& points =
        busyHost && !waitCostBusy.empty() ? waitCostBusy : waitCost;
    if (points.empty() || waitS <= 0.0) return 0.0;
    if (waitS <= points.front().waitS) return points.front().cpuFraction;
    for (size_t i = 1; i < points.size(); ++i) {
        const WaitCostPoint &a = points[i - 1], &b = points[i];
        if (waitS <= b.waitS) {
            double t = std::log(waitS / a.waitS) / std::log(b.waitS / a.waitS);
            return a.cpuFraction + t * (b.cpuFraction - a.cpuFraction);
        }
    }
    return points.back().cpuFraction;
}

json LinkProfileJson(const LinkProfile& p) {
    json segments = json::array(), manyToOne = json::array(), waitCost = json::array(),
         waitCostBusy = json::array(), quotas = json::array();
    for (const HostCpuQuota& q : p.hostCpuQuotas) {
        quotas.push_back({{"host", q.host},
                          {"cpuQuotaCores", q.cpuQuotaCores},
                          {"quotaPeriodS", q.quotaPeriodS}});
    }
    for (const LinkSegment& s : p.segments) segments.push_back(SegmentJson(s));
    for (const ManyToOnePoint& m : p.manyToOne) manyToOne.push_back(ManyToOneJson(m));
    for (const WaitCostPoint& w : p.waitCost) waitCost.push_back(WaitCostJson(w));
    for (const WaitCostPoint& w : p.waitCostBusy) waitCostBusy.push_back(WaitCostJson(w));
    return {{"bfvLinkProfileVersion", 1},
            {"name", p.name},
            {"overall", ParamsJson(p.overall)},
            {"segments", segments},
            {"breakpointsBytes", p.breakpointsBytes},
            {"nHalfBytes", p.nHalfBytes},
            {"apbbwSendBytesPerS", p.apbbwSendBytesPerS},
            {"apbbwReceiveBytesPerS", p.apbbwReceiveBytesPerS},
            {"manyToOne", manyToOne},
            {"waitCost", waitCost},
            {"waitCostBusy", waitCostBusy},
            {"schedulerTickS", p.schedulerTickS},
            {"host", p.host},
            {"ranks", p.ranks},
            {"transport", p.transport},
            {"hostCpuQuotas", quotas}};
}

Expected<LinkProfile> ParseLinkProfile(const json& doc, const std::string& source) {
    const std::string context = "link profile '" + source + "'";
    auto profile = ParseScalars(doc, context);
    if (!profile) return profile;
    auto segments = ParseSegments(doc, context);
    if (!segments) return segments.error();
    auto breakpoints = ParseBreakpoints(doc, context, *segments);
    if (!breakpoints) return breakpoints.error();
    auto manyToOne = ParseManyToOne(doc, context);
    if (!manyToOne) return manyToOne.error();
    auto waitCost = ParseWaitCost(doc, context, "waitCost");
    if (!waitCost) return waitCost.error();
    auto waitCostBusy = ParseWaitCost(doc, context, "waitCostBusy");
    if (!waitCostBusy) return waitCostBusy.error();
    profile->waitCost = std::move(*waitCost);
    profile->waitCostBusy = std::move(*waitCostBusy);
    if (doc.contains("schedulerTickS")) {
        auto tick = Number(doc, context, "", "schedulerTickS", RequireNonNegative);
        if (!tick) return tick.error();
        profile->schedulerTickS = *tick;
    }
    profile->segments = std::move(*segments);
    profile->breakpointsBytes = std::move(*breakpoints);
    profile->manyToOne = std::move(*manyToOne);
    ParseInformational(doc, *profile);
    return profile;
}

Expected<LinkProfile> ReadLinkProfile(const std::string& path) {
    auto doc = common::ReadJsonFile(path, "link profile");
    if (!doc) return doc.error();
    return ParseLinkProfile(*doc, path);
}

}  // namespace bfv::predict
