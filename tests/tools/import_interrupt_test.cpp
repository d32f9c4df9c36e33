// `bfv import` is all or nothing: SIGINT or SIGTERM at any stage (checking the heights, filling
// the nodata posts, building the levels, even in their last 20%) leaves the old output as it
// was and no temporary file; SIGKILL leaves at most the fill's folder of GDAL's work files,
// which the next import removes and names. The import runs on a pseudo-terminal, so that it
// prints its progress, and the signal goes when the progress reaches a stage and percent.

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::Contains;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunResult;
using test_support::TempDir;

/// `bfv ARGUMENTS` run on a pseudo-terminal (forkpty), its output read as it comes.
class TerminalRun {
  public:
    explicit TerminalRun(const std::vector<std::string>& arguments) {
        pid_ = ::forkpty(&terminal_, nullptr, nullptr, nullptr);
        if (pid_ == 0) {
            std::vector<char*> argv{const_cast<char*>(BFV_BINARY)};
            for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
            argv.push_back(nullptr);
            ::execv(BFV_BINARY, argv.data());
            ::_exit(127);
        }
    }
    ~TerminalRun() {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        if (terminal_ >= 0) ::close(terminal_);
    }
    TerminalRun(const TerminalRun&) = delete;
    TerminalRun& operator=(const TerminalRun&) = delete;

    pid_t Pid() const { return pid_; }
    const std::string& Output() const { return output_; }

    /// Reads the output until the progress line "STAGE NN%" shows NN >= `percent`; false when
    /// the output ends or `timeoutS` passes first.
    bool AwaitProgress(const std::string& stage, int percent, double timeoutS = 60) {
        std::regex line(stage + R"(\s+(\d+)%)");
        auto deadline = Deadline(timeoutS);
        while (std::chrono::steady_clock::now() < deadline) {
            for (auto it = std::sregex_iterator(output_.begin(), output_.end(), line);
                 it != std::sregex_iterator(); ++it) {
                if (std::stoi((*it)[1].str()) >= percent) return true;
            }
            if (!ReadSome(deadline)) return false;
        }
        return false;
    }

    /// Reads the output to its end and waits for the exit; the exit code (128 + the signal of
    /// one that killed it), or -1 when `timeoutS` passes first.
    int Wait(double timeoutS = 60) {
        auto deadline = Deadline(timeoutS);
        while (ReadSome(deadline)) {
        }
        int status = 0;
        while (std::chrono::steady_clock::now() < deadline) {
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            ::usleep(10'000);
        }
        return -1;
    }

  private:
    static std::chrono::steady_clock::time_point Deadline(double timeoutS) {
        return std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(timeoutS));
    }

    /// Appends what the terminal has within the deadline; false at its end (the child closed
    /// it) or at the deadline.
    bool ReadSome(std::chrono::steady_clock::time_point deadline) {
        pollfd ready{terminal_, POLLIN, 0};
        while (std::chrono::steady_clock::now() < deadline) {
            if (::poll(&ready, 1, 20) <= 0) continue;
            char bytes[4096];
            ssize_t n = ::read(terminal_, bytes, sizeof bytes);
            if (n <= 0) return false;  // EIO once the child has closed the terminal
            output_.append(bytes, static_cast<std::size_t>(n));
            return true;
        }
        return false;
    }

    int terminal_ = -1;
    pid_t pid_ = -1;
    bool exited_ = false;
    std::string output_;
};

/// Writes an ESRI float grid (`path`.flt and its .hdr) of `side` x `side` posts 30 m apart,
/// gentle hills with a 1-in-7 checkerboard of 100-post nodata squares, so that the import
/// checks, fills and builds, each for a moment.
std::string WriteDemWithNodata(const std::string& path, int side) {
    std::ofstream(path + ".hdr") << "ncols " << side << "\nnrows " << side
                                 << "\nxllcorner 0\nyllcorner 0\ncellsize 30\n"
                                    "NODATA_value -9999\nbyteorder LSBFIRST\n";
    std::vector<float> row(static_cast<std::size_t>(side));
    std::ofstream flt(path + ".flt", std::ios::binary);
    for (int j = 0; j < side; ++j) {
        for (int i = 0; i < side; ++i) {
            bool hole = (i / 100 + j / 100) % 7 == 0;
            row[static_cast<std::size_t>(i)] =
                hole ? -9999.0f
                     : static_cast<float>(200 + 100 * std::sin(i * 0.01) * std::cos(j * 0.013));
        }
        flt.write(reinterpret_cast<const char*>(row.data()),
                  static_cast<std::streamsize>(row.size() * sizeof(float)));
    }
    return path + ".flt";
}

/// The names in `dir`, sorted.
std::vector<std::string> Entries(const TempDir& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir.File(""))) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

