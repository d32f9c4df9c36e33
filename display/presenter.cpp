#include "display/presenter.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/file_io.h"
#include "common/interrupt.h"
#include "display/overlay.h"
#include "display/screenshot.h"

namespace bfv::display {

namespace {

std::span<const std::byte> AsBytes(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// The frame times the page's graph shows: the last this many.
constexpr size_t kWebGraphFrames = 120;

// `from` added to `into`: held keys as one (clamped to -1..1), drags and presses summed.
void AddInput(PilotInput& into, const PilotInput& from) {
    into.turn = std::clamp(into.turn + from.turn, -1.0, 1.0);
    into.climb = std::clamp(into.climb + from.climb, -1.0, 1.0);
    into.lookRightPx += from.lookRightPx;
    into.lookDownPx += from.lookDownPx;
    into.speedSteps += from.speedSteps;
    into.aglSteps += from.aglSteps;
    into.togglePause = into.togglePause != from.togglePause;
    into.quit = into.quit || from.quit;
}

// The figures of --serve's encoding, after the run's summary.
void PrintServeStats(const ServeStats& stats) {
    if (stats.framesEncoded == 0) {
        std::printf("  served no frames (no browser watched)\n");
        return;
    }
    double n = static_cast<double>(stats.framesEncoded);
    std::printf(
        "  served %llu frames as JPEG: %.0f bytes per frame, %.2f ms encoding CPU per frame\n",
        static_cast<unsigned long long>(stats.framesEncoded),
        static_cast<double>(stats.jpegBytes) / n, 1e3 * stats.encodeCpuS / n);
}

// Starts --serve's web server and prints the page's URL (with its token) for the user.
Expected<std::unique_ptr<WebServer>> StartServer(const std::string& serve) {
    auto address = ParseServeAddress(serve);
    if (!address) return address.error();
    auto server = WebServer::Start(*address, NewAccessToken());
    if (!server) return server.error();
    std::printf("bfv render: open %s to watch and fly the run\n", (*server)->Url().c_str());
    std::fflush(stdout);
    return server;
}

}  // namespace

Presenter::Presenter(const common::RenderOptions& options, const common::Flight& flight,
                     common::GroundFn ground)
    : options_(options),
      flight_(flight),
      pilot_(flight, options.view.flightStyle, std::move(ground), common::kMaxPitchRad) {}

Expected<std::unique_ptr<Presenter>> Presenter::Create(const common::RenderOptions& options,
                                                       const common::Flight& flight,
                                                       common::GroundFn ground) {
    std::unique_ptr<Presenter> p(new Presenter(options, flight, std::move(ground)));
    if (!options.output.serve.empty()) {  // first: a bad --serve leaves no output behind
        auto server = StartServer(options.output.serve);
        if (!server) return server.error();
        p->server_ = std::move(*server);
    }
    if (options.output.headless) {
        std::error_code ec;
        std::filesystem::create_directories(options.output.outDir, ec);
        if (ec)
            return Error{"cannot create output directory '" + options.output.outDir +
                         "': " + ec.message()};
        p->pngWriter_ = std::make_unique<PngWriter>();
    } else {
        auto window =
            Window::Open(options.view.screen.widthPx, options.view.screen.heightPx, "bfv");
        if (!window) return window.error();
        p->window_ = std::move(*window);
    }
    return p;
}

WindowInput Presenter::PollInput() {
    WindowInput input;
    if (window_) input = window_->Poll();
    if (server_) AddInput(input.pilot, server_->TakeInput());
    return input;
}

std::optional<common::CameraPose> Presenter::NextPose(int frame) {
    double now = common::WallClockS();
    double dtS = lastPoseS_ < 0 ? 0.0 : now - lastPoseS_;  // since the last pose
    lastPoseS_ = now;
    if (lastS_ < 0) lastS_ = now;
    int count = options_.output.FrameCount();
    if (count > 0 && frame >= count) return std::nullopt;
    if (interruptedBy_ == 0) interruptedBy_ = common::InterruptSignal();
    if (interruptedBy_ != 0 || quit_) return std::nullopt;
    common::CameraPose pose;
    if (window_ || server_) {
        WindowInput input = PollInput();
        if (input.toggleHud) {
            hudShown_ = !hudShown_;
            ComposeShown();  // a screenshot before the next frame shows what is asked
        }
        if (input.screenshot) SaveScreenshot();
        if (input.pilot.quit) return std::nullopt;
        pose = pilot_.Advance(frame == 0 ? 0.0 : dtS, input.pilot);
    } else {
        pose = flight_.PoseAt(frame * options_.view.frameDtS);
    }
    pose = common::WithinPitchLimit(pose);
    poses_[frame & 1] = pose;
    if (!options_.view.recordPath.empty()) flown_.push_back(pose);
    return pose;
}

bool Presenter::WaitWhilePaused(double maxS) {
    if ((!window_ && !server_) || !pilot_.Paused() || quit_) return false;
    constexpr auto kPollInterval = std::chrono::milliseconds(30);
    double startS = common::WallClockS();
    while (common::WallClockS() - startS < maxS) {
        WindowInput input = PollInput();
        if (input.toggleHud) {
            hudShown_ = !hudShown_;
            ComposeShown();
        }
        if (input.screenshot) SaveScreenshot();
        if (input.pilot.quit || common::InterruptSignal() != 0) {
            quit_ = input.pilot.quit;
            return false;
        }
        pilot_.Advance(0.0, input.pilot);  // takes the unpause
        if (!pilot_.Paused()) {
            lastS_ = lastPoseS_ = common::WallClockS();  // the pause is no frame's time
            return false;
        }
        if (!rgb_.empty() && window_) window_->Present(Shown());
        std::this_thread::sleep_for(kPollInterval);
    }
    lastS_ = lastPoseS_ = common::WallClockS();
    return true;
}

Expected<void> Presenter::Present(int frame, const Frame& image, int nRanks,
                                  common::Recorder& recorder, common::SampleCounts samples,
                                  std::span<const double> traceTimesS) {
    common::ScopedActivity timing(recorder, common::Activity::Present);
    checksums_.push_back(image.Checksum());
    deficit_.push_back(static_cast<double>(samples.coarser) /
                       static_cast<double>(std::max<std::uint64_t>(samples.terrain, 1)));
    if (window_) {
        image.ToRgb(rgb_);
        shownFrame_ = frame;
        shownFrameTimes_ = frameTimesS_.size();  // this frame's own time comes after
        nRanks_ = nRanks;
        traceTimesS_.assign(traceTimesS.begin(), traceTimesS.end());
        ComposeShown();
        window_->Present(Shown());
    }
    // Only a copy of the frame when a browser watches; its encoding runs on a thread of its own.
    if (server_ && server_->Watched()) server_->Offer(image, WebHud(frame, nRanks, traceTimesS));
    double now = common::WallClockS();
    frameTimesS_.push_back(std::max(now - lastS_, 1e-9));
    lastS_ = now;
    return pngWriter_ ? SubmitPng(frame, image) : Expected<void>{};
}

Expected<void> Presenter::SubmitPng(int frame, const Frame& image) {
    bool last = frame + 1 == options_.output.FrameCount();
    if (!last && (options_.output.pngEvery == 0 || frame % options_.output.pngEvery != 0))
        return {};
    // A failed write ends the run at the next frame that writes one, or at Finish.
    if (auto ok = pngWriter_->FirstError(); !ok) return ok;
    image.ToRgb(rgb_);
    auto path =
        std::filesystem::path(options_.output.outDir) / fmt::format("frame_{:05d}.png", frame);
    double waitedS = pngWriter_->Submit(path.string(), options_.view.screen.widthPx,
                                        options_.view.screen.heightPx, rgb_);
    if (waitedS > 0.0) {
        ++pngQueueWaits_;
        pngQueueWaitS_ += waitedS;
    }
    // The next frame's time starts after the hand-off: no frame's time holds the conversion,
    // the copy into the queue or a wait for room in it.
    lastS_ = common::WallClockS();
    return {};
}

void Presenter::ComposeShown() {
    if (!hudShown_ || rgb_.empty()) return;
    hudRgb_ = rgb_;
    std::span<const double> frameTimesS(frameTimesS_.data(), shownFrameTimes_);
    HudContent hud{OverlayText(shownFrame_, nRanks_), frameTimesS, traceTimesS_};
    DrawHud(hudRgb_, options_.view.screen.widthPx, options_.view.screen.heightPx, hud);
}

std::string Presenter::OverlayText(int frame, int nRanks) const {
    double fps = shownFrameTimes_ == 0 ? 0.0 : 1.0 / frameTimesS_[shownFrameTimes_ - 1];
    double deficit = deficit_.empty() ? 0.0 : 100.0 * deficit_.back();
    std::string predicted = prediction_ ? fmt::format("\npredicted {:.1f} FPS ({} bound)",
                                                      prediction_->fps, prediction_->binding)
                                        : "";
    return fmt::format(
        "FPS {:5.1f}   N {}   frame {}   {:.0f} m/s   {:.0f} m AGL   coarse {:.0f}%{}{}\n"
        "arrows/WASD/drag steer  +/- speed  PgUp/PgDn height  space pause  H hud  F12 shot  "
        "Esc quit",
        fps, nRanks, frame, pilot_.SpeedMPerS(), pilot_.AglM(), deficit,
        pilot_.Paused() ? "  PAUSED" : "", predicted);
}

nlohmann::json Presenter::WebHud(int frame, int nRanks, std::span<const double> traceTimesS) const {
    size_t shown = std::min(frameTimesS_.size(), kWebGraphFrames);
    std::vector<double> frameTimesMs, traceTimesMs;
    for (size_t i = frameTimesS_.size() - shown; i < frameTimesS_.size(); ++i)
        frameTimesMs.push_back(1e3 * frameTimesS_[i]);
    for (double t : traceTimesS) traceTimesMs.push_back(1e3 * t);
    const common::CameraPose& pose = poses_[frame & 1];
    nlohmann::json hud = {
        {"frame", frame},
        {"nRanks", nRanks},
        {"fps", frameTimesS_.empty() ? 0.0 : 1.0 / frameTimesS_.back()},
        {"speedMPerS", pilot_.SpeedMPerS()},
        {"aglM", pilot_.AglM()},
        {"deficitPct", deficit_.empty() ? 0.0 : 100.0 * deficit_.back()},
        {"paused", pilot_.Paused()},
        {"headingRad", pose.headingRad},
        {"pitchRad", pose.pitchRad},
        {"widthPx", options_.view.screen.widthPx},
        {"heightPx", options_.view.screen.heightPx},
        {"frameTimesMs", frameTimesMs},
        {"traceTimesMs", traceTimesMs},
    };
    if (prediction_) {
        hud["predictedFps"] = prediction_->fps;
        hud["binding"] = prediction_->binding;
    }
    return hud;
}

void Presenter::SaveScreenshot() const {
    if (rgb_.empty()) {
        std::fputs("bfv render: no screenshot: no frame shown yet\n", stderr);
        return;
    }
    auto path = WriteScreenshot(options_.output.outDir, options_.view.screen.widthPx,
                                options_.view.screen.heightPx, Shown());
    if (!path) {
        std::fprintf(stderr, "bfv render: no screenshot: %s\n", path.error().message.c_str());
        return;
    }
    std::printf("bfv render: screenshot %s\n", path->c_str());
    std::fflush(stdout);
}

Expected<void> Presenter::Finish(const common::RunReport& report) {
    // The last frames' PNGs may still be queued: written first. A failed one is the error
    // returned once the report is written.
    Expected<void> pngs = pngWriter_ ? pngWriter_->Drain() : Expected<void>{};
    std::fputs(common::ReportSummary(report).c_str(), stdout);
    if (server_) {
        PrintServeStats(server_->Stats());
        server_->End(common::RunEndName(report.end));
    }
    if (!options_.view.recordPath.empty()) {
        if (auto ok = common::WriteFileAtomic(options_.view.recordPath,
                                              AsBytes(common::RecordedFlightJson(flown_)));
            !ok) {
            return ok;
        }
        std::printf("  wrote the flight flown (%zu poses) to %s: replay it with --flight\n",
                    flown_.size(), options_.view.recordPath.c_str());
    }
    // Window runs too: their report is what the window measured (and predicted, with
    // --machine and --profile).
    std::error_code ec;
    std::filesystem::create_directories(options_.output.outDir, ec);
    if (ec)
        return Error{"cannot create output directory '" + options_.output.outDir +
                     "': " + ec.message()};
    std::string checksums;
    for (std::uint64_t c : checksums_) checksums += fmt::format("{:016x}\n", c);
    auto dir = std::filesystem::path(options_.output.outDir);
    if (auto ok = common::WriteFileAtomic((dir / "checksums.txt").string(), AsBytes(checksums));
        !ok) {
        return ok;
    }
    std::string json = common::ReportJson(report).dump(2) + "\n";
    if (auto ok = common::WriteFileAtomic((dir / "report.json").string(), AsBytes(json)); !ok) {
        return ok;
    }
    std::printf("  wrote %s\n", (dir / "report.json").c_str());
    return pngs;
}

}  // namespace bfv::display
