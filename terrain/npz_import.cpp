#include "terrain/npz_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zip.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "common/file_io.h"
#include "terrain/equirectangular.h"

namespace bfv::terrain {
namespace {

// ---------------------------------------------------------------------------------------------
// The .npy header: "\x93NUMPY", major, minor, header length (u16 for 1.x, u32 for 2.x/3.x),
// then a Python dict literal such as {'descr': '<i2', 'fortran_order': False, 'shape': (344,
// 403), } padded with spaces and a newline. Format: numpy/lib/format.py.

using NpyValue = std::variant<std::string, bool, std::vector<std::int64_t>>;
using NpyDict = std::map<std::string, NpyValue>;

/// Parses the subset of Python literals numpy writes in .npy headers: a dict with string keys
/// and values that are strings, True/False or tuples of integers.
class NpyHeaderParser {
  public:
    explicit NpyHeaderParser(std::string_view text) : text_(text) {}

    Expected<NpyDict> Dict() {
        if (!Eat('{')) return Fail("expected '{'");
        NpyDict dict;
        while (!Eat('}')) {
            Expected<std::string> key = String();
            if (!key) return key.error();
            if (!Eat(':')) return Fail("expected ':'");
            Expected<NpyValue> value = Value();
            if (!value) return value.error();
            dict[*key] = std::move(*value);
            if (!Eat(',') && !Eat('}')) return Fail("expected ',' or '}'");
            if (text_[pos_ - 1] == '}') break;
        }
        SkipSpace();
        if (pos_ != text_.size()) return Fail("unexpected text after the dict");
        return dict;
    }

  private:
    void SkipSpace() {
        while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) != nullptr) ++pos_;
    }
    bool Eat(char c) {
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != c) return false;
        ++pos_;
        return true;
    }
    bool EatWord(std::string_view word) {
        SkipSpace();
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }
    Error Fail(const std::string& what) const {
        return Error{fmt::format("bad .npy header: {} at character {} of \"{}\"", what, pos_,
                                 text_.substr(0, text_.find_last_not_of(" \n") + 1))};
    }

    Expected<std::string> String() {
        SkipSpace();
        char quote = pos_ < text_.size() ? text_[pos_] : '\0';
        if (quote != '\'' && quote != '"') return Fail("expected a string");
        std::size_t end = text_.find(quote, pos_ + 1);
        if (end == std::string_view::npos) return Fail("unterminated string");
        std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
        if (s.find('\\') != std::string::npos) return Fail("escapes are not supported");
        pos_ = end + 1;
        return s;
    }

    Expected<NpyValue> Value() {
        if (EatWord("True")) return NpyValue(true);
        if (EatWord("False")) return NpyValue(false);
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == '(') return Tuple();
        Expected<std::string> s = String();
        if (!s) return Fail("expected a string, True, False or a tuple of integers");
        return NpyValue(std::move(*s));
    }

    Expected<NpyValue> Tuple() {
        Eat('(');
        std::vector<std::int64_t> items;
        while (!Eat(')')) {
            Expected<std::int64_t> item = Integer();
            if (!item) return item.error();
            items.push_back(*item);
            if (!Eat(',') && !Eat(')')) return Fail("expected ',' or ')'");
            if (text_[pos_ - 1] == ')') break;
        }
        return NpyValue(std::move(items));
    }

    Expected<std::int64_t> Integer() {
        SkipSpace();
        std::int64_t v = 0;
        std::size_t start = pos_;
        for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; ++pos_) {
            if (v > (std::int64_t{1} << 40)) return Fail("integer too large");
            v = 10 * v + (text_[pos_] - '0');
        }
        if (pos_ == start) return Fail("expected an integer");
        if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long
        return v;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

/// Element types supported in .npy data (little-endian only).
enum class NpyType { Int16, Int32, Float32, Float64 };

struct NpyTypeInfo {
    const char* descr;
    NpyType type;
    std::size_t itemBytes;
};

