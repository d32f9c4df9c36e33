#include "terrain/gdal_import.h"

#include <algorithm>
#include <cmath>

#include "common/module.h"
#include "terrain/gdal/gdal_module.h"

namespace bfv::terrain {

namespace {

// The GDAL module's functions, loaded at the first call of any of them.
const Expected<const gdal::Functions*>& Gdal() {
    static const Expected<const gdal::Functions*> functions =
        []() -> Expected<const gdal::Functions*> {
        auto symbol = common::ModuleSymbol(gdal::kModuleFile, gdal::kFunctionsSymbol,
                                           "GDAL, to read rasters and imagery");
        if (!symbol) return symbol.error();
        return static_cast<const gdal::Functions*>(*symbol);
    }();
    return functions;
}

}  // namespace

Expected<Terrain> ImportGdal(const std::string& path, const std::string& variable) {
    const auto& gdal = Gdal();
    if (!gdal) return gdal.error();
    return (*gdal)->importGdal(path, variable);
}

Expected<void> FillNanPosts(std::vector<float>& heightsM, int columns, int rows) {
    // Heights without a hole need no GDAL (an npz grid, say): the module is not loaded for them.
    if (std::none_of(heightsM.begin(), heightsM.end(), [](float h) { return std::isnan(h); }))
        return {};
    const auto& gdal = Gdal();
    if (!gdal) return gdal.error();
    return (*gdal)->fillNanPosts(heightsM, columns, rows);
}

Expected<std::unique_ptr<PostRowSource>> OpenGdalRows(const std::string& path,
                                                      const std::string& variable,
                                                      const GdalRowsOptions& options) {
    const auto& gdal = Gdal();
    if (!gdal) return gdal.error();
    return (*gdal)->openGdalRows(path, variable, options);
}

Expected<std::unique_ptr<Imagery>> OpenGdalImagery(const std::string& path,
                                                   const GeoExtent& demGeo) {
    const auto& gdal = Gdal();
    if (!gdal) return gdal.error();
    return (*gdal)->openGdalImagery(path, demGeo);
}

}  // namespace bfv::terrain
