// The one translation unit that compiles stb_image's implementation (PNG only: 16-bit
// heightmaps, see png_import.h).
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
