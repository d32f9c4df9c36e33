#pragma once

#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "common/expected.h"
#include "raytracer/post_field.h"

namespace bfv::raytracer {

/// Where streams begin and how wide they are.
struct DrainageOptions {
    double thresholdM2 = 5.0e6;  // = 5 km^2 // upstream area where a stream begins, m^2
    /// Channel width at 1 km^2 of upstream area, metres: width = widthAt1Km2M * sqrt(area /
    /// 1 km^2), downstream hydraulic geometry with width ~ discharge^0.5 ("The hydraulic
    /// geometry of stream channels and some physiographic implications", Leopold and Maddock
    /// 1953), discharge taken proportional to upstream area.
    double widthAt1Km2M = 2.5;  // = 2.5 m
    double minWidthM = 3.0;     // = 3 m // narrowest channel drawn
    double maxWidthM = 80.0;    // = 80 m // widest channel drawn
    /// Posts at or below this height drain out of the map, as the grid's edges do (the sea:
    /// terrain::WaterLevelM); none by default.
    double outletBelowM = -std::numeric_limits<double>::infinity();
};

/// What the water at a point is (DrainageField::WaterAtM).
struct StreamWater {
    float share = 0.0f;  // share of the footprint on a channel, 0..1
    /// Height of the channel's water surface there (the pit-filled terrain along the stream's
    /// centreline), metres; the lowest float where share is 0.
    float surfaceM = std::numeric_limits<float>::lowest();
};

/// Rivers from the terrain's own drainage, over a grid of posts (nx x ny, row-major from the
/// south-west, spacingM apart), computed once at start-up:
/// 1. pits filled by Priority-Flood+epsilon ("Priority-flood: An optimal depression-filling and
///    watershed-labeling algorithm", Barnes, Lehman and Mulla 2014, algorithm 3): from the
///    grid's edges (and posts at or below DrainageOptions::outletBelowM) inward in order of
///    height, each post raised to at least 1e-5 m above the post that reached it, so that
///    every post, flats and filled pits included, has a lower neighbour; O(n log n);
/// 2. D8 flow directions (O'Callaghan and Mark 1984): each post drains to the neighbour of
///    steepest descent on the filled surface; edge posts drain out of the map;
/// 3. upstream area: each post's own spacingM^2 plus everything draining into it, O(n);
/// 4. channels: posts whose upstream area reaches DrainageOptions::thresholdM2, joined to the
///    post they drain to by a centreline segment whose width grows with the area; the
///    centreline smoothed along each stream (two passes of [1 2 1] / 4: D8's 45-degree bends
///    rounded, each pass moving a post by at most 0.71 of
///    the spacing); the segments bucketed on a
///    coarse grid so that a query looks at a handful of them.
class DrainageField {
  public:
    /// The drainage of a grid of heights. Errors: a non-positive spacing, an empty grid, a
    /// size that is not nx ny, a non-finite height, a non-positive threshold or width.
    static Expected<DrainageField> Build(std::span<const float> heightsM, int nx, int ny,
                                         double spacingM, const DrainageOptions& options = {});
    /// The drainage of the terrain whose height at world point (xM, yM) is `heightAtM(xM, yM)`
    /// (metres), on posts `spacingM` apart over the data's extent, `widthM` x `depthM` metres
    /// from the origin (like ShadowField: a pinned level of the tile cache). Errors: as above,
    /// and a non-positive extent.
    static Expected<DrainageField> Build(
        double widthM, double depthM, double spacingM,
        const std::function<double(double xM, double yM)>& heightAtM,
        const DrainageOptions& options = {});

    /// Upstream area of the post nearest world point (xM, yM) (clamped to the grid), m^2: the
    /// area that drains through it, its own post's included.
    double UpstreamAreaM2AtM(double xM, double yM) const;

    /// The channel water over a square footprint `footprintM` metres across centred on world
    /// point (xM, yM): the share of the footprint's width, across the nearest channel, that
    /// lies within the channel's half-width of its centreline (the distance to the centreline
    /// box-filtered over the footprint: 1 inside the channel, falling linearly to 0 over one
    /// footprint at the banks; a channel narrower than the footprint gives at most width /
    /// footprint), so that a river's width is its own, not the posts'. Pass the post spacing of
    /// the tile being coloured (at least about 1 m for smooth banks). Cheap: a few segments of
    /// one to four buckets.
    StreamWater WaterAtM(double xM, double yM, double footprintM = 1.0) const;
    /// WaterAtM(xM, yM, footprintM).share.
    float WaterShareAtM(double xM, double yM, double footprintM = 1.0) const {
        return WaterAtM(xM, yM, footprintM).share;
    }

    /// Channel width where the upstream area is `areaM2` (DrainageOptions), metres; 0 below the
    /// threshold.
    double ChannelWidthM(double areaM2) const;
    /// Post spacing of the field, metres.
    double SpacingM() const { return areaM2_.spacingM; }
    /// Number of channel posts (each with one centreline segment downstream, or none at an
    /// outlet).
    int ChannelPosts() const { return channelPosts_; }

  private:
    // A stretch of centreline from a channel post to the post it drains to: ends in metres,
    // half-widths and water surface heights at both ends.
    struct Segment {
        float x0, y0, x1, y1;
        float halfWidth0M, halfWidth1M;
        float surface0M, surface1M;
    };

    DrainageField() = default;
    void BucketSegments();

    DrainageOptions options_;
    PostField areaM2_;  // upstream area per post, m^2
    std::vector<Segment> segments_;
    int channelPosts_ = 0;
    // Buckets of bucketM_ x bucketM_ metres, bucketsX_ a row: the segments whose box (grown by
    // its half-widths) overlaps each, as indices into segments_ (CSR: first_[b]..first_[b + 1]).
    double bucketM_ = 1.0;
    int bucketsX_ = 0, bucketsY_ = 0;
    std::vector<int> first_;
    std::vector<int> members_;
};

}  // namespace bfv::raytracer
