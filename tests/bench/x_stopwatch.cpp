// A stopwatch over the X display, for GUI times measured to the pixels drawn rather than to a
// signal inside the program: starts a command on $DISPLAY and grabs the root window every
// 10 ms until at least PERCENT % of its pixels are ink (strong colour or mid-tone grey: the
// timeline's bands and folded band; the start page, the progress bar and the window's frame
// stay far below), then prints the seconds from the command's start to that grab and ends the
// command. X_STOPWATCH_TRACE=1 prints the share at each grab; X_STOPWATCH_PPM=FILE keeps the last.
//   x_stopwatch PERCENT TIMEOUT_S CMD [ARGS...]       (exit 1 on timeout)
#include <xcb/xcb.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {
double colouredShare(xcb_connection_t *c, const xcb_screen_t *screen)
{
    const xcb_get_image_cookie_t cookie =
        xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, screen->root, 0, 0, screen->width_in_pixels, screen->height_in_pixels, ~0u);
    xcb_get_image_reply_t *reply = xcb_get_image_reply(c, cookie, nullptr);
    if (!reply)
        return 0;
    const uint8_t *p = xcb_get_image_data(reply);
    const int bytes = xcb_get_image_data_length(reply);
    if (const char *ppm = std::getenv("X_STOPWATCH_PPM")) { // the last grab, to look at
        if (FILE *f = std::fopen(ppm, "wb")) {
            std::fprintf(f, "P6 %d %d 255\n", screen->width_in_pixels, screen->height_in_pixels);
            for (int i = 0; i + 3 < bytes; i += 4) {
                const unsigned char rgb[3] = {p[i + 2], p[i + 1], p[i]};
                std::fwrite(rgb, 1, 3, f);
            }
            std::fclose(f);
        }
    }
    long strong = 0, all = 0;
    for (int i = 0; i + 3 < bytes; i += 4, ++all) { // 24-bit depth: B, G, R, pad
        // Ink: strong colour, or a mid-tone (the folded band's grey), not the black root, the
        // window's light grey or white paper, nor text (sparse).
        const int lo = std::min({p[i], p[i + 1], p[i + 2]}), hi = std::max({p[i], p[i + 1], p[i + 2]});
        strong += hi - lo > 80 || (lo > 60 && hi < 215);
    }
    free(reply);
    return all ? 100.0 * double(strong) / double(all) : 0;
}
} // namespace

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: x_stopwatch PERCENT TIMEOUT_S CMD [ARGS...]\n");
        return 2;
    }
    const double percent = std::atof(argv[1]), timeout = std::atof(argv[2]);
    xcb_connection_t *c = xcb_connect(nullptr, nullptr);
    if (xcb_connection_has_error(c)) {
        std::fprintf(stderr, "x_stopwatch: no X display\n");
        return 2;
    }
    const xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) {
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    int code = 1;
    for (;;) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double share = colouredShare(c, screen);
        if (std::getenv("X_STOPWATCH_TRACE"))
            std::fprintf(stderr, "%.2f s: %.1f %%\n", seconds, share);
        if (share >= percent) {
            std::printf("%.3f\n", seconds);
            code = 0;
            break;
        }
        if (seconds > timeout || waitpid(child, nullptr, WNOHANG) == child)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(child, SIGTERM);
    waitpid(child, nullptr, 0);
    xcb_disconnect(c);
    return code;
}
