#pragma once

// .npy images built in memory, for the npz importer's tests and the fuzzer's seed corpus.

#include <string>
#include <vector>

namespace bfv::test_support {

/// A version 1.0 .npy image: magic, header dict padded to a multiple of 64 bytes, data.
/// `descr` is numpy's type string (e.g. "<i2"), `shape` a Python tuple (e.g. "(2, 3)").
inline std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                       bool fortranOrder = false) {
    std::string header = "{'descr': '" + descr +
                         "', 'fortran_order': " + (fortranOrder ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::string image = "\x93NUMPY\x01";
    image += '\0';
    image += static_cast<char>(header.size() & 0xFF);
    image += static_cast<char>(header.size() >> 8);
    return image + header + data;
}

/// The bytes of `values` as they lie in memory (little-endian on the hosts bfv runs on).
template <typename T>
std::string RawBytes(const std::vector<T>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace bfv::test_support
