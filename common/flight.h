#pragma once

#include <functional>
#include <glm/vec2.hpp>
#include <string>
#include <vector>

#include "common/camera.h"
#include "common/expected.h"
#include "common/ranges.h"

namespace bfv::common {

/// Ground height in metres under world position (xM, yM); the flight follows it.
using GroundFn = std::function<double(double xM, double yM)>;

/// Allowed values of a flight, wherever they come from (options or a flight file).
inline constexpr Range kAglRangeM = Range::AboveUpTo(0.0, 100000.0, "m");  // eye above ground
inline constexpr Range kPitchRangeDeg = Range::Closed(-90.0, 90.0, "degrees");
inline constexpr Range kSpeedRangeMPerS = Range::Closed(0.0, 10000.0, "m/s");  // ground speed
/// World x and y of waypoints and poses, metres: far beyond any dataset, short of absurd.
inline constexpr Range kCoordinateRangeM = Range::Closed(-1e7, 1e7, "m");
/// Eye height of recorded poses, metres above the datum.
inline constexpr Range kPoseHeightRangeM = Range::Closed(-1e5, 1e5, "m");
inline constexpr Range kPoseHeadingRangeDeg = Range::Closed(-1e6, 1e6, "degrees");
inline constexpr Range kPoseTimeRangeS = Range::Closed(-1e9, 1e9, "s");

/// How the scripted pilot flies between waypoints: the source paper's case by default.
struct FlightStyle {
    double aglM = 300.0;        // = 300 // eye height above the ground, metres
    double pitchRad = -0.5236;  // = -30 deg // view pitch, negative looks down
    double speedMPerS = 26.8;   // = 26.8 (60 mph) // ground speed
    double lookAheadM = 250.0;  // = 250 // heading aims this far along the path (smooth turns)
};

/// A recorded camera pose at a time: flights replay a list of these, interpolated linearly.
struct TimedPose {
    double timeS = 0.0;
    CameraPose pose;
};

/// A flight: the camera pose at any time. Either a polyline of waypoints flown at a constant
/// speed and height above ground (closed into a loop, or stopping at the last waypoint), or a
/// recorded list of poses replayed as they were (holding the last one).
class Flight {
  public:
    /// Waypoints (xM, yM) in the dataset frame; at least 2, consecutive ones distinct.
    static Flight FromWaypoints(std::vector<glm::dvec2> waypointsM, bool loop, FlightStyle style,
                                GroundFn ground);
    /// Recorded poses, strictly increasing in time; at least one.
    static Flight FromPoses(std::vector<TimedPose> poses);
    /// The default flight: a loop of radius 0.3 * min(width, depth) around the dataset's centre
    /// (72 waypoints), flown in `style`. Over the shipped 30 km DEM it lasts about 40 minutes.
    static Flight DefaultCircuit(double widthM, double depthM, FlightStyle style, GroundFn ground);

    /// The camera pose at flight time `timeS` >= 0.
    CameraPose PoseAt(double timeS) const;
    /// Length of the path in metres (waypoint flights) or its duration times 0 (pose lists).
    double PathLengthM() const { return cumulativeM_.empty() ? 0.0 : cumulativeM_.back(); }

    /// Success when every waypoint, or every pose, lies over the terrain's data area (0..widthM
    /// east, 0..depthM north, metres) and every pose at or above `ground` there; else the first
    /// that does not: "waypoint 2 (40000, 5000) m lies outside the terrain (0..30000 x
    /// 0..30000 m)", "pose 7 (1200, 800, 350) m is 42.0 m below the ground". A flight off the
    /// terrain rendered blank frames without a word.
    Expected<void> CheckOverTerrain(double widthM, double depthM, const GroundFn& ground) const;

  private:
    glm::dvec2 PointAt(double distanceM) const;

    std::vector<glm::dvec2> waypointsM_;
    std::vector<double> cumulativeM_;  // path length up to each waypoint
    bool loop_ = false;
    FlightStyle style_;
    GroundFn ground_;
    std::vector<TimedPose> poses_;
};

/// Reads a flight file (JSON). Two forms:
///   {"waypoints": [[x, y], ...], "loop": true, "aglM": 300, "pitchDeg": -30,
///    "speedMPerS": 26.8}                      (metres in the dataset frame; all but
///                                            "waypoints" optional, defaults as FlightStyle)
///   {"poses": [{"timeS": 0, "xM": .., "yM": .., "zM": .., "headingDeg": .., "pitchDeg": ..},
///    ...]}                                   (a recorded flight; "headingRad" and "pitchRad",
///                                            when present, are used instead of the degrees)
/// Errors name the file and the offending field; a key of neither form ("speedMph") or a file
/// with both "waypoints" and "poses" is refused.
Expected<Flight> LoadFlightFile(const std::string& path, GroundFn ground);

/// The flight file (LoadFlightFile's "poses" form) of the poses flown, in order (`bfv render
/// --record`): each pose later in time than the one before (a paused stretch keeps its first),
/// with its angles in degrees and, for an exact replay, in radians ("headingRad", "pitchRad").
std::string RecordedFlightJson(const std::vector<CameraPose>& poses);

}  // namespace bfv::common
