#pragma once

// Modules: the parts of bfv that need a large library are shared objects loaded when first
// used, so that every other process (each rank of a render, every command) starts without
// them. GDAL (`bfv import` of rasters and imagery) and SimGrid (`bfv predict --simulate`)
// bring about 120 libraries that cost every process 0.1 s of CPU at start-up on the
// development machine (0.12 s for `bfv --help` with them, 0.01 s without).

#include <string>
#include <vector>

#include "common/expected.h"

namespace bfv::common {

/// The directories a module is looked for in, in order: the running program's own directory
/// (/proc/self/exe), then the build's, where CMake writes the modules beside the bfv program
/// (BFV_MODULE_DIR, compiled in), when it differs.
std::vector<std::string> ModuleDirs();

/// Loads the module `fileName` (e.g. "libbfv_gdal.so", built beside the bfv program) from the
/// first of ModuleDirs() that holds it, or finds it already loaded, and returns the address of
/// its symbol `symbol` (an `extern "C"` name). The module stays loaded until the process
/// ends. `purpose` says what needs it, for the error: "cannot load libbfv_gdal.so (GDAL, to
/// read rasters): /a/libbfv_gdal.so: <the loader's message>; /b/libbfv_gdal.so: ...; rebuild
/// bfv (tools/build.sh)", or "libbfv_gdal.so (GDAL, to read rasters) has no symbol 'NAME'".
Expected<void*> ModuleSymbol(const std::string& fileName, const char* symbol,
                             const std::string& purpose);

}  // namespace bfv::common
