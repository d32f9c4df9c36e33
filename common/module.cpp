#include "common/module.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

namespace bfv::common {

std::vector<std::string> ModuleDirs() {
    std::vector<std::string> dirs;
    std::error_code error;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) dirs.push_back(self.parent_path().string());
    std::string built = BFV_MODULE_DIR;
    if (dirs.empty() || !std::filesystem::equivalent(dirs.front(), built, error))
        dirs.push_back(built);
    return dirs;
}

Expected<void*> ModuleSymbol(const std::string& fileName, const char* symbol,
                             const std::string& purpose) {
    std::string named = fileName + " (" + purpose + ")";
    std::string tried;
    for (const std::string& dir : ModuleDirs()) {
        std::string path = dir + "/" + fileName;
        void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (module == nullptr) {
            const char* why = dlerror();
            tried += (tried.empty() ? "" : "; ") + std::string(why ? why : path);
            continue;
        }
        dlerror();
        void* address = dlsym(module, symbol);
        if (address == nullptr) return Error{named + " has no symbol '" + symbol + "'"};
        return address;
    }
    return Error{"cannot load " + named + ": " + tried + "; rebuild bfv (tools/build.sh)"};
}

}  // namespace bfv::common
