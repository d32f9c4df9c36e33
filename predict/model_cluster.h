#pragma once

// The predictor generalised to a described cluster (docs/predictor.md): bfv's measured
// resource profile, a machine (hosts, cores, CPU speed, NICs and their measured links), a
// placement of ranks on hosts, and the screen and message size of the run to predict. It
// applies the source paper's per-node budgets (eqs. 21-22) to bfv's pipeline: the display
// sends frame f+1's camera before it receives frame f, so tracers and display overlap and the
// frame period is the longest of
//   - a tracer's trace (eq. 7 on its host) plus the CPU of sending its share (eqs. 18-19),
//   - the display: the longer of its links' transfer (eq. 18 per NIC; tracer t's bytes cross
//     NIC t mod the NIC count, and receive thread t mod K takes them in), which proceeds into
//     kernel buffers meanwhile, and its own CPU (taking the bytes in, eq. 19, plus its work),
//   - each host's CPU: the CPU seconds of the ranks placed on it over its cores (eq. 21), with
//     what their waits take of their idle time (each rank waits out the rest of the period:
//     tracers and server in one wait a frame, each display receive thread in one wait per
//     message it takes in; the intra-host link's profile gives the CPU share of a wait that
//     long). On a saturated host this over-charges the ranks that wait for a core rather than
//     for a message; the simulation (predict/simulate.h) polls only while an actor waits for
//     a message.
// The screen decomposition sets each tracer's share of the trace: contiguous slices take what
// the profile measured of each strip of columns, interleaved columns an equal share, and the
// dynamic split the balanced one: shares that equalise the tracers' trace times (1/T each on
// hosts of one speed; on hosts of different speeds, in proportion to each host's speed for the
// trace's CPU part, eq. 7), its columns where the measured cost reaches each share.
// The terrain streams live: every tracer decodes and shades the whole stream each frame (the
// profile's tile receive, the TerrainStream term, on its host before it traces), and the
// terrain server's own per-frame work takes CPU on its host.

#include <map>
#include <string>
#include <vector>

#include "common/camera.h"
#include "common/column_codec.h"
#include "common/decomposition.h"
#include "common/expected.h"
#include "common/fan.h"
#include "common/mpi_wait.h"
#include "common/ranges.h"
#include "common/role.h"
#include "predict/link_profile.h"
#include "predict/model_app.h"
#include "predict/model_schedule.h"

