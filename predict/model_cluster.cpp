#include "predict/model_cluster.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

#include "common/cpu_quota.h"
#include "common/decomposition.h"
#include "common/messages.h"
#include "common/ranges.h"
#include "predict/model_validate.h"

namespace bfv::predict {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Error MachineError(const Machine& m, const std::string& what) {
    return Error{"machine '" + m.name + "': " + what};
}

// A tracer's share of the screen: columns, bytes and messages per frame.
struct Share {
    int columns = 0;
    double pixelBytes = 0.0;  // raw
    double bytes = 0.0;       // on the wire: compressed pixels and headers
    double messages = 0.0;
};

// Every tracer's columns and share of the whole screen's trace time.
struct TracerSplit {
    std::vector<common::ColumnSet> columns;
    std::vector<double> traceShares;
};

// The measured share of the trace time of columns [first, end) (fractions of the screen):
// what the slice overlaps of each strip; the width share when no strips were measured.
double CostShare(const std::vector<double>& strips, double first, double end) {
    if (strips.empty()) return end - first;
    double share = 0.0, width = 1.0 / strips.size();
    for (size_t s = 0; s < strips.size(); ++s) {
        double overlap = std::min(end, (s + 1) * width) - std::max(first, s * width);
        if (overlap > 0) share += strips[s] * overlap / width;
    }
    return share;
}

// The share of a core one rank of `host` runs: 1, or the host's CPU quota where it is below one
// core (a lone rank under a quota of 0.3 core runs 0.3 of the time).
double QuotaCoreShare(const ClusterHost& host) {
    return common::QuotaCoreShare(host.cpuQuotaCores);
}

// RTEX of a calculation moved to a host of relative CPU speed `speed` (eq. 7, peripheral speed
// unchanged), scaled by `workScale` (share of the measured work).
double RtexOnHost(const Calculation& c, double workScale, double speed) {
    return c.rtexS * workScale * (c.cpuFraction / speed + (1.0 - c.cpuFraction));
}

double CpuOnHost(const Calculation& c, double workScale, double speed) {
    return c.rtexS * workScale * c.cpuFraction / speed;
}

// Wall seconds of `wallS` whose `cpuS` run on a host whose quota gives the rank `share` of a
// core: the CPU part stretched by 1 / share.
double UnderQuotaS(double wallS, double cpuS, double share) { return wallS - cpuS + cpuS / share; }

// Wall seconds of calculation `c`, scaled by `workScale`, on `host`: moved to its speed
// (RtexOnHost) and its CPU part stretched by its quota (UnderQuotaS).
double OnHostUnderQuotaS(const Calculation& c, double workScale, const ClusterHost& host) {
    return UnderQuotaS(RtexOnHost(c, workScale, host.cpuSpeed),
                       CpuOnHost(c, workScale, host.cpuSpeed), QuotaCoreShare(host));
}

// The run's pixels over the profile's: what the measured trace and display work scale by.
double PixelScale(const MeasuredApp& measured, const ClusterRun& run) {
    return static_cast<double>(run.widthPx) * run.heightPx /
           (static_cast<double>(measured.widthPx) * measured.heightPx);
}

// The dynamic split in balance, as the display's (common::BalancedBoundaries): every tracer's
// work on a frame equal, its tiles' (the same tiles for all, longer on a slower host or under a
// tighter quota) and its share of the trace (the whole trace on its host over the share, under
// its quota: UnderQuotaS), water filled (common::WaterLevelS); its slice ends where the measured
// cost reaches the shares so far (at least one column each).
TracerSplit BalancedSplit(const MeasuredApp& measured, const Machine& m, const ClusterRun& run,
                          const std::vector<int>& hostOf) {
    int nTracers = run.n - 2;
    const double pixelScale = PixelScale(measured, run);
    std::vector<double> tilesS, traceS, weights;
    for (int t = 0; t < nTracers; ++t) {
        const ClusterHost& host = m.hosts[hostOf[t + 1]];
        tilesS.push_back(OnHostUnderQuotaS(measured.app.tileReceive, 1.0, host));
        traceS.push_back(OnHostUnderQuotaS(measured.app.rayTrace, pixelScale, host));
        weights.push_back(traceS.back() > 0.0 ? 1.0 / traceS.back() : 1.0);
    }
    const double levelS = common::WaterLevelS(1.0, tilesS, weights);
    TracerSplit split;
    double reached = 0.0;
    int first = 0, x = 0;
    for (int t = 0; t < nTracers; ++t) {
        split.traceShares.push_back(std::max(0.0, levelS - tilesS[t]) * weights[t]);
        reached += split.traceShares[t];
        while (x < run.widthPx - (nTracers - t - 1) &&
               (x <= first || CostShare(measured.columnCostShares, 0.0, (x + 0.5) / run.widthPx) <
                                  reached - 1e-12)) {
            ++x;
        }
        if (t == nTracers - 1) x = run.widthPx;
        split.columns.push_back({first, 1, x - first});
        first = x;
    }
    return split;
}

// Every tracer's trace share times what its columns make it cast (CastWork) under the
// profile's camera on the run's screen.
void AddPlanesCast(const MeasuredApp& measured, const ClusterRun& run, TracerSplit& split) {
    const CastView& view = measured.view;
    // Kept from one run to the next: a sweep over N predicts the same screen and camera.
    thread_local std::optional<CastWorkCounter> counter;
    const common::ScreenSpec screen{run.widthPx, run.heightPx, view.hFovRad};
    if (!counter || !counter->Counts(screen, view.pitchRad)) {
        counter.emplace(common::BuildFanLayout(screen, view.pitchRad));
    }
    for (std::size_t t = 0; t < split.columns.size(); ++t) {
        split.traceShares[t] *=
            counter->Of(split.columns[t], view.antialias).PerPixel(view.marchShare);
    }
}

// Every tracer's columns and share of the trace: the measured cost of its columns, times the
// planes they make it cast (AddPlanesCast).
TracerSplit SplitOf(const MeasuredApp& measured, const Machine& m, const ClusterRun& run,
                    const std::vector<int>& hostOf) {
    TracerSplit split;
    if (run.decomposition == common::Decomposition::Dynamic) {
        split = BalancedSplit(measured, m, run, hostOf);
        AddPlanesCast(measured, run, split);
        return split;
    }
    for (int t = 0; t < run.n - 2; ++t) {
        auto columns = common::ColumnsOf(run.decomposition, t, run.n - 2, run.widthPx);
        split.columns.push_back(columns);
        split.traceShares.push_back(
            run.decomposition == common::Decomposition::Interleaved
                ? static_cast<double>(columns.count) / run.widthPx
                : CostShare(measured.columnCostShares,
                            static_cast<double>(columns.first) / run.widthPx,
                            static_cast<double>(columns.first + columns.count) / run.widthPx));
    }
    AddPlanesCast(measured, run, split);
    return split;
}

// A tracer's columns, their raw pixel bytes, and the bytes on the wire with `codec`.
Share TracerShare(const ClusterRun& run, const common::ColumnSet& columns, const CodecCost& codec) {
    Share s;
    s.columns = columns.count;
    s.messages = common::MessagesPerFrame(columns, run.columnsPerMessage);
    s.pixelBytes = static_cast<double>(s.columns) * run.heightPx * sizeof(common::Pixel);
    s.bytes = s.pixelBytes / codec.compressionRatio + s.messages * sizeof(common::ColumnsHeader);
    return s;
}

// Bytes of one full message of columns on the wire with `codec`.
double MessageBytes(const ClusterRun& run, const CodecCost& codec) {
    double pixels =
        static_cast<double>(run.columnsPerMessage) * run.heightPx * sizeof(common::Pixel);
    return pixels / codec.compressionRatio + sizeof(common::ColumnsHeader);
}

// The link a message from host `from` to host `to` takes, arriving on `to`'s NIC `nic`.
const LinkProfile& LinkBetween(const Machine& m, const std::map<std::string, LinkProfile>& links,
                               int from, int to, int nic) {
    if (from == to) return links.at(m.intraHostLink);
    const auto& nics = m.hosts[to].nics;
    return links.at(nics[nic % nics.size()]);
}

}  // namespace

