#pragma once

// Rasters written with GDAL for the importer's tests: a GeoTIFF (or another GDAL format) of
// given values and georeference.

#include <cpl_string.h>
#include <gdal_priv.h>
#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace bfv::test_support {

using GeoTransform = std::array<double, 6>;  // GDAL's affine pixel-to-CRS transform

/// A raster to write: nx * ny values, row 0 first as GDAL stores them, plus georeference.
struct RasterSpec {
    int nx = 0;
    int ny = 0;
    std::vector<double> values;
    std::optional<GeoTransform> geoTransform;
    int epsg = 0;  // 0: no CRS
    std::optional<double> nodata;
    GDALDataType type = GDT_Float32;
    int tileSide = 0;  // GeoTIFF only: square blocks of this side (a multiple of 16); 0: strips
};

/// Writes `spec` as a GeoTIFF at `path` (or in the format of GDAL driver `driver`, with
/// `bands` bands, band b holding the values plus 1000 (b - 1)) and returns the dataset for
/// extra metadata (closed, and so flushed, when the returned pointer dies).
inline GDALDatasetUniquePtr CreateGeoTiff(const std::string& path, const RasterSpec& spec,
                                          const char* driver = "GTiff", int bands = 1) {
    GDALAllRegister();
    GDALDriver* gdal = GetGDALDriverManager()->GetDriverByName(driver);
    CPLStringList options;
    if (spec.tileSide > 0) {
        options.SetNameValue("TILED", "YES");
        options.SetNameValue("BLOCKXSIZE", std::to_string(spec.tileSide).c_str());
        options.SetNameValue("BLOCKYSIZE", std::to_string(spec.tileSide).c_str());
    }
    GDALDatasetUniquePtr ds(
        gdal->Create(path.c_str(), spec.nx, spec.ny, bands, spec.type, options.List()));
    EXPECT_TRUE(ds);
    if (spec.geoTransform) {
        GeoTransform gt = *spec.geoTransform;
        ds->SetGeoTransform(gt.data());
    }
    if (spec.epsg != 0) {
        OGRSpatialReference srs;
        srs.importFromEPSG(spec.epsg);
        ds->SetSpatialRef(&srs);
    }
    for (int b = 1; b <= bands; ++b) {
        GDALRasterBand* band = ds->GetRasterBand(b);
        if (spec.nodata) band->SetNoDataValue(*spec.nodata);
        std::vector<double> values = spec.values;
        for (double& v : values) v += 1000.0 * (b - 1);
        EXPECT_EQ(band->RasterIO(GF_Write, 0, 0, spec.nx, spec.ny, values.data(), spec.nx, spec.ny,
                                 GDT_Float64, 0, 0),
                  CE_None);
    }
    return ds;
}

/// Writes `spec` as a GeoTIFF at `path`.
inline void WriteGeoTiff(const std::string& path, const RasterSpec& spec) {
    CreateGeoTiff(path, spec);
}

/// Writes an image of `bands` bands of `type` at `path` (GeoTIFF, or GDAL driver `driver`),
/// pixel (x, y) (row 0 first) of band b holding colour(x, y)[b - 1] (bands past 3: 255), with
/// the georeference of `spec` (its values, type and nodata are not used).
template <typename ColourFn>
inline void WriteImage(const std::string& path, const RasterSpec& spec, ColourFn colour,
                       int bands = 3, GDALDataType type = GDT_Byte, const char* driver = "GTiff") {
    RasterSpec georeference = spec;
    georeference.type = type;
    georeference.values.assign(std::size_t(spec.nx) * spec.ny, 0.0);
    GDALDatasetUniquePtr ds = CreateGeoTiff(path, georeference, driver, bands);
    for (int b = 1; b <= bands; ++b) {
        std::vector<double> values(std::size_t(spec.nx) * spec.ny, 255.0);
        for (int y = 0; y < spec.ny; ++y) {
            for (int x = 0; x < spec.nx; ++x) {
                if (b <= 3) values[std::size_t(y) * spec.nx + x] = colour(x, y)[b - 1];
            }
        }
        EXPECT_EQ(ds->GetRasterBand(b)->RasterIO(GF_Write, 0, 0, spec.nx, spec.ny, values.data(),
                                                 spec.nx, spec.ny, GDT_Float64, 0, 0),
                  CE_None);
    }
}

}  // namespace bfv::test_support