namespace bfv::predict {

/// One host of a cluster.
struct ClusterHost {
    std::string name;               // hostname, as a hostfile names it
    int cores = 1;                  // cores: slots for placement
    double capacityCores = 0.0;     // = cores // CPU-seconds of work per second with every core
                                    //  busy; below `cores` when cores share hardware (SMT,
                                    //  a virtual machine's vCPUs): measure it as the throughput
                                    //  of `cores` threads over one thread's
    double cpuSpeed = 1.0;          // CPUSPEED relative to the machine that measured the profile
    std::vector<std::string> nics;  // link profile name of each NIC; tracer t's columns reach
                                    //  the display over its NIC t mod nics.size()
    double cpuQuotaCores = 0.0;     // = 0 // CPU time the host's ranks may use per quota
                                    //  period, in cores (a cgroup's cpu.max quota over its
                                    //  period: Docker's --cpus, a Kubernetes CPU limit, Slurm's
                                    //  cgroup plugin); 0: no quota
    double quotaPeriodS = 0.1;      // = 0.1 // the quota's period (CFS: cpu.max's second
                                    //  field, 100 ms unless set)
};

/// A CPU quota's period, seconds (CFS takes 1 ms to 1 s).
inline constexpr common::Range kQuotaPeriodRange = common::Range::Closed(1e-3, 1.0, "s");

/// The host's cores' work together, in single-core units: capacityCores, or cores when it is 0,
/// and at most its cpuQuotaCores when it has a quota.
double CapacityCores(const ClusterHost& host);

/// Seconds per frame a host's CPU quota holds back the rank that starts the host's part of a
/// frame (a tracer woken by its command), on top of its CPU: CFS lets the host's ranks run
/// cpuQuotaCores x quotaPeriodS CPU seconds per period and holds them to the period's end once
/// they are spent. The host runs its busy ranks at `share` = min(1, cpuQuotaCores / min(cores,
/// busyRanks)) of each period when saturated. A rank's own use of the quota is already its
/// work stretched by 1 / share (whether the kernel holds it mid-frame or as it wakes, its work
/// runs at the quota's rate: a lone tracer under 0.3 core traced at its CPU over 0.3 to within
/// 1%), so what a wake loses is the quota the host's other ranks spent: with the host's quota
/// used at `quotaUse` (0..1: CPU per frame over cpuQuotaCores x the frame period), the others'
/// part of it is quotaUse x (busyRanks - 1) / busyRanks, a wake finds the quota spent with
/// that probability times (1 - share), and then waits half the held stretch,
/// (1 - share) x quotaPeriodS / 2:
///   hold = quotaUse x (busyRanks - 1) / busyRanks x (1 - share)^2 x quotaPeriodS / 2.
/// 0 without a quota or with one busy rank. Example: two ranks on two cores under a quota of
/// one core, period 0.1 s, quota fully used: 0.5 x 0.25 x 0.05 = 6.25 ms a frame.
double QuotaHoldS(const ClusterHost& host, int busyRanks, double quotaUse);

/// How ranks are placed when no hostfile is given.
enum class Placement {
    Fill,        // fill each host's cores in order (MPICH's hostfile order), then wrap
    RoundRobin,  // rank r on host r mod H
};

/// A described cluster: hosts, the link between ranks on one host, the display's receive
/// threads and the placement.
struct Machine {
    std::string name;
    std::vector<ClusterHost> hosts;
    std::string intraHostLink = "shm";  // link profile between ranks on the same host
    int displayReceiveThreads = 1;      // K
    Placement placement = Placement::Fill;
    double switchBytesPerS = 0.0;  // = 0 // a switch backplane all remote transfers share,
                                   //  bytes/s; 0 = non-blocking (only the simulator charges it)
    std::vector<int> hostOfSlot;   // from a hostfile: host index of each slot, in order;
                                   //  empty = use `placement`
};

/// The run to predict: screen, message size and rank count.
struct ClusterRun {
    int widthPx = 0;
    int heightPx = 0;
    int columnsPerMessage = 1;  // MSGZ in columns
    int n = 3;                  // ranks: server, n - 2 tracers, display
    common::Decomposition decomposition = common::Decomposition::Contiguous;  // of the screen
    common::ColumnCodec codec = common::ColumnCodec::None;                    // --column-codec
};

/// What a column codec saves and costs, measured on the sequential program's own frames
/// (the resource profile): the link carries the columns' bytes over compressionRatio, the
/// tracers pay compressCpuSPerRawByte and the display's receive threads
/// decompressCpuSPerRawByte for every raw byte (eq. 19's CPU per byte, on a host of cpuSpeed 1).
struct CodecCost {
    common::ColumnCodec codec = common::ColumnCodec::None;
    double compressionRatio = 1.0;          // raw column bytes over bytes on the wire, >= 1
    double compressCpuSPerRawByte = 0.0;    // tracer CPU seconds per raw byte
    double decompressCpuSPerRawByte = 0.0;  // display CPU seconds per raw byte
};

/// The camera a profile's frames were cast with, which decides the pinhole fan's planes
/// (common::FanLayout) a tracer's columns make it cast: its pitch (the flight's mean), the
/// horizontal field of view, and whether anti-aliasing cast the neighbouring columns too; and
/// the share of the trace's time its marches took (finding the hits; the rest shades and
/// places them), which grows with the planes a tracer marches where shading grows with its
/// pixels (CastWork).
struct CastView {
    double pitchRad = 0.0;
    double hFovRad = common::ScreenSpec{}.hFovRad;  // --fov's default
    bool antialias = false;
    double marchShare = 1.0;  // 0..1
};

/// The profile a prediction starts from: the sequential program measured at one screen size.
struct MeasuredApp {
    AppCharacteristics app;  // per frame at widthPx x heightPx, on a machine of cpuSpeed 1
    int widthPx = 0;
    int heightPx = 0;
    std::vector<double> columnCostShares;  // trace time share of equal column strips, left
                                           //  to right; empty = every column costs the same
    std::vector<CodecCost> codecs;         // measured column codecs (none needs no entry)
    CastView view;                         // the camera of the profile's frames
};

/// How much a tracer of `columns` casts for every pixel of its own, under the pinhole fan
/// `fan` (common::FanLayout): it casts every plane crossing its columns
/// (common::PlanesCrossing) and, with `antialias`, every plane crossing the neighbouring columns
/// it casts as their owners do (common::NeighbourColumns).
struct CastWork {
    /// The march: a plane's march walks about one cell per pixel from its nearest pixel's hit
    /// out to its farthest pixel's (before the nearest, it skips every tile its lowest ray
    /// clears), so a plane costs its pixels from the nearest to the farthest one in the set,
    /// those between included; summed over the sets' planes, over the pixels of `columns`. 1
    /// for the whole screen and for a slice (a plane crosses a slice's edge once: its pixels
    /// in the slice are a run); near 1 / (its share of the columns) for an interleaved set
    /// under a pitched camera, whose every plane crosses nearly every set.
    double marchPerPixel = 0.0;
    /// The shading: the pixels of the sets over those of `columns` (1 without anti-aliasing).
    double shadedPerPixel = 0.0;

