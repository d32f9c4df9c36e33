#include "display/window.h"

#include <SDL.h>

#include <cstdlib>
#include <string_view>

namespace bfv::display {

Expected<std::unique_ptr<Window>> Window::Open(int widthPx, int heightPx,
                                               const std::string& title) {
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        return Error{std::string("cannot open a window: ") + SDL_GetError() +
                     " (use --headless, or run under xvfb-run)"};
    }
    // Without a display SDL quietly falls back to a driver that shows nothing; unless the
    // user asked for it (SDL_VIDEODRIVER), that is a window nobody can see.
    std::string_view driver = SDL_GetCurrentVideoDriver();
    if (!std::getenv("SDL_VIDEODRIVER") && (driver == "offscreen" || driver == "dummy")) {
        SDL_Quit();
        return Error{
            "cannot open a window: no display found (DISPLAY is not set); use "
            "--headless, or run under xvfb-run"};
    }
    std::unique_ptr<Window> w(new Window());
    w->widthPx_ = widthPx;
    w->heightPx_ = heightPx;
    w->window_ = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                  widthPx, heightPx, 0);
    if (w->window_) w->renderer_ = SDL_CreateRenderer(w->window_, -1, 0);
    if (w->renderer_) {
        w->texture_ = SDL_CreateTexture(w->renderer_, SDL_PIXELFORMAT_RGB24,
                                        SDL_TEXTUREACCESS_STREAMING, widthPx, heightPx);
    }
    if (!w->texture_) {
        return Error{std::string("cannot open a window: ") + SDL_GetError()};
    }
    return w;
}

Window::~Window() {
    if (texture_) SDL_DestroyTexture(texture_);
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (window_) SDL_DestroyWindow(window_);
    SDL_Quit();
}

WindowInput Window::Poll() {
    WindowInput window;
    PilotInput& input = window.pilot;
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        if (event.type == SDL_QUIT) input.quit = true;
        if (event.type == SDL_MOUSEMOTION && (event.motion.state & SDL_BUTTON_LMASK)) {
            input.lookRightPx += event.motion.xrel;
            input.lookDownPx += event.motion.yrel;
        }
        if (event.type != SDL_KEYDOWN || event.key.repeat) continue;
        switch (event.key.keysym.sym) {
            case SDLK_ESCAPE:
                input.quit = true;
                break;
            case SDLK_F12:
                window.screenshot = true;
                break;
            case SDLK_h:
                window.toggleHud = !window.toggleHud;  // twice in one poll: no change
                break;
            case SDLK_SPACE:
                input.togglePause = true;
                break;
            case SDLK_PLUS:
            case SDLK_EQUALS:
            case SDLK_KP_PLUS:
                ++input.speedSteps;
                break;
            case SDLK_MINUS:
            case SDLK_KP_MINUS:
                --input.speedSteps;
                break;
            case SDLK_PAGEUP:
            case SDLK_r:
                ++input.aglSteps;
                break;
            case SDLK_PAGEDOWN:
            case SDLK_f:
                --input.aglSteps;
                break;
            default:
                break;
        }
    }
    const Uint8* keys = SDL_GetKeyboardState(nullptr);
    input.turn = (keys[SDL_SCANCODE_RIGHT] || keys[SDL_SCANCODE_D]) -
                 (keys[SDL_SCANCODE_LEFT] || keys[SDL_SCANCODE_A]);
    input.climb = (keys[SDL_SCANCODE_UP] || keys[SDL_SCANCODE_W]) -
                  (keys[SDL_SCANCODE_DOWN] || keys[SDL_SCANCODE_S]);
    return window;
}

void Window::Present(const std::vector<std::uint8_t>& rgb) {
    SDL_UpdateTexture(texture_, nullptr, rgb.data(), widthPx_ * 3);
    SDL_RenderClear(renderer_);
    SDL_RenderCopy(renderer_, texture_, nullptr, nullptr);
    SDL_RenderPresent(renderer_);
}

}  // namespace bfv::display
