// Drives `bfv render`'s window with real key presses and mouse drags: a private Xvfb server,
// xdotool to type and drag, the screenshots (F12) and the recorded flight (--record) to see
// what happened. Every wait has a timeout; the test signals only the processes it started
// (its Xvfb and its bfv job). Skipped when Xvfb or xdotool is not installed.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "display/pilot.h"
#include "tests/png_size.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::AwaitFile;
using test_support::Background;
using test_support::Contains;
using test_support::PngSize;
using test_support::Quote;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

constexpr int kWidthPx = 320, kHeightPx = 180;

bool Installed(const std::string& command) {
    return std::system(("command -v " + command + " >/dev/null 2>&1").c_str()) == 0;
}

// Stops `job` with SIGTERM when it is still running (mpiexec passes it to its ranks), then
// waits; the Background's destructor kills what is left.
void Stop(Background& job) {
    if (!job.Running() || job.Wait(0.0) != -1) return;
    ::kill(job.Pid(), SIGTERM);
    job.Wait(10.0);
}

// Stops a job when the test leaves, however it leaves (a failed ASSERT returns early).
struct StopOnExit {
    Background& job;
    ~StopOnExit() { Stop(job); }
};

// An Xvfb server of its own on the first free display (-displayfd writes its number).
class XServer {
  public:
    explicit XServer(const TempDir& dir)
        : xvfb_("Xvfb -displayfd 1 -screen 0 640x480x24 -nolisten tcp", dir.File("xvfb")) {
        for (int waitedMs = 0; waitedMs < 20000 && !Contains(xvfb_.Out(), "\n"); waitedMs += 50)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::string number = xvfb_.Out();
        if (Contains(number, "\n")) display_ = ":" + number.erase(number.find('\n'));
    }
    ~XServer() { Stop(xvfb_); }

    // ":N", or empty when the server did not start within 20 s.
    const std::string& Display() const { return display_; }
    std::string Err() const { return xvfb_.Err(); }

  private:
    Background xvfb_;
    std::string display_;
};

// Runs `xdotool ARGS` on `display`, killed after `timeoutS`.
RunResult Xdotool(const std::string& display, const std::string& args, int timeoutS = 20) {
    return RunCommand("env DISPLAY=" + display + " xdotool " + args, timeoutS);
}

// The path of the window's screenshot number `n` in `dir`.
std::string ScreenshotPath(const std::string& dir, int n) {
    char name[32];
    std::snprintf(name, sizeof name, "/screenshot_%04d.png", n);
    return dir + name;
}

// Presses F12 and waits for screenshot number `n` in `dir`; its bytes, or "" after 20 s.
std::string Screenshot(const std::string& display, const std::string& dir, int n) {
    Xdotool(display, "key F12");
    std::string path = ScreenshotPath(dir, n);
    return AwaitFile(path, 20.0) ? Slurp(path) : "";
}

// The recorded poses' heading and pitch, radians, in flight order.
struct Angles {
    std::vector<double> headingRad, pitchRad;
};

Angles RecordedAngles(const std::string& path) {
    Angles angles;
    nlohmann::json flight = nlohmann::json::parse(Slurp(path));
    for (const auto& pose : flight["poses"]) {
        angles.headingRad.push_back(pose["headingRad"].get<double>());
        angles.pitchRad.push_back(pose["pitchRad"].get<double>());
    }
    return angles;
}

