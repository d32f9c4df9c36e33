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
#include <numbers>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "common/file_io.h"
#include "common/ranges.h"
#include "terrain/equirectangular.h"
#include "terrain/gdal_import.h"

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

/// Parses the header of a .npy image (borrowed): `data` is all that follows the header,
/// unchecked against the shape.
Expected<NpyArray> ParseNpyHeader(std::span<const std::byte> bytes) {
    auto split = SplitNpy(bytes);
    if (!split) return split.error();
    Expected<NpyDict> dict = NpyHeaderParser(split->first).Dict();
    if (!dict) return dict.error();
    NpyArray array{npyTypes[0], {}, split->second};
    if (Expected<void> fields = ReadHeaderFields(*dict, array); !fields) return fields.error();
    return array;
}

/// Parses a whole .npy image (borrowed; the result points into it).
Expected<NpyArray> ParseNpy(std::span<const std::byte> bytes) {
    Expected<NpyArray> array = ParseNpyHeader(bytes);
    if (!array) return array.error();
    std::uint64_t count = 1;
    for (std::int64_t n : array->shape) {
        if (n != 0 && count > maxElements / static_cast<std::uint64_t>(n)) {
            return Error{fmt::format("array too large: shape {}", ShapeText(array->shape))};
        }
        count *= static_cast<std::uint64_t>(n);
    }
    if (count * array->type.itemBytes != array->data.size()) {
        return Error{fmt::format("data size mismatch: shape {} of {} needs {} bytes, found {}",
                                 ShapeText(array->shape), array->type.descr,
                                 count * array->type.itemBytes, array->data.size())};
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

/// Names of the arrays in the archive (entry names without ".npy"), in archive order.
std::vector<std::string> ArrayNameList(zip_t* archive) {
    std::vector<std::string> names;
    zip_int64_t n = zip_get_num_entries(archive, 0);
    for (zip_int64_t k = 0; k < n; ++k) {
        const char* name = zip_get_name(archive, static_cast<zip_uint64_t>(k), 0);
        if (name != nullptr) names.emplace_back(name);
    }
    for (std::string& name : names) {
        if (name.ends_with(".npy")) name.resize(name.size() - 4);
    }
    return names;
}

/// Names of the arrays in the archive, for error messages.
std::string ArrayNames(zip_t* archive) {
    std::vector<std::string> names = ArrayNameList(archive);
    return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

/// The uncompressed bytes of entry `index`, the first `maxBytes` of them at most.
Expected<std::vector<std::byte>> ReadEntry(zip_t* archive, zip_int64_t index,
                                           std::uint64_t maxBytes = UINT64_MAX) {
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
    std::uint64_t wantBytes = std::min<std::uint64_t>(stat.size, maxBytes);
    std::vector<std::byte> bytes;
    while (bytes.size() < wantBytes) {
        std::size_t done = bytes.size();
        bytes.resize(done + std::min(chunkBytes, wantBytes - done));
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
// Choosing the elevation array.

bool HasArray(zip_t* archive, const std::string& name) {
    return zip_name_locate(archive, (name + ".npy").c_str(), 0) >= 0;
}

/// Whether array `name` is 2-D of a supported dtype, judged from its header alone.
bool IsGridArray(zip_t* archive, const std::string& name) {
    zip_int64_t index = zip_name_locate(archive, (name + ".npy").c_str(), 0);
    if (index < 0) return false;
    constexpr std::uint64_t headerBytes = 65536;  // numpy writes headers of a few hundred bytes
    auto bytes = ReadEntry(archive, index, headerBytes);
    if (!bytes) return false;
    Expected<NpyArray> array = ParseNpyHeader(*bytes);
    return array && array->shape.size() == 2;
}

/// The name of the elevation array: `requested` if given, else see ImportNpz.
Expected<std::string> ChooseElevationArray(zip_t* archive, const std::string& requested) {
    if (!requested.empty()) {
        std::string name =
            requested.ends_with(".npy") ? requested.substr(0, requested.size() - 4) : requested;
        if (HasArray(archive, name)) return name;
        return Error{
            fmt::format("no array '{}' (arrays present: {})", requested, ArrayNames(archive))};
    }
    for (const char* name : kElevationArrayNames) {
        if (HasArray(archive, name)) return std::string(name);
    }
    std::vector<std::string> grids;
    for (const std::string& name : ArrayNameList(archive)) {
        if (IsGridArray(archive, name)) grids.push_back(name);
    }
    if (grids.size() == 1) return grids.front();
    return Error{fmt::format(
        "no elevation array: none is named {} and {} (arrays present: {}); name it with "
        "--array NAME",
        fmt::join(kElevationArrayNames, ", "),
        grids.empty() ? "none is 2-D" : fmt::format("{} are 2-D", grids.size()),
        ArrayNames(archive))};
}

// ---------------------------------------------------------------------------------------------
// From arrays to a Terrain.

/// The elevation grid as stored: rows * columns heights in metres, row-major, row 0 first.
struct Grid {
    std::string name;  // the array's, for messages
    int rows = 0;
    int columns = 0;
    std::vector<float> heightsM;
};

/// Where the grid lies, degrees; see ImportNpz for the convention.
struct Georef {
    double xmin = 0.0, xmax = 0.0, ymin = 0.0, ymax = 0.0;
    std::optional<double> dx, dy;
};

Expected<Grid> GridFromArray(const NpyArray& array, const std::string& name) {
    if (array.shape.size() != 2) {
        return Error{fmt::format("array '{}' has shape {}; expected 2-D (rows, columns)", name,
                                 ShapeText(array.shape))};
    }
    auto bad = [](std::int64_t n) { return n < 1 || n > kMaxPostsPerSide; };
    if (bad(array.shape[0]) || bad(array.shape[1])) {
        return Error{fmt::format("array '{}' has shape {}; each side must be 1..{}", name,
                                 ShapeText(array.shape), kMaxPostsPerSide)};
    }
    Grid grid{name, static_cast<int>(array.shape[0]), static_cast<int>(array.shape[1]), {}};
    grid.heightsM.resize(static_cast<std::size_t>(grid.rows) * grid.columns);
    for (std::size_t k = 0; k < grid.heightsM.size(); ++k) {
        grid.heightsM[k] = static_cast<float>(ElementAt(array, k));
    }
    if (auto ok = CheckPostHeights(grid.heightsM, grid.columns, NanHeights::Nodata); !ok) {
        return Error{fmt::format("array '{}': {}", name, ok.error().message)};
    }
    // NaN marks nodata in numpy's DEMs (masked arrays filled with NaN): filled as GIS rasters'.
    if (auto ok = FillNanPosts(grid.heightsM, grid.columns, grid.rows); !ok) {
        return Error{fmt::format("array '{}': {}", name, ok.error().message)};
    }
    return grid;
}

/// Array `name` parsed, or an error naming it; nullopt when the archive lacks it. `keep` holds
/// the bytes the array points into.
Expected<std::optional<NpyArray>> ReadArray(zip_t* archive, const std::string& name,
                                            std::vector<std::byte>& keep) {
    auto bytes = ReadArrayBytes(archive, name);
    if (!bytes) return bytes.error();
    if (!bytes->has_value()) return std::optional<NpyArray>();
    keep = std::move(**bytes);
    Expected<NpyArray> array = ParseNpy(keep);
    if (!array) return Error{fmt::format("array '{}': {}", name, array.error().message)};
    return std::optional(*array);
}

Expected<Grid> ReadGrid(zip_t* archive, const std::string& name) {
    std::vector<std::byte> bytes;
    auto array = ReadArray(archive, name, bytes);
    if (!array) return array.error();
    if (!array->has_value()) return Error{fmt::format("no array '{}'", name)};
    return GridFromArray(**array, name);
}

/// Scalar array `name` as a double, or nullopt when absent.
Expected<std::optional<double>> ReadScalar(zip_t* archive, const std::string& name) {
    std::vector<std::byte> bytes;
    auto array = ReadArray(archive, name, bytes);
    if (!array) return array.error();
    if (!array->has_value()) return std::optional<double>();
    if ((*array)->data.size() != (*array)->type.itemBytes) {
        return Error{fmt::format("array '{}' has shape {}; expected a scalar", name,
                                 ShapeText((*array)->shape))};
    }
    double v = ElementAt(**array, 0);
    if (!std::isfinite(v)) return Error{fmt::format("'{}' is not finite", name)};
    return std::optional(v);
}

/// The scalars xmin, xmax, ymin, ymax (dx, dy), or nullopt when the archive has none of the
/// four; an error when it has some but not all.
Expected<std::optional<Georef>> ReadScalarGeoref(zip_t* archive) {
    if (!HasArray(archive, "xmin") && !HasArray(archive, "xmax") && !HasArray(archive, "ymin") &&
        !HasArray(archive, "ymax")) {
        return std::optional<Georef>();
    }
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
    return std::optional(g);
}

/// Pairs of 1-D coordinate arrays (longitude, latitude), in the order they are looked for.
constexpr std::pair<const char*, const char*> coordinateArrays[] = {
    {"longitude", "latitude"}, {"lon", "lat"}, {"x", "y"}};

/// How far a coordinate may lie from even spacing, in steps: 1% of a post, invisible, yet far
/// below any real unevenness. float32 coordinates drift more than their rounding:
/// topobathy.npz's longitudes lie up to 0.003 steps off.
constexpr double evenSpacingTolerance = 0.01;

/// The values of 1-D coordinate array `name`, one a post along the grid's columns (`columns`)
/// or rows, in degrees: finite, at least 2, strictly monotonic.
Expected<std::vector<double>> ReadCoordinates(zip_t* archive, const std::string& name,
                                              const Grid& grid, bool columns) {
    std::vector<std::byte> bytes;
    auto array = ReadArray(archive, name, bytes);
    if (!array) return array.error();
    if (!array->has_value()) return Error{fmt::format("no array '{}'", name)};
    const NpyArray& a = **array;
    int count = columns ? grid.columns : grid.rows;
    if (a.shape.size() != 1 || a.shape[0] != count) {
        return Error{fmt::format(
            "coordinate array '{}' has shape {}; expected ({},), one value for each of the {} {} "
            "of '{}'",
            name, ShapeText(a.shape), count, count, columns ? "columns" : "rows", grid.name)};
    }
    if (count < 2) {
        return Error{fmt::format("coordinate array '{}' has 1 value; a spacing needs 2", name)};
    }
    std::vector<double> values(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < values.size(); ++k) {
        values[k] = ElementAt(a, k);
        if (!std::isfinite(values[k])) {
            return Error{fmt::format("coordinate array '{}': value {} is {}", name, k, values[k])};
        }
    }
    bool increasing = values[1] > values[0];
    for (std::size_t k = 1; k < values.size(); ++k) {
        if (increasing ? !(values[k] > values[k - 1]) : !(values[k] < values[k - 1])) {
            return Error{
                fmt::format("coordinate array '{}' is not monotonic: value {} is {} after {}", name,
                            k, values[k], values[k - 1])};
        }
    }
    return values;
}

/// The value of `v` (monotonic, 2 or more) farthest from even spacing between the first and
/// the last: its index and its distance from its even place, in steps.
std::pair<std::size_t, double> Unevenness(const std::vector<double>& v) {
    double step = (v.back() - v.front()) / static_cast<double>(v.size() - 1);
    std::pair<std::size_t, double> worst{0, 0.0};
    for (std::size_t k = 0; k < v.size(); ++k) {
        double off = std::abs(v[k] - v.front() - static_cast<double>(k) * step) / std::abs(step);
        if (!(off <= worst.second)) worst = {k, off};
    }
    return worst;
}

/// Mercator's y of a latitude in degrees (dimensionless): ln tan(45 deg + lat / 2).
double MercatorY(double latDeg) {
    return std::log(std::tan(std::numbers::pi / 4 + latDeg * std::numbers::pi / 360));
}

/// Resamples the grid's rows, which lie at latitudes `lats` (monotonic), onto as many rows
/// evenly spaced from the first latitude to the last, each interpolated linearly between the two
/// source rows around it; `lats` becomes those even latitudes.
void ResampleToEvenRows(Grid& grid, std::vector<double>& lats) {
    std::size_t n = lats.size(), columns = static_cast<std::size_t>(grid.columns);
    double step = (lats.back() - lats.front()) / static_cast<double>(n - 1);
    std::vector<double> even(n);
    std::vector<float> heightsM(grid.heightsM.size());
    std::size_t k = 0;  // source rows k and k + 1 lie around the target
    for (std::size_t r = 0; r < n; ++r) {
        even[r] = r + 1 == n ? lats.back() : lats.front() + static_cast<double>(r) * step;
        while (k + 2 < n && (lats[k + 1] - even[r]) * step <= 0.0) ++k;
        double t = std::clamp((even[r] - lats[k]) / (lats[k + 1] - lats[k]), 0.0, 1.0);
        for (std::size_t c = 0; c < columns; ++c) {
            heightsM[r * columns + c] =
                static_cast<float>((1.0 - t) * grid.heightsM[k * columns + c] +
                                   t * grid.heightsM[(k + 1) * columns + c]);
        }
    }
    grid.heightsM = std::move(heightsM);
    lats = std::move(even);
}

/// Checks that coordinates `v` of array `name` are evenly spaced. Latitudes (`latitude`) evenly
/// spaced in Mercator y instead are accepted too: the grid's rows are resampled to even
/// latitudes.
Expected<void> MakeEven(std::vector<double>& v, const std::string& name, bool latitude,
                        Grid& grid) {
    auto [k, off] = Unevenness(v);
    if (off <= evenSpacingTolerance) return {};
    if (latitude && std::all_of(v.begin(), v.end(), [](double d) { return std::abs(d) < 90; })) {
        std::vector<double> y(v.size());
        std::transform(v.begin(), v.end(), y.begin(), MercatorY);
        if (Unevenness(y).second <= evenSpacingTolerance) {
            ResampleToEvenRows(grid, v);
            return {};
        }
    }
    return Error{fmt::format(
        "coordinate array '{}' is not evenly spaced{}: value {} ({}) lies {:.3g} steps from its "
        "even place between the first and the last (at most {:g})",
        name, latitude ? " in degrees nor in Mercator y" : "", k, v[k], off, evenSpacingTolerance)};
}

/// The georeference from 1-D coordinate arrays `lonName`, `latName`: post centres, evenly
/// spaced, in degrees. Longitudes all above 180 (0..360) are moved to -180..180.
Expected<Georef> ReadCoordinateGeoref(zip_t* archive, const std::string& lonName,
                                      const std::string& latName, Grid& grid) {
    auto lon = ReadCoordinates(archive, lonName, grid, true);
    if (!lon) return lon.error();
    auto lat = ReadCoordinates(archive, latName, grid, false);
    if (!lat) return lat.error();
    if (Expected<void> even = MakeEven(*lon, lonName, false, grid); !even) return even.error();
    if (Expected<void> even = MakeEven(*lat, latName, true, grid); !even) return even.error();
    if (std::min(lon->front(), lon->back()) > 180.0) {
        for (double& d : *lon) d -= 360.0;
    }
    // Centres to outer edges: half a step beyond the first and the last.
    double dx = (lon->back() - lon->front()) / (grid.columns - 1);
    double dy = (lat->back() - lat->front()) / (grid.rows - 1);
    return Georef{lon->front() - dx / 2, lon->back() + dx / 2, lat->front() - dy / 2,
                  lat->back() + dy / 2,  std::abs(dx),         std::abs(dy)};
}

/// The grid's georeference: the scalars if the archive has them, else coordinate arrays (which
/// may resample the grid's rows; see ImportNpz).
Expected<Georef> ReadGeoref(zip_t* archive, Grid& grid) {
    auto scalars = ReadScalarGeoref(archive);
    if (!scalars) return scalars.error();
    if (scalars->has_value()) return **scalars;
    for (auto [lonName, latName] : coordinateArrays) {
        bool hasLon = HasArray(archive, lonName), hasLat = HasArray(archive, latName);
        if (hasLon && hasLat) return ReadCoordinateGeoref(archive, lonName, latName, grid);
        if (hasLon != hasLat) {
            return Error{fmt::format("no georeference: coordinate array '{}' has no '{}'",
                                     hasLon ? lonName : latName, hasLon ? latName : lonName)};
        }
    }
    return Error{fmt::format(
        "no georeference: needs the scalars xmin, xmax, ymin, ymax or 1-D coordinate arrays "
        "longitude and latitude (or lon and lat, x and y), in degrees (arrays present: {})",
        ArrayNames(archive))};
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

/// Reorders the stored grid into Terrain's order (j south to north, i west to east): row 0 is
/// the north edge when `flipRows`, column 0 the east edge when `flipColumns`.
std::vector<float> ToTerrainOrder(const Grid& grid, bool flipRows, bool flipColumns) {
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
    t.heightsM = ToTerrainOrder(grid, g.ymin > g.ymax, g.xmin > g.xmax);
    return t;
}

Expected<Terrain> ImportFromArchive(const std::string& path, zip_t* archive,
                                    const NpzImportOptions& options) {
    Expected<std::string> name = ChooseElevationArray(archive, options.array);
    if (!name) return name.error();
    Expected<Grid> grid = ReadGrid(archive, *name);
    if (!grid) return grid.error();
    Expected<Georef> georef = ReadGeoref(archive, *grid);
    if (!georef) return georef.error();
    return BuildTerrain(path, *grid, *georef);
}

Expected<Terrain> ImportNpyFile(const std::string& path, double spacingM) {
    if (auto ok = common::CheckRange("post spacing", spacingM, kPostSpacingRangeM); !ok) {
        return ok.error();
    }
    Expected<std::vector<std::byte>> bytes = common::ReadFileBytes(path);
    if (!bytes) return bytes.error();
    Expected<NpyArray> array = ParseNpy(*bytes);
    if (!array) return array.error();
    std::string name = std::filesystem::path(path).stem().string();
    Expected<Grid> grid = GridFromArray(*array, name);
    if (!grid) return grid.error();
    Terrain t;
    t.name = name;
    t.nx = grid->columns;
    t.ny = grid->rows;
    t.spacingXM = spacingM;
    t.spacingYM = spacingM;
    t.heightsM = ToTerrainOrder(*grid, true, false);
    return t;
}

}  // namespace

Expected<Terrain> ImportNpz(const std::string& path, const NpzImportOptions& options) {
    auto fail = [&](const Error& e) { return Error{"npz '" + path + "': " + e.message}; };
    Expected<std::vector<std::byte>> bytes = common::ReadFileBytes(path);
    if (!bytes) return fail(bytes.error());
    Expected<ZipArchive> archive = OpenZip(*bytes);
    if (!archive) return fail(archive.error());
    Expected<Terrain> terrain = ImportFromArchive(path, archive->get(), options);
    if (!terrain) return fail(terrain.error());
    return terrain;
}

Expected<Terrain> ImportNpy(const std::string& path, double spacingM) {
    Expected<Terrain> terrain = ImportNpyFile(path, spacingM);
    if (!terrain) return Error{"npy '" + path + "': " + terrain.error().message};
    return terrain;
}

}  // namespace bfv::terrain