CastWorkCounter::CastWorkCounter(const common::FanLayout& fan)
    : screen_(fan.screen),
      pitchRad_(fan.pitchRad),
      runs_(static_cast<std::size_t>(fan.screen.widthPx)),
      farthest_(static_cast<std::size_t>(fan.PlaneCount()), -1),
      nearest_(static_cast<std::size_t>(fan.PlaneCount()), -1) {
    for (int p = 0; p < fan.PlaneCount(); ++p) {
        for (int i = fan.planeStart[p]; i < fan.planeStart[p + 1]; ++i) {
            std::vector<Run>& column = runs_[fan.pixelX[i]];
            if (column.empty() || column.back().plane != p) column.push_back({p, i, i});
            column.back().first = std::min(column.back().first, i);
            column.back().last = std::max(column.back().last, i);
        }
    }
}

CastWork CastWorkCounter::Of(const common::ColumnSet& columns, bool antialias) {
    std::vector<common::ColumnSet> sets{columns};
    if (antialias) {
        for (const common::ColumnSet& s : common::NeighbourColumns(columns, screen_.widthPx)) {
            sets.push_back(s);
        }
    }
    double marched = 0.0, shaded = 0.0;
    for (const common::ColumnSet& set : sets) {
        // A plane's pixels run from the farthest (its first) to the nearest: it is marched
        // from the nearest of them in the set out to the farthest.
        for (int k = 0; k < set.count; ++k) {
            for (const Run& run : runs_[set.At(k)]) {
                int& far = farthest_[run.plane];
                if (far < 0) {
                    seen_.push_back(run.plane);
                    far = run.first;
                    nearest_[run.plane] = run.last;
                } else {
                    far = std::min(far, run.first);
                    nearest_[run.plane] = std::max(nearest_[run.plane], run.last);
                }
            }
        }
        for (int p : seen_) {
            marched += nearest_[p] - farthest_[p] + 1;
            farthest_[p] = nearest_[p] = -1;
        }
        seen_.clear();
        shaded += static_cast<double>(set.count) * screen_.heightPx;
    }
    const double own = static_cast<double>(columns.count) * screen_.heightPx;
    return {marched / own, shaded / own};
}