// Flies `launcher` + `bfv render` in a window under a private Xvfb: F12 writes a screenshot of
// the window's size; paused, H hides the HUD (the screenshot changes) and H again shows it
// (the screenshot is the first again); the right arrow held turns the heading right, a drag
// turns it left and the view down by the drag times kMouseLookRadPerPx; Esc ends with exit 0
// and the recorded flight.
void FlyTheWindow(const std::string& launcher, const std::string& mode) {
    if (!Installed("Xvfb") || !Installed("xdotool")) GTEST_SKIP() << "needs Xvfb and xdotool";
    TempDir dir;
    XServer x(dir);
    const std::string& display = x.Display();
    ASSERT_FALSE(display.empty()) << "Xvfb did not start: " << x.Err();
    std::string out = dir.File("out"), record = dir.File("flown.json");
    Background job("env DISPLAY=" + display + " " + launcher + Quote(BFV_BINARY) + " render " +
                       mode + " --size 320x180 --stall-timeout 20 --out " + Quote(out) +
                       " --record " + Quote(record),
                   dir.File("bfv"));
    StopOnExit stopJob{job};
    RunResult search = Xdotool(display, "search --sync --name '^bfv$'", 60);
    ASSERT_EQ(search.exitCode, 0) << "no window within 60 s: " << job.Err();
    std::string window = search.out.substr(0, search.out.find('\n'));
    // The window can be found before it is viewable (focus then fails) or before its first
    // frame's events are read (a key then is lost on a loaded host): both are retried.
    RunResult focus;
    for (int attempt = 0; attempt < 10; ++attempt) {
        focus = Xdotool(display, "windowfocus --sync " + window);
        if (focus.exitCode == 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    ASSERT_EQ(focus.exitCode, 0) << focus.err;
    const std::string firstPath = ScreenshotPath(out, 0);
    for (int attempt = 0; attempt < 4 && !std::filesystem::exists(firstPath); ++attempt) {
        Xdotool(display, "key F12");
        AwaitFile(firstPath, 5.0);
    }
    ASSERT_TRUE(std::filesystem::exists(firstPath)) << "F12 wrote no screenshot: " << job.Err();
    EXPECT_EQ(PngSize(firstPath), (std::pair{kWidthPx, kHeightPx}));
    // A retried F12 may have written a second screenshot meanwhile: numbering goes on after it.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    int n = 1;
    while (std::filesystem::exists(ScreenshotPath(out, n))) ++n;

    // Paused, the window shows one frame: two screenshots in a row then match.
    Xdotool(display, "key space");
    std::string paused = Screenshot(display, out, n++), previous;
    for (const int last = n + 7; paused != previous && n < last;) {
        previous = paused;
        paused = Screenshot(display, out, n++);
    }
    ASSERT_TRUE(paused == previous) << "the paused window kept changing";
    Xdotool(display, "key h");
    std::string hidden = Screenshot(display, out, n++);
    Xdotool(display, "key h");
    std::string shown = Screenshot(display, out, n++);
    EXPECT_FALSE(hidden.empty());
    EXPECT_TRUE(hidden != paused) << "H did not hide the HUD";  // (not printing the PNGs)
    EXPECT_TRUE(shown == paused) << "H again did not bring the same HUD back";

    // Held 3 s: the pilot samples the keys once a frame, and a loaded sanitized run draws a frame
    // in up to a second (held 1 s, one run turned 0.10 rad).
    Xdotool(display, "key space keydown Right sleep 3 keyup Right sleep 0.3");
    // A drag 100 px left and 50 px down with the left button held.
    Xdotool(display, "mousemove --window " + window + " 160 90 sleep 0.2 mousedown 1 sleep 0.2 " +
                         "mousemove --window " + window + " 60 140 sleep 0.2 mouseup 1 sleep 0.5");
    Xdotool(display, "key Escape");
    ASSERT_EQ(job.Wait(30.0), 0) << job.Err();
    // (read after the exit: mpiexec forwards the ranks' output in its own time)
    EXPECT_TRUE(Contains(job.Out(), "screenshot " + out + "/screenshot_0000.png")) << job.Out();
    // The window's run is reported as a headless one is.
    std::ifstream reportFile(out + "/report.json");
    ASSERT_TRUE(reportFile.good()) << "no report.json in " << out << ": " << job.Out();
    auto report = nlohmann::json::parse(reportFile, nullptr, false);
    ASSERT_FALSE(report.is_discarded());
    EXPECT_GT(report["fps"]["mean"].get<double>(), 0.0);
    EXPECT_EQ(report["end"], "completed") << report["end"];

    Angles flown = RecordedAngles(record);
    // One pose a frame, the frame that paused included.
    EXPECT_EQ(flown.headingRad.size(), report["frameTimesS"].size());
    ASSERT_GE(flown.headingRad.size(), 3u);
    double turnedRad = *std::max_element(flown.headingRad.begin(), flown.headingRad.end());
    EXPECT_GT(turnedRad - flown.headingRad.front(), 0.3) << "3 s of right arrow at 0.6 rad/s";
    EXPECT_NEAR(turnedRad - flown.headingRad.back(), 100 * display::kMouseLookRadPerPx, 0.01);
    EXPECT_NEAR(flown.pitchRad.front() - flown.pitchRad.back(), 50 * display::kMouseLookRadPerPx,
                0.01);
}

TEST(WindowControls, KeysAndMouseDriveTheSequentialWindowUnderXvfb) {
    FlyTheWindow("", "--sequential");
}

TEST(WindowControls, KeysAndMouseDriveTheDisplayRankUnderXvfb) {
    FlyTheWindow(Quote(BFV_MPIEXEC) + " -n 3 ", "");
}

}  // namespace
}  // namespace bfv::tools
