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

/// What the window's keys ask for during one frame: the pilot's steering, and what the
/// presenter does itself.
struct WindowInput {
    PilotInput pilot;
    bool screenshot = false;  // F12 was pressed: save the frame shown
    bool toggleHud = false;   // H was pressed: show or hide the overlay
};

/// An SDL2 window showing RGB frames, and the keyboard and mouse that steer the pilot:
/// arrows or WASD steer, dragging with the left button held looks around (PilotInput's
/// lookRightPx, lookDownPx), +/- change speed, PageUp/PageDown or R/F change the height above
/// ground, space pauses, H shows or hides the overlay, F12 asks for a screenshot, Esc (or closing
/// the window) quits.
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
    WindowInput Poll();

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
