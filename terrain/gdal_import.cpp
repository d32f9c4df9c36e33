#include "terrain/gdal_import.h"

#include <algorithm>
#include <cmath>
#include <utility>

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

// The GDAL module's function `function` called with `args`, or the error of loading the module.
template <class Result, class... Params, class... Args>
Result CallGdal(Result (*const gdal::Functions::*function)(Params...), Args&&... args) {
    const auto& gdal = Gdal();
    if (!gdal) return gdal.error();
    return ((*gdal)->*function)(std::forward<Args>(args)...);
}

}  // namespace

Expected<Terrain> ImportGdal(const std::string& path, const std::string& variable) {
    return CallGdal(&gdal::Functions::importGdal, path, variable);
}

Expected<void> FillNanPosts(std::vector<float>& heightsM, int columns, int rows) {
    // Heights without a hole need no GDAL (an npz grid, say): the module is not loaded for them.
    if (std::none_of(heightsM.begin(), heightsM.end(), [](float h) { return std::isnan(h); }))
        return {};
    return CallGdal(&gdal::Functions::fillNanPosts, heightsM, columns, rows);
}

Expected<std::unique_ptr<PostRowSource>> OpenGdalRows(const std::string& path,
                                                      const std::string& variable,
                                                      const GdalRowsOptions& options) {
    return CallGdal(&gdal::Functions::openGdalRows, path, variable, options);
}

Expected<std::unique_ptr<Imagery>> OpenGdalImagery(const std::string& path,
                                                   const GeoExtent& demGeo) {
    return CallGdal(&gdal::Functions::openGdalImagery, path, demGeo);
}

}  // namespace bfv::terrain