LinkParams StreamParams(const LinkProfile& link, double msgBytes, bool sender) {
    LinkParams p = link.ParamsFor(msgBytes);
    p.alcbwBytesPerS = std::min(p.alcbwBytesPerS, link.ParamsFor(1e300).alcbwBytesPerS);
    const ManyToOnePoint* largest = nullptr;
    for (const ManyToOnePoint& point : link.manyToOne) {
        if (point.senders == 1 && (!largest || point.msgBytes > largest->msgBytes))
            largest = &point;
    }
    if (largest) p.alcbwBytesPerS = std::min(p.alcbwBytesPerS, largest->aggregateBytesPerS);
    double side = sender ? link.apbbwSendBytesPerS : link.apbbwReceiveBytesPerS;
    if (side > 0.0) p.apbbwBytesPerS = side;
    return p;
}

namespace {

// What the per-rank pass works out, before the frame rate is chosen.
struct Budgets {
    std::vector<RankBudget> ranks;
    TermSeconds terms{};  // worst seconds per frame of each term
    double tracerFps = kInf;
    Term tracerTerm = Term::RayTrace;
    double displayFps = kInf;
    Term displayTerm = Term::DisplayReceive;
    std::string displayReceiveBound;  // see ClusterPrediction
    std::vector<ClusterPrediction::Slice> slices;
};

// Every tracer's costs (see TracerFrameCost) and the display's work, for a valid run.
FrameCosts CostsOf(const MeasuredApp& measured, const Machine& m,
                   const std::map<std::string, LinkProfile>& links, const ClusterRun& run,
                   const CodecCost& codec, const std::vector<int>& hostOf) {
    FrameCosts costs;
    costs.hostOf = hostOf;
    costs.messageBytes = MessageBytes(run, codec);
    double pixelScale = PixelScale(measured, run);
    TracerSplit split = SplitOf(measured, m, run, hostOf);
    int displayHost = hostOf[run.n - 1];
    double displaySpeed = m.hosts[displayHost].cpuSpeed;
    double msgBytes = costs.messageBytes;
    for (int t = 0; t < run.n - 2; ++t) {
        TracerFrameCost c;
        c.rank = t + 1;
        c.host = hostOf[t + 1];
        double speed = m.hosts[c.host].cpuSpeed;
        double scale = pixelScale * split.traceShares[t];
        c.traceS = RtexOnHost(measured.app.rayTrace, scale, speed);
        c.traceCpuS = CpuOnHost(measured.app.rayTrace, scale, speed);
        c.tileReceiveS = RtexOnHost(measured.app.tileReceive, 1.0, speed);
        c.tileReceiveCpuS = CpuOnHost(measured.app.tileReceive, 1.0, speed);
        Share share = TracerShare(run, split.columns[t], codec);
        c.columns = share.columns;
        c.messages = share.messages;
        c.wireBytes = share.bytes;
        const LinkProfile& link = LinkBetween(m, links, c.host, displayHost, t);
        LinkParams send = StreamParams(link, msgBytes, true);
        c.sendCpuS = (CommCpuFraction(send, msgBytes) * TransferS(send, share.bytes, msgBytes) +
                      codec.compressCpuSPerRawByte * share.pixelBytes) /
                     speed;
        c.channel = "intra-host";
        if (c.host != displayHost) {
            const auto& nics = m.hosts[displayHost].nics;
            c.displayNic = static_cast<int>(static_cast<std::size_t>(t) % nics.size());
            c.channel = "nic" + std::to_string(c.displayNic) + " (" + nics[c.displayNic] + ")";
        }
        c.receiveLink = StreamParams(link, msgBytes, false);
        // A slow display CPU can take longer to take the bytes in (and decompress them) than
        // the link to carry them.
        c.receiveCpuS = (CommCpuFraction(c.receiveLink, msgBytes) *
                             TransferS(c.receiveLink, share.bytes, msgBytes) +
                         codec.decompressCpuSPerRawByte * share.pixelBytes) /
                        displaySpeed;
        c.receiveThread = t % m.displayReceiveThreads;
        costs.tracers.push_back(c);
    }
    costs.displayWorkS = RtexOnHost(measured.app.display, pixelScale, displaySpeed);
    costs.displayWorkCpuS = CpuOnHost(measured.app.display, pixelScale, displaySpeed);
    const auto& app = measured.app;
    double serverSpeed = m.hosts[hostOf[0]].cpuSpeed;
    costs.serverS = RtexOnHost(app.terrainServer, 1.0, serverSpeed);
    costs.serverCpuS = CpuOnHost(app.terrainServer, 1.0, serverSpeed);
    double speed0 = m.hosts[0].cpuSpeed * QuotaCoreShare(m.hosts[0]);
    costs.sequentialFps = 1.0 / (RtexOnHost(app.rayTrace, pixelScale, speed0) +
                                 RtexOnHost(app.display, pixelScale, speed0) +
                                 RtexOnHost(app.terrainServer, 1.0, speed0) +
                                 RtexOnHost(app.tileReceive, 1.0, speed0));
    return costs;
}

// Each tracer's frame: the streamed tiles, its trace, then its send's CPU, in turn; the CPU of
// each stretched by its host's quota (QuotaCoreShare).
void AddTracers(const FrameCosts& costs, const Machine& m, Budgets& b) {
    for (const TracerFrameCost& c : costs.tracers) {
        const double share = QuotaCoreShare(m.hosts[c.host]);
        const double traceS = UnderQuotaS(c.traceS, c.traceCpuS, share);
        const double tileReceiveS = UnderQuotaS(c.tileReceiveS, c.tileReceiveCpuS, share);
        const double sendS = c.sendCpuS / share;
        double wallS = tileReceiveS + traceS + sendS;
        double cpuS = c.tileReceiveCpuS + c.traceCpuS + c.sendCpuS;
        b.slices.push_back({c.columns, traceS});
        b.ranks.push_back({c.rank, common::Role::RayTracer, c.host, wallS, cpuS});
        auto& terms = b.terms;
        auto widen = [&](Term term, double s) {
            terms[static_cast<int>(term)] = std::max(terms[static_cast<int>(term)], s);
        };
        widen(Term::RayTrace, traceS);
        widen(Term::Send, sendS);
        widen(Term::TerrainStream, tileReceiveS);
        if (1.0 / wallS < b.tracerFps) {
            b.tracerFps = 1.0 / wallS;
            b.tracerTerm = traceS >= std::max(sendS, tileReceiveS) ? Term::RayTrace
                           : sendS >= tileReceiveS                 ? Term::Send
                                                                   : Term::TerrainStream;
        }
    }
}

// The display's receive: each NIC (or the host's memory for tracers on the same host) moves
// its tracers' bytes (eq. 18), tracer t's over NIC t mod the NIC count (routes go by source,
// whichever thread takes the bytes in); each receive thread takes its tracers' bytes in (t mod
// K) on its CPU (eq. 19), stretched by the host's quota (QuotaCoreShare). The slowest NIC or
// thread sets the receive time.
void AddDisplay(const FrameCosts& costs, const Machine& m, Budgets& b) {
    const int receiveThreads = m.displayReceiveThreads;
    int display = static_cast<int>(costs.hostOf.size()) - 1;
    const double share = QuotaCoreShare(m.hosts[costs.hostOf[display]]);
    std::map<std::string, double> channelBytes;  // per NIC name (or the intra-host link)
    std::map<std::string, LinkParams> channelLink;
    std::vector<double> threadS(receiveThreads, 0.0);
    double receiveCpuS = 0.0;
    for (const TracerFrameCost& c : costs.tracers) {
        channelBytes[c.channel] += c.wireBytes;
        channelLink[c.channel] = c.receiveLink;
        threadS[c.receiveThread] += c.receiveCpuS / share;
        receiveCpuS += c.receiveCpuS;
    }
    auto slowestThread = std::max_element(threadS.begin(), threadS.end());
    double receiveS = *slowestThread;
    b.displayReceiveBound =
        "receive thread " + std::to_string(std::distance(threadS.begin(), slowestThread));
    for (const auto& [channel, bytes] : channelBytes) {
        double channelS = TransferS(channelLink[channel], bytes, costs.messageBytes);
        if (channelS >= receiveS) {
            receiveS = channelS;
            b.displayReceiveBound = channel == "intra-host" ? "the intra-host link" : channel;
        }
    }
    // The links carry frame f+1's bytes into the kernel's buffers while the display is still
    // taking in and presenting frame f, so the link time and the display's own CPU overlap:
    // its period is the longer of the two. A tracer sends its columns in one burst, so a
    // receive thread waits once per tracer it serves: the burst's later messages are there
    // when it asks.
    double displayCpuS =
        (receiveCpuS + costs.displayWorkCpuS) / share + costs.displayWorkS - costs.displayWorkCpuS;
    b.ranks.push_back({display, common::Role::Display, costs.hostOf[display],
                       std::max(receiveS, displayCpuS), receiveCpuS + costs.displayWorkCpuS,
                       receiveThreads, static_cast<double>(costs.tracers.size()) / receiveThreads});
    b.terms[static_cast<int>(Term::DisplayReceive)] = receiveS;
    b.terms[static_cast<int>(Term::DisplayWork)] = displayCpuS;
    b.displayFps = 1.0 / std::max(receiveS, displayCpuS);
    b.displayTerm = receiveS >= displayCpuS ? Term::DisplayReceive : Term::DisplayWork;
}

constexpr int kTickPhases = 16;  // tick phases CrowdedMakespanS averages over

// The work of one frame on a host's cores (PhaseMakespanS): the CPU seconds left of each whole
// rank (0 .. whole - 1) and of each core's piece of the spread work (whole + core), and each
// core's turn order of them.
struct CoreQueues {
    std::vector<double> leftS;
    std::vector<std::deque<int>> waiting;

