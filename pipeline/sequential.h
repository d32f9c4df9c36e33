#pragma once

#include "common/render_options.h"

namespace bfv::pipeline {

/// `bfv render --sequential`: the three calculations in one process (the single-machine
/// program): read the terrain, ray-cast every column on options.pipeline.threads threads, present.
/// Produces the same frames, bit for bit, as the distributed run. Returns the exit code.
int RunSequential(const common::RenderOptions& options);

}  // namespace bfv::pipeline
