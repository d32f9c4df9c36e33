#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/instrument.h"
#include "common/messages.h"
#include "common/mpi_group.h"
#include "common/mpi_wait.h"
#include "common/render_options.h"
#include "common/report.h"
#include "common/timeline.h"

namespace bfv::common {

// The collective steps every rank of `bfv render` takes together. Every rank calls each of
// them the same number of times in the same order; that is what keeps the job from hanging.

/// Display: tells every rank what to do next (render a frame, quit, or abort after an error
/// the display already reported, or a heartbeat). Time counts as Activity::Wait. Errors
/// (StallError) when a rank has not taken the command within `stallTimeoutS` (> 0; the
/// commands are eager, so only a stopped rank, whose queue filled, stalls them): the display
/// then writes its report of the frames so far and ends the job (AbortJob).
Expected<void> BroadcastFrameCommand(const Group& group, FrameCommand command, Recorder& recorder,
                                     double stallTimeoutS = 0.0);

/// Everyone but the display: waits for the display's next command, sleeping up to
/// `maxSleepUs` between tests (mpi_wait.h). Time counts as Activity::Wait. Nothing when
/// `stallLimitS` (> 0) passed first (the receive is cancelled).
std::optional<FrameCommand> ReceiveFrameCommand(const Group& group, Recorder& recorder,
                                                double stallLimitS = 0.0,
                                                int maxSleepUs = kMaxPollSleepUs);

// Liveness (--stall-timeout). Every wait on another rank has a limit; past it the waiting rank
// names the rank it waited for and ends the job. The rank best placed to name the one that
// stopped speaks first: a ray tracer waiting for the terrain server's tiles after half the
// timeout; after the timeout, the display waiting for a tracer's columns or for a rank to take
// its commands, and the terrain server waiting for the display's commands (the display sends
// heartbeats while it waits for columns or is paused, so only a stopped display goes silent);
// every other wait (for sends to complete, for the end-of-run summaries) after twice it, since
// such a rank may only be waiting because the rank it waits on waits for a third; a ray tracer
// waiting for the display after 2.5 times it, so that when the display is the one lost, the
// terrain server names it first and writes the report in its place.

/// How long a rank of role `waiter` waits on one of role `awaited`, seconds, under
/// --stall-timeout `stallTimeoutS`; 0 (no limit) when stallTimeoutS is 0.
double StallLimitS(double stallTimeoutS, Role waiter, Role awaited);

/// How long the display waits for every rank to finish its start-up (NotifyReady), seconds,
/// under --stall-timeout `stallTimeoutS`: six times it (a tracer shades and lays out the pinned
/// levels at start-up, CPU work that takes a fraction of a second on the shipped terrain and
/// many seconds on a large DEM or a loaded host); 0 (no limit) when stallTimeoutS is 0.
double StartupLimitS(double stallTimeoutS);

/// The error of a stalled wait: "<role> rank R on host H stopped answering: no <what> for
/// S s (--stall-timeout T); last frame completed here: F" (F = -1: "none"); once the launcher
/// has reported a rank lost, that rank's LostError instead (the wait ended because of it).
Error StallError(const Group& group, int awaitedRank, const std::string& what, double waitedS,
                 double stallTimeoutS, long long lastFrame);

/// Everyone but the display: tells the display that this rank's start-up is done (the terrain
/// received and, on a ray tracer, its tile cache built), so that frames may begin. Call once,
/// before the first frame command is awaited. Never waits (the message is empty, eager).
void NotifyReady(const Group& group);

/// Display: waits until every other rank has finished its start-up (NotifyReady), sending a
/// heartbeat command every `heartbeatS` meanwhile so that the ranks already waiting for frame 0
/// (and the terrain server's watch on the display) see the display alive. Time counts as
/// Activity::Wait. Until then no rank's start-up counts against the stall limits of the frames.
/// Errors (StallError) when a rank has not finished within StartupLimitS(stallTimeoutS), or when
/// a heartbeat is not taken (BroadcastFrameCommand); a lost rank's LostError.
Expected<void> AwaitReady(const Group& group, Recorder& recorder, double stallTimeoutS,
                          double heartbeatS);

/// Everyone but the display: tells the display that this rank was interrupted by `signal`
/// (SIGINT or SIGTERM to this rank alone), so that it ends the run cleanly. Call once.
void NotifyInterrupted(const Group& group, int signal);

/// Display: the signal of an interrupt another rank reported (NotifyInterrupted), or 0.
/// Never waits.
int PollInterrupted(const Group& group);

/// The terrain server's side of the frame commands: it streams tiles on its own clock and
/// takes each command once it has come, never waiting for one. A receive is posted ahead;
/// its buffer belongs to the poller until the receive completes, or is cancelled when the
/// poller is destroyed.
class FrameCommandPoller {
  public:
    explicit FrameCommandPoller(const Group& group);
    ~FrameCommandPoller();
    FrameCommandPoller(const FrameCommandPoller&) = delete;
    FrameCommandPoller& operator=(const FrameCommandPoller&) = delete;

    /// The display's next command if it has arrived. After a render command or a heartbeat the
    /// receive of the next is posted; after quit or abort nothing more comes.
    std::optional<FrameCommand> Poll();

  private:
    void Post();

    const Group& group_;
    FrameCommand command_;
    MPI_Request request_ = MPI_REQUEST_NULL;
};

/// Sends this rank's summary (activities, and what `extra` adds: terrain stream figures,
/// resident tiles) to the display. On the display rank returns every rank's summary in rank
/// order; elsewhere an empty vector. Errors (StallError) when a rank's summary, or on other
/// ranks the display's receive of this one, has not come within twice `stallTimeoutS` (> 0).
Expected<std::vector<RankSummary>> GatherSummary(const Group& group, const Recorder& recorder,
                                                 double wallS, const RankSummary& extra = {},
                                                 double stallTimeoutS = 0.0);

/// --trace, after GatherSummary: every rank's timeline (Recorder::Timeline) to the display. On
/// the display returns every rank's, in rank order, each named "r1 tracer (host h)"; elsewhere
/// an empty vector. Errors (StallError) as GatherSummary.
Expected<std::vector<RankTimeline>> GatherTimelines(const Group& group, const Recorder& recorder,
                                                    double stallTimeoutS = 0.0);

/// The end of a run on every rank but the display: sends this rank's summary (GatherSummary)
/// and, with --trace, its timeline (GatherTimelines) to the display. Returns the exit code: 0,
/// or 128 + the signal that interrupted this rank. A stall ends the job (AbortJob).
int FinishRank(const Group& group, const Recorder& recorder, double wallS, const RankSummary& extra,
               const RenderOptions& options);

/// Ends the whole job after an error that only this rank knows of (a damaged message, a
/// failed write mid-run): prints "[rN role] bfv render: MESSAGE" and calls MPI_Abort, since
/// returning alone would leave the other ranks waiting in a collective. After a rank was lost
/// (peer_loss.h), a rank other than the one that writes the report first gives that one
/// LostReportWaitS() to end the job.
[[noreturn]] void AbortJob(const Group& group, const Error& error);

}  // namespace bfv::common