class ImportInterrupt : public testing::Test {
  protected:
    static constexpr int kSide = 1500;  // posts: about 2 s of import on one core

    void SetUp() override {
        input_ = WriteDemWithNodata(dir_.File("dem"), kSide);
        std::ofstream(output_) << "old";
    }

    /// The folder's names besides the output: the input and its header only.
    std::vector<std::string> Others() const {
        std::vector<std::string> names = Entries(dir_);
        std::erase(names, "out.bfvp");
        return names;
    }

    TempDir dir_;
    std::string input_;
    std::string output_ = dir_.File("out.bfvp");
};

// SIGINT or SIGTERM while the heights are checked, the nodata posts filled, or the levels
// built (at half, and at 84%, where the old import no longer looked): exit 128 + the signal,
// one message, the old output as it was, no temporary file.
TEST_F(ImportInterrupt, ASignalAtAnyStageKeepsTheOldOutputAndLeavesNoTemporaryFile) {
    struct Case {
        const char* stage;
        int percent;
        int signal;
    };
    for (Case c : {Case{"checking heights", 50, SIGINT}, Case{"filling nodata", 50, SIGTERM},
                   Case{"building levels", 50, SIGINT}, Case{"building levels", 84, SIGTERM}}) {
        SCOPED_TRACE(std::string(c.stage) + " " + std::to_string(c.percent) + "%");
        TerminalRun run({"import", "--force", input_, output_});
        ASSERT_TRUE(run.AwaitProgress(c.stage, c.percent)) << run.Output();
        ASSERT_EQ(::kill(run.Pid(), c.signal), 0);
        EXPECT_EQ(run.Wait(), 128 + c.signal) << run.Output();
        std::string name = c.signal == SIGINT ? "SIGINT" : "SIGTERM";
        EXPECT_EQ(test_support::Occurrences(run.Output(), "bfv import: interrupted by " + name +
                                                              "; nothing written, the old '" +
                                                              output_ + "' is kept as it was"),
                  1)
            << run.Output();
        EXPECT_EQ(test_support::Slurp(output_), "old");
        EXPECT_EQ(Others(), (std::vector<std::string>{"dem.flt", "dem.hdr"}));
    }
}

// Without an old output, an interrupted import leaves no file at all.
TEST_F(ImportInterrupt, AnInterruptedImportWithoutAnOldOutputLeavesNone) {
    fs::remove(output_);
    TerminalRun run({"import", input_, output_});
    ASSERT_TRUE(run.AwaitProgress("building levels", 50)) << run.Output();
    ASSERT_EQ(::kill(run.Pid(), SIGINT), 0);
    EXPECT_EQ(run.Wait(), 130) << run.Output();
    EXPECT_TRUE(Contains(run.Output(), "bfv import: interrupted by SIGINT; nothing written\r\n"))
        << run.Output();
    EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"dem.flt", "dem.hdr"}));
}

// SIGKILL while the levels are built leaves nothing (the output being written has no name);
// while the nodata posts are filled, only the fill's folder of GDAL's work files, which the
// next import removes, saying so, before it imports.
TEST_F(ImportInterrupt, AKilledImportLeavesAtMostTheFillFolderWhichTheNextRemoves) {
    {
        TerminalRun run({"import", "--force", input_, output_});
        ASSERT_TRUE(run.AwaitProgress("building levels", 50)) << run.Output();
        ASSERT_EQ(::kill(run.Pid(), SIGKILL), 0);
        EXPECT_EQ(run.Wait(), 128 + SIGKILL);
        EXPECT_EQ(test_support::Slurp(output_), "old");
        EXPECT_EQ(Others(), (std::vector<std::string>{"dem.flt", "dem.hdr"}));
    }
    TerminalRun run({"import", "--force", input_, output_});
    ASSERT_TRUE(run.AwaitProgress("filling nodata", 30)) << run.Output();
    ASSERT_EQ(::kill(run.Pid(), SIGKILL), 0);
    EXPECT_EQ(run.Wait(), 128 + SIGKILL);
    std::string folder = ".bfv-fill." + std::to_string(run.Pid());
    EXPECT_EQ(Others(), (std::vector<std::string>{folder, "dem.flt", "dem.hdr"}));
    EXPECT_EQ(test_support::Slurp(output_), "old");

    RunResult next = RunBfv("import --force " + Quote(input_) + " " + Quote(output_));
    ASSERT_EQ(next.exitCode, 0) << next.err;
    EXPECT_TRUE(Contains(next.err, "bfv import: removed '" + dir_.File(folder) + "', "))
        << next.err;
    EXPECT_TRUE(Contains(
        next.err, "left by an import (process " + std::to_string(run.Pid()) + ") that was killed"))
        << next.err;
    EXPECT_EQ(Others(), (std::vector<std::string>{"dem.flt", "dem.hdr"}));
}

}  // namespace
}  // namespace bfv::tools
