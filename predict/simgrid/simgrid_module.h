#pragma once

// The SimGrid module, libbfv_simgrid.so (common/module.h): the discrete-event simulation of
// predict/simulate.h, which loads it in the child process each simulation runs in, so that no
// other process loads SimGrid and the libraries it brings.

#include <array>
#include <map>
#include <string>

#include "predict/link_profile.h"
#include "predict/model_cluster.h"
#include "predict/simulate.h"

namespace bfv::predict::sim {

/// The module's file, found by common::ModuleSymbol.
inline constexpr const char* kModuleFile = "libbfv_simgrid.so";

/// The name of the module's one symbol, kBfvSimgridFunctions.
inline constexpr const char* kFunctionsSymbol = "kBfvSimgridFunctions";

/// What a simulation answers: the rate after the warm-up and the simulated time, or what went
/// wrong. Plain bytes, as the child process writes it through a pipe.
struct Answer {
    bool ok = false;
    double fps = 0.0;                // frames per second after the warm-up, simulated time
    double simulatedS = 0.0;         // simulated seconds of the whole run
    std::array<char, 1024> error{};  // why not, when !ok (NUL-terminated)
};

/// The module's functions.
struct Functions {
    /// Plays `options.frames` frames of `costs` out on `machine` (see simulate.h) and answers
    /// in `answer`. SimGrid keeps one simulation per process: call it once, in a child.
    void (*run)(const FrameCosts& costs, const Machine& machine,
                const std::map<std::string, LinkProfile>& links, const SimulationOptions& options,
                Answer& answer);
};

}  // namespace bfv::predict::sim

/// The SimGrid module's functions, defined in the module (predict/simgrid/simgrid_module.cpp).
extern "C" const bfv::predict::sim::Functions kBfvSimgridFunctions;