constexpr NpyTypeInfo npyTypes[] = {{"<i2", NpyType::Int16, 2},
                                    {"<i4", NpyType::Int32, 4},
                                    {"<f4", NpyType::Float32, 4},
                                    {"<f8", NpyType::Float64, 8}};

constexpr std::uint64_t maxElements = std::uint64_t{1} << 34;  // 16 Gi, far above 65536^2 / 4

/// One parsed .npy array; `data` points into the entry's bytes, which must outlive it.
struct NpyArray {
    NpyTypeInfo type;
    std::vector<std::int64_t> shape;  // () for a scalar
    std::span<const std::byte> data;  // C order, shape product * itemBytes
};

std::uint64_t LoadLittleEndian(const std::byte* p, std::size_t nBytes) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < nBytes; ++k) v |= static_cast<std::uint64_t>(p[k]) << (8 * k);
    return v;
}

/// Element k of `array` as a double.
double ElementAt(const NpyArray& array, std::size_t k) {
    std::size_t n = array.type.itemBytes;
    std::uint64_t bits = LoadLittleEndian(array.data.data() + k * n, n);
    switch (array.type.type) {
        case NpyType::Int16:
            return static_cast<std::int16_t>(bits);
        case NpyType::Int32:
            return static_cast<std::int32_t>(bits);
        case NpyType::Float32:
            return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
        case NpyType::Float64:
            return std::bit_cast<double>(bits);
    }
    return 0.0;
}

