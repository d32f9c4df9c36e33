#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/expected.h"
#include "common/flight.h"
#include "common/instrument.h"
#include "common/messages.h"
#include "common/render_options.h"
#include "common/report.h"
#include "display/frame.h"
#include "display/pilot.h"
#include "display/screenshot.h"
#include "display/web_server.h"
#include "display/window.h"

namespace bfv::display {

/// The display's side of every frame, shared by the MPI display rank and --sequential: it
/// owns the viewpoint (scripted flight when headless, the pilot in a window), and shows or
/// writes each assembled frame. Headless, it writes OUT/frame_NNNNN.png every k frames and
/// the last one (encoded on a thread of its own, PngWriter, and handed to it after the
/// frame's time is taken, so that frame times leave the PNGs out), then OUT/report.json and
/// OUT/checksums.txt, each whole or not at all. With --serve it also streams every frame to
/// the browsers watching (WebServer), and the pilot (headless too) takes the keys of the
/// browser holding the controls as well as the window's.
class Presenter {
  public:
    /// Opens the window, or creates the output directory when headless; with --serve starts
    /// the web server and prints its URL. `flight` must outlive the presenter. Errors: no
    /// window, a directory or --serve address that cannot be used.
    static Expected<std::unique_ptr<Presenter>> Create(const common::RenderOptions& options,
                                                       const common::Flight& flight,
                                                       common::GroundFn ground);

    /// The camera of frame `frame`, or nothing when the run is over (frame count reached, the
    /// pilot pressed Esc, or an interrupt: SIGINT or SIGTERM to this process, or Interrupt).
    std::optional<common::CameraPose> NextPose(int frame);

    /// While the pilot has paused the window: shows the last frame, takes the pilot's keys and
    /// sleeps between them, for up to `maxS` seconds, rendering nothing (the CPU idles).
    /// Returns whether the window is still paused; false at once when headless, unpaused, or
    /// the pilot quit (NextPose then ends the run).
    bool WaitWhilePaused(double maxS);

    /// Ends the run at the next NextPose as interrupted by `signal` (another rank's SIGINT or
    /// SIGTERM, see common::PollInterrupted).
    void Interrupt(int signal) { interruptedBy_ = signal; }
    /// Shows `prediction` (--machine) beside the measured FPS in the window's overlay.
    void SetPrediction(const std::optional<common::RunPrediction>& prediction) {
        prediction_ = prediction;
    }
    /// The signal that ended the run early, or 0 when it was not interrupted.
    int InterruptedBy() const { return interruptedBy_; }

    /// Shows (window) or records and writes (headless) frame `frame`; `nRanks` feeds the
    /// overlay; `samples` (terrain pixels, and those rendered coarser than their footprint
    /// asked) give the frame's resolution deficit; `traceTimesS` (each ray tracer's trace time of
    /// the frame, seconds; empty in --sequential) draws the overlay's load bars. Time spent
    /// here counts as Activity::Present.
    Expected<void> Present(int frame, const Frame& image, int nRanks, common::Recorder& recorder,
                           common::SampleCounts samples, std::span<const double> traceTimesS = {});

    /// Per-frame times (seconds, first frame timed from the first NextPose) and checksums.
    const std::vector<double>& FrameTimesS() const { return frameTimesS_; }
    const std::vector<std::uint64_t>& Checksums() const { return checksums_; }
    /// Per frame: the share of terrain pixels rendered coarser than their footprint asked.
    const std::vector<double>& ResolutionDeficit() const { return deficit_; }
    /// Headless: frames that waited for room in the PNG writer's queue, and their waits in
    /// all, seconds (counted in no frame's time).
    int PngQueueWaits() const { return pngQueueWaits_; }
    double PngQueueWaitS() const { return pngQueueWaitS_; }

    /// Writes report.json and checksums.txt (headless), the poses flown (--record, window or
    /// headless), and prints the summary to stdout.
    /// Errors: a file that could not be written; a frame's PNG that could not be (after the
    /// report is written).
    Expected<void> Finish(const common::RunReport& report);

  private:
    Presenter(const common::RenderOptions& options, const common::Flight& flight,
              common::GroundFn ground);
    std::string OverlayText(int frame, int nRanks) const;
    // The window's and the browser's keys since the last call.
    WindowInput PollInput();
    // Frame `frame`'s HUD values for the served page (what OverlayText shows, as JSON).
    nlohmann::json WebHud(int frame, int nRanks, std::span<const double> traceTimesS) const;
    // Headless: hands frame `frame` to the PNG writer when it is one to write (every
    // --png-every frames, and the last), after its time is taken. Errors: an earlier PNG that
    // could not be written.
    Expected<void> SubmitPng(int frame, const Frame& image);
    // Draws the HUD over a copy of the last frame (when shown): what the window then shows.
    void ComposeShown();
    // The image the window shows: the frame with or without the HUD.
    const std::vector<std::uint8_t>& Shown() const { return hudShown_ ? hudRgb_ : rgb_; }
    // F12: writes the frame shown, overlay included, to --out as screenshot_NNNN.png and
    // prints its path; a failure is one line on stderr and the flight goes on.
    void SaveScreenshot() const;

    common::RenderOptions options_;
    const common::Flight& flight_;
    Pilot pilot_;
    std::unique_ptr<Window> window_;
    std::unique_ptr<WebServer> server_;     // --serve: the browsers' page
    common::CameraPose poses_[2];           // frames f and f+1's poses by f's parity (the page)
    std::unique_ptr<PngWriter> pngWriter_;  // headless: writes the frames' PNGs
    std::vector<std::uint8_t> rgb_;         // the last frame (window) or the PNG's (headless)
    std::vector<std::uint8_t> hudRgb_;      // rgb_ with the HUD drawn over it
    bool hudShown_ = true;                  // H toggles it
    int shownFrame_ = 0;                    // the frame in rgb_, the frame times before it, its
    size_t shownFrameTimes_ = 0;            // rank count and trace times: what the HUD shows
    int nRanks_ = 0;
    std::vector<double> traceTimesS_;
    std::vector<double> frameTimesS_;
    std::vector<std::uint64_t> checksums_;
    std::vector<double> deficit_;
    int pngQueueWaits_ = 0;
    double pngQueueWaitS_ = 0.0;
    double lastS_ = -1.0;      // when the last frame was presented (frame times)
    double lastPoseS_ = -1.0;  // when NextPose last gave a pose (the pilot's clock)
    int interruptedBy_ = 0;
    bool quit_ = false;                      // the pilot pressed Esc during a pause
    std::vector<common::CameraPose> flown_;  // with --record: every pose NextPose gave
    std::optional<common::RunPrediction> prediction_;
};

}  // namespace bfv::display