    // CPU seconds of the work waiting in `core`'s turn order.
    double WaitingS(int core) const {
        double sum = 0.0;
        for (int r : waiting[core]) sum += leftS[r];
        return sum;
    }
};

// Places the whole ranks on the cores (PlaceOnCores), in each core's turn order longest first;
// then the spread work, which comes throughout the frame, first in each core's turn
// order: on the cores the whole ranks left free if there are any (a waking thread takes an idle
// core), else on every core alike.
CoreQueues PlaceWork(const std::vector<double>& wholeCpuS, double spreadCpuS, int cores) {
    int whole = static_cast<int>(wholeCpuS.size());
    CoreQueues q{std::vector<double>(whole + cores), std::vector<std::deque<int>>(cores)};
    const CorePlacement placed = PlaceOnCores(wholeCpuS, cores);
    for (int r : placed.order) {
        q.leftS[r] = std::max(wholeCpuS[r], 0.0);
        q.waiting[placed.coreOf[r]].push_back(r);
    }
    const std::vector<double>& placedS = placed.placedS;
    int free = static_cast<int>(std::count(placedS.begin(), placedS.end(), 0.0));
    for (int c = 0; c < cores; ++c) {
        bool takes = free == 0 || placedS[c] == 0.0;
        q.leftS[whole + c] = takes ? std::max(spreadCpuS, 0.0) / (free == 0 ? cores : free) : 0.0;
        q.waiting[c].push_front(whole + c);
    }
    return q;
}

// Starts work on the idle cores of `running` (the work each core runs, -1: none): an idle core
// takes its own next rank, else the next of the core with the most waiting work. Returns how
// many cores are busy.
int StartIdleCores(CoreQueues& q, std::vector<int>& running) {
    int cores = static_cast<int>(running.size());
    int busy = 0;
    for (int c = 0; c < cores; ++c) {
        if (running[c] < 0) {
            int from = c;
            for (int o = 0; o < cores && q.waiting[c].empty(); ++o) {
                if (q.WaitingS(o) > (from == c ? 0.0 : q.WaitingS(from))) from = o;
            }
            if (!q.waiting[from].empty()) {
                running[c] = q.waiting[from].front();
                q.waiting[from].pop_front();
            }
        }
        busy += running[c] >= 0;
    }
    return busy;
}

// One frame on the host's cores with the first tick `firstTickS` after its start (see
// CrowdedMakespanS): wall seconds.
double PhaseMakespanS(const std::vector<double>& wholeCpuS, double spreadCpuS, int cores,
                      double capacityCores, double tickS, double firstTickS) {
    CoreQueues q = PlaceWork(wholeCpuS, spreadCpuS, cores);
    std::vector<int> running(cores, -1);
    double nowS = 0.0, nextTickS = firstTickS;
    for (;;) {
        int busy = StartIdleCores(q, running);
        if (busy == 0) return nowS;
        double speed = std::min(1.0, capacityCores / busy);  // CPU seconds per second per core
        double stepS = nextTickS - nowS;
        for (int r : running) {
            if (r >= 0) stepS = std::min(stepS, q.leftS[r] / speed);
        }
        nowS += stepS;
        for (int& r : running) {
            if (r >= 0 && (q.leftS[r] -= stepS * speed) <= 1e-15) r = -1;
        }
        if (nowS < nextTickS - 1e-15) continue;
        nextTickS += tickS;
        for (int c = 0; c < cores; ++c) {  // the tick: a rank that others wait for yields
            if (running[c] >= 0 && !q.waiting[c].empty()) {
                q.waiting[c].push_back(running[c]);
                running[c] = -1;
            }
        }
    }
}

// CPU seconds a frame of period `periodS` takes from one rank: its own CPU, and the share of
// its idle time (the period less its busy wall time) that each of its waiting threads' waits
// take, each wait that idle time over the waits per frame long, as the intra-host link's
// profile measured it (LinkProfile::WaitCpuFraction).
double RankCpuS(const RankBudget& r, const LinkProfile& waits, double periodS, bool busyHost) {
    double idleS = std::max(periodS - r.wallSPerFrame, 0.0);
    double waitS = idleS / std::max(r.waitsPerFrame, 1.0);
    return r.cpuSPerFrame +
           r.waitCpuScale * r.waitingThreads * waits.WaitCpuFraction(waitS, busyHost) * idleS;
}

// The host's cores' work together without its quota: capacityCores, or cores when it is 0.
double CoresCapacity(const ClusterHost& host) {
    return host.capacityCores > 0.0 ? host.capacityCores : host.cores;
}

// The slowest host's frame period, and whether a CPU quota sets it (HostFramePeriod).
struct HostPeriod {
    double periodS = 0.0;  // 0: no host has CPU work
    bool quota = false;    // the host has a quota below its cores' capacity
};

// Each host gives at most its capacity in CPU-seconds per second to the ranks on it (eq. 21),
// at most its CPU quota where it has one. Where its ranks outnumber its cores, their waits cost
// what they cost on a busy host, and, if the intra-host link's profile measured the scheduler's
// tick, its cores run the tracers' frames in turns with the display's and the server's short
// pieces of work spread over them (CrowdedMakespanS). A host with a quota also holds the rank
// that starts its frame while the quota is spent (QuotaHoldS). Its period is the shortest for
// which the ranks' CPU, waits included, fits all of these (found by bisection; where the waits
// alone would fill the host, the longest period tried). Returns the longest host period.
HostPeriod HostFramePeriod(const Machine& m, const LinkProfile& waits,
                           const std::vector<RankBudget>& ranks) {
    std::vector<std::vector<const RankBudget*>> onHost(m.hosts.size());
    for (const RankBudget& r : ranks) onHost[r.host].push_back(&r);
    HostPeriod worst;
    for (size_t h = 0; h < m.hosts.size(); ++h) {
        if (onHost[h].empty()) continue;
        const ClusterHost& host = m.hosts[h];
        const double capacity = CapacityCores(host);
        const int busyRanks = static_cast<int>(onHost[h].size());
        const bool crowded = busyRanks > host.cores;
        const bool quota = capacity < CoresCapacity(host);
        double tickS = crowded ? waits.schedulerTickS : 0.0;
        auto fits = [&](double periodS) {
            std::vector<double> tracersCpuS;
            double cpuS = 0.0, othersCpuS = 0.0;
            for (const RankBudget* r : onHost[h]) {
                double rankS = RankCpuS(*r, waits, periodS, crowded);
                cpuS += rankS;
                if (r->role == common::Role::RayTracer) {
                    tracersCpuS.push_back(rankS);
                } else {
                    othersCpuS += rankS;
                }
            }
            double holdS = QuotaHoldS(host, busyRanks, cpuS / (capacity * periodS));
            return cpuS + capacity * holdS <= capacity * periodS &&
                   CrowdedMakespanS(tracersCpuS, othersCpuS, host.cores, capacity, tickS) <=
                       periodS;
        };
        double lo = 0.0;
        for (const RankBudget* r : onHost[h]) lo += RankCpuS(*r, waits, 0.0, crowded) / capacity;
        double hi = lo;
        if (lo <= 0.0) continue;
        for (int k = 0; k < 64 && !fits(hi); ++k) hi *= 2.0;
        for (int k = 0; k < 60; ++k) {
            double mid = 0.5 * (lo + hi);
            (fits(mid) ? hi : lo) = mid;
        }
        if (hi > worst.periodS) worst = {hi, quota};
    }
    return worst;
}

Expected<void> ValidateRun(const ClusterRun& run) {
    if (run.n < 3) return Error{"N must be at least 3, got " + std::to_string(run.n)};
    if (run.widthPx < 1 || run.heightPx < 1) return Error{"screen size must be positive"};
    if (run.widthPx < run.n - 2) {
        return Error{"N = " + std::to_string(run.n) + " has more ray tracers than the " +
                     std::to_string(run.widthPx) + " screen columns"};
    }
    if (run.columnsPerMessage < 1) return Error{"columns per message must be >= 1"};
    if (run.decomposition == common::Decomposition::Dynamic &&
        run.n - 2 > common::kMaxDynamicTracers) {
        return Error{"--decomposition dynamic serves at most " +
                     std::to_string(common::kMaxDynamicTracers) + " ray tracers"};
    }
    return {};
}

}  // namespace

