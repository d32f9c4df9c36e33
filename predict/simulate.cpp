#include "predict/simulate.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/module.h"
#include "predict/simgrid/simgrid_module.h"

namespace bfv::predict {

namespace {

// In the child: loads the SimGrid module and plays the frames out in it.
sim::Answer RunSimulation(const FrameCosts& costs, const Machine& machine,
                          const std::map<std::string, LinkProfile>& links,
                          const SimulationOptions& options) {
    sim::Answer answer;
    auto symbol =
        common::ModuleSymbol(sim::kModuleFile, sim::kFunctionsSymbol, "SimGrid, to simulate");
    if (!symbol) {
        std::snprintf(answer.error.data(), answer.error.size(), "%s",
                      symbol.error().message.c_str());
        return answer;
    }
    static_cast<const sim::Functions*>(*symbol)->run(costs, machine, links, options, answer);
    return answer;
}

// The busiest resource at `fps` and its share of the time (see SimulatedRun::busiest).
void FindBusiest(const FrameCosts& costs, const Machine& machine, SimulatedRun& out) {
    auto consider = [&](const std::string& name, double fraction) {
        if (fraction > out.busiestFraction) {
            out.busiest = name;
            out.busiestFraction = fraction;
        }
    };
    std::map<std::string, double> channelS;
    std::map<int, double> hostCpuS;
    double remoteBytes = 0.0;
    for (const TracerFrameCost& c : costs.tracers) {
        consider("tracer " + std::to_string(c.rank),
                 (c.tileReceiveS + c.traceS + c.sendCpuS) * out.fps);
        channelS[c.channel] += c.wireBytes / c.receiveLink.alcbwBytesPerS;
        hostCpuS[c.host] += c.tileReceiveCpuS + c.traceCpuS + c.sendCpuS;
        hostCpuS[costs.hostOf.back()] += c.receiveCpuS;
        if (c.displayNic >= 0) remoteBytes += c.wireBytes;
    }
    hostCpuS[costs.hostOf.back()] += costs.displayWorkCpuS;
    hostCpuS[costs.hostOf.front()] += costs.serverCpuS;
    for (const auto& [channel, s] : channelS)
        consider(channel == "intra-host" ? "the intra-host link" : channel, s * out.fps);
    for (const auto& [host, s] : hostCpuS) {
        consider(host == costs.hostOf.back() ? "display host cpu"
                                             : "host " + std::to_string(host) + " cpu",
                 s / CapacityCores(machine.hosts[host]) * out.fps);
    }
    if (machine.switchBytesPerS > 0.0)
        consider("switch", remoteBytes / machine.switchBytesPerS * out.fps);
}

Error SimulationError(int n, const std::string& what) {
    return Error{"simulate: N = " + std::to_string(n) + ": " + what};
}

}  // namespace

Expected<void> ValidateSimulationOptions(const SimulationOptions& options) {
    if (auto ok = common::CheckRange("simulate: frames", options.frames, kSimulatedFramesRange);
        !ok) {
        return ok;
    }
    if (options.warmupFrames < 1 || options.warmupFrames >= options.frames) {
        return Error{"simulate: warm-up frames must be >= 1 and below the " +
                     std::to_string(options.frames) + " frames, got " +
                     std::to_string(options.warmupFrames)};
    }
    return {};
}

Expected<SimulatedRun> SimulateCluster(const MeasuredApp& measured, const Machine& machine,
                                       const std::map<std::string, LinkProfile>& links,
                                       const ClusterRun& run, const SimulationOptions& options) {
    if (auto ok = ValidateSimulationOptions(options); !ok) return ok.error();
    auto costs = ClusterFrameCosts(measured, machine, links, run);
    if (!costs) return costs.error();
    int fds[2];
    if (pipe(fds) != 0) return SimulationError(run.n, "cannot make a pipe");
    auto start = std::chrono::steady_clock::now();
    // The child inherits unwritten stdio buffers: empty them first, or they are written twice.
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return SimulationError(run.n, "cannot fork");
    }
    if (child == 0) {
        close(fds[0]);
        sim::Answer answer = RunSimulation(*costs, machine, links, options);
        ssize_t written = write(fds[1], &answer, sizeof(answer));
        _exit(written == static_cast<ssize_t>(sizeof(answer)) ? 0 : 1);
    }
    close(fds[1]);
    sim::Answer answer;
    std::size_t got = 0;
    while (got < sizeof(answer)) {
        ssize_t r = read(fds[0], reinterpret_cast<char*>(&answer) + got, sizeof(answer) - got);
        if (r <= 0) break;
        got += static_cast<std::size_t>(r);
    }
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (got != sizeof(answer)) {
        return SimulationError(run.n, WIFSIGNALED(status) ? "the simulation died of signal " +
                                                                std::to_string(WTERMSIG(status))
                                                          : "the simulation gave no answer");
    }
    if (!answer.ok) return SimulationError(run.n, answer.error.data());
    SimulatedRun out;
    out.n = run.n;
    out.fps = answer.fps;
    out.simulatedS = answer.simulatedS;
    out.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    FindBusiest(*costs, machine, out);
    return out;
}

}  // namespace bfv::predict
