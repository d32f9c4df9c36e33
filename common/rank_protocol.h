#pragma once

#include <optional>
#include <vector>

#include "common/expected.h"
#include "common/instrument.h"
#include "common/messages.h"
#include "common/mpi_group.h"
#include "common/mpi_wait.h"
#include "common/report.h"

namespace bfv::common {

// The collective steps every rank of `bfv render` takes together. Every rank calls each of
// them the same number of times in the same order; that is what keeps the job from hanging.

/// Display: tells every rank what to do next (render a frame, quit, or abort after an error
/// the display already reported). Time counts as Activity::Wait.
void BroadcastFrameCommand(const Group& group, FrameCommand command, Recorder& recorder);

/// Everyone but the display: waits for the display's next command, sleeping up to
/// `maxSleepUs` between tests (mpi_wait.h). Time counts as Activity::Wait.
FrameCommand ReceiveFrameCommand(const Group& group, Recorder& recorder,
                                 int maxSleepUs = kMaxPollSleepUs);

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

    /// The display's next command if it has arrived. After a render command the receive of the
    /// next is posted; after quit or abort nothing more comes.
    std::optional<FrameCommand> Poll();

  private:
    void Post();

    const Group& group_;
    FrameCommand command_;
    MPI_Request request_ = MPI_REQUEST_NULL;
};

/// Sends this rank's summary (activities, and what `extra` adds: terrain stream figures,
/// resident tiles) to the display (MPI_Gather). On the display rank returns every rank's
/// summary in rank order; elsewhere an empty vector.
std::vector<RankSummary> GatherSummary(const Group& group, const Recorder& recorder, double wallS,
                                       const RankSummary& extra = {});

/// Ends the whole job after an error that only this rank knows of (a damaged message, a
/// failed write mid-run): prints "[rN role] bfv render: MESSAGE" and calls MPI_Abort, since
/// returning alone would leave the other ranks waiting in a collective.
[[noreturn]] void AbortJob(const Group& group, const Error& error);

}  // namespace bfv::common
