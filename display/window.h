#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/expected.h"
#include "display/pilot.h"

struct SDL_Window;
struct SDL_Renderer;
struct SDL_Texture;

namespace bfv::display {

/// An SDL2 window showing RGB frames, and the keyboard that steers the pilot:
/// arrows or WASD steer, +/- change speed, space pauses, Esc (or closing the window) quits.
class Window {
  public:
    /// Opens a window `widthPx` x `heightPx`. Errors when no display is reachable (with a hint
    /// to use --headless or xvfb-run).
    static Expected<std::unique_ptr<Window>> Open(int widthPx, int heightPx,
                                                  const std::string& title);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    /// Reads the events that arrived since the last call and the keys held now.
    PilotInput Poll();

    /// Shows a row-major RGB image of the window's size.
    void Present(const std::vector<std::uint8_t>& rgb);

  private:
    Window() = default;

    SDL_Window* window_ = nullptr;
    SDL_Renderer* renderer_ = nullptr;
    SDL_Texture* texture_ = nullptr;
    int widthPx_ = 0;
    int heightPx_ = 0;
};

}  // namespace bfv::display
