#pragma once

// The GDAL module, libbfv_gdal.so (common/module.h): the importers of terrain/gdal_import.h,
// which load it at their first call, so that no other process loads GDAL and the hundred
// libraries it brings.

#include <memory>
#include <string>
#include <vector>

#include "common/expected.h"
#include "terrain/drape.h"
#include "terrain/gdal_import.h"
#include "terrain/pyramid_builder.h"
#include "terrain/terrain.h"

namespace bfv::terrain::gdal {

/// The module's file, found by common::ModuleSymbol.
inline constexpr const char* kModuleFile = "libbfv_gdal.so";

/// The name of the module's one symbol, kBfvGdalFunctions.
inline constexpr const char* kFunctionsSymbol = "kBfvGdalFunctions";

/// The module's functions: the ones of terrain/gdal_import.h, with the same arguments,
/// results and errors.
struct Functions {
    Expected<Terrain> (*importGdal)(const std::string& path, const std::string& variable);
    Expected<void> (*fillNanPosts)(std::vector<float>& heightsM, int columns, int rows);
    Expected<std::unique_ptr<PostRowSource>> (*openGdalRows)(const std::string& path,
                                                             const std::string& variable,
                                                             const GdalRowsOptions& options);
    Expected<std::unique_ptr<Imagery>> (*openGdalImagery)(const std::string& path,
                                                          const GeoExtent& demGeo);
};

}  // namespace bfv::terrain::gdal

/// The GDAL module's functions, defined in the module (terrain/gdal/gdal_module.cpp).
extern "C" const bfv::terrain::gdal::Functions kBfvGdalFunctions;
