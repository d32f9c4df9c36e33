#pragma once

// Fitting the link parameters of eqs. 16-19 (the source paper's section 3) to a
// ping-pong sweep: one Hockney line over all sizes, a piecewise fit with one line per
// protocol regime (eager, rendezvous, ...), and APBBW per side. Sizes in bytes, times in
// seconds, rates in bytes per second.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "predict/link_profile.h"

namespace bfv::predict {

/// One message size of a ping-pong sweep; every time is per message, the median over the
/// repetitions.
struct SweepPoint {
    double msgBytes = 0.0;      // MSGZ, bytes
    double oneWayS = 0.0;       // one-way time, round trip / 2, seconds
    double senderCpuS = 0.0;    // CPU seconds of the sending thread per message
    double receiverCpuS = 0.0;  // CPU seconds of the receiving thread per message
};

/// A Hockney line time = MSGSETUP + MSGZ / ALCBW (eq. 16) and how well it fits.
struct HockneyFit {
    double msgSetupS = 0.0;       // MSGSETUP, seconds
    double alcbwBytesPerS = 0.0;  // ALCBW, bytes per second
    double relativeSse = 0.0;     // sum over points of ((fit - measured) / measured)^2
    int points = 0;               // points fitted
};

/// A piecewise Hockney fit: fits[i] covers the sorted sweep's points firstPoint[i] up to
/// firstPoint[i + 1] (or the end).
struct PiecewiseFit {
    std::vector<HockneyFit> fits;
    std::vector<size_t> firstPoint;        // index of each segment's first point
    std::vector<double> breakpointsBytes;  // the largest size of each segment but the last
};

/// Which end of a message a CPU time belongs to.
enum class Side { Send, Receive };

inline constexpr int kMinSegmentPoints = 3;  // fewest sizes a segment of a piecewise fit holds
inline constexpr int kMaxSegments = 3;       // most segments FitPiecewise tries
inline constexpr double kBicMargin = 10.0;   // BIC drop an extra segment must bring ("very strong")

/// Checks a sweep: at least 3 points and 2 distinct sizes; msgBytes and oneWayS positive and
/// finite; CPU times zero or positive. Errors name the point: "sweep point 2 (1000 bytes):
/// oneWayS must be > 0, got 0".
Expected<void> ValidateSweep(std::span<const SweepPoint> sweep);

/// Least-squares Hockney fit (eqs. 16-17) of oneWayS against msgBytes, minimising squared
/// *relative* errors so that 200 B and 4 MiB messages both count. A line whose intercept is
/// not positive takes MSGSETUP from the smallest message by eq. 17, or, when that is not
/// positive either (a rate-limited link whose token bucket lets small messages through faster
/// than the sustained rate), the smallest message's one-way time. Errors: fewer than 2
/// distinct sizes, or a fitted ALCBW that is not positive ("the times do not grow with message
/// size"). Does not validate the points (see ValidateSweep).
Expected<HockneyFit> FitHockney(std::span<const SweepPoint> points);

/// Piecewise Hockney fit of a sweep sorted by msgBytes: tries every split between
/// consecutive distinct sizes into 1..kMaxSegments segments of at least kMinSegmentPoints
/// points each, with positive MSGSETUP and ALCBW, and keeps extra segments only when they
/// lower the Bayesian information criterion, m ln(SSE / m) + (3k - 1) ln m for k segments
/// over m points (2 parameters per line, 1 per breakpoint), by kBicMargin. A breakpoint is
/// reported as the largest size measured in the lower regime. Errors: an unsorted sweep, or
/// FitHockney's errors for the whole sweep.
Expected<PiecewiseFit> FitPiecewise(std::span<const SweepPoint> sortedSweep);

/// APBBW of one side (eq. 19) over `points`, whose times follow `fit`: CPU seconds per
/// message are fitted, like the times, by a line c0 + MSGZ / APBBW (relative least squares),
/// so the large-message limit of the measured CPU% is ALCBW / APBBW as in the paper's
/// Table 2. When the side's CPU time does not grow with the size (the fitted MSGZ / APBBW
/// is under 5% of the largest message's CPU time, e.g. that side sleeps while the other
/// copies), APBBW = ALCBW / CPU% with CPU% = cpuS / oneWayS of the largest message. Errors:
/// that CPU time is zero.
Expected<double> FitApbbwBytesPerS(std::span<const SweepPoint> points, const HockneyFit& fit,
                                   Side side);

/// The whole fit of a sweep (any order): `overall` from FitHockney, segments and breakpoints
/// from FitPiecewise, n½ = MSGSETUP * ALCBW of the last (large-message) segment, APBBW per
/// side from FitApbbwBytesPerS on the last segment. Each LinkParams' apbbwBytesPerS is the
/// busier side's (the smaller APBBW), so that eq. 19 gives the larger CPU%. Leaves
/// manyToOne, host, ranks and transport empty. Errors: ValidateSweep's and the fits'.
Expected<LinkProfile> FitLinkProfile(std::span<const SweepPoint> sweep, const std::string& name);

}  // namespace bfv::predict
