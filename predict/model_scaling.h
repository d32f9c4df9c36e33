#pragma once

// Scaling models the predictor reports beside the source paper's schedule, for comparison:
// measured speedup, efficiency and Karp-Flatt serial fraction (seed 001: Parker, "CLUE: A
// Cluster Evaluation Tool", eqs. 1-2 and 6-11), Amdahl, Gustafson, Hill-Marty, Sun-Chen and the
// latency/bandwidth model of seed 004 (Khanyile, Tapamo and Dube, "An Analytic Model for
// Predicting the Performance of Distributed Applications on Multicore Clusters", eqs. 1-3, 10,
// 13, 15-19). Careful with f: seed 001 and Amdahl/Gustafson here take the
// serial fraction, seed 004's Hill-Marty and Sun-Chen the parallel fraction; the parameter
// names say which.

#include <span>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace bfv::predict {

/// One measured configuration: P processors and the run time (the best of several
/// interleaved runs, seed 001 section 3).
struct ScalingPoint {
    int p = 1;           // processors
    double timeS = 0.0;  // run time, seconds (or seconds per frame)
};

/// Seed 001's metrics of one configuration against the P = 1 run.
struct ScalingMetrics {
    int p = 1;                    // processors
    double speedup = 0.0;         // s = T(1) / T(P) (eq. 6)
    double efficiency = 0.0;      // e = s / P (eq. 7)
    double serialFraction = 0.0;  // Karp-Flatt f (eq. 8); NaN at P = 1, where it is undefined
};

/// Speedup T(1) / T(P) (seed 001 eq. 6); with k * T(1,1) / T(P,k) as t1S it is the scaled
/// speedup s_k of eq. 9.
double Speedup(double t1S, double tpS);

/// Efficiency s / P (seed 001 eq. 7; eq. 10 for the scaled speedup). Seed 004 eq. 11 prints
/// T_N / N, a typo for the same thing.
double Efficiency(double speedup, double p);

/// Karp-Flatt experimentally determined serial fraction (1/s - 1/P) / (1 - 1/P) (seed 001
/// eq. 8; eq. 11 with the scaled speedup). Requires P > 1.
double KarpFlattSerialFraction(double speedup, double p);

/// Speedup, efficiency and serial fraction of every point against the point with P = 1.
/// Errors when there is no P = 1 point, a P < 1 or a time that is not positive, naming the
/// point: "scaling point 2: timeS must be > 0, got 0".
Expected<std::vector<ScalingMetrics>> MeasuredScaling(std::span<const ScalingPoint> points);

/// One serial fraction for all points with P > 1: the least-squares f of
/// 1/s - 1/P = f (1 - 1/P), the Karp-Flatt relation (seed 001 eq. 8). Same errors as
/// MeasuredScaling, plus one when no point has P > 1.
Expected<double> FitSerialFraction(std::span<const ScalingPoint> points);

/// Amdahl's fixed-size speedup 1 / (f + (1 - f) / P) (seed 001 eq. 1, seed 004 eq. 1).
double AmdahlSpeedup(double serialFraction, double p);

/// Gustafson's scaled speedup f + (1 - f) P (seed 001 eq. 2, seed 004 eq. 2).
double GustafsonSpeedup(double serialFraction, double p);

/// Sequential performance of a core built from r base-core equivalents, perf(r) = sqrt(r)
/// (Hill and Marty's usual assumption, seed 004 section I).
double HillMartyPerf(double rBce);

/// Hill-Marty speedup of a symmetric multicore chip of nBce BCEs made of nBce / rBce cores of
/// rBce BCEs each: 1 / ((1 - f) / perf(r) + f r / (perf(r) n)) (seed 004 eq. 3), f parallel.
double HillMartySymmetricSpeedup(double parallelFraction, double nBce, double rBce);

/// Sun-Chen memory-bounded speedup on m cores when memory lets the parallel work grow by G(m):
/// ((1 - f) + f G(m)) / ((1 - f) + f G(m) / m), f parallel (Sun and Chen, "Reevaluating
/// Amdahl's law in the multicore era", JPDC 2010). G(m) = 1 is Amdahl, G(m) = m Gustafson.
double SunChenMemoryBoundedSpeedup(double parallelFraction, double m, double gOfM);

/// Sun-Chen fixed-time speedup (1 - f) + m f, f parallel (seed 004 eqs. 10 and 13): the
/// memory-bounded speedup with G(m) = m.
double SunChenFixedTimeSpeedup(double parallelFraction, double m);

/// Network terms of seed 004's latency/bandwidth model (its eq. 15), in bytes rather than the
/// seed's bits.
struct LatencyBandwidthParams {
    double bandwidthBytesPerS = 0.0;  // tau: upper bound of the network bandwidth
    double delaySPerM = 0.0;          // sigma_max: delay per metre of cable
    double distanceM = 0.0;           // dist: cable length between the nodes, metres
    double overheadSPerMsg = 0.0;     // epsilon(L): send plus receive overhead per message
};

/// A distributed run for seed 004's model: the sequential time, its parallel fraction, the
/// node count m and the messages all nodes exchange.
struct DistributedRun {
    double tSeqS = 0.0;             // T_seq: sequential run time, seconds
    double parallelFraction = 0.0;  // f: parallel fraction of the work, 0..1
    double nodes = 1.0;             // m: processing nodes
    double messageCount = 0.0;      // messages of msgBytes exchanged during the run
    double msgBytes = 0.0;          // L: message size, bytes
};

/// Checks bandwidth > 0 and the other network terms >= 0: "latency/bandwidth 'ib':
/// bandwidthBytesPerS must be > 0, got 0".
Expected<void> ValidateLatencyBandwidth(const LatencyBandwidthParams& link, std::string_view name);

/// Propagation delay in seconds per metre of a cable with normal velocity of propagation nvp
/// (0..1): 1 / (c * NVP) (seed 004 eq. 19: 0.0049 ms per km at NVP 0.67; Shaffer's 7.67e-6 s
/// per mile in eq. 14 is NVP 0.70).
double PropagationDelaySPerM(double nvp);

/// Time in seconds to send one message of msgBytes (seed 004 eq. 15, taken at its bound):
/// L / tau + sigma_max * dist + epsilon(L).
double MessageTimeS(const LatencyBandwidthParams& link, double msgBytes);

/// Seed 004's estimated run time T_EST(m) = T_seq / SpeedupFT(m) + sum of message times
/// (eqs. 16-18), with SpeedupFT the Sun-Chen fixed-time speedup (eq. 13), in seconds.
double LatencyBandwidthTimeS(const LatencyBandwidthParams& link, const DistributedRun& run);

/// The speedup that model predicts: T_seq / T_EST(m).
double LatencyBandwidthSpeedup(const LatencyBandwidthParams& link, const DistributedRun& run);

}  // namespace bfv::predict
