#pragma once

// Helpers for tests that run the real `bfv` binary (BFV_BINARY) as a child process.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "tests/temp_dir.h"

namespace bfv::test_support {

namespace fs = std::filesystem;

struct RunResult {
    int exitCode = -1;  // the command's exit code; 124 when the timeout killed it
    std::string out;
    std::string err;
};

/// A path in single quotes for the shell (test paths contain no quotes).
inline std::string Quote(const std::string& s) { return "'" + s + "'"; }

inline std::string Slurp(const std::string& path) {
    std::ostringstream s;
    s << std::ifstream(path).rdbuf();
    return s.str();
}

inline bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

/// How many times `part` occurs in `s`.
inline int Occurrences(const std::string& s, const std::string& part) {
    int n = 0;
    for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
    return n;
}

/// Runs a shell command line under `timeout`, capturing stdout and stderr. A command that
/// hangs is killed after `timeoutS` seconds and reports exit code 124.
inline RunResult RunCommand(const std::string& commandLine, int timeoutS = 120) {
    std::string base =
        (fs::temp_directory_path() / ("bfv_run_" + std::to_string(::getpid()))).string();
    std::string command = "timeout -k 5 " + std::to_string(timeoutS) + " " + commandLine + " >" +
                          Quote(base + ".out") + " 2>" + Quote(base + ".err");
    int status = std::system(command.c_str());
    RunResult result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(base + ".out"),
                     Slurp(base + ".err")};
    fs::remove(base + ".out");
    fs::remove(base + ".err");
    return result;
}

/// The shell words that run the project's Python script at `relativePath` (from the source
/// tree's root, e.g. "bench/bfv_bench.py") with Debian's python3.
inline std::string PythonScript(const std::string& relativePath) {
    return "/usr/bin/python3 " + Quote(std::string(BFV_SOURCE_DIR) + "/" + relativePath);
}

/// Runs `bfv <arguments>`.
inline RunResult RunBfv(const std::string& arguments, int timeoutS = 120) {
    return RunCommand(Quote(BFV_BINARY) + " " + arguments, timeoutS);
}

/// Runs `mpiexec -n N bfv <arguments>`.
inline RunResult RunBfvMpi(int nRanks, const std::string& arguments, int timeoutS = 120) {
    return RunCommand(Quote(BFV_MPIEXEC) + " -n " + std::to_string(nRanks) + " " +
                          Quote(BFV_BINARY) + " " + arguments,
                      timeoutS);
}

/// Expects a failed run: non-zero exit (not a timeout), `message` on stderr exactly once,
/// and nothing left at `out`.
inline void ExpectCleanFailure(const RunResult& run, const std::string& message,
                               const std::string& out) {
    EXPECT_NE(run.exitCode, 0);
    EXPECT_NE(run.exitCode, 124) << "timed out: the job hung";
    EXPECT_EQ(Occurrences(run.err, message), 1) << run.err;
    EXPECT_FALSE(fs::exists(out)) << "output left in " << out;
}

/// A command started in the background (sh -c "exec ..."), so that its pid is the command's own.
class Background {
  public:
    Background(const std::string& commandLine, const std::string& outBase) : outBase_(outBase) {
        std::string shell = "exec " + commandLine + " >" + Quote(outBase + ".out") + " 2>" +
                            Quote(outBase + ".err");
        pid_ = ::fork();
        if (pid_ == 0) {
            ::execl("/bin/sh", "sh", "-c", shell.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
    }
    ~Background() {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }

    pid_t Pid() const { return pid_; }
    /// Whether the command was started and Wait has not yet seen it end.
    bool Running() const { return pid_ > 0 && !exited_; }

    /// Waits up to `timeoutS` for the exit; the exit code, or -1 when it did not end in time.
    int Wait(double timeoutS) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                exited_ = true;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }

    std::string Err() const { return Slurp(outBase_ + ".err"); }
    std::string Out() const { return Slurp(outBase_ + ".out"); }

  private:
    std::string outBase_;
    pid_t pid_ = -1;
    bool exited_ = false;
};

/// Waits up to `timeoutS` for `path` to exist.
inline bool AwaitFile(const std::string& path, double timeoutS) {
    for (double waitedS = 0.0; waitedS < timeoutS; waitedS += 0.05) {
        if (fs::exists(path)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

}  // namespace bfv::test_support
