#pragma once

// Helpers for tests that run the real `bfv` binary (BFV_BINARY) as a child process.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace bfv::test_support