CorePlacement PlaceOnCores(const std::vector<double>& wholeCpuS, int cores) {
    const int whole = static_cast<int>(wholeCpuS.size());
    CorePlacement out{std::vector<int>(whole), std::vector<int>(whole, 0),
                      std::vector<double>(cores, 0.0)};
    std::iota(out.order.begin(), out.order.end(), 0);
    std::stable_sort(out.order.begin(), out.order.end(),
                     [&](int a, int b) { return wholeCpuS[a] > wholeCpuS[b]; });
    for (int r : out.order) {
        auto core = std::min_element(out.placedS.begin(), out.placedS.end()) - out.placedS.begin();
        out.coreOf[r] = static_cast<int>(core);
        out.placedS[core] += std::max(wholeCpuS[r], 0.0);
    }
    return out;
}

double CrowdedMakespanS(const std::vector<double>& wholeCpuS, double spreadCpuS, int cores,
                        double capacityCores, double tickS) {
    if (tickS <= 0.0 || cores < 1 || capacityCores <= 0.0) return 0.0;
    double sumS = 0.0;
    for (int k = 0; k < kTickPhases; ++k) {
        sumS += PhaseMakespanS(wholeCpuS, spreadCpuS, cores, capacityCores, tickS,
                               tickS * (k + 0.5) / kTickPhases);
    }
    return sumS / kTickPhases;
}

