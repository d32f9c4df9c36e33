#pragma once

#include "common/mpi_group.h"
#include "common/render_options.h"
#include "raytracer/ray_caster.h"

namespace bfv::raytracer {

/// Cast settings from the shading options (haze, level-of-detail bias, anisotropy, secant).
CastSettings CastSettingsFrom(const common::ShadingOptions& shading);

/// A ray tracer's start-up terrain for the shading options: the pinned tiles, raised to the
/// water level, lit by the options' sun, with cast shadows unless --no-shadows, snow above the
/// snow line (--snow-line, or DefaultSnowLineM of the terrain's mid latitude, 45 degrees if it
/// has no georeference; times --exaggeration) unless --no-snow (PinnedCache).
TileCache StartupCache(const terrain::TerrainStartup& startup,
                       const common::ShadingOptions& shading);

/// A ray tracer rank's whole life in `bfv render`: receives the terrain, builds its pyramid,
/// then for every frame command from the display ray-casts its columns and sends them in
/// messages of options.pipeline.columnsPerMessage columns without blocking (two frames of buffers,
/// so the send of frame f overlaps the trace of frame f+1). Returns the process exit code.
int RunRayTracer(const common::Group& group, const common::RenderOptions& options);

}  // namespace bfv::raytracer
