#pragma once

// The application's resource characteristics: section 1 of the source paper (eqs. 1-3, 9),
// Baer and Decato, "Software Performance Modeling in PC Clusters", as docs/predictor.md
// reconstructs it. Measured once from a sequential run; the schedule (model_schedule.h) turns
// them into FPS(N).

#include <span>
#include <string>
#include <vector>

#include "common/expected.h"

namespace bfv::predict {

/// One calculation C[J,J] of the sequential program and the data it sends on (one row of the
/// resource matrix of figure 2), per frame of the sequential run.
struct Calculation {
    std::string name;          // = "" // e.g. "ray trace"
    double rtexS = 0.0;        // RTEX: wall-clock seconds per frame
    double cpuFraction = 0.0;  // CPU%: average CPU utilisation during the run, 0..1
    double dvolBytes = 0.0;    // DVOL: bytes sent to the next calculation per frame
    double msgBytes = 0.0;     // MSGZ: average message size of that data, bytes (> 0 if dvol > 0)
};

/// The three calculation types of the battlefield visualizer (section 1.1) plus the terrain
/// rate, which does not follow the frame rate. The ray trace is the whole screen on one CPU; a
/// schedule splits it over N - 2 tracers. Its dvolBytes is the screen the display receives each
/// frame (256 x 256 colour indices = 2^16 B) and its msgBytes one screen column (256 B), the
/// unit a tracer's share is made of.
struct AppCharacteristics {
    Calculation terrainServer;            // C[0,0]: serves terrain posts, broadcast to tracers
    Calculation rayTrace;                 // C[1..N-2] together: whole screen, sent to display
    Calculation display;                  // C[N,N]: turns colour indices into the window
    double terrainStreamBytesPerS = 0.0;  // terrain broadcast per second of flight (eye speed)
    Calculation tileReceive;              // bfv: decoding and shading the streamed tiles, per
                                          //  frame; every ray tracer receives the whole stream
                                          //  (0 in the paper's case, where C[0,0] holds it)
};

/// Checks an application description: times, volumes and sizes non-negative, CPU% in [0, 1],
/// a positive message size wherever data is sent, a ray trace that sends a screen. The
/// message names the calculation and the field: "app 'ray trace': msgBytes must be > 0".
Expected<void> ValidateApp(const AppCharacteristics& app);

/// The paper's seed case (section 1.1): 100 MHz Pentium, 256 x 256 screen; terrain server
/// 0.2 s/frame at CPU% 0.8 broadcasting 0.25 MB in 1024 B messages (0.25 MB per second of
/// flight in the parallel schedule); ray trace 0.6 s/frame at CPU% 1.0 sending 2^16 B in 256 B
/// columns; display 0.04 s/frame at CPU% 1.0. MB = 10^6 bytes.
AppCharacteristics SeedCase();

/// The sequential program as a list of its calculations in order S (terrain server, ray
/// trace, display), for eqs. 1-3.
std::vector<Calculation> SequentialCalculations(const AppCharacteristics& app);

/// #MSG of a calculation's output (eq. 9): DVOL / MSGZ, 0 when it sends nothing.
double MessageCount(const Calculation& calc);

/// CPU seconds of one calculation, RTEX * CPU% (one term of eq. 3).
double CpuS(const Calculation& calc);

/// Run time of calculations run in sequence, seconds (eq. 1): the sum of their RTEX.
double TotalRtexS(std::span<const Calculation> calcs);

/// CPU seconds of calculations run in sequence (eq. 3): the sum of RTEX * CPU%.
double TotalCpuS(std::span<const Calculation> calcs);

/// Average CPU utilisation of calculations run in sequence (eq. 2): CPUS / RTEX, 0..1.
double AverageCpuFraction(std::span<const Calculation> calcs);

/// Frames per second of the sequential program: 1 / RTEX of one frame (eq. 1), 1.19 FPS for
/// the seed case ("1.2 FPS on a $1500 PC").
double SequentialFps(const AppCharacteristics& app);

}  // namespace bfv::predict