double CapacityCores(const ClusterHost& host) {
    double capacity = CoresCapacity(host);
    return host.cpuQuotaCores > 0.0 ? std::min(capacity, host.cpuQuotaCores) : capacity;
}

double QuotaHoldS(const ClusterHost& host, int busyRanks, double quotaUse) {
    if (host.cpuQuotaCores <= 0.0 || busyRanks < 1) return 0.0;
    double share = std::min(1.0, host.cpuQuotaCores / std::min(host.cores, busyRanks));
    double othersUse = std::clamp(quotaUse, 0.0, 1.0) * (busyRanks - 1) / busyRanks;
    return othersUse * (1.0 - share) * (1.0 - share) * host.quotaPeriodS / 2.0;
}

Expected<void> ValidateMachine(const Machine& m, const std::map<std::string, LinkProfile>& links) {
    if (m.hosts.empty()) return MachineError(m, "hosts must list at least one host");
    for (size_t h = 0; h < m.hosts.size(); ++h) {
        const ClusterHost& host = m.hosts[h];
        std::string field = "hosts[" + std::to_string(h) + "].";
        const std::string context = "machine '" + m.name + "'";
        if (auto ok = FirstError(
                {RequireAtLeast(context, field + "cores", host.cores, 1),
                 common::CheckRange(context + ": " + field + "capacityCores", host.capacityCores,
                                    common::Range::Closed(0.0, host.cores, "cores")),
                 RequirePositive(context, field + "cpuSpeed", host.cpuSpeed),
                 common::CheckRange(context + ": " + field + "cpuQuotaCores", host.cpuQuotaCores,
                                    common::Range::Closed(0.0, host.cores, "cores")),
                 common::CheckRange(context + ": " + field + "quotaPeriodS", host.quotaPeriodS,
                                    kQuotaPeriodRange)});
            !ok) {
            return ok.error();
        }
        for (const std::string& nic : host.nics) {
            if (!links.count(nic))
                return MachineError(m,
                                    field + "nics names link '" + nic + "', which has no profile");
        }
    }
    if (!links.count(m.intraHostLink)) {
        return MachineError(
            m, "intraHostLink names link '" + m.intraHostLink + "', which has no profile");
    }
    if (m.displayReceiveThreads < 1) return MachineError(m, "displayReceiveThreads must be >= 1");
    for (int slot : m.hostOfSlot) {
        if (slot < 0 || slot >= static_cast<int>(m.hosts.size()))
            return MachineError(m, "a hostfile slot names no host");
    }
    return {};
}