    /// The trace's cost per pixel of its own, where marches take `marchShare` of the whole
    /// screen's trace and shading the rest.
    double PerPixel(double marchShare) const {
        return marchShare * marchPerPixel + (1.0 - marchShare) * shadedPerPixel;
    }
};

/// The CastWork of column sets under one fan (common::FanLayout), from an index of the fan's
/// pixels by column built once (O(pixels)): each set then takes time in proportion to the
/// planes crossing its columns, so that a sweep over thousands of tracers stays quick.
class CastWorkCounter {
  public:
    /// Indexes `fan` (the counter keeps no reference to it).
    explicit CastWorkCounter(const common::FanLayout& fan);

    /// Whether the counter indexes the fan of `screen` at `pitchRad`.
    bool Counts(const common::ScreenSpec& screen, double pitchRad) const {
        return screen_ == screen && pitchRad_ == pitchRad;
    }

    /// The CastWork of `columns` (columns.count >= 1), with `antialias` counting the
    /// neighbouring columns (common::NeighbourColumns) too.
    CastWork Of(const common::ColumnSet& columns, bool antialias);

  private:
    // A plane's pixels in one column: the first and last of them (indices into the fan's
    // pixel arrays, farthest first).
    struct Run {
        int plane, first, last;
    };
    common::ScreenSpec screen_;           // the fan's
    double pitchRad_;                     // the fan's
    std::vector<std::vector<Run>> runs_;  // per column, in plane order
    // Of's working memory: per plane the farthest and nearest pixel seen in the set, and the
    // planes seen (reset after each set).
    std::vector<int> farthest_, nearest_, seen_;
};

/// The cost of `codec` in `measured`: ratio 1 and no CPU for none. Errors: a codec the profile
/// did not measure.
Expected<CodecCost> CodecCostOf(const MeasuredApp& measured, common::ColumnCodec codec);

/// Link parameters for a stream of messages of msgBytes with the send or receive side's APBBW
/// (eq. 19). A frame's columns go out as a stream, several messages in flight, so the volume
/// moves at most at the link's sustained rate: the large-message ALCBW (eq. 14's limit), or,
/// lower still, the rate measured streaming the largest messages from one sender (commbench's
/// many-to-one), which a ping-pong can overstate on a rate-limited link with a deep buffer.
LinkParams StreamParams(const LinkProfile& link, double msgBytes, bool sender);

/// One ray tracer's work per frame, as PredictCluster charges it: its share of the trace moved
/// to its host (eq. 7), the CPU of compressing and sending its columns (eqs. 18-19), and what its
/// columns cost the display (the link they cross and the receive thread's CPU, eq. 19).
struct TracerFrameCost {
    int rank = 0;                  // 1..N-2
    int host = 0;                  // index into Machine::hosts
    int columns = 0;               // screen columns of its slice
    double traceS = 0.0;           // wall seconds of tracing its share
    double traceCpuS = 0.0;        // CPU seconds of them; the rest waits on memory and devices
    double tileReceiveS = 0.0;     // wall seconds of decoding and shading the streamed tiles
    double tileReceiveCpuS = 0.0;  // CPU seconds of them
    double sendCpuS = 0.0;         // CPU seconds of compressing and sending its columns
    double messages = 0.0;         // messages of columns per frame (the last may be short)
    double wireBytes = 0.0;        // bytes per frame on the wire (compressed pixels and headers)
    int displayNic = -1;           // display NIC its columns cross (t mod NICs); -1: same host
    std::string channel;           // "nic0 (gige)" or "intra-host"
    LinkParams receiveLink;        // the link as the display's side sees it (SideParams)
    double receiveCpuS = 0.0;      // display CPU seconds taking its columns in and decompressing
    int receiveThread = 0;         // display receive thread taking them in: t mod K
};

/// Every rank's work per frame of one run on one machine: what both the analytic predictor
/// (PredictCluster) and the schedule simulator (SimulateCluster) are built from.
struct FrameCosts {
    std::vector<int> hostOf;               // host index of every rank
    std::vector<TracerFrameCost> tracers;  // ranks 1..N-2 in order
    double messageBytes = 0.0;             // one full message of columns on the wire, bytes
    double displayWorkS = 0.0;             // the display's own work per frame, wall seconds
    double displayWorkCpuS = 0.0;          // CPU seconds of it
    double serverS = 0.0;                  // the terrain server's work per frame, wall seconds
    double serverCpuS = 0.0;               // CPU seconds of it
    double sequentialFps = 0.0;            // the profile's single-machine program on host 0
};

/// The per-rank costs of `run` on `machine`. Errors as PredictCluster.
Expected<FrameCosts> ClusterFrameCosts(const MeasuredApp& measured, const Machine& machine,
                                       const std::map<std::string, LinkProfile>& links,
                                       const ClusterRun& run);

/// The terrain server's waits' CPU over the calibrated waits' of the same length: its loop tests
/// half as often once its sleeps reach their cap (common/mpi_wait.h).
inline constexpr double kServerWaitCpuScale =
    static_cast<double>(common::kMaxPollSleepUs) / common::kMaxStreamIdleSleepUs;

/// One rank's share of the frame at the predicted rate.
struct RankBudget {
    int rank = 0;
    common::Role role = common::Role::RayTracer;  // = tracer // the rank's part of the frame
    int host = 0;                                 // index into Machine::hosts
    double wallSPerFrame = 0.0;  // busy seconds per frame (trace + send, receive + work, ...)
    double cpuSPerFrame = 0.0;   // CPU seconds per frame
    int waitingThreads = 1;      // threads that wait out the rank's idle time (the display's K
                                 //  receive threads)
    double waitsPerFrame = 1.0;  // waits each of them ends per frame (a receive thread: one per
                                 //  tracer it serves, whose columns come in one burst)
    double waitCpuScale = 1.0;   // its waits' CPU over the calibrated waits' of the same length
                                 //  (the terrain server's: kServerWaitCpuScale)
};

/// A prediction for one N: FPS, the term that binds, every term's seconds per frame, the
/// per-rank budgets and the busiest host's CPU seconds per frame.
struct ClusterPrediction {
    Prediction prediction;  // n, fps, binding term, seconds per frame by term
    std::vector<RankBudget> ranks;
    /// What takes the display longest to receive a frame: a NIC's link ("nic1 (gige)": the
    /// bytes of the tracers routed to it, tracer t to NIC t mod the NIC count), "the
    /// intra-host link", or a receive thread's CPU ("receive thread 0": tracers t mod K).
    std::string displayReceiveBound;
    double sequentialFps = 0.0;  // the profile's single-machine program on host 0
    /// Each tracer's slice, in tracer order: its columns and its trace's wall seconds per frame
    /// on its host (its quota included), as a run's report.json "slices" measures them.
    struct Slice {
        int columns = 0;
        double traceS = 0.0;
    };
    std::vector<Slice> slices;
};

/// Checks the machine against the link profiles it names: at least one host, positive cores,
/// capacities (0 = cores) and speeds, quotas within the cores (0 = none) and quota periods within
/// kQuotaPeriodRange, every NIC and the intra-host link known, K >= 1, slots naming
/// real hosts. Errors name the field: "machine 'lab': hosts[2].cpuSpeed must be > 0, got 0".
Expected<void> ValidateMachine(const Machine& machine,
                               const std::map<std::string, LinkProfile>& links);

/// Host index of every rank of an N-rank job under the machine's placement or hostfile slots.
std::vector<int> PlaceRanks(const Machine& machine, int n);

/// Where a host's cores start the ranks that work in one piece (a ray tracer's frame), the CPU
/// seconds per frame of each in `wholeCpuS`: the longest first (stable), each on the core with
/// the least work placed so far (the lowest such core). `order` lists the ranks in that order,
/// `coreOf` gives each rank's core and `placedS` each core's work. CrowdedMakespanS and the
/// simulation's turns (SimulateCluster) start from it. Errors never; cores >= 1.
struct CorePlacement {
    std::vector<int> order, coreOf;
    std::vector<double> placedS;
};
CorePlacement PlaceOnCores(const std::vector<double>& wholeCpuS, int cores);

/// How long a host's cores take to run a frame of its ranks when they outnumber its cores, on
/// a scheduler that acts at ticks `tickS` apart (Linux: 4 ms at HZ = 250; commbench measures
/// it). `wholeCpuS` holds the CPU seconds per frame of each rank that works in one piece (a ray
/// tracer: its trace, then its send); `spreadCpuS` the CPU seconds of the ranks that work in
/// many short pieces, whenever a message comes (the display, the terrain server), which land on
/// every core alike. k busy cores do min(k, capacityCores) CPU seconds per second between them.
/// In the frame, the whole ranks go to the least loaded core, longest first; the spread work
/// comes first in each core's turn, shared by the cores the whole ranks left free if there
/// are any (a waking thread takes an idle core), else by every core alike; each core runs its
/// work one piece after another, a piece
/// yielding its core at a tick when others wait for it; a core that runs out takes waiting work
/// from the core with the most. The mean over 16 phases of the tick. So ranks whose frame is
/// shorter than a tick take turns (3 tracers of 1 ms on 2 cores take 2 ms, not the 1.5 ms of
/// smooth sharing), and longer frames come closer to smooth sharing. Returns 0 when
/// tickS <= 0 (not measured); errors never.
double CrowdedMakespanS(const std::vector<double>& wholeCpuS, double spreadCpuS, int cores,
                        double capacityCores, double tickS);

/// The role of the rank whose predicted wall time per frame is the longest: the ray tracers,
/// the display or the terrain server, as a run's common::MeasureBinding tells from its ranks'
/// activities. Ray tracer when `cluster` has no ranks.
common::Role BusiestRole(const ClusterPrediction& cluster);

/// Predicts bfv's frame rate for `run` (see the file comment). Errors for an invalid machine,
/// N < 3, more tracers than screen columns, or a screen or message size that is not positive.
Expected<ClusterPrediction> PredictCluster(const MeasuredApp& measured, const Machine& machine,
                                           const std::map<std::string, LinkProfile>& links,
                                           const ClusterRun& run);

}  // namespace bfv::predict
