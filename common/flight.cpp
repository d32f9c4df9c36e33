#include "common/flight.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <glm/geometric.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "common/check.h"
#include "common/json_file.h"

namespace bfv::common {

namespace {

double HeadingOf(glm::dvec2 from, glm::dvec2 to) {
    return std::atan2(to.x - from.x, to.y - from.y);  // clockwise from north
}

// Linear interpolation of angles the short way round.
double LerpAngle(double a, double b, double t) {
    double d = std::remainder(b - a, 2.0 * std::numbers::pi);
    return a + d * t;
}

}  // namespace

Flight Flight::FromWaypoints(std::vector<glm::dvec2> waypointsM, bool loop, FlightStyle style,
                             GroundFn ground) {
    BFV_CHECK(waypointsM.size() >= 2);
    Flight flight;
    if (loop) waypointsM.push_back(waypointsM.front());
    flight.cumulativeM_.push_back(0.0);
    for (size_t k = 1; k < waypointsM.size(); ++k) {
        double legM = glm::length(waypointsM[k] - waypointsM[k - 1]);
        BFV_CHECK(legM > 0.0);
        flight.cumulativeM_.push_back(flight.cumulativeM_.back() + legM);
    }
    flight.waypointsM_ = std::move(waypointsM);
    flight.loop_ = loop;
    flight.style_ = style;
    flight.ground_ = std::move(ground);
    return flight;
}

Flight Flight::FromPoses(std::vector<TimedPose> poses) {
    BFV_CHECK(!poses.empty());
    Flight flight;
    flight.poses_ = std::move(poses);
    return flight;
}

Flight Flight::DefaultCircuit(double widthM, double depthM, FlightStyle style, GroundFn ground) {
    constexpr int kWaypoints = 72;
    glm::dvec2 centre(widthM / 2.0, depthM / 2.0);
    double radiusM = 0.3 * std::min(widthM, depthM);
    std::vector<glm::dvec2> points;
    for (int k = 0; k < kWaypoints; ++k) {
        double a = 2.0 * std::numbers::pi * k / kWaypoints;
        points.push_back(centre + radiusM * glm::dvec2(-std::cos(a), std::sin(a)));
    }
    return FromWaypoints(std::move(points), true, style, std::move(ground));
}

glm::dvec2 Flight::PointAt(double distanceM) const {
    double total = cumulativeM_.back();
    distanceM = loop_ ? std::fmod(distanceM, total) : std::clamp(distanceM, 0.0, total);
    auto it = std::upper_bound(cumulativeM_.begin(), cumulativeM_.end(), distanceM);
    size_t k = std::clamp<size_t>(it - cumulativeM_.begin(), 1, cumulativeM_.size() - 1);
    double t = (distanceM - cumulativeM_[k - 1]) / (cumulativeM_[k] - cumulativeM_[k - 1]);
    return waypointsM_[k - 1] + (waypointsM_[k] - waypointsM_[k - 1]) * t;
}

CameraPose Flight::PoseAt(double timeS) const {
    if (!poses_.empty()) {
        auto it = std::upper_bound(poses_.begin(), poses_.end(), timeS,
                                   [](double t, const TimedPose& p) { return t < p.timeS; });
        if (it == poses_.begin()) return poses_.front().pose;
        if (it == poses_.end()) return poses_.back().pose;
        const TimedPose &a = *(it - 1), &b = *it;
        double t = (timeS - a.timeS) / (b.timeS - a.timeS);
        return {a.pose.eyeM + (b.pose.eyeM - a.pose.eyeM) * t,
                LerpAngle(a.pose.headingRad, b.pose.headingRad, t),
                a.pose.pitchRad + (b.pose.pitchRad - a.pose.pitchRad) * t, timeS};
    }
    double distanceM = style_.speedMPerS * timeS;
    if (!loop_) distanceM = std::min(distanceM, PathLengthM());  // stopped: keep the last heading
    glm::dvec2 here = PointAt(distanceM);
    glm::dvec2 ahead = PointAt(distanceM + style_.lookAheadM);
    if (glm::length(ahead - here) < 1e-6) ahead = here + (here - PointAt(distanceM - 1.0));
    double eyeZ = ground_(here.x, here.y) + style_.aglM;
    return {glm::dvec3(here, eyeZ), HeadingOf(here, ahead), style_.pitchRad, timeS};
}

namespace {

using nlohmann::json;

Error FieldError(const std::string& path, const std::string& what) {
    return Error{"flight file '" + path + "': " + what};
}

// The JSON number `v` within `range`, named `field` in errors, with the file's name.
Expected<double> NumberIn(const json& v, const std::string& field, const Range& range,
                          const std::string& path) {
    auto number = JsonNumberIn(v, field, range);
    if (!number) return FieldError(path, number.error().message);
    return number;
}

// object[key] within `range`, or `fallback` when the key is absent.
Expected<double> OptionalNumber(const json& object, const char* key, double fallback,
                                const Range& range, const std::string& path) {
    if (!object.contains(key)) return fallback;
    return NumberIn(object.at(key), std::string("\"") + key + "\"", range, path);
}

Expected<glm::dvec2> ParseWaypoint(const json& p, size_t k, const std::string& path) {
    if (!p.is_array() || p.size() != 2) {
        return FieldError(path, "waypoint " + std::to_string(k) + " is not an [x, y] pair");
    }
    const std::string field = "waypoint " + std::to_string(k);
    auto x = NumberIn(p[0], field + " x", kCoordinateRangeM, path);
    if (!x) return x.error();
    auto y = NumberIn(p[1], field + " y", kCoordinateRangeM, path);
    if (!y) return y.error();
    return glm::dvec2(*x, *y);
}

Expected<FlightStyle> ParseStyle(const json& doc, const std::string& path) {
    FlightStyle style;
    auto agl = OptionalNumber(doc, "aglM", style.aglM, kAglRangeM, path);
    auto pitch =
        OptionalNumber(doc, "pitchDeg", DegreesFromRadians(style.pitchRad), kPitchRangeDeg, path);
    auto speed = OptionalNumber(doc, "speedMPerS", style.speedMPerS, kSpeedRangeMPerS, path);
    for (const auto* e : {&agl, &pitch, &speed}) {
        if (!e->ok()) return e->error();
    }
    style.aglM = *agl;
    style.pitchRad = *pitch * kRadPerDeg;
    style.speedMPerS = *speed;
    return style;
}

Expected<Flight> ParseWaypoints(const json& doc, const std::string& path, GroundFn ground) {
    const json& list = doc.at("waypoints");
    if (!list.is_array() || list.size() < 2) {
        return FieldError(path, "\"waypoints\" must be a list of at least 2 [x, y] pairs");
    }
    std::vector<glm::dvec2> points;
    for (size_t k = 0; k < list.size(); ++k) {
        auto point = ParseWaypoint(list[k], k, path);
        if (!point) return point.error();
        if (k > 0 && *point == points.back()) {
            return FieldError(path, "waypoint " + std::to_string(k) + " repeats the one before");
        }
        points.push_back(*point);
    }
    auto style = ParseStyle(doc, path);
    if (!style) return style.error();
    if (doc.contains("loop") && !doc.at("loop").is_boolean()) {
        return FieldError(path, "\"loop\" must be true or false");
    }
    bool loop = doc.value("loop", true);
    return Flight::FromWaypoints(std::move(points), loop, *style, std::move(ground));
}

Expected<TimedPose> ParsePose(const json& p, size_t k, const std::string& path) {
    const char* keys[] = {"timeS", "xM", "yM", "zM", "headingDeg", "pitchDeg"};
    const Range ranges[] = {kPoseTimeRangeS,   kCoordinateRangeM,    kCoordinateRangeM,
                            kPoseHeightRangeM, kPoseHeadingRangeDeg, kPitchRangeDeg};
    double values[6];
    for (int f = 0; f < 6; ++f) {
        if (!p.is_object() || !p.contains(keys[f])) {
            return FieldError(path,
                              "pose " + std::to_string(k) + " needs a number \"" + keys[f] + "\"");
        }
        auto value = NumberIn(p.at(keys[f]), "pose " + std::to_string(k) + " \"" + keys[f] + "\"",
                              ranges[f], path);
        if (!value) return value.error();
        values[f] = *value;
    }
    auto known = JsonKnownKeys(
        p, "pose " + std::to_string(k),
        {"timeS", "xM", "yM", "zM", "headingDeg", "pitchDeg", "headingRad", "pitchRad"});
    if (!known) return FieldError(path, known.error().message);
    TimedPose pose;
    pose.timeS = values[0];
    pose.pose = {glm::dvec3(values[1], values[2], values[3]), values[4] * kRadPerDeg,
                 values[5] * kRadPerDeg, values[0]};
    // A recorded flight also carries the angles in radians: read them, so that the replay flies
    // exactly the recorded poses (degrees and back can differ in the last bit).
    const Range headingRad = Range::Closed(kPoseHeadingRangeDeg.min * kRadPerDeg,
                                           kPoseHeadingRangeDeg.max * kRadPerDeg, "radians");
    const Range pitchRad = Range::Closed(-kMaxPitchRad, kMaxPitchRad, "radians");
    auto exact = OptionalNumber(p, "headingRad", pose.pose.headingRad, headingRad, path);
    if (!exact) return exact.error();
    pose.pose.headingRad = *exact;
    exact = OptionalNumber(p, "pitchRad", pose.pose.pitchRad, pitchRad, path);
    if (!exact) return exact.error();
    pose.pose.pitchRad = *exact;
    return pose;
}

Expected<Flight> ParsePoses(const json& doc, const std::string& path) {
    const json& list = doc.at("poses");
    if (!list.is_array() || list.empty()) {
        return FieldError(path, "\"poses\" must be a list of at least one pose");
    }
    std::vector<TimedPose> poses;
    for (size_t k = 0; k < list.size(); ++k) {
        auto pose = ParsePose(list[k], k, path);
        if (!pose) return pose.error();
        if (k > 0 && pose->timeS <= poses.back().timeS) {
            return FieldError(path, "pose " + std::to_string(k) + ": timeS must increase");
        }
        poses.push_back(*pose);
    }
    return Flight::FromPoses(std::move(poses));
}

}  // namespace

Expected<void> Flight::CheckOverTerrain(double widthM, double depthM,
                                        const GroundFn& ground) const {
    auto outside = [&](const char* what, std::size_t k, const std::string& where) {
        return Error{fmt::format("{} {} {} m lies outside the terrain (0..{:.0f} x 0..{:.0f} m)",
                                 what, k, where, widthM, depthM)};
    };
    auto over = [&](double xM, double yM) {
        return xM >= 0.0 && xM <= widthM && yM >= 0.0 && yM <= depthM;
    };
    for (std::size_t k = 0; k < waypointsM_.size(); ++k) {
        const glm::dvec2& p = waypointsM_[k];
        if (!over(p.x, p.y))
            return outside("waypoint", k, fmt::format("({:.0f}, {:.0f})", p.x, p.y));
    }
    for (std::size_t k = 0; k < poses_.size(); ++k) {
        const glm::dvec3& p = poses_[k].pose.eyeM;
        std::string where = fmt::format("({:.0f}, {:.0f}, {:.0f})", p.x, p.y, p.z);
        if (!over(p.x, p.y)) return outside("pose", k, where);
        double groundM = ground(p.x, p.y);
        if (p.z < groundM) {
            return Error{
                fmt::format("pose {} {} m is {:.1f} m below the ground", k, where, groundM - p.z)};
        }
    }
    return {};
}

Expected<Flight> LoadFlightFile(const std::string& path, GroundFn ground) {
    auto doc = ReadJsonFile(path, "flight file");
    if (!doc) return doc.error();
    if (!doc->is_object()) return FieldError(path, "must be a JSON object");
    const std::string file = "flight file '" + path + "'";
    if (doc->contains("waypoints") && doc->contains("poses")) {
        return FieldError(path,
                          "has both \"waypoints\" and \"poses\"; give one: waypoints to fly "
                          "a path, poses to replay a recorded flight");
    }
    try {  // a field of the wrong type throws nlohmann::json::type_error
        if (doc->contains("waypoints")) {
            auto known =
                JsonKnownKeys(*doc, file, {"waypoints", "loop", "aglM", "pitchDeg", "speedMPerS"});
            if (!known) return known.error();
            return ParseWaypoints(*doc, path, std::move(ground));
        }
        if (doc->contains("poses")) {
            if (auto known = JsonKnownKeys(*doc, file, {"poses"}); !known) return known.error();
            return ParsePoses(*doc, path);
        }
    } catch (const nlohmann::json::exception& e) {
        return FieldError(path, std::string("has a field of the wrong type (") + e.what() + ")");
    }
    return FieldError(path, "needs \"waypoints\" or \"poses\"");
}

std::string RecordedFlightJson(const std::vector<CameraPose>& poses) {
    json list = json::array();
    double lastS = -std::numeric_limits<double>::infinity();
    for (const CameraPose& pose : poses) {
        if (!(pose.timeS > lastS)) continue;
        lastS = pose.timeS;
        list.push_back({{"timeS", pose.timeS},
                        {"xM", pose.eyeM.x},
                        {"yM", pose.eyeM.y},
                        {"zM", pose.eyeM.z},
                        {"headingDeg", pose.headingRad / kRadPerDeg},
                        {"pitchDeg", pose.pitchRad / kRadPerDeg},
                        {"headingRad", pose.headingRad},
                        {"pitchRad", pose.pitchRad}});
    }
    return json{{"poses", list}}.dump(1) + "\n";
}

}  // namespace bfv::common