std::vector<int> PlaceRanks(const Machine& m, int n) {
    std::vector<int> slots = m.hostOfSlot;
    if (slots.empty() && m.placement == Placement::Fill) {
        for (size_t h = 0; h < m.hosts.size(); ++h)
            slots.insert(slots.end(), m.hosts[h].cores, static_cast<int>(h));
    }
    std::vector<int> hostOf(n);
    for (int r = 0; r < n; ++r) {
        hostOf[r] = slots.empty() ? r % static_cast<int>(m.hosts.size()) : slots[r % slots.size()];
    }
    return hostOf;
}

Expected<CodecCost> CodecCostOf(const MeasuredApp& measured, common::ColumnCodec codec) {
    if (codec == common::ColumnCodec::None) return CodecCost{};
    for (const CodecCost& cost : measured.codecs) {
        if (cost.codec == codec) return cost;
    }
    return Error{"the resource profile has no measurement of --column-codec " +
                 common::ToString(codec) + "; profile again with this version of bfv"};
}

Expected<FrameCosts> ClusterFrameCosts(const MeasuredApp& measured, const Machine& machine,
                                       const std::map<std::string, LinkProfile>& links,
                                       const ClusterRun& run) {
    if (auto ok = ValidateRun(run); !ok) return ok.error();
    if (auto ok = ValidateMachine(machine, links); !ok) return ok.error();
    if (auto ok = ValidateApp(measured.app); !ok) return ok.error();
    std::vector<int> hostOf = PlaceRanks(machine, run.n);
    int displayHost = hostOf[run.n - 1];
    for (int r = 1; r < run.n - 1; ++r) {
        if (hostOf[r] != displayHost && machine.hosts[displayHost].nics.empty()) {
            return MachineError(machine,
                                "hosts[" + std::to_string(displayHost) +
                                    "] runs the display but has no nics for remote tracers");
        }
    }
    auto codec = CodecCostOf(measured, run.codec);
    if (!codec) return codec.error();
    return CostsOf(measured, machine, links, run, *codec, hostOf);
}