std::string ShapeText(const std::vector<std::int64_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

/// Splits a .npy image into its header text and data; errors name the problem.
Expected<std::pair<std::string_view, std::span<const std::byte>>> SplitNpy(
    std::span<const std::byte> bytes) {
    constexpr std::string_view npyMagic = "\x93NUMPY";
    if (bytes.size() < 10 || std::memcmp(bytes.data(), npyMagic.data(), npyMagic.size()) != 0) {
        return Error{"not a .npy array (bad magic)"};
    }
    auto major = static_cast<int>(bytes[6]), minor = static_cast<int>(bytes[7]);
    if (major < 1 || major > 3) {
        return Error{fmt::format("unsupported .npy format version {}.{}", major, minor)};
    }
    std::size_t lengthBytes = major == 1 ? 2 : 4;
    std::size_t start = 8 + lengthBytes;
    if (bytes.size() < start) return Error{"truncated .npy header"};
    std::uint64_t end = start + LoadLittleEndian(bytes.data() + 8, lengthBytes);
    if (bytes.size() < end) return Error{"truncated .npy header"};
    std::string_view text(reinterpret_cast<const char*>(bytes.data() + start), end - start);
    return std::pair{text, bytes.subspan(end)};
}

/// Takes 'descr', 'fortran_order' and 'shape' from a header dict into `array`.
Expected<void> ReadHeaderFields(const NpyDict& dict, NpyArray& array) {
    auto descr = dict.find("descr"), fortran = dict.find("fortran_order"),
         shape = dict.find("shape");
    if (descr == dict.end() || fortran == dict.end() || shape == dict.end() ||
        !std::holds_alternative<std::string>(descr->second) ||
        !std::holds_alternative<bool>(fortran->second) ||
        !std::holds_alternative<std::vector<std::int64_t>>(shape->second)) {
        return Error{"bad .npy header: needs 'descr' (string), 'fortran_order' (bool), 'shape'"};
    }
    const auto& name = std::get<std::string>(descr->second);
    const NpyTypeInfo* type = nullptr;
    for (const NpyTypeInfo& t : npyTypes) type = name == t.descr ? &t : type;
    if (type == nullptr) {
        return Error{fmt::format("unsupported dtype '{}' (supported: <i2, <i4, <f4, <f8)", name)};
    }
    if (std::get<bool>(fortran->second)) {
        return Error{"Fortran (column-major) order is not supported; save it in C order"};
    }
    array.type = *type;
    array.shape = std::get<std::vector<std::int64_t>>(shape->second);
    return {};
}

/// Parses a whole .npy image (borrowed; the result points into it).
Expected<NpyArray> ParseNpy(std::span<const std::byte> bytes) {
    auto split = SplitNpy(bytes);
    if (!split) return split.error();
    Expected<NpyDict> dict = NpyHeaderParser(split->first).Dict();
    if (!dict) return dict.error();
    NpyArray array{npyTypes[0], {}, split->second};
    if (Expected<void> fields = ReadHeaderFields(*dict, array); !fields) return fields.error();
    std::uint64_t count = 1;
    for (std::int64_t n : array.shape) {
        if (n != 0 && count > maxElements / static_cast<std::uint64_t>(n)) {
            return Error{fmt::format("array too large: shape {}", ShapeText(array.shape))};
        }
        count *= static_cast<std::uint64_t>(n);
    }
    if (count * array.type.itemBytes != array.data.size()) {
        return Error{fmt::format("data size mismatch: shape {} of {} needs {} bytes, found {}",
                                 ShapeText(array.shape), array.type.descr,
                                 count * array.type.itemBytes, array.data.size())};
    }
    return array;
}

// ---------------------------------------------------------------------------------------------
// The zip archive (libzip), read from memory.

struct ZipDiscard {
    void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct ZipFileClose {
    void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using ZipArchive = std::unique_ptr<zip_t, ZipDiscard>;

/// Opens a zip held in `bytes` (borrowed: they must outlive the archive).
Expected<ZipArchive> OpenZip(std::span<const std::byte> bytes) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    zip_t* archive = source ? zip_open_from_source(source, ZIP_RDONLY, &error) : nullptr;
    if (archive != nullptr) return ZipArchive(archive);
    if (source != nullptr) zip_source_free(source);
    std::string reason =
        zip_error_code_zip(&error) == ZIP_ER_NOZIP
            ? "not a zip archive (an .npz file is a zip of .npy arrays)"
            : std::string("cannot open as a zip archive: ") + zip_error_strerror(&error);
    zip_error_fini(&error);
    return Error{reason};
}

/// Names of the arrays in the archive, for error messages.
std::string ArrayNames(zip_t* archive) {
    std::vector<std::string> names;
    zip_int64_t n = zip_get_num_entries(archive, 0);
    for (zip_int64_t k = 0; k < n; ++k) {
        const char* name = zip_get_name(archive, static_cast<zip_uint64_t>(k), 0);
        if (name != nullptr) names.emplace_back(name);
    }
    for (std::string& name : names) {
        if (name.ends_with(".npy")) name.resize(name.size() - 4);
    }
    return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

/// The uncompressed bytes of entry `index`.
Expected<std::vector<std::byte>> ReadEntry(zip_t* archive, zip_int64_t index) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    auto i = static_cast<zip_uint64_t>(index);
    if (zip_stat_index(archive, i, 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE)) {
        return Error{std::string("cannot read the zip directory: ") + zip_strerror(archive)};
    }
    std::unique_ptr<zip_file_t, ZipFileClose> file(zip_fopen_index(archive, i, 0));
    if (!file) return Error{std::string("cannot open entry: ") + zip_strerror(archive)};
    if (stat.size > maxElements * 8 + 65536) return Error{"entry too large"};
    // The directory's size is only the archive's claim: the buffer grows as the bytes arrive, so
    // a few bytes claiming gigabytes cost what they hold, not what they claim.
    constexpr std::uint64_t chunkBytes = std::uint64_t{1} << 20;
    std::vector<std::byte> bytes;
    while (bytes.size() < stat.size) {
        std::size_t done = bytes.size();
        bytes.resize(done + std::min(chunkBytes, stat.size - done));
        zip_int64_t n = zip_fread(file.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0) return Error{std::string("cannot inflate: ") + zip_file_strerror(file.get())};
        if (n == 0) return Error{"entry is truncated"};
        bytes.resize(done + static_cast<std::size_t>(n));
    }
    return bytes;
}

/// The bytes of array `name` (entry "<name>.npy"), or nullopt when the archive lacks it.
Expected<std::optional<std::vector<std::byte>>> ReadArrayBytes(zip_t* archive,
                                                               const std::string& name) {
    zip_int64_t index = zip_name_locate(archive, (name + ".npy").c_str(), 0);
    if (index < 0) return std::optional<std::vector<std::byte>>();
    auto bytes = ReadEntry(archive, index);
    if (!bytes) return Error{fmt::format("array '{}': {}", name, bytes.error().message)};
    return std::optional(std::move(*bytes));
}

// ---------------------------------------------------------------------------------------------
// From arrays to a Terrain.

/// The elevation grid as stored: rows * columns heights in metres, row-major, row 0 first.
struct Grid {
    int rows = 0;
    int columns = 0;
    std::vector<float> heightsM;
};

/// Scalars locating the grid, degrees; see ImportNpz for the convention.
struct Georef {
    double xmin = 0.0, xmax = 0.0, ymin = 0.0, ymax = 0.0;
    std::optional<double> dx, dy;
};

Expected<Grid> GridFromArray(const NpyArray& array) {
    if (array.shape.size() != 2) {
        return Error{fmt::format("array 'elevation' has shape {}; expected 2-D (rows, columns)",
                                 ShapeText(array.shape))};
    }
    auto bad = [](std::int64_t n) { return n < 1 || n > kMaxPostsPerSide; };
    if (bad(array.shape[0]) || bad(array.shape[1])) {
        return Error{fmt::format("array 'elevation' has shape {}; each side must be 1..{}",
                                 ShapeText(array.shape), kMaxPostsPerSide)};
    }
    Grid grid{static_cast<int>(array.shape[0]), static_cast<int>(array.shape[1]), {}};
    grid.heightsM.resize(static_cast<std::size_t>(grid.rows) * grid.columns);
    for (std::size_t k = 0; k < grid.heightsM.size(); ++k) {
        grid.heightsM[k] = static_cast<float>(ElementAt(array, k));
    }
    if (auto ok = CheckPostHeights(grid.heightsM, grid.columns, NanHeights::Refused); !ok) {
        return Error{"array 'elevation': " + ok.error().message};
    }
    return grid;
}

Expected<Grid> ReadGrid(zip_t* archive) {
    auto bytes = ReadArrayBytes(archive, "elevation");
    if (!bytes) return bytes.error();
    if (!bytes->has_value()) {
        return Error{"no 'elevation' array (arrays present: " + ArrayNames(archive) + ")"};
    }
    Expected<NpyArray> array = ParseNpy(**bytes);
    if (!array) return Error{"array 'elevation': " + array.error().message};
    return GridFromArray(*array);
}

/// Scalar array `name` as a double, or nullopt when absent.
Expected<std::optional<double>> ReadScalar(zip_t* archive, const std::string& name) {
    auto bytes = ReadArrayBytes(archive, name);
    if (!bytes) return bytes.error();
    if (!bytes->has_value()) return std::optional<double>();
    Expected<NpyArray> array = ParseNpy(**bytes);
    if (!array) return Error{fmt::format("array '{}': {}", name, array.error().message)};
    if (array->data.size() != array->type.itemBytes) {
        return Error{fmt::format("array '{}' has shape {}; expected a scalar", name,
                                 ShapeText(array->shape))};
    }
    double v = ElementAt(*array, 0);
    if (!std::isfinite(v)) return Error{fmt::format("'{}' is not finite", name)};
    return std::optional(v);
}

Expected<Georef> ReadGeoref(zip_t* archive) {
    Georef g;
    std::pair<const char*, double*> required[] = {
        {"xmin", &g.xmin}, {"xmax", &g.xmax}, {"ymin", &g.ymin}, {"ymax", &g.ymax}};
    for (auto [name, out] : required) {
        auto v = ReadScalar(archive, name);
        if (!v) return v.error();
        if (!v->has_value()) {
            return Error{
                fmt::format("no georeference: scalar '{}' is missing (needs xmin, xmax, "
                            "ymin, ymax in degrees)",
                            name)};
        }
        *out = **v;
    }
    for (auto [name, out] : {std::pair{"dx", &g.dx}, std::pair{"dy", &g.dy}}) {
        auto v = ReadScalar(archive, name);
        if (!v) return v.error();
        *out = *v;
    }
    return g;
}

/// Outer edges in degrees, checked for sense.
Expected<GeoExtent> ExtentOf(const Georef& g) {
    GeoExtent e{std::min(g.xmin, g.xmax), std::max(g.xmin, g.xmax), std::min(g.ymin, g.ymax),
                std::max(g.ymin, g.ymax)};
    if (e.lonMinDeg == e.lonMaxDeg || e.latMinDeg == e.latMaxDeg) {
        return Error{"empty extent: xmin == xmax or ymin == ymax"};
    }
    if (e.latMinDeg < -90.0 || e.latMaxDeg > 90.0) {
        return Error{
            fmt::format("latitudes {}..{} are outside -90..90 degrees", e.latMinDeg, e.latMaxDeg)};
    }
    return e;
}

/// Post spacing in degrees: dx, dy when given, else extent / shape.
Expected<std::pair<double, double>> SpacingDeg(const Georef& g, const GeoExtent& e,
                                               const Grid& grid) {
    double dxDeg = g.dx ? std::abs(*g.dx) : (e.lonMaxDeg - e.lonMinDeg) / grid.columns;
    double dyDeg = g.dy ? std::abs(*g.dy) : (e.latMaxDeg - e.latMinDeg) / grid.rows;
    if (dxDeg == 0.0 || dyDeg == 0.0) return Error{"post spacing dx or dy is zero"};
    return std::pair{dxDeg, dyDeg};
}

/// Reorders the stored grid into Terrain's order (j south to north, i west to east).
std::vector<float> ToTerrainOrder(const Grid& grid, const Georef& g) {
    bool flipRows = g.ymin > g.ymax;     // row 0 is the north edge
    bool flipColumns = g.xmin > g.xmax;  // column 0 is the east edge
    std::vector<float> heightsM(grid.heightsM.size());
    for (int r = 0; r < grid.rows; ++r) {
        int j = flipRows ? grid.rows - 1 - r : r;
        for (int c = 0; c < grid.columns; ++c) {
            int i = flipColumns ? grid.columns - 1 - c : c;
            heightsM[std::size_t(j) * grid.columns + i] =
                grid.heightsM[std::size_t(r) * grid.columns + c];
        }
    }
    return heightsM;
}

Expected<Terrain> BuildTerrain(const std::string& path, const Grid& grid, const Georef& g) {
    Expected<GeoExtent> extent = ExtentOf(g);
    if (!extent) return extent.error();
    auto spacing = SpacingDeg(g, *extent, grid);
    if (!spacing) return spacing.error();
    SpacingM spacingM = EquirectangularSpacingM(spacing->first, spacing->second,
                                                0.5 * (extent->latMinDeg + extent->latMaxDeg));
    Terrain t;
    t.name = std::filesystem::path(path).stem().string();
    t.nx = grid.columns;
    t.ny = grid.rows;
    t.spacingXM = spacingM.xM;
    t.spacingYM = spacingM.yM;
    t.geo = *extent;
    t.heightsM = ToTerrainOrder(grid, g);
    return t;
}

Expected<Terrain> ImportFromArchive(const std::string& path, zip_t* archive) {
    Expected<Grid> grid = ReadGrid(archive);
    if (!grid) return grid.error();
    Expected<Georef> georef = ReadGeoref(archive);
    if (!georef) return georef.error();
    return BuildTerrain(path, *grid, *georef);
}

}  // namespace

Expected<Terrain> ImportNpz(const std::string& path) {
    auto fail = [&](const Error& e) { return Error{"npz '" + path + "': " + e.message}; };
    Expected<std::vector<std::byte>> bytes = common::ReadFileBytes(path);
    if (!bytes) return fail(bytes.error());
    Expected<ZipArchive> archive = OpenZip(*bytes);
    if (!archive) return fail(archive.error());
    Expected<Terrain> terrain = ImportFromArchive(path, archive->get());
    if (!terrain) return fail(terrain.error());
    return terrain;
}

}  // namespace bfv::terrain
