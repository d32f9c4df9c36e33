#pragma once

// The bfv subcommands. Each Add*Command registers one subcommand on the root CLI11 app with
// its options and a callback that runs it; a failing command prints one clear message to
// stderr and throws CLI::RuntimeError(exit code), which main turns into the process exit code.

#include <CLI/CLI.hpp>

namespace bfv::tools {

/// `bfv import`: converts a DEM into the project's terrain format.
void AddImportCommand(CLI::App& app);

/// `bfv render`: flies the viewpoint and renders, distributed over MPI ranks or sequential.
void AddRenderCommand(CLI::App& app);

/// `bfv commbench`: measures message costs between MPI ranks and fits the link parameters.
void AddCommbenchCommand(CLI::App& app);

/// `bfv predict`: the analytical schedule predictor: FPS for each N on a described machine.
void AddPredictCommand(CLI::App& app);

}  // namespace bfv::tools