common::Role BusiestRole(const ClusterPrediction& cluster) {
    auto busiest = std::max_element(
        cluster.ranks.begin(), cluster.ranks.end(),
        [](const RankBudget& a, const RankBudget& b) { return a.wallSPerFrame < b.wallSPerFrame; });
    return busiest == cluster.ranks.end() ? common::Role::RayTracer : busiest->role;
}

Expected<ClusterPrediction> PredictCluster(const MeasuredApp& measured, const Machine& machine,
                                           const std::map<std::string, LinkProfile>& links,
                                           const ClusterRun& run) {
    auto costs = ClusterFrameCosts(measured, machine, links, run);
    if (!costs) return costs.error();
    Budgets b;
    b.ranks.push_back({0, common::Role::TerrainServer, costs->hostOf[0], costs->serverS,
                       costs->serverCpuS, 1, 1.0, kServerWaitCpuScale});
    AddTracers(*costs, machine, b);
    AddDisplay(*costs, machine, b);
    HostPeriod host = HostFramePeriod(machine, links.at(machine.intraHostLink), b.ranks);
    const Term hostTerm = host.quota ? Term::HostQuota : Term::HostCpu;
    b.terms[static_cast<int>(hostTerm)] = host.periodS;
    double hostFps = host.periodS > 0.0 ? 1.0 / host.periodS : kInf;
    ClusterPrediction out;
    out.ranks = b.ranks;
    out.displayReceiveBound = b.displayReceiveBound;
    out.slices = b.slices;
    Prediction& p = out.prediction;
    p.n = run.n;
    p.sPerFrame = b.terms;
    p.fps = std::min({b.tracerFps, b.displayFps, hostFps});
    p.binding = p.fps == b.tracerFps    ? b.tracerTerm
                : p.fps == b.displayFps ? b.displayTerm
                                        : hostTerm;
    out.sequentialFps = costs->sequentialFps;
    return out;
}

}  // namespace bfv::predict
